"""Kueue Workloads as views, with one plain-language sentence about where each one stands and why.

Conditions are read in the order that decides what the user should hear first: Finished, deactivated, Evicted,
Admitted/PodsReady, QuotaReserved, then the pending reason. Kueue's condition messages are the best "why" there
is (the granular reasons need a feature gate that is off in 0.19), so known message shapes are parsed and
anything else is passed through.
"""

from __future__ import annotations

import re
from decimal import Decimal
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
from .eta import clock, parse_time
from .labels import JOB_UID
from .objects import condition, has_true
from .presentation import place_in_line, workload_look
from .queues import NOT_VISIBLE, headroom
from .resources import format_quantity, parse_quantity, pod_requests, to_number
from .time_limit import LIMIT_REASON, stopped_at_limit, stopped_sentence

_UNUSED = re.compile(
    r"insufficient unused quota for (?P<res>[\w./-]+) in flavor (?P<flavor>[\w.-]+), "
    r"(?P<more>[\w.]+) more needed"
)
_MAXCAP = re.compile(
    r"insufficient quota for (?P<res>[\w./-]+) in flavor (?P<flavor>[\w.-]+)[^(]*"
    r"\((?P<req>[\w.]+) > (?P<max>[\w.]+)\)"
)
# Kueue 0.17 names what earlier pod sets took: needed = previous + current
_MAXCAP_SUM = re.compile(
    r"insufficient quota for (?P<res>[\w./-]+) in flavor (?P<flavor>[\w.-]+), previously considered podsets "
    r"requests \((?P<prev>[\w.]+)\) \+ current podset request \((?P<req>[\w.]+)\) > maximum capacity "
    r"\((?P<max>[\w.]+)\)"
)
_UNCOVERED = re.compile(r"resource (?P<res>[\w./-]+) unavailable in ClusterQueue")
_TRIED_FLAVOR = re.compile(r" in flavor ([\w.-]+)")  # Kueue's flavor-assignment messages name the flavor tried

Positions = dict[tuple[str, str], tuple[int | None, int | None]]


def _hhmm(timestamp: str | None) -> str | None:
    at = parse_time(timestamp)
    return clock(at) if at else None


def tried_flavor(wl: dict[str, Any] | None) -> str | None:
    """The flavor Kueue last tried for a pending workload (its QuotaReserved message names it), if any."""
    found = _TRIED_FLAVOR.search(str((condition(wl, "QuotaReserved") or {}).get("message") or ""))
    return found.group(1) if found else None


def pod_set_requests(wl: dict[str, Any]) -> list[tuple[str, int, dict[str, Decimal]]]:
    """[(podset, count, per-pod requests)] from spec.podSets."""
    out = []
    for ps in (wl.get("spec") or {}).get("podSets") or []:
        template = (ps.get("template") or {}).get("spec") or {}
        out.append((ps.get("name", "main"), int(ps.get("count", 1)), pod_requests(template)))
    return out


def total_requests(wl: dict[str, Any]) -> dict[str, Decimal]:
    """Everything the workload asks for; status.resourceRequests (LimitRange defaults applied) when present."""
    total: dict[str, Decimal] = {}
    reqs = (wl.get("status") or {}).get("resourceRequests")
    if reqs:
        for ps in reqs:
            for name, qty in (ps.get("resources") or {}).items():
                total[name] = total.get(name, Decimal(0)) + parse_quantity(qty)
        return total
    for _name, count, per_pod in pod_set_requests(wl):
        for name, qty in per_pod.items():
            total[name] = total.get(name, Decimal(0)) + qty * count
    return total


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


def _assigned_flavors(wl: dict[str, Any]) -> list[str]:
    """Assigned flavors, those of accelerator-like (non cpu/memory) resources first."""
    first: list[str] = []
    rest: list[str] = []
    for psa in ((wl.get("status") or {}).get("admission") or {}).get("podSetAssignments") or []:
        for res, flavor in (psa.get("flavors") or {}).items():
            target = rest if res in ("cpu", "memory", "pods", "ephemeral-storage") else first
            if flavor not in first and flavor not in target:
                target.append(flavor)
    return first + [f for f in rest if f not in first]


