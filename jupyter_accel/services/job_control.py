"""Controlling a job that exists: Kueue's stop and resume, and a new time limit. Mixed into JobsService, whose
caches, writer, settings and lookups these use; blocking, run off the event loop by the caller."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..cluster.writes import Ref, WriteError
from ..domain import labels as L
from ..domain.kinds import spec_of_kind
from ..domain.time_limit import LimitRefused, plan_limit, stopped_at_limit
from ..domain.workloads import find_workload_for_job
from ..models import JobKind, JobView
from .errors import Conflict, Invalid, NotVisible

if TYPE_CHECKING:
    from .ports import Caches, JobSettings, Writer

# Kueue makes a queued job's Workload a moment after the job. A stop asked in that moment waits for it this long:
# the job itself was created suspended, and Kueue would undo a suspend of the job when it admits the Workload.
WORKLOAD_WAIT_S = 10.0


class JobControl:
    hub: Caches
    writer: Writer
    settings: JobSettings
    namespace: str

    if TYPE_CHECKING:  # JobsService's lookups

        def _writable(self) -> None: ...
        def cached(self, kind: JobKind, name: str) -> dict[str, Any]: ...
        def ref(self, kind: JobKind, name: str) -> Ref: ...
        def _fresh_view(self, obj: dict[str, Any]) -> JobView: ...

    def set_suspended(self, kind: JobKind, name: str, suspend: bool) -> JobView:
        """Kueue's stop / resume: deactivate the Workload when there is one, else suspend the job itself."""
        self._writable()
        obj = self.cached(kind, name)
        wl = self._workload_of(obj)
        done = False
        if wl is not None:
            if not suspend and stopped_at_limit(wl):  # Kueue 0.17 would stop it again at once (time_limit.py)
                raise Conflict(
                    f"{name} reached its time limit; extend its limit to queue it again "
                    f"(POST jobs/{kind.value}/{name}/limit, or %accel extend {name} 2h)."
                )
            wl_ref = self._workload_ref(wl)
            try:
                self.writer.merge_patch(wl_ref, {"spec": {"active": not suspend}})
                done = True
            except WriteError as exc:
                if exc.status == 403:  # Kueue reverts a suspend of the job itself, so there is no fallback
                    raise NotVisible(
                        f"not visible to your account: {'suspending' if suspend else 'resuming'} "
                        f"a queued job is Kueue's stop / resume of its Workload, and your account may "
                        f"not patch Workloads in {self.namespace}."
                    ) from None
                raise
        if not done:
            patch = spec_of_kind(kind).suspend_patch(suspend)
            self.writer.merge_patch(self.ref(kind, name), patch)
        return self._fresh_view(self.cached(kind, name))

    def _workload_of(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The job's Workload; for a job Kueue queues, waited for while Kueue has not made it yet."""
        queued = bool(((obj.get("metadata") or {}).get("labels") or {}).get(L.QUEUE_NAME))
        deadline = time.monotonic() + (WORKLOAD_WAIT_S if queued and self.hub.readable("workloads") else 0)
        while (wl := find_workload_for_job(self.hub.items("workloads"), obj)) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        return wl

    def _workload_ref(self, wl: dict[str, Any]) -> Ref:
        version = self.hub.version("kueue.x-k8s.io") or ""
        return Ref("kueue.x-k8s.io", version, "workloads", self.namespace, wl["metadata"]["name"])

    def set_time_limit(
        self, kind: JobKind, name: str, *, max_run_seconds: int | None = None, extend_seconds: int | None = None
    ) -> JobView:
        """Blocking. A new time limit within the admin's ceiling: `max_run_seconds` in all, or `extend_seconds`
        more. What reaches Kueue depends on the job's state (domain/time_limit.py): the job's label while it is
        queued or suspended, Kueue's count of time used while it runs, a fresh Workload once Kueue stopped it at
        its limit. Nothing is written when the request is refused."""
        self._writable()
        job = self.cached(kind, name)
        cached_wl = self._workload_of(job)  # one just submitted: Kueue makes its Workload a moment later
        wl = self.writer.get(self._workload_ref(cached_wl)) if cached_wl is not None else None
        try:
            plan = plan_limit(
                job,
                wl,
                max_run_seconds=max_run_seconds,
                extend_seconds=extend_seconds,
                ceiling=self.settings.max_run_seconds_limit,
            )
        except LimitRefused as exc:
            raise Invalid(f"{exc.field}: {exc.message}", field=exc.field) from None
        if plan.status_patch is not None and wl is not None:
            try:
                self.writer.merge_patch(self._workload_ref(wl), plan.status_patch, subresource="status")
            except WriteError as exc:
                if exc.status == 403:
                    raise NotVisible(
                        f"not visible to your account: Kueue keeps a running job's time limit fixed, so extending "
                        f"{name} while it runs lowers Kueue's count of the time it has used, and your account may "
                        f"not patch workloads/status in {self.namespace}. Ask your admin for that, or extend it "
                        "while it is suspended or queued."
                    ) from None
                if exc.status == 409:  # Kueue changed it meanwhile (an eviction): the plan is stale
                    raise Conflict(f"Kueue changed {name}'s Workload meanwhile; try again.") from None
                raise
        if plan.job_patch is not None:
            try:
                self.writer.merge_patch(self.ref(kind, name), plan.job_patch)
            except WriteError as exc:
                if plan.status_patch is None and exc.status in (400, 403, 422):
                    # the label is immutable once the job runs: Kueue admitted it between our read and the write
                    raise Conflict(f"{name} was admitted meanwhile; try again to extend it while it runs.") from None
                raise
        if plan.replace_workload and wl is not None:
            try:
                self.writer.delete(self._workload_ref(wl))
            except WriteError as exc:
                if exc.status == 403:
                    raise NotVisible(
                        f"not visible to your account: {name}'s limit is now {plan.limit} seconds, but Kueue 0.17 "
                        "keeps a job stopped at its limit stopped; it runs again on a new Workload, and your "
                        f"account may not delete Workloads in {self.namespace}. Ask your admin, or delete the job "
                        "and launch it again."
                    ) from None
                raise
        return self._fresh_view(self.cached(kind, name))
