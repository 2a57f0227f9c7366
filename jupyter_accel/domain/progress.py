"""A job's progress as its own code reports it, in numbers and in one line. Pure.

Kubeflow Trainer (2.2+, gate TrainJobStatus) lets training code POST its progress to the controller's status server,
which writes it to the TrainJob's status.trainerStatus: progressPercentage, estimatedRemainingSeconds, metrics
(name/value strings) and lastUpdatedTime. A RayJob's is what its Ray cluster counts: the tasks ended of those
submitted so far (services/idle.py asks the dashboard). Nothing here guesses progress from logs or time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models.jobs import JobMetric, JobProgress
from .eta import duration
from .objects import field

MAX_METRICS_IN_TEXT = 3  # the line stays short; the detail lists every metric


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def progress_text(percent: int | None, remaining: int | None, metrics: list[JobMetric]) -> str:
    parts = []
    if percent is not None:
        parts.append(f"{percent} %")
    if remaining:
        parts.append(f"about {duration(remaining)} left")
    parts += [f"{m.name} {m.value}" for m in metrics[:MAX_METRICS_IN_TEXT]]
    return " · ".join(parts) or "reporting, no numbers yet"


def trainer_progress(obj: Mapping[str, Any]) -> JobProgress | None:
    """The progress in a TrainJob's status.trainerStatus; None when its code reports none."""
    status = field(obj, "status", "trainerStatus")
    if not isinstance(status, Mapping):
        return None
    percent = _int(status.get("progressPercentage"))
    if percent is not None:
        percent = min(100, max(0, percent))
    remaining = _int(status.get("estimatedRemainingSeconds"))
    metrics = [
        JobMetric(name=str(m["name"]), value=str(m["value"]))
        for m in status.get("metrics") or []
        if isinstance(m, Mapping) and m.get("name") and m.get("value") is not None
    ]
    return JobProgress(
        percent=percent,
        remaining_seconds=max(0, remaining) if remaining is not None else None,
        metrics=metrics,
        updated=status.get("lastUpdatedTime"),
        text=progress_text(percent, remaining, metrics),
    )


def ray_task_progress(counts: tuple[int, int] | None) -> JobProgress | None:
    """A running RayJob's tasks, (ended, submitted so far) from its Ray dashboard; None before its first task."""
    if counts is None or counts[1] <= 0:
        return None
    ended, total = counts
    return JobProgress(
        percent=min(100, 100 * ended // total),
        remaining_seconds=None,
        updated=None,
        text=f"{ended} of {total} Ray tasks ended (of those submitted so far)",
    )
