"""What the scale benchmark measures with: concurrent clients and their latencies, the Jupyter server's own
/api/status probe, how long its event loop was held, the API server's request counts, a process's RSS.
(Shared by benchmarks/scale.py, soak.py and workbenches.py.)"""

from __future__ import annotations

import contextlib
import http.client
import json
import multiprocessing
import multiprocessing.queues
import os
import random
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from devcluster.jupyter_server import JupyterProcess  # noqa: E402
from devcluster.rest import Rest  # noqa: E402
from jupyter_accel.cluster.session import USER_AGENT  # noqa: E402

# a sidebar asks again when a push names a topic (debounced): two requests a second per client is more than
# an open sidebar asks even while the cluster churns
PACE = 0.5
ENDPOINTS = ("inventory", "inventory/nodes?limit=100", "queues", "workloads", "jobs")
READ_RESOURCES = {
    "nodes", "pods", "events", "workloads", "localqueues", "clusterqueues", "cohorts", "resourceflavors",
    "workloadpriorityclasses", "rayclusters", "rayjobs", "pytorchjobs", "jobs", "trainjobs", "hardwareprofiles",
    "acceleratorprofiles",
}  # fmt: skip


# -- measuring ----------------------------------------------------------------------------------------------
def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary(latencies: list[float], seconds: float, errors: int = 0) -> dict[str, Any]:
    return {
        "requests": len(latencies),
        "errors": errors,
        "p50_ms": _ms(percentile(latencies, 50)),
        "p99_ms": _ms(percentile(latencies, 99)),
        "max_ms": _ms(max(latencies) if latencies else None),
        "per_s": round(len(latencies) / seconds, 1) if seconds else None,
    }


def _ms(v: float | None) -> float | None:
    return None if v is None else round(v * 1000, 1)


class Http:
    """Keep-alive HTTP/1.1 to the Jupyter server on loopback, one connection per thread."""

    def __init__(self, server: JupyterProcess) -> None:
        self.port, self.headers = server.port, server.headers
        self._local = threading.local()

    def get(self, path: str, timeout: float = 60) -> tuple[int, bytes]:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path, headers=self.headers)
            resp = conn.getresponse()
            return resp.status, resp.read()
        except (OSError, http.client.HTTPException):
            conn.close()
            self._local.conn = None
            raise


GRACE = 120.0  # seconds past a load's window that its clients' last requests are waited for


def load(fn: Callable[[], bool], clients: int, seconds: float, every: float | None = None) -> dict[str, Any]:
    """`clients` threads call fn for `seconds`; fn returns whether the answer was good. Back to back (a closed
    loop: the latency is mostly the queue of the other clients, the rate the server's capacity), or with `every`,
    each client once every that many seconds from a random start (what a number of open sidebars ask). A request
    sent inside the window is counted when it ends, however late; one still unanswered GRACE seconds past the window
    is counted at the time it had taken by then (its true latency is longer) and named in "unfinished"."""
    return _summary([raw_load(fn, clients, seconds, every)])


def _summary(results: list[Loaded]) -> dict[str, Any]:
    latencies = [x for r in results for x in r.latencies]
    out = summary(latencies, max(r.elapsed for r in results), sum(r.errors for r in results))
    if unfinished := sum(r.unfinished for r in results):
        out["unfinished"] = unfinished  # their latencies are lower bounds: so are the percentiles they reach
    if first := next((r.first_error for r in results if r.first_error), None):
        out["first_error"] = first
    return out


class Loaded(NamedTuple):
    """What one raw_load measured: latencies of good answers (an unfinished request's: the time it had taken when
    the client gave up on it), errors, the first error's text, requests unfinished, seconds it took."""

    latencies: list[float]
    errors: int
    first_error: str | None
    unfinished: int
    elapsed: float


def raw_load(fn: Callable[[], bool], clients: int, seconds: float, every: float | None = None) -> Loaded:
    """load()'s measurements."""
    latencies: list[float] = []
    inflight: dict[int, float] = {}  # client thread -> when its request was sent
    errors = [0]
    first_error: list[str] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client() -> None:
        due = time.monotonic() + (random.uniform(0, every) if every else 0)
        while time.monotonic() < stop:
            if every:
                time.sleep(max(0.0, due - time.monotonic()))
                due = max(due + every, time.monotonic())  # late: the next one is not sent sooner
                if time.monotonic() >= stop:
                    break
            t0 = inflight[threading.get_ident()] = time.perf_counter()
            try:
                ok = fn()
            except Exception as exc:
                ok = False
                if not first_error:
                    first_error.append(f"{type(exc).__name__}: {str(exc)[:200]}")
            took = time.perf_counter() - t0
            with lock:
                del inflight[threading.get_ident()]
                if ok:
                    latencies.append(took)
                else:
                    errors[0] += 1

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, t0 + seconds + GRACE - time.monotonic()))
    with lock:  # the requests still unanswered: counted at what they took so far (a lower bound)
        now = time.perf_counter()
        waited = [now - sent for sent in inflight.values()]
        latencies.extend(waited)
    return Loaded(latencies, errors[0], first_error[0] if first_error else None, len(waited), time.monotonic() - t0)


