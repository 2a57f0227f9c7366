"""A job's time limit (Kueue's maximum execution time): what it is now, whether Kueue stopped the job at it, and how
a new limit reaches Kueue. Pure: the plan says what to write; services/jobs.py writes it.

What Kueue 0.17 lets change (KEP-3125, tried on devcluster):
- The job's label `kueue.x-k8s.io/max-exec-time-seconds` is immutable while the job runs (the job webhook), and
  `spec.maximumExecutionTimeSeconds` of an admitted Workload is immutable too (a CEL rule). While the job is queued
  or suspended the label may change, and Kueue copies it into its Workload ("Updated not matching Workload").
- A running job's limit moves only through Kueue's own count of time already used: it stops a workload when
  `limit - status.accumulatedPastExecutionTimeSeconds` has passed since admission, so lowering that count by N gives
  it N more (verified: a 60 s limit with the count at -120 stopped after 180 s). That is a status write: it needs
  `patch workloads/status`, which an admin grants on purpose.
- A job Kueue stopped at its limit stays stopped in Kueue 0.17 when reactivated (its stale DeactivationTarget
  condition deactivates it again, and the derived Requeued reason is never requeued; kubernetes-sigs/kueue#14309,
  #14870). Kueue's own way back is a new Workload: deleting the stale one makes its job controller create one from
  the (suspended) job, with the job's label as its limit and no time used. That needs `delete workloads`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import labels as L
from .eta import duration
from .objects import condition, has_true
from .objects import field as get

LIMIT_REASON = "MaximumExecutionTimeExceeded"  # Kueue's DeactivationTarget reason at the limit
LIMIT_EVICTION = "DeactivatedDueTo" + LIMIT_REASON  # its Evicted / Requeued reason (ReasonWithCause)
MIN_LIMIT = 60


def _seconds(value: Any) -> int | None:
    text = str(value if value is not None else "")
    return int(text) if text.isdigit() and int(text) > 0 else None


def current_limit(job: Mapping[str, Any], workload: Mapping[str, Any] | None) -> int | None:
    """The limit as the user set it: what an extension of the running job made it (our annotation), else the job's
    label (Kueue copies it into the Workload, a moment later after a change), else the Workload's own field."""
    meta = job.get("metadata") or {}
    return (
        _seconds((meta.get("annotations") or {}).get(L.MAX_RUN_EXTENDED))
        or _seconds((meta.get("labels") or {}).get(L.MAX_EXEC_TIME))
        or _seconds(get(workload, "spec", "maximumExecutionTimeSeconds"))
    )


def stopped_at_limit(workload: Mapping[str, Any] | None) -> bool:
    """Kueue deactivated the workload because it reached its maximum execution time."""
    if workload is None or get(workload, "spec", "active") is not False:
        return False
    target = condition(workload, "DeactivationTarget") or {}
    evicted = condition(workload, "Evicted") or {}
    return (has_true(workload, "DeactivationTarget") and target.get("reason") == LIMIT_REASON) or (
        has_true(workload, "Evicted") and evicted.get("reason") == LIMIT_EVICTION
    )


def stopped_sentence(job: Mapping[str, Any], workload: Mapping[str, Any] | None) -> str:
    """The one sentence of a job Kueue stopped at its limit."""
    limit = current_limit(job, workload)
    at = f"its {duration(limit)} time limit" if limit else "its time limit"
    return f"Stopped at {at}; nothing was deleted; extend its limit to queue it again."


@dataclass(frozen=True)
class LimitPlan:
    """What to write for a new limit. `job_patch`: merge patch of the job; `status_patch`: merge patch of the
    Workload's status (carries its resourceVersion); `replace_workload`: delete the stale Workload afterwards."""

    limit: int
    job_patch: dict[str, Any] | None = None
    status_patch: dict[str, Any] | None = None
    replace_workload: bool = False
    notes: list[str] = field(default_factory=list)


class LimitRefused(ValueError):
    def __init__(self, field_name: str, message: str):
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


def plan_limit(
    job: Mapping[str, Any],
    workload: Mapping[str, Any] | None,
    *,
    max_run_seconds: int | None = None,
    extend_seconds: int | None = None,
    ceiling: int = 0,
) -> LimitPlan:
    """The writes that give the job a new limit: `max_run_seconds` in all, or `extend_seconds` more than now.
    A job Kueue stopped at its limit gets a fresh Workload, so the new limit is what its next run may use.
    Raises LimitRefused naming the field."""
    name = "max_run_seconds" if max_run_seconds is not None else "extend_seconds"
    asked = max_run_seconds if max_run_seconds is not None else extend_seconds
    if asked is None or (max_run_seconds is not None and extend_seconds is not None):
        raise LimitRefused("max_run_seconds", "give either max_run_seconds (the new limit) or extend_seconds")
    if workload is None:
        raise LimitRefused(name, "this job has no Kueue Workload, so Kueue applies no time limit to it")
    if has_true(workload, "Finished"):
        raise LimitRefused(name, "the job has ended")
    now = current_limit(job, workload)
    expired = stopped_at_limit(workload)
    if extend_seconds is not None:
        if now is None:
            raise LimitRefused(name, "the job has no time limit to extend; set max_run_seconds instead")
        new = extend_seconds if expired else now + extend_seconds
    else:
        new = max_run_seconds
    if new < MIN_LIMIT:
        raise LimitRefused(name, f"a limit is at least {MIN_LIMIT} seconds")
    if ceiling and new > ceiling:
        had = f"; it has {duration(now)} now" if now and not expired else ""
        raise LimitRefused(name, f"at most {ceiling} seconds ({duration(ceiling)}) in all on this server{had}")
    label_patch = {"metadata": {"labels": {L.MAX_EXEC_TIME: str(new)}, "annotations": {L.MAX_RUN_EXTENDED: None}}}
    reserved = has_true(workload, "QuotaReserved") or has_true(workload, "Admitted")
    if expired:
        return LimitPlan(new, job_patch=label_patch, replace_workload=True)
    if not reserved:  # queued or suspended: the job is suspended, so its label may change; Kueue follows it
        return LimitPlan(new, job_patch=label_patch)
    if get(workload, "spec", "active") is False:
        raise LimitRefused(name, "the job is being stopped; try again once it is suspended")
    if now is None:
        raise LimitRefused(name, "a running job without a time limit cannot get one in Kueue; suspend it first")
    if new <= now:
        raise LimitRefused(name, f"a running job's limit can only grow; it is {duration(now)} now")
    used = int(get(workload, "status", "accumulatedPastExecutionTimeSeconds") or 0)
    status = {
        "metadata": {"resourceVersion": get(workload, "metadata", "resourceVersion")},
        "status": {"accumulatedPastExecutionTimeSeconds": used - (new - now)},
    }
    job_patch = {"metadata": {"annotations": {L.MAX_RUN_EXTENDED: str(new)}}}
    return LimitPlan(new, job_patch=job_patch, status_patch=status)