def _quota_sentence(
    msg: str,
    cq_name: str | None,
    needs: dict[str, Decimal],
    cq: dict[str, Any] | None,
    cluster_queues: list[dict[str, Any]] | None,
) -> tuple[str, bool] | None:
    """(sentence, never) for the known flavor-assignment messages; None when the message has another shape."""
    where = f"ClusterQueue {cq_name}" if cq_name else "its ClusterQueue"
    if m := _UNCOVERED.search(msg):
        return f"Can never be admitted as is: {where} has no quota for {m['res']}", True
    if m := _MAXCAP_SUM.search(msg):
        res = m["res"]
        need = parse_quantity(m["prev"]) + parse_quantity(m["req"])
        return (
            f"Can never be admitted as is: needs {format_quantity(res, need)} {res} but {where} can hold at most "
            f"{m['max']} on flavor {m['flavor']}"
        ), True
    if m := _MAXCAP.search(msg):
        return (
            f"Can never be admitted as is: needs {m['req']} {m['res']} but {where} can hold at most "
            f"{m['max']} on flavor {m['flavor']}"
        ), True
    if m := _UNUSED.search(msg):
        res, flavor = m["res"], m["flavor"]
        need = needs.get(res)
        text = f"Waiting for quota in {where}: needs "
        text += f"{format_quantity(res, need)} {res}" if need is not None else res
        text += f" on flavor {flavor}"
        h = headroom(cq, flavor, res, cluster_queues) if cq else None
        if h is not None:
            text += f", {format_quantity(res, h.reserved)} of {format_quantity(res, h.nominal)} in use"
            if h.borrowable:
                text += f" (+{format_quantity(res, h.borrowable)} borrowable)"
        else:
            text += f", {m['more']} more than is free"
        return text, False
    return None


_PENDING_REASONS = {
    "Inadmissible": "Cannot be admitted",
    "Misconfigured": "Cannot be admitted",
    "NoMatchingFlavor": "No flavor of {where} matches its node selector or tolerations",
    "Suspended": "The queue is stopped",
    "OnHold": "On hold",
    "AdmissionGated": "Held by an admission gate",
    "TopologyPlacementFailed": "Its topology request cannot be placed",
    "WaitingForPreemptedWorkloads": "Preempting other workloads in {where}; waiting for them to release quota",
    "WaitingForPodsReady": "Waiting for earlier workloads' pods to become ready",
    "Waiting": "Waiting for earlier workloads' pods to become ready",
}


