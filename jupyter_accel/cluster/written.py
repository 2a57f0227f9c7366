"""Read-after-write: what this server wrote, until its caches have seen it.

A write's answer carries the resourceVersion it produced. The cache of that kind sees the write when its watch
delivers an event at that version or later (resourceVersions are etcd revisions here, so they order across one
kind's events; where one is not a number, the object itself is compared). A read that follows a write waits,
bounded, until every write recorded before it is in the caches, and is then answered only from a computation that
started after that (api/answers.py). A write whose event never comes (a watch that broke) is given up after
`PATIENCE` seconds, so reads go on as before, at most that much later.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PATIENCE = 5.0  # seconds a read waits at most for the caches to see this server's own writes


@dataclass(frozen=True)
class Write:
    seq: int
    key: str  # the cache key (identity_caches.py) of the written kind
    namespace: str
    name: str
    resource_version: str | None
    deleted: bool
    deadline: float  # monotonic: given up after this


def newer_or_same(seen: str | None, wanted: str) -> bool | None:
    """Whether a cache at resourceVersion `seen` holds the write at `wanted`; None when they cannot be compared."""
    if seen is None:
        return False
    if seen.isdigit() and wanted.isdigit():
        return int(seen) >= int(wanted)
    return None


class WriteLog:
    """The writes of one hub that its caches may not have seen yet. Written from worker threads, read anywhere.

    `lookup(key)` gives the cache of a key: an object with `applied_version` (the resourceVersion its objects are
    at) and `get(name, namespace)`, or None when there is no such cache (nothing to wait for)."""

    def __init__(self, lookup: Callable[[str], Any]) -> None:
        self._lookup = lookup
        self._lock = threading.Lock()
        self._pending: dict[int, Write] = {}
        self.seq = 0  # writes recorded so far

    def record(self, key: str, obj: dict[str, Any] | None, namespace: str, name: str, *, deleted: bool = False) -> int:
        """Note a write's answer (`obj`: the object the API server returned, None when it returned none)."""
        rv = ((obj or {}).get("metadata") or {}).get("resourceVersion")
        with self._lock:
            self.seq += 1
            self._pending[self.seq] = Write(self.seq, key, namespace, name, rv, deleted, time.monotonic() + PATIENCE)
            return self.seq

    def seen(self) -> int:
        """The highest n such that writes 1..n are in the caches (or were given up)."""
        now = time.monotonic()
        with self._lock:
            for seq in sorted(self._pending):
                if self._in_cache(self._pending[seq]) or now > self._pending[seq].deadline:
                    del self._pending[seq]
                else:
                    return seq - 1
            return self.seq

    def _in_cache(self, w: Write) -> bool:
        cache = self._lookup(w.key)
        if cache is None or not getattr(cache, "readable", True):
            return True  # no cache of that kind (not served, not visible): no read can show it anyway
        applied = getattr(cache, "applied_version", None)
        if w.resource_version is not None:
            ordered = newer_or_same(applied, w.resource_version)
            if ordered is not None:
                return ordered
        held = cache.get(w.name, w.namespace)
        if w.deleted:
            return held is None or bool((held.get("metadata") or {}).get("deletionTimestamp"))
        return held is not None and (held.get("metadata") or {}).get("resourceVersion") == w.resource_version

    def wait(self, poll: float = 0.005) -> int:
        """Blocking (worker threads only): until the caches hold every write recorded so far, or it was given up;
        the number of those writes."""
        wrote = self.seq
        while self.seen() < wrote:
            time.sleep(poll)
        return wrote


def caught_up(caches: Any) -> None:
    """Blocking: a service's read of `caches` (an IdentityCaches) that follows this server's writes waits until they show."""
    writes = getattr(caches, "writes", None)  # an in-memory hub of tests keeps no write log
    if isinstance(writes, WriteLog):
        writes.wait()
