"""Whether a Ray cluster runs anything, read from its own dashboard's answers, and the warning for one that holds
accelerators while it runs nothing. Pure.

The answers (Ray 2.x, recorded from devcluster's real Ray head): `GET /api/jobs/` lists the submitted jobs with
`status` PENDING / RUNNING / STOPPED / SUCCEEDED / FAILED; `GET /api/v0/tasks/summarize` counts tasks by
function and state (`data.result.result.node_id_to_summary.cluster.summary.<func>.state_counts`);
`GET /api/v0/actors?filter_keys=state&filter_predicates=%3D&filter_values=ALIVE` lists the live actors
(`data.result.total`). Runs nothing = no job pending or running, no task that has not ended, no live actor.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ..models.jobs import RaySubmission
from .eta import duration
from .objects import field

# (dashboard sub-path, query) of the three questions
JOBS = ("api/jobs/", None)
TASKS = ("api/v0/tasks/summarize", None)
ACTORS = ("api/v0/actors", {"filter_keys": "state", "filter_predicates": "=", "filter_values": "ALIVE", "limit": "1"})
_ENDED_TASK = {"FINISHED", "FAILED"}
_ACTIVE_JOB = {"PENDING", "RUNNING"}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def ray_activity(
    jobs: Any, tasks: Mapping[str, Any] | None, actors: Mapping[str, Any] | None
) -> tuple[bool | None, str]:
    """(busy, what it runs) from the three answers; busy None when an answer has an unknown shape."""
    if not isinstance(jobs, list) or not isinstance(tasks, Mapping) or not isinstance(actors, Mapping):
        return None, "the Ray dashboard's answers have an unknown shape"
    running_jobs = sum(1 for j in jobs if isinstance(j, Mapping) and j.get("status") in _ACTIVE_JOB)
    summary = field(tasks, "data", "result", "result", "node_id_to_summary", "cluster", "summary")
    if not isinstance(summary, Mapping):
        return None, "the Ray dashboard's task summary has an unknown shape"
    open_tasks = sum(
        int(n)
        for entry in summary.values()
        for state, n in ((entry or {}).get("state_counts") or {}).items()
        if state not in _ENDED_TASK
    )
    live_actors = field(actors, "data", "result", "total")
    if not isinstance(live_actors, int):
        return None, "the Ray dashboard's actor list has an unknown shape"
    parts = [
        _plural(n, word)
        for n, word in ((running_jobs, "Ray job"), (open_tasks, "task"), (live_actors, "live actor"))
        if n
    ]
    return bool(parts), ", ".join(parts) if parts else "no Ray job, task or actor"


def task_counts(tasks: Any) -> tuple[int, int] | None:
    """(ended, all) tasks of a task summary answer; None when it has an unknown shape. Ray counts only the tasks
    submitted so far: a driver that submits more later makes `all` grow."""
    summary = field(tasks, "data", "result", "result", "node_id_to_summary", "cluster", "summary")
    if not isinstance(summary, Mapping):
        return None
    ended = total = 0
    for entry in summary.values():
        for state, n in ((entry or {}).get("state_counts") or {}).items():
            total += int(n)
            ended += int(n) if state in _ENDED_TASK else 0
    return ended, total


def _when(ms: Any) -> str | None:
    """Ray's times are epoch milliseconds (0: not yet)."""
    if not isinstance(ms, int | float) or ms <= 0:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def submissions(jobs: Any) -> list[RaySubmission] | None:
    """The Ray jobs of a `GET /api/jobs/` answer, newest first; None when it has an unknown shape. Jobs Ray ran
    without a submission (a driver started on the head by hand) have no submission id and are left out."""
    if not isinstance(jobs, list):
        return None
    out = [
        RaySubmission(
            submission_id=str(j["submission_id"]),
            status=str(j.get("status") or "UNKNOWN"),
            entrypoint=j.get("entrypoint") or None,
            message=j.get("message") or None,
            start_time=_when(j.get("start_time")),
            end_time=_when(j.get("end_time")),
        )
        for j in jobs
        if isinstance(j, Mapping) and j.get("submission_id")
    ]
    out.sort(key=lambda s: s.start_time or "~", reverse=True)  # not started yet (PENDING) first
    return out


def idle_warning(held: Mapping[str, int], since: datetime | None, now: datetime, after: int) -> str | None:
    """'Holds 2 nvidia.com/gpu and has run nothing for 16m (no Ray job, task or actor); suspend it to give them
    back.' once it has run nothing for `after` seconds; None before, or when it holds no accelerator."""
    if since is None or not held:
        return None
    idle = int((now - since).total_seconds())
    if idle < after:
        return None
    what = ", ".join(f"{n} {resource}" for resource, n in sorted(held.items()))
    return (
        f"Holds {what} and has run nothing for {duration(idle)} (no Ray job, task or actor); suspend it to give "
        "them back."
    )