def describe(
    wl: dict[str, Any],
    *,
    cluster_queue: str | None = None,
    cq: dict[str, Any] | None = None,
    cluster_queues: list[dict[str, Any]] | None = None,
    position: tuple[int | None, int | None] | None = None,
) -> tuple[WorkloadState, str | None, str]:
    """(state, deciding reason, sentence). `cq` (the ClusterQueue object, when visible) adds "6 of 8 in use"."""
    spec, status = wl.get("spec") or {}, wl.get("status") or {}
    admission = status.get("admission") or {}
    cq_name = admission.get("clusterQueue") or cluster_queue
    where = f"ClusterQueue {cq_name}" if cq_name else "its ClusterQueue"
    flavors = ", ".join(_assigned_flavors(wl)) or None

    if has_true(wl, "Finished"):
        c = condition(wl, "Finished") or {}
        if c.get("reason") == "Succeeded":
            return WorkloadState.succeeded, "Succeeded", "Finished successfully"
        detail = c.get("message") or c.get("reason") or "no reason given"
        return WorkloadState.failed, c.get("reason"), f"Finished with a failure: {detail}"
    if stopped_at_limit(wl):
        return WorkloadState.inactive, LIMIT_REASON, stopped_sentence({}, wl).rstrip(".")
    if spec.get("active") is False:
        c = condition(wl, "DeactivationTarget") or condition(wl, "Evicted") or {}
        detail = c.get("message") or c.get("reason")
        text = "Stopped: the workload is deactivated" + (f" ({detail})" if detail else "")
        return WorkloadState.inactive, c.get("reason") or "Deactivated", text
    if has_true(wl, "Evicted") and not has_true(wl, "QuotaReserved"):
        c = condition(wl, "Evicted") or {}
        reason = c.get("reason")
        if reason == "PodsReadyTimeout":
            text = "Evicted: its pods were not ready in time (PodsReadyTimeout); Kueue requeues it"
        elif reason == "Preempted":
            pre = condition(wl, "Preempted") or {}
            text = "Preempted to make room for another workload" + (
                f": {pre.get('message') or c.get('message')}" if (pre.get("message") or c.get("message")) else ""
            )
        else:
            text = f"Evicted ({reason})" + (f": {c['message']}" if c.get("message") else "")
        requeue = status.get("requeueState") or {}
        if at := _hhmm(requeue.get("requeueAt")):
            text += f"; next try at {at}"
        return WorkloadState.evicted, reason, text
    if has_true(wl, "Admitted"):
        on = f" on flavor {flavors}" if flavors else ""
        if has_true(wl, "PodsReady"):
            since = _hhmm((condition(wl, "PodsReady") or {}).get("lastTransitionTime"))
            return WorkloadState.running, "PodsReady", f"Running in {where}{on}" + (f" since {since}" if since else "")
        at = _hhmm((condition(wl, "Admitted") or {}).get("lastTransitionTime"))
        pods = condition(wl, "PodsReady") or {}
        tail = "waiting for its pods to recover" if pods.get("reason") == "WaitForRecovery" else "pods starting"
        target = flavors or cq_name or "its ClusterQueue"
        return WorkloadState.admitted, "Admitted", f"Admitted to {target}" + (f" at {at}" if at else "") + f"; {tail}"
    if has_true(wl, "QuotaReserved"):
        checks = [
            f"{c.get('name')} ({c.get('state', 'Pending')}{': ' + c['message'] if c.get('message') else ''})"
            for c in status.get("admissionChecks") or []
            if c.get("state") != "Ready"
        ]
        text = f"Quota reserved in {where}" + (f" (flavor {flavors})" if flavors else "")
        text += f"; waiting for admission checks: {', '.join(checks)}" if checks else "; waiting for admission"
        return WorkloadState.quota_reserved, "QuotaReserved", text

    qr = condition(wl, "QuotaReserved")
    pos = ""
    if position and position[0] is not None:
        pos = f"; {place_in_line(position[0])} in LocalQueue {spec.get('queueName')}"
    elif position and position[1] is not None:
        pos = f"; {place_in_line(position[1])} in {where}"
    if qr is None:
        return WorkloadState.pending, None, f"Waiting to be evaluated by Kueue{pos}"
    reason, msg = qr.get("reason"), qr.get("message") or ""
    parsed = _quota_sentence(msg, cq_name, total_requests(wl), cq, cluster_queues)
    if parsed is not None:
        text, never = parsed
        return WorkloadState.pending, "ExceedsMaxQuota" if never else reason, text + ("" if never else pos)
    if reason in _PENDING_REASONS:
        text = _PENDING_REASONS[reason].format(where=where)
        return WorkloadState.pending, reason, text + (f": {msg}" if msg else "") + pos
    if reason == "ExceedsMaxQuota":
        return WorkloadState.pending, reason, f"Can never be admitted as is: {msg or 'it exceeds the quota'}"
    return WorkloadState.pending, reason, f"Waiting for quota in {where}" + (f": {msg}" if msg else "") + pos


