"""One status model across RayCluster, RayJob, PyTorchJob and TrainJob, with the reason behind it.

Derived from the Kueue Workload (may be None), the job CR and its pods together, never from one field alone:
KubeRay's and Kubeflow's own status fields lag and contradict each other (RayJob RUNNING with deployment Failed,
TrainJob without a Running condition, Kueue admitting while the CR still reads Suspended).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from ..models.fit import PendingAhead
from ..models.jobs import JobKind, JobProgress, JobStatus, JobView, PodSummary
from . import labels as L
from .builders import pod_sets
from .builders.common import is_accelerator
from .eta import StartEstimate, deadline, time_limit_sentence
from .inventory import is_active_pod
from .kinds import KindSpec, pod_role, spec_of_object
from .objects import condition as _cond
from .objects import field as _get
from .objects import is_true as _is_true
from .objects import sentence as _sentence
from .presentation import FINISHED, job_display, pod_tone
from .ray_activity import idle_warning
from .resources import pod_requests
from .time_limit import current_limit, stopped_at_limit, stopped_sentence
from .workload_state import NEVER
from .workloads import WorkloadContext

_POD_START_WAITING = ("ContainerCreating", "PodInitializing")


def job_kind(obj: Mapping[str, Any]) -> JobKind | None:
    spec = spec_of_object(obj)
    return spec.kind if spec else None


# ------------------------------------------------------------------------------------------------------ pods


def pod_selectors(obj: Mapping[str, Any]) -> list[dict[str, str]]:
    """Equality label selectors of a job's pods (a pod belongs to the job when it matches any of them)."""
    spec = spec_of_object(obj)
    return spec.pod_selectors(obj) if spec else []


def label_selector(selector: Mapping[str, str]) -> str:
    """A selector as the API's labelSelector string."""
    return ",".join(f"{k}={v}" for k, v in selector.items())