def _one_process(
    make: Callable[[], Callable[[], bool]],
    seconds: float,
    every: float | None,
    start_at: float,
    results: multiprocessing.queues.Queue[Any],
) -> None:
    """One client in a process of its own: made there (its own connections), started with the others. It hands back
    what it measured and ends at once: a request still unanswered leaves its client thread in a blocking read, and
    an interpreter's normal exit unwinds such threads (glibc's "FATAL: exception not rethrown" in the run's log)."""
    try:
        fn = make()
        time.sleep(max(0.0, start_at - time.time()))
        results.put(raw_load(fn, 1, seconds, every))
    except BaseException as exc:  # the parent waits for one answer from each process: this is its answer
        results.put(f"{type(exc).__name__}: {exc}")
    results.close()
    results.join_thread()  # what was put is in the pipe
    os._exit(0)


def load_in_processes(
    make: Callable[[], Callable[[], bool]], clients: int, seconds: float, every: float | None = None
) -> dict[str, Any]:
    """load() with each client in a process of its own (as the soak run's clients are): a client that decodes
    large lists then shares no interpreter, GIL or memory with the others or with the benchmark. `make` (picklable)
    builds a client's request function in its process; all start together once every process is up."""
    ctx = multiprocessing.get_context("spawn")
    start_at = time.time() + 5 + 0.4 * clients  # a spawned interpreter imports the client's modules first
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_one_process, args=(make, seconds, every, start_at, results), daemon=True)
        for _ in range(clients)
    ]
    for proc in procs:
        proc.start()
    try:
        answers = [results.get(timeout=start_at - time.time() + seconds + GRACE + 60) for _ in procs]
    finally:
        for proc in procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
    if failed := [a for a in answers if isinstance(a, str)]:
        raise RuntimeError(f"{len(failed)} of {clients} client processes failed: {failed[0]}")
    out = _summary(answers)
    out["processes"] = clients
    return out


class StatusProbe:
    """GET /api/status 10 times a second, in its own thread: the Jupyter server's event loop as users feel it."""

    def __init__(self, http_: Http) -> None:
        self.http = http_
        self.samples: list[tuple[float, float]] = []  # (when, latency)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.perf_counter()
            with contextlib.suppress(Exception):
                self.http.get("/api/status")
                self.samples.append((time.monotonic(), time.perf_counter() - t0))
            self._stop.wait(max(0.0, 0.1 - (time.perf_counter() - t0)))

    def __enter__(self) -> StatusProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(5)

    def window(self, start: float, end: float) -> dict[str, Any]:
        lat = [lat for at, lat in self.samples if start <= at <= end]
        return summary(lat, end - start)


def collector_passes(passes: list[Any]) -> dict[str, Any]:
    """The cycle collector's passes over 1 ms in a window, (when, s, generation, s of CPU) each: how many over
    5 ms, the longest and its CPU time (little CPU: its thread waited for a core), their sum, the full ones, and the
    same per generation (which of them a change shortened). Runs before the CPU was kept have 3-tuples."""

    def summary(ps: list[Any]) -> dict[str, Any]:
        longest = max(ps, key=lambda p: p[1], default=None)
        return {
            "over_5ms": sum(1 for p in ps if p[1] > 0.005),
            "max_ms": _ms(longest[1] if longest else 0.0),
            "max_cpu_ms": _ms(longest[3]) if longest and len(longest) > 3 else None,
            "total_ms": _ms(sum(p[1] for p in ps)),
        }

    return {
        **summary(passes),
        "full": sum(1 for p in passes if p[2] == 2),  # passes over 1 ms of the oldest generation
        "by_generation": {
            str(g): {"passes": n, **summary(ps)}
            for g in (0, 1, 2)
            if (n := len(ps := [p for p in passes if p[2] == g]))
        },
    }


