"""Who preempted a workload, why, and when Kueue tries it again: from its Preempted condition. Pure.

Kueue 0.17 writes the same message on the Preempted and Evicted conditions (pkg/scheduler/preemption):
"Preempted to accommodate a workload (UID: <workload uid>, JobUID: <job uid>) due to <reason in words>; preemptor
path: /<cohort>/<cq>; preemptee path: /<cohort>/<cq>", and the Preempted condition's reason is one of
InClusterQueue, InCohortReclamation, InCohortFairSharing, InCohortReclaimWhileBorrowing (apis/kueue/v1beta2). The
preemptor's UID is resolved against the Workloads this account can read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .eta import clock, parse_time
from .objects import condition, field

_MESSAGE = re.compile(
    r"Preempted to accommodate a workload \(UID: (?P<uid>[^,)]+), JobUID: (?P<job_uid>[^)]+)\)"
    r"(?: due to (?P<why>[^;]+))?(?:; preemptor path: (?P<by_path>[^;]+))?(?:; preemptee path: (?P<my_path>\S+))?"
)
# Kueue's reasons, in people's words: why the quota went to the other workload
WHY = {
    "InClusterQueue": "it has a higher priority in the same ClusterQueue",
    "InCohortReclamation": "its ClusterQueue reclaimed the quota this job had borrowed in the cohort",
    "InCohortFairSharing": "fair sharing in the cohort gave the quota to its ClusterQueue",
    "InCohortReclaimWhileBorrowing": "it has a higher priority and took back quota in the cohort while borrowing",
}


@dataclass(frozen=True)
class Preemption:
    reason: str | None  # Kueue's (InClusterQueue, ...)
    by_uid: str | None
    by: str  # the preemptor in words: its job and priority where visible
    why: str
    at: str | None  # RFC 3339, when it happened
    retry_at: str | None  # RFC 3339, requeueState.requeueAt


def _owner(wl: Mapping[str, Any]) -> tuple[str | None, str | None]:
    owners = field(wl, "metadata", "ownerReferences") or []
    owner = next((o for o in owners if o.get("controller")), owners[0] if owners else {})
    return owner.get("kind"), owner.get("name")


def preemption(wl: Mapping[str, Any], by_uid: Mapping[str, Mapping[str, Any]] | None = None) -> Preemption | None:
    """What preempted `wl`, if Kueue says so; `by_uid`: the readable Workloads by their uid."""
    cond = condition(wl, "Preempted")
    evicted = condition(wl, "Evicted") or {}
    if not (cond and cond.get("status") == "True") and evicted.get("reason") != "Preempted":
        return None
    cond = cond if cond and cond.get("status") == "True" else evicted
    message = str(cond.get("message") or evicted.get("message") or "")
    found = _MESSAGE.search(message)
    uid = found["uid"] if found and found["uid"] != "UNKNOWN" else None
    reason = cond.get("reason") if cond.get("reason") in WHY else None
    other = (by_uid or {}).get(uid or "")
    if other is not None:
        kind, name = _owner(other)
        ns = field(other, "metadata", "namespace")
        where = f"{ns}/" if ns and ns != field(wl, "metadata", "namespace") else ""
        who = f"{kind} {where}{name}" if kind and name else f"Workload {where}{field(other, 'metadata', 'name')}"
        prio, mine = field(other, "spec", "priority"), field(wl, "spec", "priority")
        if prio is not None:
            who += f" (priority {prio}" + (f", this job's is {mine})" if mine is not None else ")")
    else:
        who = "a workload not visible to your account"
    why = WHY.get(reason or "") or (f"Kueue says: {found['why'].strip()}" if found and found["why"] else "")
    return Preemption(
        reason=reason,
        by_uid=uid,
        by=who,
        why=why,
        at=cond.get("lastTransitionTime"),
        retry_at=field(wl, "status", "requeueState", "requeueAt"),
    )


def preemption_sentence(p: Preemption) -> str:
    """'Preempted at 16:03 UTC by RayCluster pre-high (priority 1000, this job's is 100): it has a higher priority
    in the same ClusterQueue; queued again, next try at 16:05 UTC' (no final period)."""
    when = parse_time(p.at)
    text = "Preempted" + (f" at {clock(when)}" if when else "") + f" by {p.by}"
    text += f": {p.why}" if p.why else ""
    retry = parse_time(p.retry_at)
    return text + (f"; next try at {clock(retry)}" if retry else "; queued again")
