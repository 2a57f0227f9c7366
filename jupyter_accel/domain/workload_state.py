"""Where a Kueue Workload stands and why, in one plain sentence (describe), and what it asks for. Pure.

Conditions are read in the order that decides what the user should hear first: Finished, stopped at its time limit,
deactivated, Evicted (preempted: by whom and why), Admitted/PodsReady, QuotaReserved, then the pending reason.
Kueue's condition messages are the best "why" there is, so known message shapes are parsed and anything else is
passed through; Kueue 0.19's tiered reasons (UnadmittedWorkloadsObservability: WaitingForQuota, ExceedsMaxQuota,
NoMatchingFlavor, PendingEvaluation, ...) decide the reason where 0.17 said only "Pending". workloads.py builds the views on this.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ..models.workloads import WorkloadState
from .eta import clock, parse_time
from .objects import condition, has_true
from .preemption import preemption, preemption_sentence
from .queues import Headrooms
from .resources import format_quantity, parse_quantity, pod_requests
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
# Kueue 0.17's words when a flavor can never take the pod set: its node affinity or an untolerated taint
_NO_MATCH = re.compile(
    r"^(flavor (?P<f1>[\w.-]+) doesn't match node affinity|untolerated taint .+ in flavor (?P<f2>[\w.-]+))$"
)
_ASSIGN = re.compile(r"couldn't assign flavors to pod set [\w.-]+: ")
WAITING = frozenset({WorkloadState.pending, WorkloadState.evicted})  # in line for quota (a preempted one again)
NEVER = frozenset({"ExceedsMaxQuota", "NoMatchingFlavor"})  # the reasons of a workload that can never be admitted as is
_TRIED_FLAVOR = re.compile(r" in flavor ([\w.-]+)")  # Kueue's flavor-assignment messages name the flavor tried


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
    headroom_of: Headrooms | None = None,
) -> tuple[str, bool] | None:
    """(sentence, never) for the known flavor-assignment messages; None when the message has another shape."""
    where = f"ClusterQueue {cq_name}" if cq_name else "its ClusterQueue"
    reasons = [r.strip() for part in _ASSIGN.split(msg)[1:] for r in part.rstrip("; ").split(", ") if r.strip()]
    if reasons and all(_NO_MATCH.match(r) for r in reasons):
        return (
            f"Can never be admitted as is: no flavor of {where} matches its node selector or tolerations "
            f"({'; '.join(dict.fromkeys(reasons))})"
        ), True
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
        h = (headroom_of or Headrooms(cluster_queues))(cq, flavor, res) if cq else None
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
    "WaitingForQuota": "Waiting for quota in {where}",
    "PendingEvaluation": "Waiting to be evaluated by Kueue",
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
    others: Mapping[str, Mapping[str, Any]] | None = None,
    headroom_of: Headrooms | None = None,
) -> tuple[WorkloadState, str | None, str]:
    """(state, deciding reason, sentence). `cq` (the ClusterQueue object, when visible) adds "6 of 8 in use";
    `others`: the readable Workloads by uid, to name a preemptor. A reason in NEVER: it can never be admitted as
    sized. Its place in line is not in the sentence: every answer carries it beside it (`place`)."""
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
        elif reason == "Preempted" and (p := preemption(wl, others)) is not None:
            return WorkloadState.evicted, p.reason or reason, preemption_sentence(p)
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
    if qr is None:
        return WorkloadState.pending, None, "Waiting to be evaluated by Kueue"
    reason, msg = qr.get("reason"), qr.get("message") or ""
    parsed = _quota_sentence(msg, cq_name, total_requests(wl), cq, cluster_queues, headroom_of)
    if parsed is not None:
        text, never = parsed
        if never:  # Kueue 0.17 says why in words only; newer Kueue's reason agrees
            reason = (
                reason if reason in NEVER else ("NoMatchingFlavor" if "no flavor of" in text else "ExceedsMaxQuota")
            )
        return WorkloadState.pending, reason, text
    if reason == "NoMatchingFlavor":
        text = f"Can never be admitted as is: no flavor of {where} matches its node selector or tolerations"
        return WorkloadState.pending, reason, text + (f" ({msg})" if msg else "")
    if reason in _PENDING_REASONS:
        text = _PENDING_REASONS[reason].format(where=where)
        return WorkloadState.pending, reason, text + (f": {msg}" if msg else "")
    if reason == "ExceedsMaxQuota":
        return WorkloadState.pending, reason, f"Can never be admitted as is: {msg or 'it exceeds the quota'}"
    return WorkloadState.pending, reason, f"Waiting for quota in {where}" + (f": {msg}" if msg else "")
