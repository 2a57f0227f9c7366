"""Debounced change notifications from the cache threads to the browsers' push streams (event loop side)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from .domain.kinds import KINDS

# cache key -> the API topics whose answers it changes
TOPICS: dict[str, tuple[str, ...]] = {
    "nodes": ("inventory",),
    "allpods": ("inventory",),
    "pods": ("inventory", "jobs"),
    "events": ("jobs",),
    "localqueues": ("queues",),
    "clusterqueues": ("queues",),
    "cohorts": ("queues",),
    "resourceflavors": ("queues", "inventory"),
    "workloadpriorityclasses": ("queues",),
    "workloads": ("workloads", "jobs", "queues"),
    "pending": ("workloads", "jobs", "queues"),
    **{s.cache_key: ("jobs",) for s in KINDS},
    "hardwareprofiles": ("profiles",),
    "acceleratorprofiles": ("profiles",),
    "info": ("info",),
}


class Broadcaster:
    """Gathers changed topics for `debounce` seconds, then hands one message to every subscriber queue."""

    def __init__(self, loop: asyncio.AbstractEventLoop, debounce: float):
        self.loop = loop
        self.debounce = debounce
        self.revision = 0
        self._dirty: set[str] = set()
        self._scheduled = False
        self._subscribers: set[asyncio.Queue[dict]] = set()

    def notify_threadsafe(self, cache_key: str) -> None:
        """Called from informer threads."""
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._mark, TOPICS.get(cache_key, (cache_key,)))

    def _mark(self, topics: Iterable[str]) -> None:
        self._dirty.update(topics)
        if not self._scheduled:
            self._scheduled = True
            self.loop.call_later(self.debounce, self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        if not self._dirty:
            return
        self.revision += 1
        msg = {"revision": self.revision, "topics": sorted(self._dirty)}
        self._dirty.clear()
        for q in list(self._subscribers):
            if q.qsize() < 100:  # a stalled client gets no more; it refetches everything on reconnect
                q.put_nowait(msg)

    def subscribe(self) -> asyncio.Queue[dict]:
        q: asyncio.Queue[dict] = asyncio.Queue()
        self._subscribers.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[dict]) -> None:
        self._subscribers.discard(q)