def workload_view(
    wl: dict[str, Any],
    *,
    cluster_queue: str | None = None,
    cq: dict[str, Any] | None = None,
    cluster_queues: list[dict[str, Any]] | None = None,
    position: tuple[int | None, int | None] | None = None,
) -> WorkloadView:
    """One Workload. `cluster_queue` names the CQ behind its LocalQueue (pending workloads have no admission);
    `cq` is that ClusterQueue when readable; `position` comes from positions_from_summaries."""
    meta, spec, status = wl.get("metadata") or {}, wl.get("spec") or {}, wl.get("status") or {}
    owner = _owner(wl)
    pc_name, pc_kind = _priority(spec)
    state, reason, message = describe(
        wl, cluster_queue=cluster_queue, cq=cq, cluster_queues=cluster_queues, position=position
    )
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
    never = reason == "ExceedsMaxQuota"  # no place in line for what can never be admitted as sized
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
        place=place_in_line(position[0]) if position and state is WorkloadState.pending and not never else None,
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
    workloads: list[dict[str, Any]] | None,
    *,
    local_queues: list[dict[str, Any]] | None = None,
    cluster_queues: list[dict[str, Any]] | None = None,
    pending_summaries: list[dict[str, Any]] | None = None,
) -> WorkloadsResponse:
    """The workloads answer, newest first. None for `workloads` = not readable; None for `pending_summaries` =
    the visibility API did not answer (positions left empty and marked not visible)."""
    if workloads is None:
        return WorkloadsResponse(visibility=Visibility(visible=False, message=NOT_VISIBLE))
    lq_to_cq = {
        ((lq.get("metadata") or {}).get("namespace", ""), (lq.get("metadata") or {}).get("name", "")): (
            lq.get("spec") or {}
        ).get("clusterQueue")
        for lq in local_queues or []
    }
    cqs = {(c.get("metadata") or {}).get("name", ""): c for c in cluster_queues or []}
    positions = positions_from_summaries(*(pending_summaries or []))
    views = []
    for wl in workloads:
        meta = wl.get("metadata") or {}
        ns, name = meta.get("namespace", ""), meta.get("name", "")
        cq_name = ((wl.get("status") or {}).get("admission") or {}).get("clusterQueue") or lq_to_cq.get(
            (ns, (wl.get("spec") or {}).get("queueName", ""))
        )
        views.append(
            workload_view(
                wl,
                cluster_queue=cq_name,
                cq=cqs.get(cq_name or ""),
                cluster_queues=cluster_queues,
                position=positions.get((ns, name)),
            )
        )
    views.sort(key=lambda v: v.created or "", reverse=True)
    pos_vis = Visibility() if pending_summaries is not None else Visibility(visible=False, message=NOT_VISIBLE)
    return WorkloadsResponse(workloads=views, positions_visibility=pos_vis)


def find_workload_for_job(workloads: list[dict[str, Any]], job: dict[str, Any]) -> dict[str, Any] | None:
    """The Workload of a job object: label kueue.x-k8s.io/job-uid, else a controller ownerReference with the
    job's uid (or, for a job dict without uid, its kind and name). Newest wins when several match."""
    jmeta = job.get("metadata") or {}
    uid, kind, name = jmeta.get("uid"), job.get("kind"), jmeta.get("name")

    def owned(wl: dict[str, Any]) -> bool:
        for o in (wl.get("metadata") or {}).get("ownerReferences") or []:
            if (uid and o.get("uid") == uid) or (not uid and o.get("kind") == kind and o.get("name") == name):
                return True
        return False

    matches = [
        wl
        for wl in workloads
        if (uid and ((wl.get("metadata") or {}).get("labels") or {}).get(JOB_UID) == uid) or owned(wl)
    ]
    if not matches:
        return None
    return max(matches, key=lambda wl: (wl.get("metadata") or {}).get("creationTimestamp") or "")
