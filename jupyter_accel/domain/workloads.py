"""Kueue Workloads as views (owner, queue, priority, admission, place in line) for /workloads, and the WorkloadContext that
/workloads and /jobs share so one Workload reads the same in both. The sentences are workload_state.describe's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..models.base import Visibility
from ..models.workloads import (
    PodSetAssignment,
    PodSetRequest,
    WorkloadCondition,
    WorkloadsResponse,
    WorkloadState,
    WorkloadView,
)
from .labels import JOB_UID
from .presentation import place_in_line, workload_look
from .queues import NOT_VISIBLE, Headrooms
from .resources import parse_quantity, to_number
from .workload_state import (
    NEVER,
    WAITING,
    describe,
    pod_set_requests,
)

Positions = dict[tuple[str, str], tuple[int | None, int | None]]


def positions_from_summaries(*summaries: dict[str, Any] | None) -> Positions:
    """(namespace, name) -> (positionInLocalQueue, positionInClusterQueue) from visibility API
    PendingWorkloadsSummary objects (v1beta1 and v1beta2 share the JSON); later summaries fill gaps."""
    out: Positions = {}
    for summary in summaries:
        for item in (summary or {}).get("items") or []:
            meta = item.get("metadata") or {}
            key = (meta.get("namespace", ""), meta.get("name", ""))
            lq, cq = item.get("positionInLocalQueue"), item.get("positionInClusterQueue")
            old_lq, old_cq = out.get(key, (None, None))
            out[key] = (old_lq if old_lq is not None else lq, old_cq if old_cq is not None else cq)
    return out


def _owner(wl: dict[str, Any]) -> dict[str, Any]:
    owners = (wl.get("metadata") or {}).get("ownerReferences") or []
    return next((o for o in owners if o.get("controller")), owners[0] if owners else {})


def _priority(spec: dict[str, Any]) -> tuple[str | None, str | None]:
    ref = spec.get("priorityClassRef")
    if ref:  # v1beta2
        return ref.get("name"), ref.get("kind")
    name = spec.get("priorityClassName")  # v1beta1
    source = spec.get("priorityClassSource")
    kind = {
        "kueue.x-k8s.io/workloadpriorityclass": "WorkloadPriorityClass",
        "scheduling.k8s.io/priorityclass": "PriorityClass",
    }.get(source or "")
    return name, kind


@dataclass(frozen=True)
class WorkloadContext:
    """What a Workload's sentence reads besides the Workload, gathered once per answer. /workloads and /jobs both
    read a Workload through one WorkloadContext of the same caches, so one Workload never reads two ways."""

    lq_to_cq: Mapping[tuple[str, str], str | None] = field(default_factory=dict)
    cqs: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    cluster_queues: list[dict[str, Any]] | None = None
    positions: Positions = field(default_factory=dict)
    by_uid: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    headrooms: Headrooms = field(init=False, compare=False)  # of cluster_queues, each question once

    def __post_init__(self) -> None:
        object.__setattr__(self, "headrooms", Headrooms(self.cluster_queues))

    @classmethod
    def of(
        cls,
        workloads: list[dict[str, Any]] | None,
        *,
        local_queues: list[dict[str, Any]] | None = None,
        cluster_queues: list[dict[str, Any]] | None = None,
        positions: Positions | None = None,
    ) -> WorkloadContext:
        """`local_queues` / `cluster_queues`: None or [] when not readable; `positions`: positions_from_summaries."""
        lq_to_cq = {
            ((lq.get("metadata") or {}).get("namespace", ""), (lq.get("metadata") or {}).get("name", "")): (
                lq.get("spec") or {}
            ).get("clusterQueue")
            for lq in local_queues or []
        }
        cqs = {(c.get("metadata") or {}).get("name", ""): c for c in cluster_queues or []}
        by_uid = {uid: w for w in workloads or [] if (uid := (w.get("metadata") or {}).get("uid"))}
        return cls(lq_to_cq, cqs, cluster_queues, positions or {}, by_uid)

    def cluster_queue(self, wl: dict[str, Any]) -> str | None:
        meta = wl.get("metadata") or {}
        admitted = ((wl.get("status") or {}).get("admission") or {}).get("clusterQueue")
        return admitted or self.lq_to_cq.get((meta.get("namespace", ""), (wl.get("spec") or {}).get("queueName", "")))

    def position(self, wl: dict[str, Any]) -> tuple[int | None, int | None] | None:
        meta = wl.get("metadata") or {}
        return self.positions.get((meta.get("namespace", ""), meta.get("name", "")))

    def describe(self, wl: dict[str, Any]) -> tuple[WorkloadState, str | None, str]:
        cq_name = self.cluster_queue(wl)
        return describe(
            wl,
            cluster_queue=cq_name,
            cq=self.cqs.get(cq_name or ""),
            cluster_queues=self.cluster_queues,
            others=self.by_uid,
            headroom_of=self.headrooms,
        )


def workload_view(
    wl: dict[str, Any],
    reading: WorkloadContext | None = None,
    *,
    cluster_queue: str | None = None,
    cq: dict[str, Any] | None = None,
    cluster_queues: list[dict[str, Any]] | None = None,
    position: tuple[int | None, int | None] | None = None,
) -> WorkloadView:
    """One Workload, read through `reading` (the CQ behind its LocalQueue, that ClusterQueue when readable, its
    position, the Workloads that may have preempted it). Without one, the keywords say those for this Workload
    alone: `cluster_queue` names the CQ behind its LocalQueue, `cq` is it, `position` from the visibility API."""
    if reading is None:
        meta = wl.get("metadata") or {}
        key = (meta.get("namespace", ""), (wl.get("spec") or {}).get("queueName", ""))
        reading = WorkloadContext(
            lq_to_cq={key: cluster_queue},
            cqs={cluster_queue: cq} if cluster_queue and cq else {},
            cluster_queues=cluster_queues,
            positions={(meta.get("namespace", ""), meta.get("name", "")): position} if position else {},
        )
    cluster_queue, position = reading.cluster_queue(wl), reading.position(wl)
    meta, spec, status = wl.get("metadata") or {}, wl.get("spec") or {}, wl.get("status") or {}
    owner = _owner(wl)
    pc_name, pc_kind = _priority(spec)
    state, reason, message = reading.describe(wl)
    admission = status.get("admission") or {}
    assignments = [
        PodSetAssignment(
            name=a.get("name", ""),
            count=a.get("count"),
            flavors=dict(a.get("flavors") or {}),
            resource_usage={k: to_number(parse_quantity(v)) for k, v in (a.get("resourceUsage") or {}).items()},
        )
        for a in admission.get("podSetAssignments") or []
    ]
    requeue = status.get("requeueState") or {}
    never = reason in NEVER  # no place in line for what can never be admitted as sized
    return WorkloadView(
        name=meta.get("name", ""),
        namespace=meta.get("namespace", ""),
        uid=meta.get("uid"),
        owner_api_version=owner.get("apiVersion"),
        owner_kind=owner.get("kind"),
        owner_name=owner.get("name"),
        owner_uid=owner.get("uid"),
        job_uid=(meta.get("labels") or {}).get(JOB_UID),
        queue_name=spec.get("queueName"),
        cluster_queue=admission.get("clusterQueue") or cluster_queue,
        priority_class=pc_name,
        priority_class_kind=pc_kind,
        priority=spec.get("priority"),
        active=spec.get("active", True) is not False,
        state=state,
        label=workload_look(state)[0],
        tone=workload_look(state)[1],
        reason=reason,
        message=message,
        position_in_local_queue=position[0] if position else None,
        position_in_cluster_queue=position[1] if position else None,
        place=place_in_line(position[0]) if position and state in WAITING and not never else None,
        pod_sets=[
            PodSetRequest(name=n, count=c, requests={k: to_number(v) for k, v in r.items()})
            for n, c, r in pod_set_requests(wl)
        ],
        admission=assignments,
        conditions=[
            WorkloadCondition(
                type=c.get("type", ""),
                status=c.get("status", ""),
                reason=c.get("reason"),
                message=c.get("message"),
                last_transition_time=c.get("lastTransitionTime"),
            )
            for c in status.get("conditions") or []
        ],
        requeue_count=requeue.get("count"),
        requeue_at=requeue.get("requeueAt"),
        created=meta.get("creationTimestamp"),
    )


def build_workloads(
    workloads: list[dict[str, Any]] | None, *, reading: WorkloadContext, positions_visible: bool
) -> WorkloadsResponse:
    """The workloads answer, newest first, each read through `reading` (the one /jobs reads them through). None for
    `workloads` = not readable; `positions_visible` False = the visibility API did not answer (positions left
    empty and marked not visible)."""
    if workloads is None:
        return WorkloadsResponse(visibility=Visibility(visible=False, message=NOT_VISIBLE))
    views = [workload_view(wl, reading) for wl in workloads]
    views.sort(key=lambda v: v.created or "", reverse=True)
    pos_vis = Visibility() if positions_visible else Visibility(visible=False, message=NOT_VISIBLE)
    return WorkloadsResponse(workloads=views, positions_visibility=pos_vis)


def find_workload_for_job(workloads: list[dict[str, Any]], job: dict[str, Any]) -> dict[str, Any] | None:
    """The Workload of a job object (WorkloadsByJob's rule; for many jobs, build one WorkloadsByJob)."""
    return WorkloadsByJob(workloads).for_job(job)


class WorkloadsByJob:
    """The Workloads indexed once by the job they belong to, so that a list of 500 jobs looks each one up instead
    of scanning every Workload 500 times. A Workload belongs to a job by the label kueue.x-k8s.io/job-uid or by an
    ownerReference with the job's uid; for a job dict without a uid, by an ownerReference with its kind and name.
    Newest wins when several match."""

    def __init__(self, workloads: list[dict[str, Any]]) -> None:
        self._by_uid: dict[str, list[dict[str, Any]]] = {}
        self._by_owner: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
        for wl in workloads:
            meta = wl.get("metadata") or {}
            uids = {((meta.get("labels") or {}).get(JOB_UID))}
            for o in meta.get("ownerReferences") or []:
                uids.add(o.get("uid"))
                self._by_owner.setdefault((o.get("kind"), o.get("name")), []).append(wl)
            for uid in uids - {None, ""}:
                self._by_uid.setdefault(uid, []).append(wl)

    def for_job(self, job: dict[str, Any]) -> dict[str, Any] | None:
        jmeta = job.get("metadata") or {}
        uid = jmeta.get("uid")
        matches = self._by_uid.get(uid, []) if uid else self._by_owner.get((job.get("kind"), jmeta.get("name")), [])
        if not matches:
            return None
        return max(matches, key=lambda wl: (wl.get("metadata") or {}).get("creationTimestamp") or "")