def loop_held(http_: Http, start: float, end: float) -> dict[str, Any]:
    """How long the Jupyter server's event loop was held in a window (benchmarks/loop_lag.py, in the server): the
    lateness of a 5 ms wake-up (what any request felt, queueing included), the longest single callback, and where
    the wall time of the callbacks over 20 ms went: on a core, runnable waiting for a core, or asleep (the GIL), and
    how much of it the cycle collector ran meanwhile (in any of the server's threads: it holds the GIL)."""
    body = json.loads(http_.get(f"/bench/loop-lag?start={start}&end={end}")[1])
    lateness, holds, product = body["lateness"], body["holds"], body["product"]
    passes = body.get("collections") or []  # (when, s, generation)
    none = (0.0, 0.0, 0.0, 0.0, "")
    longest = max(holds, default=none)
    busiest = max(holds, key=lambda h: h[1], default=none)  # the most CPU on the loop in one callback
    over = [h for h in holds if h[0] > 0.020]
    wall = sum(h[0] for h in over)
    cpu, queued = sum(h[1] for h in over), sum(h[2] for h in over)
    collecting = sum(c for h, c in zip(holds, body.get("holds_collecting") or [], strict=False) if h[0] > 0.020)
    return {
        "samples": len(lateness),
        "late_p99_ms": _ms(percentile(lateness, 99)),
        "late_max_ms": _ms(max(lateness) if lateness else None),
        "hold_max_ms": _ms(longest[0]),
        "hold_max_cpu_ms": _ms(longest[1]),
        "hold_max_core_wait_ms": _ms(longest[2]),
        "hold_max_others_cpu_ms": _ms(longest[3]),
        "holds_over_20ms": len(over),
        "cpu_over_20ms": sum(1 for h in holds if h[1] > 0.020),
        # of the wall time of the holds over 20 ms, the share spent on a core, waiting for one, and asleep (GIL)
        "over_20ms_wall_ms": _ms(wall),
        "over_20ms_split": {
            "cpu": round(cpu / wall, 3) if wall else None,
            "core_wait": round(queued / wall, 3) if wall else None,
            "asleep": round(max(0.0, wall - cpu - queued) / wall, 3) if wall else None,
            "others_cpu_ms": _ms(sum(h[3] for h in over)),
            "collecting": round(collecting / wall, 3) if wall else None,  # of the three above, in the collector
        },
        "collections": collector_passes(passes),
        "longest": longest[4],
        "most_cpu_ms": _ms(busiest[1]),
        "most_cpu": busiest[4],
        "product": product,  # counters so far: the table shows their change over the window
        **({"censuses": body["censuses"]} if body.get("censuses") else {}),  # JA_LOOP_LAG_CENSUS=1 runs only
    }


def apiserver_reads(rest: Rest) -> int:
    """LIST and GET requests the API server has answered for the kinds the product reads (its /metrics)."""
    text = rest.request("GET", "/metrics", timeout=30)
    total = 0
    for line in text.splitlines():
        if not line.startswith("apiserver_request_total{"):
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', line))
        if labels.get("verb") in ("LIST", "GET") and labels.get("resource") in READ_RESOURCES:
            total += int(float(line.rsplit(" ", 1)[1]))
    return total


def product_reads(events: Iterable[dict[str, Any]], user: str, since: float, until: float) -> Counter[str]:
    """The product's gets and lists of resources (the API server's audit events, its user agent and account)
    received in [since, until] (epoch seconds), per path without the query: what it read, however it read it."""
    reads: Counter[str] = Counter()
    for event in events:
        if (event.get("stage") == "ResponseComplete" and event.get("verb") in ("get", "list")
                and event.get("objectRef") and event.get("userAgent") == USER_AGENT
                and event.get("user", {}).get("username") == user
                and since <= datetime.fromisoformat(event["requestReceivedTimestamp"]).timestamp() <= until):  # fmt: skip
            reads[event["requestURI"].split("?", 1)[0]] += 1
    return reads


def unscheduled_reads(audited: Counter[str], scheduled: dict[str, int]) -> dict[str, int]:
    """Per path, the reads the API server saw beyond those the product's background loops counted making
    (`rest.SCHEDULED_READS`, counted before each is sent): reads made for someone's request."""
    return {path: n - scheduled.get(path, 0) for path, n in sorted(audited.items()) if n > scheduled.get(path, 0)}


def apiserver_writes(rest: Rest) -> int:
    """Writes the API server has answered (every client: Kueue admitting, kwok starting pods, ...)."""
    total = 0
    for line in rest.request("GET", "/metrics", timeout=30).splitlines():
        if line.startswith("apiserver_request_total{"):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', line))
            if labels.get("verb") in ("POST", "PUT", "PATCH", "DELETE", "APPLY"):
                total += int(float(line.rsplit(" ", 1)[1]))
    return total


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def save_result(result: dict[str, Any], out: Path) -> None:
    """Write a run's JSON (benchmarks/results/ by default) and say where."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {out}")
