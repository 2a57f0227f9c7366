"""Interactive Ray clusters that hold accelerators and run nothing: a poller in its own thread asks each such
cluster's Ray dashboard (through the API server's service proxy, as the dashboard proxy does) what it runs, at a
modest interval and only while someone reads the answers, and keeps when each was first seen idle. The job views
read that cache; nothing here runs on the event loop. The cache is memory only: after a restart the idle time
counts again from the first poll (a warning comes late, never wrong)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..domain.ray_activity import ACTORS, JOBS, TASKS, ray_activity

if TYPE_CHECKING:
    from .jobs import JobsService

log = logging.getLogger(__name__)
Fetch = Callable[[str, dict[str, str] | None], Any]  # (API server path, query) -> its JSON (raises when it fails)


@dataclass(frozen=True)
class Candidate:
    uid: str
    name: str
    dashboard: Callable[[str], str]  # dashboard sub-path -> API server path


class IdleWatch:
    """`after`: seconds of running nothing before a warning (0: off). Polls every after/4 seconds, 15 to 60."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.interval = min(60.0, max(15.0, after / 4))
        self._since: dict[str, datetime] = {}  # cluster uid -> first seen running nothing
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def idle_since(self, uid: str | None) -> datetime | None:
        with self._lock:
            return self._since.get(uid or "")

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

    def start(self, round_: Callable[[], None], active: Callable[[], bool]) -> None:
        """Run `round_` (gather candidates and poll) every interval while `active()`, in a daemon thread."""
        if self.after <= 0 or self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.wait(self.interval):
                if not active():
                    continue
                started = time.monotonic()
                try:
                    round_()
                except Exception:
                    log.exception("jupyter_accel: idle Ray cluster poll failed")
                log.debug("jupyter_accel: idle poll took %.2f s", time.monotonic() - started)

        self._thread = threading.Thread(target=loop, name="accel-idle-ray", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()


def candidates(service: JobsService) -> list[Candidate]:
    """The interactive Ray clusters whose head is up and whose pods hold accelerators, from the caches."""
    from ..domain.job_status import accelerators_held, pod_ready, select_pods
    from ..domain.kinds import pod_role, spec_for
    from ..models import JobKind

    kind = JobKind.ray_cluster
    if spec_for(kind).cache_key not in service.hub.informers:
        return []
    spec, pods, known = spec_for(kind), service.hub.items("pods"), service.known_accelerators()
    out = []
    for obj in service.hub.items(spec.cache_key):
        meta = obj.get("metadata") or {}
        mine = select_pods(service._typed(spec, obj), pods)
        head_up = any(pod_role(spec, p) == "head" and pod_ready(p) for p in mine)
        if meta.get("uid") and head_up and accelerators_held(mine, known):
            name = meta.get("name", "")
            out.append(
                Candidate(meta["uid"], name, lambda sub, name=name: service.dashboard_target(kind, name, sub)[1])
            )
    return out
