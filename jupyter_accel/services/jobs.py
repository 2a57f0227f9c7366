"""The jobs service: read jobs from the caches, check fit, submit, control, clean up.

Its dependencies are explicit (the caches, a writer, the accelerator registry, its settings), so it runs against
the real IdentityCaches and ClusterWriter in the server and against plain dicts in tests. Reads use the caches only; writes
are blocking calls, run off the event loop by the caller. Refusals are services.errors, never HTTP.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..cluster.trim import trim_generic
from ..cluster.writes import Ref, WriteError
from ..cluster.written import caught_up
from ..domain import labels as L
from ..domain.builders import Build
from ..domain.builders.common import with_owner
from ..domain.eta import parse_time
from ..domain.job_status import JobSeen, ViewRules, derive_status, job_view
from ..domain.kinds import KINDS, KindSpec, spec_of_cr_kind, spec_of_kind
from ..domain.presentation import FINISHED
from ..domain.progress import ray_task_progress
from ..domain.ray_activity import JOBS as RAY_JOBS
from ..domain.ray_activity import submissions
from ..models import (
    CleanupResponse,
    DataSourcesResponse,
    EventView,
    FieldError,
    FitResponse,
    JobDetail,
    JobKind,
    JobRequest,
    JobsResponse,
    JobStatus,
    JobView,
    RayPackage,
    RayPackageRequest,
    RaySubmission,
    SubmitResponse,
    Visibility,
)
from . import job_logs, launch, workdir
from .errors import Conflict, Invalid, NotFound, ReadOnly, ServiceError, invalid
from .estimates import queued_ahead, start_estimate
from .job_control import JobControl
from .ports import Caches, JobSettings, Writer
from .refusals import dashboard_refusal, refusal
from .snapshot import Snapshot

if TYPE_CHECKING:
    from ..cluster.kept_logs import KeptLogStore
    from ..domain.accelerators import AcceleratorRegistry
    from .idle import IdleWatch


class JobsService(JobControl):
    def __init__(
        self,
        hub: Caches,
        writer: Writer,
        registry: AcceleratorRegistry,
        settings: JobSettings,
        idle: IdleWatch | None = None,
        kept_logs: KeptLogStore | None = None,
    ):
        self.hub = hub
        self.kept_logs = kept_logs  # the server's copies of its jobs' logs (cluster/kept_logs.py); None: not kept
        self.writer = writer
        self.registry = registry
        self.settings = settings
        self.namespace = hub.namespace
        self.idle = idle  # which interactive Ray clusters run nothing (services/idle.py); None: not watched

    # -- reading ---------------------------------------------------------------------------------------------
    def served_kinds(self) -> list[JobKind]:
        return [s.kind for s in KINDS if s.cache_key in self.hub.informers]

    def known_accelerators(self) -> list[str]:
        return launch.known_accelerators(self.hub, self.registry)

    def snapshot(self) -> Snapshot:
        """A reading of the caches as they are now (services/snapshot.py): the slices and their indexes, built once
        for the answer that takes it. Never kept on the service: api/answers keeps `list_jobs` itself and calls it
        again when the caches change, and each call must read them afresh."""
        return Snapshot.of(self.hub, self.known_accelerators())

    def _view(self, obj: dict[str, Any], snap: Snapshot, with_ahead: bool = True) -> JobView:
        """One job's view from the snapshot's indexes. A list leaves out the workloads ahead of each queued job
        (`with_ahead`): 500 queued jobs of one queue would carry 125,000 of them, a scan of the queue each (the
        detail carries them)."""
        wl = snap.by_job.for_job(obj)
        pos = snap.positions.get((self.namespace, wl["metadata"]["name"]), (None, None))[0] if wl else None
        uid = (obj.get("metadata") or {}).get("uid")
        return job_view(
            obj,
            JobSeen(
                workload=wl,
                pods=snap.by_label.select(obj),
                events=snap.events_by_object.get((obj.get("kind") or "", obj["metadata"]["name"]), []),
                position=pos,
                eta=start_estimate(snap, wl) if wl is not None else None,
                ahead=queued_ahead(snap, wl) if wl is not None and with_ahead else (),
                reading=snap.reading,
                simulated=snap.simulated,
                idle_since=self.idle.idle_since(uid) if self.idle else None,
                progress=ray_task_progress(self.idle.task_counts(uid)) if self.idle else None,
            ),
            ViewRules(
                known_accelerators=snap.known_accelerators,
                writable=not self.settings.read_only,
                limit_ceiling=self.settings.max_run_seconds_limit,
                idle_after=self.idle.after if self.idle else 0,
            ),
        )

    def list_jobs(self, scope: str) -> JobsResponse:
        check_scope(scope)
        snap = self.snapshot()  # the indexes once per list: not a scan per job
        workbench = self.settings.workbench_label
        views: list[JobView] = []
        visibility: dict[str, Visibility] = {}
        for kind in self.served_kinds():
            info = spec_of_kind(kind)
            if not self.hub.readable(info.cache_key):
                visibility[kind.value] = Visibility(visible=False, message="not visible to your account")
                continue
            visibility[kind.value] = Visibility()
            for obj in self.hub.items(info.cache_key):
                obj = self._typed(info, obj)
                if scope == "mine" and not _mine(obj, workbench):
                    continue
                views.append(self._view(obj, snap, with_ahead=False))
        views.sort(key=lambda v: v.created or "", reverse=True)
        return JobsResponse(jobs=views, scope=scope, kinds_served=self.served_kinds(), visibility=visibility)

    def _typed(self, info: KindSpec, obj: dict[str, Any]) -> dict[str, Any]:
        """A cached object with the apiVersion and kind that lists and watches leave out of their items."""
        return {"apiVersion": f"{info.group}/{self.hub.version(info.group)}", "kind": info.cr_kind, **obj}

    def cached(self, kind: JobKind, name: str) -> dict[str, Any]:
        """The job as the caches hold it, after they took this server's own writes (blocking)."""
        caught_up(self.hub)
        info = self._served(kind)
        obj = self.hub.get(info.cache_key, name, self.namespace)
        if obj is None:
            raise NotFound(f"No {info.cr_kind} named {name!r} in namespace {self.namespace}.")
        return self._typed(info, obj)

    def detail(self, kind: JobKind, name: str) -> JobDetail:
        """Blocking (run off the event loop): a job the watch has not brought yet, such as one just submitted, is
        read from the API server, so a detail right after the submit is not a 404."""
        try:
            obj = self.cached(kind, name)
        except NotFound:
            fresh = self.writer.get(self.ref(kind, name))
            if fresh is None:
                raise
            obj = self._typed(self._served(kind), trim_generic(fresh))
        snap = self.snapshot()
        pods = snap.by_label.select(obj)
        view = self._view(obj, snap)
        about = {("Pod", p["metadata"]["name"]) for p in pods} | {(obj["kind"], name)}
        if view.workload:
            about.add(("Workload", view.workload))
        events = [
            EventView(
                type=e.get("type"),
                reason=e.get("reason"),
                message=e.get("message"),
                object=f"{e['involvedObject'].get('kind')}/{e['involvedObject'].get('name')}",
                count=e.get("count") or 1,
                last_seen=e.get("lastTimestamp")
                or e.get("eventTime")
                or (e.get("metadata") or {}).get("creationTimestamp"),
            )
            for key in sorted(about)
            for e in snap.events_by_object.get(key, [])
        ]
        events.sort(key=lambda e: e.last_seen or "")
        has_dashboard = spec_of_kind(kind).ray_cluster is not None
        dashboard = f"{self.settings.api_base}jobs/{kind.value}/{name}/dashboard/" if has_dashboard else None
        logs = job_logs.summary(self, self.kept_logs, obj, pods)
        ray_jobs, note = (
            self._ray_jobs(kind, name) if has_dashboard and view.status == JobStatus.running else (None, None)
        )
        return JobDetail(
            job=view, events=events, dashboard_path=dashboard, logs=logs, ray_jobs=ray_jobs, ray_jobs_note=note
        )

    def _ray_jobs(self, kind: JobKind, name: str) -> tuple[list[RaySubmission] | None, str | None]:
        """The Ray jobs submitted to a running cluster, from its dashboard (one call, when the detail is read)."""
        try:
            answer = self.writer.read_path(self.dashboard_target(kind, name, RAY_JOBS[0])[1])
        except (WriteError, ServiceError, OSError) as exc:
            return (
                None,
                f"Its Ray dashboard did not answer ({getattr(exc, 'message', None) or exc}), so its Ray jobs are not listed.",
            )
        found = submissions(answer)
        return found, None if found is not None else "Its Ray dashboard's job list has an unknown shape."

    def _check_references(self, request: JobRequest) -> None:
        """The PVCs and Secrets a request mounts (and pulls its image with) exist in the namespace (a 400 naming each missing one, before
        anything is created). Only their metadata is read; an account that may not read them is not refused here
        (the pods then say what is missing)."""
        wanted = [(f"volumes[{i}].claim", "persistentvolumeclaims", "PersistentVolumeClaim", v.claim)
                  for i, v in enumerate(request.volumes)]  # fmt: skip
        wanted += [(f"secrets[{i}].name", "secrets", "Secret", s.name) for i, s in enumerate(request.secrets)]
        wanted += [
            (f"image_pull_secrets[{i}]", "secrets", "Secret", n) for i, n in enumerate(request.image_pull_secrets)
        ]
        errors = []
        for field, plural, kind, name in wanted:
            try:
                found = self.writer.metadata(Ref("", "v1", plural, self.namespace, name))
            except WriteError as exc:
                if exc.status == 403:
                    continue
                raise
            if found is None:
                errors.append(FieldError(field=field, message=f"no {kind} {name!r} in namespace {self.namespace}"))
        if errors:
            raise invalid(errors)

    def data_sources(self) -> DataSourcesResponse:
        """The namespace's PVCs and connections (Secrets by their metadata only), each part "not visible to your
        account" where this identity may not list it."""
        from ..domain.data_sources import claim_view, connection_view

        out = DataSourcesResponse()
        try:
            claims = self.writer.list_objects(Ref("", "v1", "persistentvolumeclaims", self.namespace, ""), "")
            out.claims = sorted((claim_view(c) for c in claims), key=lambda c: c.name)
        except WriteError as exc:
            if exc.status != 403:
                raise
            out.visibility["claims"] = Visibility(visible=False, message="PVCs are not visible to your account")
        try:
            secrets = self.writer.list_metadata(Ref("", "v1", "secrets", self.namespace, ""))
            found = (connection_view(s) for s in secrets)
            out.connections = sorted((c for c in found if c is not None), key=lambda c: c.name)
        except WriteError as exc:
            if exc.status != 403:
                raise
            out.visibility["connections"] = Visibility(
                visible=False, message="Connections are not visible to your account"
            )
        return out

    def kind_of(self, obj: dict[str, Any]) -> str:
        """The JobKind value of a typed job object."""
        spec = spec_of_cr_kind(str(obj.get("kind", "")))
        if spec is None:
            raise Invalid(f"kind: {obj.get('kind')!r} is not a job kind", field="kind")
        return spec.kind.value

    def ended(self, obj: dict[str, Any]) -> bool:
        """The job finished (succeeded or failed), from the CR alone."""
        return bool(obj.get("status")) and derive_status(obj, None, [])[0] in FINISHED

    def own_jobs(self, also: set[str] | None = None) -> list[dict[str, Any]]:
        """This workbench's jobs (what scope `mine` lists) and the jobs of the uids in `also`, typed."""
        workbench, out, also = self.settings.workbench_label, [], also or set()
        for kind in self.served_kinds():
            info = spec_of_kind(kind)
            for obj in self.hub.items(info.cache_key):
                if _mine(obj, workbench) or (obj.get("metadata") or {}).get("uid") in also:
                    out.append(self._typed(info, obj))
        return out

    def ray_package(self, kind: JobKind, name: str, request: RayPackageRequest) -> RayPackage:
        """Pack a folder of the server's files as Ray's working-dir package and upload it to the cluster's head (Ray's
        Jobs API through the service proxy): its URI goes in a Ray job's runtime_env. Blocking."""
        if self.settings.read_only:
            raise ReadOnly("Running Ray jobs is switched off on this server (read-only).")
        if not self.settings.files_root:
            raise Invalid("workdir: this server has no files of its own to send (no root folder)", field="workdir")
        spec, obj = spec_of_kind(kind), self.cached(kind, name)
        if not spec.takes_ray_jobs or not spec.running(obj):
            raise Conflict(
                f"cluster: {name} is not a running Ray cluster; it takes Ray jobs once it runs", field="cluster"
            )
        uri, data, count = workdir.pack_ray_package(self.settings.files_root, request.workdir)
        cluster, path = self.dashboard_target(kind, name, f"api/packages/gcs/{uri.removeprefix('gcs://')}")
        try:
            status, _ = self.writer.send_path("PUT", path, data, "application/octet-stream")
        except WriteError as exc:
            status = exc.status or 502
        failed = dashboard_refusal(status, cluster, "PUT")
        if failed is not None:
            raise failed
        return RayPackage(uri=uri, files=count, size_bytes=len(data))

    def dashboard_target(self, kind: JobKind, name: str, subpath: str) -> tuple[str, str]:
        """(the RayCluster, the API server path of its head's dashboard + `subpath`), for the service proxy.
        `subpath` must already be made safe (api/jobs.dashboard_subpath)."""
        spec = spec_of_kind(kind)
        if spec.ray_cluster is None:
            having = " and ".join(s.kind.value for s in KINDS if s.ray_cluster is not None)
            raise Invalid(f"kind: only {having} have a Ray dashboard", field="kind")
        cluster = spec.ray_cluster(self.cached(kind, name))
        if not cluster:
            raise NotFound(f"{name} has no Ray cluster yet.", reason="No cluster")
        path = f"/api/v1/namespaces/{self.namespace}/services/{cluster}-head-svc:dashboard/proxy/{subpath}"
        return cluster, path

    def _served(self, kind: JobKind) -> KindSpec:
        info = spec_of_kind(kind)
        if info.cache_key not in self.hub.informers:
            raise Invalid(f"kind: this cluster does not serve {info.cr_kind} ({info.group}).", field="kind")
        return info

    def ref(self, kind: JobKind, name: str) -> Ref:
        info = self._served(kind)
        return Ref(info.group, self.hub.version(info.group) or "", info.plural, self.namespace, name)

    # -- request preparation and the fit check (services/launch.py) -----------------------------------------
    def prepare(self, request: JobRequest) -> Build:
        """Validate and build once; raises Invalid naming every bad field."""
        self._served(request.kind)
        return launch.prepare(self.hub, self.registry, self.settings, request)

    def fit(self, request: JobRequest) -> FitResponse:
        self._served(request.kind)
        return launch.fit(self.hub, self.registry, self.settings, request)

    # -- writes (blocking) -----------------------------------------------------------------------------------
    def submit(self, request: JobRequest) -> tuple[SubmitResponse, int]:
        if self.settings.read_only:
            raise ReadOnly("Launching jobs is switched off on this server (read-only).")
        objects = self.prepare(request).objects
        self._check_references(request)
        existing = self._by_request_id(request)
        if existing is not None:
            return self._found_again(existing, objects)
        job, extra = objects[0], objects[1:]
        try:
            for obj in objects:  # the API server's own validation first: nothing is created on a bad spec
                self.writer.create(obj, self.namespace, dry_run=True)
            created = self.writer.create(job, self.namespace)
        except WriteError as exc:
            if exc.status == 409 and request.client_request_id:
                found = self._by_request_id(request)
                if found is not None:
                    return self._found_again(found, objects)
            raise refusal(exc, job) from None
        names = [f"{job['kind']}/{created['metadata']['name']}"]
        try:
            for obj in extra:  # e.g. the script ConfigMap, owned by the job so deleting the job removes it
                out = self.writer.create(with_owner(obj, created), self.namespace)
                names.append(f"{obj['kind']}/{out['metadata']['name']}")
        except WriteError as exc:
            # both or neither: the job goes again when its ConfigMap could not be made
            self._roll_back(created)
            raise refusal(exc, extra[0]) from None
        return SubmitResponse(job=self._fresh_view(created), created=True, objects=names), 201

    def _found_again(self, job: dict[str, Any], objects: list[dict[str, Any]]) -> tuple[SubmitResponse, int]:
        """A retry found the job of its client_request_id. The try that made it may have lost its answer between the
        job and the rest (the script ConfigMap): what is missing is made now, owned by the job, so the retry ends
        where that answer would have; what exists stays (409)."""
        made = []
        if job["metadata"]["name"] == objects[0]["metadata"]["name"]:  # the same request: the same objects
            for obj in objects[1:]:
                try:
                    out = self.writer.create(with_owner(obj, job), self.namespace)
                    made.append(f"{obj['kind']}/{out['metadata']['name']}")
                except WriteError as exc:
                    if exc.status != 409:
                        raise refusal(exc, obj) from None  # the job stays: the next retry completes it
        return SubmitResponse(job=self._fresh_view(job), created=False, objects=made), 200

    def _roll_back(self, created: dict[str, Any], tries: int = 4) -> None:
        ref = Ref.of(created, self.namespace)
        for attempt in range(tries):
            try:
                self.writer.delete(ref)
                return
            except WriteError as exc:
                if exc.status == 404:
                    return
            except Exception:  # the API server went away in between: try again shortly
                pass
            time.sleep(0.5 * 2**attempt)

    def _by_request_id(self, request: JobRequest) -> dict[str, Any] | None:
        if not request.client_request_id:
            return None
        info = spec_of_kind(request.kind)
        for obj in self.hub.items(info.cache_key):
            ann = (obj.get("metadata") or {}).get("annotations") or {}
            if ann.get(L.REQUEST_ID) == request.client_request_id:
                return self._typed(info, obj)
        # the cache may lag a create by a few milliseconds: ask the API server by label
        ref = Ref(info.group, self.hub.version(info.group) or "", info.plural, self.namespace, "")
        items = self.writer.list_objects(ref, f"{L.REQUEST_ID}={request.client_request_id}")
        return self._typed(info, items[0]) if items else None

    def view(self, kind: JobKind, name: str) -> JobView:
        """One job as the list shows it, from the caches (blocking)."""
        return self._fresh_view(self.cached(kind, name))

    def _fresh_view(self, obj: dict[str, Any]) -> JobView:
        caught_up(self.hub)  # after this server's own write: a reading of the caches taken now, not the request's
        return self._view(obj, self.snapshot())

    def delete(self, kind: JobKind, name: str) -> None:
        self._writable()
        self.cached(kind, name)
        self.writer.delete(self.ref(kind, name))

    def cleanup(self, older_than: int, scope: str, dry_run: bool) -> CleanupResponse:
        if not dry_run:
            self._writable()
        now = datetime.now(UTC)
        doomed = []
        for view in self.list_jobs(scope).jobs:
            if view.status not in FINISHED or not view.managed_by_us:
                continue
            ended = parse_time(view.end_time) or parse_time(view.created)
            if ended is not None and (now - ended).total_seconds() >= older_than:
                doomed.append(view)
        if not dry_run:
            for v in doomed:
                self.writer.delete(self.ref(v.kind, v.name))
        return CleanupResponse(deleted=[f"{v.kind.value}/{v.name}" for v in doomed], dry_run=dry_run)

    def _writable(self) -> None:
        if self.settings.read_only:
            raise ReadOnly("Controlling jobs is switched off on this server (read-only).")


SCOPES = ("mine", "namespace")


def check_scope(scope: str) -> str:
    if scope not in SCOPES:
        raise Invalid(f"scope: {scope!r} is not allowed; allowed: {', '.join(SCOPES)}", field="scope")
    return scope


def _mine(obj: dict[str, Any], workbench: str | None) -> bool:
    if not L.is_managed(obj):
        return False
    if workbench is None:
        return True
    return ((obj.get("metadata") or {}).get("labels") or {}).get(L.WORKBENCH) == workbench
