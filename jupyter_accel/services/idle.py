"""What Ray clusters run, from their own dashboards: interactive Ray clusters that hold accelerators and run
nothing, and how many tasks a running RayJob has ended. A poller in its own thread asks each such cluster's Ray
dashboard (through the API server's service proxy, as the dashboard proxy does) at a modest interval and only
while someone reads the answers, and keeps when each was first seen idle and each RayJob's task counts. The job
views read that cache; nothing here runs on the event loop. The cache is memory only: after a restart the idle
time counts again from the first poll (a warning comes late, never wrong)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..cluster import rest
from ..domain.ray_activity import ACTORS, JOBS, TASKS, ray_activity, task_counts

if TYPE_CHECKING:
    from .jobs import JobsService

log = logging.getLogger(__name__)
Fetch = Callable[[str, dict[str, str] | None], Any]  # (API server path, query) -> its JSON (raises when it fails)


@dataclass(frozen=True)
class Candidate:
    uid: str
    name: str
    dashboard: Callable[[str], str]  # dashboard sub-path -> API server path


PROGRESS_INTERVAL = 10.0  # seconds between asks of a running RayJob's task counts


class IdleWatch:
    """`after`: seconds of running nothing before a warning (0: off). Polls every after/4 seconds, 15 to 60, and
    running RayJobs' task counts every PROGRESS_INTERVAL."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.interval = min(60.0, max(15.0, after / 4))
        self._since: dict[str, datetime] = {}  # cluster uid -> first seen running nothing
        self._tasks: dict[str, tuple[int, int]] = {}  # RayJob uid -> (tasks ended, tasks submitted so far)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def idle_since(self, uid: str | None) -> datetime | None:
        with self._lock:
            return self._since.get(uid or "")

    def task_counts(self, uid: str | None) -> tuple[int, int] | None:
        with self._lock:
            return self._tasks.get(uid or "")

    def poll_tasks(self, running: list[Candidate], fetch: Fetch) -> None:
        """One round, blocking: each running RayJob's task counts; forget the others."""
        seen: dict[str, tuple[int, int]] = {}
        for c in running:
            try:
                counts = task_counts(fetch(c.dashboard(TASKS[0]), TASKS[1]))
            except Exception as exc:  # its head is not up yet, or the proxy refused: no numbers rather than guesses
                log.debug("jupyter_accel: the Ray dashboard of %s did not answer: %s", c.name, exc)
                counts = None
            if counts is not None:
                seen[c.uid] = counts
        with self._lock:
            self._tasks = seen

    def poll(self, candidates: list[Candidate], fetch: Fetch, now: datetime | None = None) -> None:
        """One round, blocking: ask each candidate's dashboard; forget clusters that are no longer candidates."""
        now = now or datetime.now(UTC)
        seen: dict[str, datetime] = {}
        for c in candidates:
            try:
                busy, _ = ray_activity(*(fetch(c.dashboard(path), query) for path, query in (JOBS, TASKS, ACTORS)))
            except Exception as exc:  # its head is not up, or the proxy refused: say nothing rather than guess
                log.debug("jupyter_accel: the Ray dashboard of %s did not answer: %s", c.name, exc)
                busy = None
            if busy is False:
                seen[c.uid] = self.idle_since(c.uid) or now
        with self._lock:
            self._since = seen

    def start(
        self, round_: Callable[[], None], active: Callable[[], bool], tasks_round: Callable[[], None] | None = None
    ) -> None:
        """Run `round_` (gather idle candidates and poll; skipped when the warning is off) every interval, and
        `tasks_round` (running RayJobs' task counts) every PROGRESS_INTERVAL, while `active()`, in a daemon thread."""
        if self._thread is not None or (self.after <= 0 and tasks_round is None):
            return
        step = min(self.interval, PROGRESS_INTERVAL) if tasks_round is not None else self.interval

        def loop() -> None:
            rest.on_schedule()
            last_idle = time.monotonic()
            while not self._stop.wait(step):
                if not active():
                    continue
                started = time.monotonic()
                rounds = [tasks_round] if tasks_round is not None else []
                if self.after > 0 and started - last_idle >= self.interval - 0.5:
                    rounds.append(round_)
                    last_idle = started
                for one in rounds:
                    try:
                        one()
                    except Exception:
                        log.exception("jupyter_accel: Ray dashboard poll failed")
                log.debug("jupyter_accel: Ray dashboard polls took %.2f s", time.monotonic() - started)

        self._thread = threading.Thread(target=loop, name="accel-idle-ray", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()


def _dashboard_of(service: JobsService, kind: Any, name: str) -> Callable[[str], str]:
    def path(sub: str) -> str:
        return service.dashboard_target(kind, name, sub)[1]

    return path


def running_ray_jobs(service: JobsService) -> list[Candidate]:
    """The RayJobs whose Ray head is up, from the caches: their task counts are worth asking for."""
    from ..domain.job_status import pod_ready, select_pods
    from ..domain.kinds import pod_role, spec_of_kind
    from ..models import JobKind

    kind = JobKind.ray_job
    spec = spec_of_kind(kind)
    if spec.cache_key not in service.hub.informers:
        return []
    pods = service.hub.items("pods")
    out = []
    for obj in service.hub.items(spec.cache_key):
        meta = obj.get("metadata") or {}
        if not meta.get("uid") or spec.terminal(obj) is not None:
            continue
        mine = select_pods(service._typed(spec, obj), pods)
        if any(pod_role(spec, p) == "head" and pod_ready(p) for p in mine):
            name = meta.get("name", "")
            out.append(Candidate(meta["uid"], name, _dashboard_of(service, kind, name)))
    return out


def candidates(service: JobsService) -> list[Candidate]:
    """The interactive Ray clusters whose head is up and whose pods hold accelerators, from the caches."""
    from ..domain.job_status import accelerators_held, pod_ready, select_pods
    from ..domain.kinds import pod_role, spec_of_kind
    from ..models import JobKind

    kind = JobKind.ray_cluster
    if spec_of_kind(kind).cache_key not in service.hub.informers:
        return []
    spec, pods, known = spec_of_kind(kind), service.hub.items("pods"), service.known_accelerators()
    out = []
    for obj in service.hub.items(spec.cache_key):
        meta = obj.get("metadata") or {}
        mine = select_pods(service._typed(spec, obj), pods)
        head_up = any(pod_role(spec, p) == "head" and pod_ready(p) for p in mine)
        if meta.get("uid") and head_up and accelerators_held(mine, known):
            name = meta.get("name", "")
            out.append(Candidate(meta["uid"], name, _dashboard_of(service, kind, name)))
    return out
