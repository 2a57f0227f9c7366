"""The soak benchmark's figures (soak.py): the server process sampled every second, push latency and completeness
from the stream clients' records, resources idle / start / peak / end / after with their growth per minute."""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from typing import Any

from scale_load import percentile

from devcluster.jupyter_server import process_figures


class Sampler:
    """The server process's figures every second, in a thread."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, dict[str, float]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError):
                self.samples.append((time.monotonic(), process_figures(self.pid)))
            self._stop.wait(1.0)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(5)

    def between(self, a: float, b: float) -> list[dict[str, float]]:
        return [s for t, s in self.samples if a <= t <= b]


def push_figures(changes: list[tuple[float, float, str, str]], streams: list[dict[str, Any]], stop_at: float) -> dict:
    """For each change (from the answer of the write that made it) and stream client: the first push event after
    the write was sent whose fetch shows the change. An event may come before the write's answer (the watch can be
    quicker than the answer's way back): it counts as 0."""
    to_event, to_seen, missed = [], [], []
    for sent, t0, what, name in changes:
        if t0 > stop_at - 5:  # too late in the run for every client to see it
            continue
        for i, s in enumerate(streams):
            hit = next(
                (
                    (arrival, answered)
                    for arrival, answered, names in s["job_fetches"]
                    if arrival >= sent and ((name in names) == (what == "create"))
                ),
                None,
            )
            if hit is None:
                missed.append(f"client {i}: {what} {name}")
            else:
                to_event.append(max(0.0, hit[0] - t0))
                to_seen.append(max(0.0, hit[1] - t0))
    gaps, reconnects, lasts = 0, 0, []
    for s in streams:
        revisions = [r for _, r, _ in s["events"]]
        gaps += sum(b - a - 1 for a, b in itertools.pairwise(revisions) if b != a + 1)
        reconnects += sum(1 for _, _, topics in s["events"][1:] if "*" in topics)
        if revisions:
            lasts.append(revisions[-1])
    return {
        "changes": len([c for c in changes if c[1] <= stop_at - 5]),
        "samples": len(to_event),
        "missed": len(missed),
        "first_missed": missed[:5],
        "to_event_p50_ms": _ms(percentile(to_event, 50)),
        "to_event_p99_ms": _ms(percentile(to_event, 99)),
        "to_event_max_ms": _ms(max(to_event, default=None)),
        "to_seen_p50_ms": _ms(percentile(to_seen, 50)),
        "to_seen_p99_ms": _ms(percentile(to_seen, 99)),
        "to_seen_max_ms": _ms(max(to_seen, default=None)),
        "events_per_client": [len(s["events"]) for s in streams],
        "revision_gaps": gaps,  # pushes a client never received
        "reconnects": reconnects,
        "last_revision_spread": (max(lasts) - min(lasts)) if lasts else None,
    }


def _ms(v: float | None) -> float | None:
    return None if v is None else round(v * 1000, 1)


def resource_figures(sampler: Sampler, t_begin: float, t_start: float, t_end: float, t_after: float) -> dict:
    """idle: the last sample before the clients came; start: the first after the warm-up; peak and end: over the
    load; after: the first once the clients had gone."""
    before = [s for t, s in sampler.samples if t < t_begin][-1:]
    after = [s for t, s in sampler.samples if t >= t_after][:1]
    during = [(t, s) for t, s in sampler.samples if t_start <= t <= t_end]
    out: dict[str, dict[str, float | None]] = {}
    for key in ("rss_mib", "fds", "sockets", "threads"):
        series = [s[key] for _, s in during]
        out[key] = {
            "idle": before[0][key] if before else None,
            "start": series[0] if series else None,
            "peak": max(series) if series else None,
            "end": series[-1] if series else None,
            "after": after[0][key] if after else None,
            "slope_per_min": _slope([t for t, _ in during], series),
        }
    return out


def _slope(ts: list[float], ys: list[float]) -> float | None:
    """Least-squares growth per minute over the load (flat: about 0)."""
    if len(ts) < 3:
        return None
    mt, my = sum(ts) / len(ts), sum(ys) / len(ys)
    var = sum((t - mt) ** 2 for t in ts)
    return round(60 * sum((t - mt) * (y - my) for t, y in zip(ts, ys, strict=True)) / var, 2) if var else 0.0
