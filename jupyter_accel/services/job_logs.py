"""Where a job's log comes from: a live pod through the API server, or the server's kept copy (cluster/kept_logs.py)
once the pods are gone, or every pod at once. Blocking (cache reads and small files), run off the event loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..cluster.kept_logs import KeptLogStore, KeptPod, Tracked
from ..domain.job_status import PodsByLabel, pod_role, select_pods
from ..domain.kinds import log_pod, spec_of_kind
from ..domain.log_lines import pod_label
from ..models import JobKind, JobLogs, LogPod
from .errors import Invalid, NotFound

if TYPE_CHECKING:
    from .jobs import JobsService


@dataclass(frozen=True)
class LogPlan:
    """What a logs request reads. `live`: pods to read through the API server (name -> label); `kept`: pods of the
    server's copy (uid, their records). A single-pod request has one entry in either."""

    job: str
    uid: str
    live: dict[str, str] = field(default_factory=dict)
    kept: list[KeptPod] = field(default_factory=list)
    all_pods: bool = False


def plan(
    ops: JobsService, store: KeptLogStore | None, kind: JobKind, name: str, pod: str | None, all_pods: bool
) -> LogPlan:
    """Blocking. Every pod (`all_pods`): the kept copy when the server keeps this job's logs, else the live pods.
    One pod: live while it exists, else its kept copy; the default pod is the one holding the job's output."""
    job = ops.cached(kind, name)
    uid = (job.get("metadata") or {}).get("uid") or ""
    spec = spec_of_kind(kind)
    pods = select_pods(job, ops.hub.items("pods"))
    live = {p["metadata"]["name"]: pod_label(name, p["metadata"]["name"]) for p in pods}
    kept = store.pods(uid) if store is not None and uid else []
    if all_pods:
        return LogPlan(name, uid, live=live, kept=kept, all_pods=True)
    if pod is None:
        pod = log_pod(spec, pods) or _first_kept(spec.roles, name, kept)
    if pod is None:
        if ops.ended(job):
            raise NotFound(
                f"{name} has ended and its pods were removed by its operator; no log of them was kept "
                f"({_why_not_kept(store)}).",
                reason="No pods",
            )
        raise NotFound(f"{name} has no pods yet, so there are no logs.", reason="No pods")
    if pod in live:
        return LogPlan(name, uid, live={pod: live[pod]})
    found = next((k for k in kept if k.pod == pod), None)
    if found is not None:
        return LogPlan(name, uid, kept=[found])
    raise Invalid(f"pod: {pod!r} is not a pod of {name}", field="pod")


def _first_kept(roles: tuple[str, ...], job: str, kept: list[KeptPod]) -> str | None:
    """The kept pod holding the job's output: by the kind's role order, read from the pod's name."""

    def rank(k: KeptPod) -> tuple[int, str]:
        label = pod_label(job, k.pod)
        place = next((i for i, r in enumerate(roles) if label.startswith(r)), len(roles))
        return place, k.pod

    return min(kept, key=rank).pod if kept else None


def _why_not_kept(store: KeptLogStore | None) -> str:
    if store is None:
        return "keeping logs is switched off on this server: c.AccelConfig.kept_logs_job_bytes = 0"
    return "it was not launched from this workbench, or its pods ended before the server could read them"


def summary(ops: JobsService, store: KeptLogStore | None, job: dict[str, Any], pods: list[dict[str, Any]]) -> JobLogs:
    """The detail's account of the job's logs: each pod, live or kept, and one sentence for the case with no pods."""
    meta = job.get("metadata") or {}
    name, uid = meta.get("name") or "", meta.get("uid") or ""
    spec = spec_of_kind(JobKind(ops.kind_of(job)))
    kept = {k.pod: k for k in (store.pods(uid) if store is not None and uid else [])}
    rows: list[LogPod] = []
    for p in pods:
        pname = p["metadata"]["name"]
        k = kept.get(pname)
        rows.append(_row(name, pname, pod_role(spec, p), True, k))
    for pname, k in sorted(kept.items()):
        if pname not in {r.pod for r in rows}:
            rows.append(_row(name, pname, None, False, k))
    if pods:
        sentence = None
    elif rows:
        sentence = f"Its {len(rows)} pod{'s' if len(rows) != 1 else ''} ran and were removed; their logs were kept."
    elif ops.ended(job):
        sentence = f"Its pods ran and were removed; no log of them was kept ({_why_not_kept(store)})."
    else:
        sentence = "No pods yet."
    return JobLogs(pods=rows, kept=store is not None, sentence=sentence)


def _row(job: str, pod: str, role: str | None, live: bool, k: KeptPod | None) -> LogPod:
    return LogPod(
        pod=pod,
        label=pod_label(job, pod),
        role=role,
        live=live,
        kept=k is not None and (k.bytes > 0 or k.complete),
        kept_since=k.since if k else None,
        kept_bytes=k.bytes if k else 0,
        truncated=bool(k and k.truncated),
        complete=bool(k and k.complete),
        lost=k.lost if k else None,
    )


def tracked(ops: JobsService, also: set[str]) -> list[Tracked]:
    """The jobs whose pods' logs the server keeps: this workbench's own (those `mine` lists) and any job whose every
    pod a user followed (`also`, by uid), each with its pods now."""
    by_label = PodsByLabel(ops.hub.items("pods"))
    out = []
    for obj in ops.own_jobs(also):
        pods = by_label.select(obj)
        if pods:
            meta = obj["metadata"]
            out.append(Tracked(meta.get("uid") or "", ops.kind_of(obj), meta.get("name") or "", pods))
    return out
