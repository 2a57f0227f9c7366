"""When will a queued job start, and when will a running one be stopped: from Kueue's maximum execution times.

Kueue has no estimate of its own (kubernetes-sigs/kueue#13159). A bound is honest when it rests on limits: every
admitted workload with `spec.maximumExecutionTimeSeconds` gives its quota back no later than its admission time
plus that limit (less the time it already ran before an eviction). The start of a queued job is bounded by the
moment enough of those releases cover its shortfall, counting the pending workloads ahead of it. When the
releases that could cover it are unknown (no limit set, or held by workloads this account cannot see), the answer
says so instead of guessing. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from .objects import condition, field
from .queues import Headrooms, quota_cells
from .resources import parse_quantity


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def clock(at: datetime) -> str:
    """14:20 UTC (a time without a zone is taken as UTC, as Kubernetes writes them)."""
    return (at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(UTC).strftime("%H:%M UTC")


def duration(seconds: int) -> str:
    """3600 -> '1h', 5400 -> '1h 30m', 90 -> '2m' (rounded up: a limit is never shown shorter than it is)."""
    minutes = -(-seconds // 60)
    hours, minutes = divmod(minutes, 60)
    return " ".join(p for p in (f"{hours}h" if hours else "", f"{minutes}m" if minutes or not hours else "") if p)


def deadline(workload: dict[str, Any] | None) -> tuple[datetime, int] | None:
    """(when Kueue stops it, its limit in seconds) for an admitted workload with a maximum execution time."""
    limit = field(workload, "spec", "maximumExecutionTimeSeconds")
    admitted = condition(workload, "Admitted")
    if not limit or not admitted or admitted.get("status") != "True":
        return None
    since = parse_time(admitted.get("lastTransitionTime"))
    if since is None:
        return None
    spent = int(field(workload, "status", "accumulatedPastExexcutionTimeSeconds") or 0)  # sic: Kueue's spelling
    spent = spent or int(field(workload, "status", "accumulatedPastExecutionTimeSeconds") or 0)
    return since + timedelta(seconds=max(0, int(limit) - spent)), int(limit)


def _held(workload: dict[str, Any], flavor: str, resource: str) -> Decimal:
    """How much of `resource` in `flavor` an admitted workload holds."""
    total = Decimal(0)
    for psa in field(workload, "status", "admission", "podSetAssignments") or []:
        if (psa.get("flavors") or {}).get(resource) == flavor:
            total += parse_quantity((psa.get("resourceUsage") or {}).get(resource, 0))
    return total


@dataclass(frozen=True)
class StartEstimate:
    at: datetime | None  # no later than this; None: unknown, or no wait for quota
    sentence: str


def estimate_start(
    needs: dict[str, Decimal],
    *,
    cluster_queue: dict[str, Any] | None,
    admitted: list[dict[str, Any]],
    ahead: Sequence[dict[str, Decimal]] = (),
    cluster_queues: list[dict[str, Any]] | None = None,
    cohorts: list[dict[str, Any]] | None = None,
    flavor: str | None = None,
    headroom_of: Headrooms | None = None,
) -> StartEstimate | None:
    """The latest start of a workload that needs `needs` (its accelerators) in `cluster_queue`, if the admitted
    workloads of that queue (`admitted`, those visible) stop at their limits. `ahead`: the needs of the pending
    workloads before it. `flavor`: the flavor Kueue tried (from its message), else the queue's first for each
    resource. `headroom_of`: the answer's Headrooms, when it estimates many. None when there is nothing to estimate
    (no accelerator need)."""
    if not needs:
        return None
    if cluster_queue is None:
        return StartEstimate(None, "Start time unknown: its ClusterQueue is not visible to your account.")
    cells = quota_cells(cluster_queue)
    latest: datetime | None = None
    for resource, need in needs.items():
        flavors = [f for (f, r) in cells if r == resource]
        chosen = flavor if flavor in flavors else (flavors[0] if flavors else None)
        room = (headroom_of or Headrooms(cluster_queues, cohorts))(cluster_queue, chosen, resource) if chosen else None
        if room is None:
            continue
        shortfall = need + sum((a.get(resource, Decimal(0)) for a in ahead), Decimal(0)) - room.available
        if shortfall <= 0:
            continue
        holders = [(w, _held(w, chosen, resource)) for w in admitted]
        holders = [(w, amount) for w, amount in holders if amount > 0]
        releases = sorted((d[0], amount) for w, amount in holders if (d := deadline(w)) is not None)
        freed, at = Decimal(0), None
        for when, amount in releases:
            freed += amount
            if freed >= shortfall:
                at = when
                break
        if at is None:
            unlimited = sum(1 for w, _ in holders if deadline(w) is None)
            if unlimited:
                jobs = f"{unlimited} running job{'s' if unlimited != 1 else ''}"
                return StartEstimate(
                    None, f"Start time unknown: the {resource} it needs is held by {jobs} without a time limit."
                )
            if ahead:  # even when every running job has stopped, the jobs ahead of it take what they free
                jobs = "the job ahead of it needs" if len(ahead) == 1 else f"the {len(ahead)} jobs ahead of it need"
                return StartEstimate(
                    None, f"Start time unknown: {jobs} the {resource} that the running jobs free first."
                )
            return StartEstimate(
                None,
                f"Start time unknown: the {resource} it needs is held outside its ClusterQueue (lent to its cohort) "
                "or by workloads not visible to your account.",
            )
        latest = at if latest is None or at > latest else latest
    if latest is None:
        return StartEstimate(None, "Quota is free for it; it waits for something else (see the reason).")
    return StartEstimate(latest, f"Starts no later than ~{clock(latest)} if the jobs ahead stop at their time limits.")


def time_limit_sentence(workload: dict[str, Any] | None, now: datetime, limit: int | None = None) -> str | None:
    """'Kueue stops it at 14:20 UTC (limit 2h, 35m left)' for an admitted workload with a limit. `limit`: the limit
    as the user set it, when an extension made it longer than the Workload's field (domain/time_limit.py)."""
    found = deadline(workload)
    if found is None:
        return None
    at, limit = found[0], limit or found[1]
    left = max(0, int((at - now).total_seconds()))
    return f"Kueue stops it at {clock(at)} (limit {duration(limit)}, {duration(left)} left)."