def select_pods(obj: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The job's pods out of a (cached) list of pods of its namespace (PodsByLabel's rule; for many jobs, build
    one PodsByLabel)."""
    return PodsByLabel(pods).select(obj)


class PodsByLabel:
    """Pods indexed once by their labels, so that a list of 500 jobs finds each job's pods by its selector's first
    label instead of testing every pod 500 times. A pod is the job's when it is in the job's namespace (or names
    none) and carries every label of one of the kind's pod selectors; the pods keep their cached order."""

    def __init__(self, pods: Iterable[Mapping[str, Any]]) -> None:
        self._pods = list(pods)
        self._by_label: dict[tuple[str, str], list[int]] = {}
        for i, pod in enumerate(self._pods):
            for item in (_get(pod, "metadata", "labels") or {}).items():
                self._by_label.setdefault(item, []).append(i)

    def select(self, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
        namespace = _get(obj, "metadata", "namespace")
        found: set[int] = set()
        for selector in pod_selectors(obj):
            first = next(iter(selector.items()), None)
            candidates = range(len(self._pods)) if first is None else self._by_label.get(first, [])
            for i in candidates:
                labels = _get(self._pods[i], "metadata", "labels") or {}
                if all(labels.get(k) == v for k, v in selector.items()):
                    found.add(i)
        out = []
        for i in sorted(found):
            pod = self._pods[i]
            if namespace and _get(pod, "metadata", "namespace") not in (None, namespace):
                continue
            out.append(dict(pod))
        return out


# The Training Operator's event when a replica's container fails (its pod is deleted right after, when the job
# fails): "Error pod <pod> container <container> exitCode: <n> terminated message: <log tail>".
_OPERATOR_EXIT = re.compile(r"^Error pod (\S+) container \S+ exitCode: (-?\d+) terminated message: ?(.*)$", re.S)


def _exit_cause(pod: str, code: Any, message: str | None) -> str:
    """'<pod> exited with code N (<the last line it printed>)'. The builders set terminationMessagePolicy
    FallbackToLogsOnError, so the kubelet copies a failed container's log tail into its termination message."""
    lines = [ln.strip() for ln in str(message or "").splitlines() if ln.strip()]
    head = f"{pod} exited with code {code}"
    return f"{head} ({lines[-1]})" if lines else head


def _failed_container(pods: Sequence[Mapping[str, Any]], events: Sequence[Mapping[str, Any]] = ()) -> str | None:
    """Why a failed job failed, from the first container that exited non-zero: its pod if still there, else the
    operator's event about it (the newest)."""
    for pod in sorted(pods, key=lambda p: _get(p, "metadata", "name") or ""):
        for c in _get(pod, "status", "containerStatuses") or []:
            term = _get(c, "state", "terminated") or _get(c, "lastState", "terminated")
            if term and int(term.get("exitCode", 0) or 0) != 0:
                return _exit_cause(_get(pod, "metadata", "name") or "", term.get("exitCode"), term.get("message"))
    newest = sorted(events, key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "", reverse=True)
    for ev in newest:
        if (m := _OPERATOR_EXIT.match(str(ev.get("message") or ""))) and m.group(2) != "0":
            return _exit_cause(m.group(1), m.group(2), m.group(3))
    return None


def pod_ready(pod: Mapping[str, Any]) -> bool:
    return _get(pod, "status", "phase") == "Running" and _is_true(_cond(pod, "Ready"))


def pod_reason(pod: Mapping[str, Any]) -> str | None:
    """Why a pod is not (yet) running, in the words Kubernetes uses; None when it is fine."""
    status = pod.get("status") or {}
    phase = status.get("phase")
    if _get(pod, "metadata", "deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        return "Terminating"  # a finished pod being removed says how it ended, below
    if phase == "Succeeded":
        return None
    gates = _get(pod, "spec", "schedulingGates") or []
    if gates:
        return _sentence("SchedulingGated", "waiting for " + ", ".join(g.get("name", "?") for g in gates))
    scheduled = _cond(pod, "PodScheduled")
    if scheduled and not _is_true(scheduled):
        return _sentence(scheduled.get("reason") or "Unschedulable", scheduled.get("message"))
    containers = [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]
    for c in containers:
        waiting = _get(c, "state", "waiting")
        if waiting and waiting.get("reason") not in _POD_START_WAITING:
            last = _get(c, "lastState", "terminated")
            previous = f"last exit {last.get('reason', 'Error')} (code {last.get('exitCode')})" if last else None
            return _sentence(f"{c.get('name')}: {waiting.get('reason', 'Waiting')}", waiting.get("message"), previous)
    if phase == "Failed":
        for c in containers:
            term = _get(c, "state", "terminated")
            if term and term.get("exitCode", 0) != 0:
                return _sentence(
                    f"{c.get('name')}: {term.get('reason', 'Error')} (exit code {term.get('exitCode')})",
                    term.get("message"),
                )
        return _sentence(status.get("reason") or "Failed", status.get("message"))
    for c in containers:
        waiting = _get(c, "state", "waiting")
        if waiting:
            return waiting.get("reason")
    if phase == "Pending":
        return status.get("reason") or ("Waiting to be scheduled" if not scheduled else "Pending")
    if phase == "Running" and not _is_true(_cond(pod, "Ready")):
        return "Not ready"
    return None


def simulated_nodes(nodes: Iterable[Mapping[str, Any]] | None) -> frozenset[str]:
    """The names of the nodes kwok simulates (labels.SIMULATED_NODE), of the nodes this account may read."""
    key, value = L.SIMULATED_NODE
    return frozenset(
        str(_get(n, "metadata", "name"))
        for n in nodes or ()
        if (_get(n, "metadata", "annotations") or {}).get(key) == value
    )


def pod_summary(
    pod: Mapping[str, Any], spec: KindSpec | None = None, simulated: frozenset[str] = frozenset()
) -> PodSummary:
    statuses = _get(pod, "status", "containerStatuses") or []
    node = _get(pod, "spec", "nodeName")
    return PodSummary(
        name=_get(pod, "metadata", "name") or "",
        role=pod_role(spec, pod),
        node=node,
        phase=_get(pod, "status", "phase"),
        ready=pod_ready(pod),
        reason=pod_reason(pod),
        restarts=sum(int(c.get("restartCount", 0)) for c in statuses),
        tone=pod_tone(_get(pod, "status", "phase")),
        simulated=node in simulated,
    )


def _accelerators(requests: Mapping[str, Decimal], known: Sequence[str] | None, count: int = 1) -> dict[str, int]:
    return {k: int(v) * count for k, v in requests.items() if is_accelerator(k, known) and v > 0}


def _add(total: dict[str, int], more: Mapping[str, int]) -> dict[str, int]:
    for k, v in more.items():
        total[k] = total.get(k, 0) + v
    return total


def accelerators_held(pods: Iterable[Mapping[str, Any]], known: Sequence[str] | None = None) -> dict[str, int]:
    """Accelerators the pods hold now: requests of bound, non-terminal pods (what the scheduler counts)."""
    total: dict[str, int] = {}
    for pod in pods:
        if _get(pod, "spec", "nodeName") and is_active_pod(pod):
            _add(total, _accelerators(pod_requests(pod.get("spec") or {}), known))
    return total


def accelerators_requested(obj: Mapping[str, Any], known: Sequence[str] | None = None) -> dict[str, int]:
    total: dict[str, int] = {}
    for demand in pod_sets(dict(obj)):
        _add(total, _accelerators(demand.requests, known, demand.count))
    return total


# ----------------------------------------------------------------------------------------------- Kueue side


def _queue_sentence(workload: Mapping[str, Any], reading: WorkloadContext | None = None) -> tuple[str, bool]:
    """(the sentence, whether it can never be admitted as is) of a job waiting in Kueue: its Workload's words in
    /workloads, read through the same WorkloadContext (workloads.describe), so one Workload never reads two ways. Its place
    in line is the display's own (JobDisplay.place)."""
    _, why, text = (reading or WorkloadContext()).describe(dict(workload))
    return _sentence(text) or "Queued.", why in NEVER


def kueue_detail(workload: Mapping[str, Any] | None) -> str | None:
    """Kueue's own words on why a workload waits (the condition message), kept as detail beside our sentence."""
    for ctype in ("QuotaReserved", "Evicted"):
        cond = _cond(workload, ctype)
        if cond and (ctype == "Evicted") == _is_true(cond) and cond.get("message"):
            return str(cond["message"])
    return None


# --------------------------------------------------------------------------------------------------- status


def _spec(obj: Mapping[str, Any]) -> KindSpec:
    spec = spec_of_object(obj)
    if spec is None:
        raise ValueError(f"not a job kind this extension knows: {obj.get('apiVersion')} {obj.get('kind')}")
    return spec


def derive_status(
    obj: Mapping[str, Any],
    workload: Mapping[str, Any] | None,
    pods: Sequence[Mapping[str, Any]],
    events: Sequence[Mapping[str, Any]] = (),
    reading: WorkloadContext | None = None,
) -> tuple[JobStatus, str | None]:
    """The unified status of a job and one sentence on why. `pods`: the job's pods (select_pods); `events`: those
    about the job itself (a failed job's exit code and last line, once its pods are gone)."""
    spec = _spec(obj)
    if _get(obj, "metadata", "deletionTimestamp"):
        return JobStatus.deleting, "Being deleted."

    terminal = spec.terminal(obj)
    if terminal:
        if terminal[0] is JobStatus.failed and (cause := _failed_container(pods, events)):
            return JobStatus.failed, _sentence(cause, terminal[1])  # the exit code and last line, then the CR's word
        return terminal
    finished = _cond(workload, "Finished")
    if _is_true(finished):  # the CR lags behind Kueue
        result = JobStatus.succeeded if finished.get("reason") == "Succeeded" else JobStatus.failed
        return result, _sentence(finished.get("message"))

    suspended = spec.suspended(obj)
    live = [p for p in pods if not _get(p, "metadata", "deletionTimestamp")]
    not_ready = [p for p in live if is_active_pod(p) and not pod_ready(p)]
    blocked = next((f"{_get(p, 'metadata', 'name')}: {pod_reason(p)}" for p in not_ready if pod_reason(p)), None)
    if workload is not None:
        if stopped_at_limit(workload):
            return JobStatus.suspended, stopped_sentence(obj, workload)
        if _get(workload, "spec", "active") is False:
            return JobStatus.suspended, "Stopped: its Kueue Workload is deactivated; resume to queue it again."
        if not _is_true(_cond(workload, "Admitted")):  # waiting for quota, or for admission checks
            return JobStatus.queued, _queue_sentence(workload, reading)[0]
        if suspended and blocked:  # admitted, and a pod already says why it cannot start: that is the news
            return JobStatus.starting, _sentence(f"{len(not_ready)} of {len(live)} pods not ready", blocked)
        if suspended:  # admitted; the operator has not caught up yet
            cq = _get(workload, "status", "admission", "clusterQueue")
            return JobStatus.admitted, _sentence(f"Admitted in ClusterQueue {cq}" if cq else "Admitted", "starting it")
    elif suspended:
        if (_get(obj, "metadata", "labels") or {}).get(L.QUEUE_NAME):
            return JobStatus.queued, "Waiting for Kueue to create its Workload."
        return JobStatus.suspended, "Suspended."

    pods_ready = _is_true(_cond(workload, "PodsReady"))
    cr_running = spec.running(obj)

    if not_ready:
        # Some pods are pending or not ready: whatever the CR says, the job is not fully up.
        count = f"{len(not_ready)} of {len(live)} pods not ready"
        return JobStatus.starting, _sentence(count, blocked) if blocked else _sentence(count)
    expected = sum(d.count for d in pod_sets(dict(obj)) if d.role != "submitter")
    up = [p for p in live if pod_ready(p)]
    if cr_running or pods_ready or (up and len(up) >= max(expected, 1)):
        return JobStatus.running, spec.running_note(obj)
    if workload is not None and not live:
        cq = _get(workload, "status", "admission", "clusterQueue")
        return JobStatus.admitted, _sentence(f"Admitted in ClusterQueue {cq}" if cq else "Admitted", "creating pods")
    return JobStatus.starting, spec.starting_reason(obj) or (
        "Waiting for pods to be created." if not live else "Waiting for pods to get ready."
    )


def _times(
    spec: KindSpec, obj: Mapping[str, Any], workload: Mapping[str, Any] | None, pods: Sequence[Mapping[str, Any]]
) -> tuple[str | None, str | None]:
    start = _get(obj, "status", "startTime")
    end = spec.end_time(obj)
    if not start:
        starts = sorted(t for p in pods if (t := _get(p, "status", "startTime")))
        start = starts[0] if starts else None
    if not end and _is_true(_cond(workload, "Finished")):
        end = (_cond(workload, "Finished") or {}).get("lastTransitionTime")
    return start, end


@dataclass(frozen=True)
class JobSeen:
    """What the caches say of one job besides its CR, from one snapshot (services/snapshot.py).

    pods: its pods (select_pods); position: its place in its LocalQueue (the visibility API); eta: the start
    estimate of a queued job (eta.estimate_start); ahead: the workloads before a queued job that compete with it
    (kept only while it is queued and can start as sized); reading: what its Workload's sentence reads besides the
    Workload, the same as /workloads passes; simulated: the simulated nodes (simulated_nodes); idle_since: since
    when its Ray cluster runs nothing (services/idle.py); progress: what its Ray cluster reports of it (a RayJob's
    tasks), where the CR itself says nothing (KindSpec.progress)."""

    workload: Mapping[str, Any] | None = None
    pods: Sequence[Mapping[str, Any]] = ()
    events: Sequence[Mapping[str, Any]] = ()
    position: int | None = None
    eta: StartEstimate | None = None
    ahead: Sequence[PendingAhead] = ()
    reading: WorkloadContext | None = None
    simulated: frozenset[str] = frozenset()
    idle_since: datetime | None = None
    progress: JobProgress | None = None


@dataclass(frozen=True)
class ViewRules:
    """The server's settings that shape every job's view.

    known_accelerators None counts every resource besides cpu/memory/ephemeral-storage/hugepages as one. writable
    False (a read-only server): the display offers no actions. limit_ceiling: the admin's longest time limit (0:
    none), past which no extension is offered. idle_after: after how long a Ray cluster that runs nothing while it
    holds accelerators is worth a warning (0: never)."""

    known_accelerators: Sequence[str] | None = None
    writable: bool = True
    limit_ceiling: int = 0
    idle_after: int = 0


def job_view(
    obj: Mapping[str, Any], seen: JobSeen = JobSeen(), rules: ViewRules = ViewRules(), *, now: datetime | None = None
) -> JobView:
    """The JobView of a job CR; now: for the time left of a job with a maximum run time (None: the time of the
    call)."""
    workload, pods, events, position, reading = seen.workload, seen.pods, seen.events, seen.position, seen.reading
    known_accelerators = rules.known_accelerators
    spec = _spec(obj)
    meta = obj.get("metadata") or {}
    labels = dict(meta.get("labels") or {})
    status, reason = derive_status(obj, workload, pods, events, reading)
    never = status is JobStatus.queued and workload is not None and _queue_sentence(workload, reading)[1]
    limit = current_limit(obj, workload)
    stop = deadline(dict(workload)) if workload is not None and status not in FINISHED else None
    queued_eta = seen.eta if status is JobStatus.queued and not never else None
    time_limit = time_limit_sentence(dict(workload), now or datetime.now(UTC), limit) if stop else None
    expired = stopped_at_limit(workload)
    held = accelerators_held(pods, known_accelerators)
    extendable = (
        workload is not None
        and status not in FINISHED
        and (expired or (limit is not None and (not rules.limit_ceiling or limit < rules.limit_ceiling)))
    )
    start, end = _times(spec, obj, workload, pods)
    wl_spec = (workload or {}).get("spec") or {}
    priority_class = (
        _get(wl_spec, "priorityClassRef", "name") or wl_spec.get("priorityClassName") or labels.get(L.PRIORITY_CLASS)
    )
    return JobView(
        kind=spec.kind,
        name=meta.get("name", ""),
        namespace=meta.get("namespace", ""),
        uid=meta.get("uid"),
        managed_by_us=L.is_managed(obj),
        workbench=(meta.get("annotations") or {}).get(L.WORKBENCH_PREFIX) or labels.get(L.WORKBENCH),
        status=status,
        reason=reason,
        display=job_display(
            status,
            reason,
            position,
            writable=rules.writable,
            never=never,
            detail=kueue_detail(workload) if status is JobStatus.queued else None,
            eta=queued_eta.sentence if queued_eta else None,
            time_limit=time_limit,
            extendable=extendable,
            stopped_at_limit=expired,
            warning=idle_warning(held, seen.idle_since, now or datetime.now(UTC), rules.idle_after)
            if status is JobStatus.running and rules.idle_after
            else None,
            takes_ray_jobs=spec.takes_ray_jobs,
        ),
        queue=labels.get(L.QUEUE_NAME) or wl_spec.get("queueName"),
        cluster_queue=_get(workload, "status", "admission", "clusterQueue"),
        workload=_get(workload, "metadata", "name"),
        position=position if status is JobStatus.queued else None,
        priority=wl_spec.get("priority"),
        priority_class=priority_class,
        created=meta.get("creationTimestamp"),
        start_time=start,
        end_time=end,
        max_run_seconds=limit,
        stops_at=stop[0].isoformat().replace("+00:00", "Z") if stop else None,
        ahead=list(seen.ahead) if status is JobStatus.queued and not never else [],
        starts_by=queued_eta.at.isoformat().replace("+00:00", "Z") if queued_eta and queued_eta.at else None,
        accelerators=held,
        accelerators_requested=accelerators_requested(obj, known_accelerators),
        progress=spec.progress(obj) or (seen.progress if status is JobStatus.running else None),
        pods=[pod_summary(p, spec, seen.simulated) for p in pods],
        labels=labels,
    )
