"""Read answers computed off the event loop, once per cache revision, and kept serialized.

A read handler asks for a view by topic and parameters. If the caches it is computed from (push.depends) have not
changed since the last answer, the stored bytes go out at once: the event loop does a dict lookup and a write.
Otherwise one worker thread computes it, and every request that arrives meanwhile waits on that same computation
(or, while the caches churn, gets the answer before it: see MAX_STALE and AHEAD_TOPICS).
Before the broadcaster tells browsers that a topic changed, it has the answers of that topic that were read recently
computed again (`refresh`), so the refetch that the push causes finds its answer ready.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..push import depends

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..cluster.identity_caches import IdentityCaches

# Answers are CPU work under the GIL: two threads keep one slow view from holding up the others, more would only
# take turns with the event loop.
ANSWER_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="accel-answers")
WARM_FOR = 300.0  # seconds after its last read that a view is still computed ahead of the next one
# While the caches churn (a burst of pod changes, kwok starting 20,000 pods) a new answer is being computed nearly
# all the time, and would be out of date again when it is done: a request that arrives while one is computed gets
# the last answer at once, if it is at most this old; the push that follows the computation says to fetch again. A
# request that finds none running starts one and waits for it, so a read after a quiet change sees the change.
MAX_STALE = 5.0
# The same holds between computations for the inventory, which the whole cluster's pods change and which is slow to
# compute at scale (a few hundred ms at 20,000 pods on 2 busy cores): a request that finds its caches changed within
# a second of the last answer gets that answer at once and starts the next computation, whose push follows. Waiting
# would cost it more than the 50 ms reads are held to, and the answer is no older than the push latency. After a
# quiet change (the last answer older than FRESH_S), for an answer computed in under SLOW_S, and for the topics a
# user's own actions change (jobs, workloads, queues) the request waits: a read after a write sees the write.
AHEAD_TOPICS = frozenset({"inventory"})
SLOW_S = 0.05
FRESH_S = 1.0
# While its caches churn, such an answer was computed back to back (a read's computation ahead, then the push's,
# then the next read's): at 20,000 pods during a burst of 1,000 pod changes, 43 inventory answers in 10 s, and
# half of the event loop's holds over 20 ms were spent waiting for the GIL those computations held
# (benchmarks/results/scale-full-split.json). Its next computation therefore begins no sooner than REST times the
# last one's duration after that one ended: the answer threads leave the GIL and the cores to the loop at least two
# thirds of the time, and the answer is at most that much older (the push that follows says when it is new).
REST = 2.0
log = logging.getLogger(__name__)
WRITE_POLL = 0.005  # seconds between looks at whether the caches hold a write yet (only while one is outstanding)
MAX_VIEWS = 256  # answers kept (node pages are one per model, offset and limit); the least recently read go first
Build = Callable[[], "BaseModel"]


@dataclass
class _Entry:
    hub: IdentityCaches
    build: Build
    revision: tuple[object, ...] | None = None
    body: bytes = b""
    computed_at: float = 0.0
    took: float = 0.0  # seconds the last computation took, waits for the GIL included
    read_at: float = 0.0
    running: asyncio.Future[bytes] | None = None  # the computation under way (a task that fills this entry)
    ahead: asyncio.TimerHandle | None = None  # a computation ahead due when the last one has rested (REST)
    writes_seen: int = 0  # the server's writes in the caches when the stored answer's computation began
    running_writes_seen: int = 0  # the same for the running computation


class Answers:
    """The memoized read answers of one server. One computation per view at a time: a request that finds one
    running waits for it (it began before the request came, from caches that are eventually consistent anyway)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, tuple[Any, ...]], _Entry] = {}
        self.computed = 0  # how many answers were computed (tests and benchmarks read it)
        self.computed_by_topic: dict[str, int] = {}
        self._ahead: set[asyncio.Future[bytes]] = set()  # computations no request waits for

    async def get(
        self, hub: IdentityCaches, topic: str, params: tuple[Any, ...], build: Build, *, max_age: float | None = None
    ) -> bytes:
        """The serialized answer. `build` computes it from the caches (in a worker thread) and must hold nothing
        of the request but `params`. `max_age`: also compute it again after this many seconds (answers that name
        times relative to now, such as a job's time left)."""
        key = (topic, params)
        # read-after-write: every write this server made before this read is in the caches first (bounded), and
        # only a computation begun after that may answer (cluster/written.py)
        wrote = await _writes_seen(hub)
        entry = self._entries.get(key)
        if entry is None or entry.hub is not hub:  # a new identity has new caches
            entry = self._entries[key] = _Entry(hub, build)
            self._trim()
        entry.build = build
        now = entry.read_at = time.monotonic()
        fresh = max_age is None or now - entry.computed_at < max_age
        unchanged = entry.revision == hub.revision(depends(topic))
        # an unchanged revision is safe after a write too: the caches took the write before this read began
        if fresh and unchanged:
            return entry.body
        if entry.revision is not None and entry.writes_seen >= wrote:
            age = now - entry.computed_at
            if max_age is not None and not fresh and unchanged and age < max_age + MAX_STALE:
                # only the clock moved (the times it names are max_age old): this read gets it, the next the new one
                self._compute_ahead(entry, topic)
                return entry.body
            if entry.running is not None and age < MAX_STALE:
                return entry.body
            if entry.running is None and topic in AHEAD_TOPICS and entry.took >= SLOW_S and age < FRESH_S:
                self._compute_ahead(entry, topic)
                return entry.body
        try:
            return await self._compute(entry, topic, wrote)
        except Exception:
            if entry.revision is None and self._entries.get(key) is entry:
                del self._entries[key]  # a refused request (a bad parameter) leaves nothing behind
            raise

    def _trim(self) -> None:
        if len(self._entries) <= MAX_VIEWS:
            return
        idle = sorted(
            (k for k, e in self._entries.items() if e.running is None), key=lambda k: self._entries[k].read_at
        )
        for key in idle[: len(self._entries) - MAX_VIEWS]:
            del self._entries[key]

    async def refresh(self, hub: IdentityCaches | None, topics: Iterable[str]) -> None:
        """Compute again the recently read answers of these topics whose caches changed (called before a push)."""
        wanted, now, jobs = set(topics), time.monotonic(), []
        for key, entry in list(self._entries.items()):
            if entry.hub is not hub or now - entry.read_at > WARM_FOR:
                if entry.running is None:
                    del self._entries[key]  # cold or of an old identity: computed again when read again
                continue
            topic = key[0]
            if (topic in wanted or "*" in wanted) and entry.revision != hub.revision(depends(topic)):
                jobs.append(self._rested(entry, topic))
        if jobs:
            await asyncio.gather(*jobs, return_exceptions=True)

    def _compute_ahead(self, entry: _Entry, topic: str) -> None:
        """Begin the next computation once the last one has rested (at once if it has); one is due at a time."""
        if entry.ahead is not None:
            return

        def begin() -> None:
            entry.ahead = None
            if entry.running is None:  # else the one running (a push's) is the next answer already
                task = asyncio.ensure_future(self._compute(entry, topic))
                self._ahead.add(task)
                task.add_done_callback(self._ahead_done)

        entry.ahead = asyncio.get_running_loop().call_later(_rest_left(entry, topic), begin)

    async def _rested(self, entry: _Entry, topic: str) -> bytes:
        """A push's computation, begun once the last one has rested (REST)."""
        if (wait := _rest_left(entry, topic)) > 0:
            await asyncio.sleep(wait)
        return await self._compute(entry, topic)

    def _ahead_done(self, task: asyncio.Future[bytes]) -> None:
        self._ahead.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("a view computed ahead failed: %s", task.exception())  # the next waiting read raises it

    async def _compute(self, entry: _Entry, topic: str, wrote: int = 0) -> bytes:
        """The answer of a computation begun after the caches held this server's first `wrote` writes: a running one
        that began before them is waited for, then another is begun."""
        while True:
            running = entry.running
            if running is None:
                seen = _seen(entry.hub)
                running = entry.running = asyncio.ensure_future(self._run(entry, topic, seen))
                entry.running_writes_seen = seen
            began_with = entry.running_writes_seen
            body = await asyncio.shield(running)
            if began_with >= wrote:
                return body

    async def _run(self, entry: _Entry, topic: str, writes_seen: int) -> bytes:
        """One computation; the entry holds its answer (and no longer holds it as running) once it is done."""
        # read before computing: a change that lands during the computation makes the next read compute again
        revision = entry.hub.revision(depends(topic))
        build = entry.build

        def work() -> bytes:
            return build().model_dump_json().encode()

        started = time.monotonic()
        try:
            body = await asyncio.get_running_loop().run_in_executor(ANSWER_THREADS, work)
        finally:
            entry.running = None
        entry.computed_at = time.monotonic()
        entry.revision, entry.body, entry.took = revision, body, entry.computed_at - started
        entry.writes_seen = writes_seen
        self.computed += 1
        self.computed_by_topic[topic] = self.computed_by_topic.get(topic, 0) + 1
        return body


def _rest_left(entry: _Entry, topic: str) -> float:
    """Seconds until a slow answer of AHEAD_TOPICS may be computed again (0 for every other answer)."""
    if topic not in AHEAD_TOPICS or entry.took < SLOW_S:
        return 0.0
    return max(0.0, entry.computed_at + REST * entry.took - time.monotonic())


def _seen(hub: IdentityCaches) -> int:
    writes = getattr(hub, "writes", None)  # an in-memory hub of tests may keep no write log
    return writes.seen() if writes is not None else 0


async def _writes_seen(hub: IdentityCaches) -> int:
    """Wait (bounded by written.PATIENCE: a write is given up then) until the caches hold every write this hub's
    server made so far; the number of those writes."""
    writes = getattr(hub, "writes", None)
    if writes is None:
        return 0
    wrote = writes.seq
    while writes.seen() < wrote:
        await asyncio.sleep(WRITE_POLL)
    return wrote
