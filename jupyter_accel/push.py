"""Debounced change notifications from the cache threads to the browsers' push streams (event loop side)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterable

from .domain.kinds import KINDS

# cache key -> the API topics whose answers it changes (api/answers memoizes each answer by the caches it lists here)
TOPICS: dict[str, tuple[str, ...]] = {
    "nodes": ("inventory", "jobs"),  # jobs: the accelerator names a job's pods are counted by
    "allpods": ("inventory",),
    "allocations": ("inventory",),  # what the pods on each node hold, from the read service (instead of allpods)
    "pods": ("jobs",),
    "events": ("jobs",),
    "localqueues": ("queues", "workloads", "jobs"),
    "clusterqueues": ("queues", "workloads", "jobs"),
    "cohorts": ("queues", "jobs"),
    "resourceflavors": ("queues",),
    "workloadpriorityclasses": ("queues",),
    "workloads": ("workloads", "jobs", "queues"),
    "pending": ("workloads", "jobs", "queues"),
    **{s.cache_key: ("jobs",) for s in KINDS},
    "hardwareprofiles": ("profiles",),
    "acceleratorprofiles": ("profiles",),
    "info": ("info",),
}


def wait_to_send(last_sent: float, interval: float, gather: float, now: float) -> float:
    """Seconds until a change marked `now` is sent, at most one message per `interval`: after a quiet spell
    `gather` (the changes that come with it join it), else the rest of the interval since the last one."""
    return max(gather, last_sent + interval - now)


def depends(topic: str) -> tuple[str, ...]:
    """The cache keys an answer of this topic is computed from."""
    return tuple(sorted(key for key, topics in TOPICS.items() if topic in topics))


class Broadcaster:
    """Hands one message of changed topics to every subscriber queue, at most one per `debounce` seconds: a change
    after a quiet spell goes out after GATHER (the changes that come with it join it), later ones wait for the rest
    of the interval. Gathering every change for the whole interval first added half a second to every push."""

    PREPARE_TIMEOUT = 2.0  # a push waits this long at most for its views to be computed
    GATHER = 0.05  # seconds a push waits for the changes that come with the first

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        debounce: float,
        prepare: Callable[[set[str]], Awaitable[None]] | None = None,
    ):
        self.loop = loop
        self.debounce = debounce
        self.prepare = prepare  # computes the changed views first, so the refetch a push causes finds them ready
        self.revision = 0
        self._dirty: set[str] = set()
        self._scheduled = False
        self._last_flush = -float("inf")  # loop time
        self._subscribers: set[asyncio.Queue[dict]] = set()
        self._tasks: set[asyncio.Task[None]] = set()  # held, so a pending push is not garbage-collected
        self._lock = threading.Lock()
        self._changed: set[str] = set()  # cache keys changed since the loop last looked
        self._woken = False

    def notify_threadsafe(self, cache_key: str) -> None:
        """Called from informer threads, once per watch event: a burst of 20,000 pod changes wakes the event loop
        once per batch, not once per change."""
        with self._lock:
            self._changed.add(cache_key)
            if self._woken:
                return
            self._woken = True
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._drain)

    def _drain(self) -> None:
        with self._lock:
            keys, self._changed, self._woken = self._changed, set(), False
        self._mark(t for key in keys for t in TOPICS.get(key, (key,)))

    def _mark(self, topics: Iterable[str]) -> None:
        self._dirty.update(topics)
        if not self._scheduled:
            self._scheduled = True
            self.loop.call_later(
                wait_to_send(self._last_flush, self.debounce, self.GATHER, self.loop.time()), self._flush
            )

    def _flush(self) -> None:
        self._scheduled = False
        if not self._dirty:
            return
        self._last_flush = self.loop.time()
        topics = set(self._dirty)
        self._dirty.clear()
        if self.prepare is None:
            self._send(topics)
        else:
            task = self.loop.create_task(self._prepared(topics))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _prepared(self, topics: set[str]) -> None:
        with contextlib.suppress(Exception):  # a view that fails is computed (and its error shown) on the refetch
            await asyncio.wait_for(self.prepare(topics), self.PREPARE_TIMEOUT)  # type: ignore[misc]
        self._send(topics)

    def _send(self, topics: set[str]) -> None:
        self.revision += 1
        msg = {"revision": self.revision, "topics": sorted(topics)}
        for q in list(self._subscribers):
            if q.qsize() < 100:  # a stalled client gets no more; it refetches everything on reconnect
                q.put_nowait(msg)

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def subscribe(self) -> asyncio.Queue[dict]:
        q: asyncio.Queue[dict] = asyncio.Queue()
        self._subscribers.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[dict]) -> None:
        self._subscribers.discard(q)
