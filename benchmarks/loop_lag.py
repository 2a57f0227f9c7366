"""A Jupyter server extension for the benchmarks: how long the server's event loop was held, and by what.

Two measures, both kept with `time.monotonic()` stamps (CLOCK_MONOTONIC is system-wide, so the benchmark asks for
exactly its own load windows with `GET /bench/loop-lag?start=T0&end=T1`):
- lateness: a coroutine asks to wake every 5 ms; how much later it wakes is what any request felt, queueing
  behind everything else on the loop included;
- cycle collections: each of the server's (any thread's: the collector holds the GIL, so the loop waits for it
  either way) is timed, so that a hold can be told apart from a collection that happened during it, and its
  collecting thread's CPU time kept beside it (a long pass with little CPU was its thread waiting for a core);
- holds: every callback the loop runs is timed (asyncio's Handle._run is wrapped); those over 5 ms are kept with
  what ran, so "no handler holds the loop for > 20 ms" is checked per callback and the culprit named. Each hold's
  wall time is split three ways: the loop thread's CPU time (work on the loop), its time runnable but waiting for a
  core (the kernel's per-thread schedstat: the machine's cores were busy), and the rest, asleep, which for a
  callback that makes no blocking call is waiting for the GIL; the CPU time the server's other threads used
  meanwhile is kept beside it.
Loaded only by the benchmarks (`jpserver_extensions`), never by the product.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import heapq
import json
import os
import threading
import time
from asyncio import events
from typing import Any

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web

from jupyter_accel.cluster import rest

TICK = 0.005
KEEP_HOLD = 0.005
LATENESS: collections.deque[tuple[float, float]] = collections.deque(maxlen=400_000)  # (when, s): ~30 min
# (when, s, then s of it: on a core, runnable waiting for a core, the other threads' CPU; what ran)
HOLDS: collections.deque[tuple[float, float, float, float, float, str]] = collections.deque(maxlen=100_000)

# (when, s, generation, s of CPU in the collecting thread): the cycle collector's passes over 1 ms
COLLECTIONS: collections.deque[tuple[float, float, int, float]] = collections.deque(maxlen=100_000)
KEEP_COLLECTION = 0.001
_collecting = threading.local()

# JA_LOOP_LAG_CENSUS=1: after a full pass over CENSUS_OVER (at most one every CENSUS_EVERY s), what it walked: the
# tracked objects outside the frozen ones, counted by type, and the largest containers with who holds them. It
# walks everything again (and the referrers of each), holding the GIL: a run to find out, never one to measure.
CENSUS = os.environ.get("JA_LOOP_LAG_CENSUS") == "1"
CENSUS_OVER = 0.005
CENSUS_EVERY = 2.0
CENSUSES: collections.deque[tuple[float, dict[str, Any]]] = collections.deque(maxlen=50)
_CONTAINERS = (dict, list, set, frozenset, tuple, collections.deque)


def census(largest: int = 5) -> dict[str, Any]:
    """What a full collection walks now (gc.get_objects leaves out the frozen): counts by type, the largest
    containers, and for each the type of what refers to it and the key it is under (an instance's attribute)."""
    objects = gc.get_objects()
    by_type = collections.Counter(type(o).__name__ for o in objects)
    big = heapq.nlargest(largest, (o for o in objects if type(o) in _CONTAINERS), key=len)
    del objects

    def held_by(obj: Any) -> list[str]:
        names = []
        for ref in gc.get_referrers(obj)[:3]:
            if type(ref) is dict:  # a dict, or an instance's attributes kept in one
                key = next((k for k, v in ref.items() if v is obj), None)
                names.append(f"dict[{key!r}]")
            elif isinstance(getattr(ref, "__dict__", None), dict):  # an instance holding its attributes inline
                key = next((k for k, v in vars(ref).items() if v is obj), None)
                names.append(f"{type(ref).__name__}.{key}")
            else:
                names.append(type(ref).__name__)
        return names

    return {
        "tracked": sum(by_type.values()),
        "by_type": dict(by_type.most_common(15)),
        "largest": [
            {"type": type(o).__name__, "len": len(o), "held_by": held_by(o), "sample": repr(o)[:120]} for o in big
        ],
    }


def _time_collections(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _collecting.t0, _collecting.cpu0 = time.monotonic(), time.thread_time()
        return
    t0 = getattr(_collecting, "t0", None)
    if t0 is not None and (took := time.monotonic() - t0) > KEEP_COLLECTION:
        generation = int(info.get("generation", -1))
        COLLECTIONS.append((t0, took, generation, time.thread_time() - _collecting.cpu0))
        if (
            CENSUS
            and generation == 2
            and took > CENSUS_OVER
            and t0 - (CENSUSES[-1][0] if CENSUSES else 0) > CENSUS_EVERY
        ):
            # what survived the pass, and how much cyclic garbage it freed (which only a collection can)
            CENSUSES.append((t0, {**census(), "took_ms": round(took * 1000, 1), "collected": info.get("collected")}))


async def _probe() -> None:
    while True:
        t0 = time.monotonic()
        await asyncio.sleep(TICK)
        LATENESS.append((t0, max(0.0, time.monotonic() - t0 - TICK)))


def _time_callbacks() -> None:
    """Time every callback of the loop in this (the loop's) thread."""
    run = events.Handle._run
    loop_thread = threading.get_native_id()
    # this thread's schedstat: "ns on a core, ns runnable waiting for one, timeslices"; read again with pread (~1 us)
    schedstat = os.open(f"/proc/self/task/{loop_thread}/schedstat", os.O_RDONLY)

    def waited() -> int:
        return int(os.pread(schedstat, 96, 0).split()[1])

    def timed(self: events.Handle) -> None:
        if threading.get_native_id() != loop_thread:  # another thread's loop (none in the server so far)
            return run(self)
        task = getattr(self._callback, "__self__", None)  # a task's step: name its coroutine, not the wrapper
        coro = task.get_coro() if isinstance(task, asyncio.Task) else None
        t0, cpu0, all0, queued0 = time.monotonic(), time.thread_time(), time.process_time(), waited()
        try:
            run(self)
        finally:
            took = time.monotonic() - t0
            if took > KEEP_HOLD:
                cpu = time.thread_time() - cpu0
                others = max(0.0, time.process_time() - all0 - cpu)
                queued = (waited() - queued0) / 1e9
                HOLDS.append((t0, took, cpu, queued, others, _describe(self, coro)))

    events.Handle._run = timed  # type: ignore[method-assign]


def _describe(handle: events.Handle, coro: Any) -> str:
    if coro is None:
        return repr(handle)[:300]
    frame = getattr(coro, "cr_frame", None)
    owner = frame.f_locals.get("self") if frame is not None else None  # a handler's _execute: which handler
    name = getattr(coro, "__qualname__", repr(coro))
    return f"{type(owner).__name__}: {name}" if owner is not None else name


def _product_counters(settings: dict[str, Any]) -> dict[str, Any]:
    """How often each cache changed and each answer was computed so far (what keeps the server busy)."""
    accel = settings.get("jupyter_accel")
    hub = getattr(accel, "hub", None)
    answers = getattr(accel, "answers", None)
    return {
        "cache_changes": {k: inf.revision for k, inf in list(getattr(hub, "informers", {}).items())},
        "views_computed": dict(getattr(answers, "computed_by_topic", {})),
        # GETs the background loops made on their schedule, per path (benchmarks/scale.py: refresh-caused reads)
        "scheduled_reads": rest.scheduled_reads(),
    }


class LoopLagHandler(JupyterHandler):
    @web.authenticated
    def get(self) -> None:
        start = float(self.get_argument("start", "0"))
        end = float(self.get_argument("end", str(time.monotonic())))
        lateness = [lag for at, lag in list(LATENESS) if start <= at <= end]
        holds = [hold for hold in list(HOLDS) if start <= hold[0] <= end]
        collections_ = [c for c in list(COLLECTIONS) if start <= c[0] <= end]
        self.set_header("Content-Type", "application/json")
        self.finish(
            json.dumps(
                {
                    "lateness": lateness,
                    "holds": [hold[1:] for hold in holds],
                    # for each hold, the seconds of cycle collection (any thread's) within it
                    "holds_collecting": [_overlap(hold[0], hold[1], collections_) for hold in holds],
                    "collections": collections_,
                    "censuses": [c for c in list(CENSUSES) if start <= c[0] <= end],
                    "product": _product_counters(self.settings),
                }
            )
        )


def _overlap(t0: float, took: float, passes: list[tuple[float, float, int, float]]) -> float:
    return sum(max(0.0, min(t0 + took, c0 + c) - max(t0, c0)) for c0, c, *_ in passes)


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    return [{"module": "loop_lag"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    route = url_path_join(serverapp.web_app.settings["base_url"], "bench/loop-lag")
    serverapp.web_app.add_handlers(".*$", [(route, LoopLagHandler)])
    gc.callbacks.append(_time_collections)
    tasks: set[asyncio.Task[None]] = set()

    def start() -> None:  # on the loop's thread: its callbacks are the ones timed
        _time_callbacks()
        tasks.add(asyncio.get_running_loop().create_task(_probe()))  # held: an unreferenced task may be collected

    serverapp.io_loop.add_callback(start)
