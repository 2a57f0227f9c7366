"""The loop probe times the cycle collector's passes and says how much of a hold they were: a hold can then be
told apart from a collection that happened to run during it."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import loop_lag  # noqa: E402
import pytest  # noqa: E402


def test_a_full_collection_is_timed_with_its_generation():
    loop_lag.COLLECTIONS.clear()
    gc.callbacks.append(loop_lag._time_collections)
    try:
        garbage = [[i] for i in range(300_000)]  # enough tracked objects for a pass over 1 ms
        gc.collect()
        del garbage
    finally:
        gc.callbacks.remove(loop_lag._time_collections)
    full = [c for c in loop_lag.COLLECTIONS if c[2] == 2]
    assert full, list(loop_lag.COLLECTIONS)
    assert all(c[1] > loop_lag.KEEP_COLLECTION for c in loop_lag.COLLECTIONS)
    # the pass's CPU in its own thread: spent walking, so some, and never more than the pass's wall time
    assert all(0 < c[3] <= c[1] + 0.001 for c in full), full


def test_a_holds_collection_time_is_the_overlap_only():
    passes = [(10.0, 0.010, 2, 0.01), (10.015, 0.010, 0, 0.01), (11.0, 0.5, 2, 0.5)]
    assert loop_lag._overlap(10.005, 0.015, passes) == pytest.approx(0.005 + 0.005)
    assert loop_lag._overlap(12.0, 0.1, passes) == 0.0


def test_the_passes_of_a_window_are_summed_per_generation():
    import scale_load

    # the middle generation's longest pass mostly waited for a core: 12 ms of wall time, 1 of CPU
    passes = [(1.0, 0.002, 0, 0.002), (2.0, 0.012, 1, 0.001), (3.0, 0.006, 1, 0.006), (4.0, 0.030, 2, 0.029)]
    got = scale_load.collector_passes(passes)
    assert got["over_5ms"] == 3 and got["max_ms"] == 30.0 and got["total_ms"] == 50.0 and got["full"] == 1
    assert got["max_cpu_ms"] == 29.0
    assert got["by_generation"] == {
        "0": {"passes": 1, "over_5ms": 0, "max_ms": 2.0, "max_cpu_ms": 2.0, "total_ms": 2.0},
        "1": {"passes": 2, "over_5ms": 2, "max_ms": 12.0, "max_cpu_ms": 1.0, "total_ms": 18.0},
        "2": {"passes": 1, "over_5ms": 1, "max_ms": 30.0, "max_cpu_ms": 29.0, "total_ms": 30.0},
    }
    # a run from before the CPU was kept
    assert scale_load.collector_passes([(1.0, 0.012, 1)])["max_cpu_ms"] is None
    assert scale_load.collector_passes([]) == {
        "over_5ms": 0,
        "max_ms": 0.0,
        "max_cpu_ms": None,
        "total_ms": 0.0,
        "full": 0,
        "by_generation": {},
    }


class _Holder:
    def __init__(self) -> None:
        self.index = {f"key-{i}": [i] for i in range(50_000)}  # the largest container, under an attribute


def test_a_census_names_the_largest_container_a_full_pass_walks_and_its_attribute(monkeypatch):
    monkeypatch.setattr(loop_lag, "CENSUS", True)
    monkeypatch.setattr(loop_lag, "CENSUS_OVER", 0.0)
    loop_lag.CENSUSES.clear()
    holder = _Holder()
    gc.callbacks.append(loop_lag._time_collections)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(loop_lag._time_collections)
    assert loop_lag.CENSUSES, list(loop_lag.COLLECTIONS)
    taken = loop_lag.CENSUSES[-1][1]
    assert taken["tracked"] >= 100_000 and taken["by_type"]["list"] >= 50_000
    assert taken["took_ms"] > 0 and taken["collected"] is not None
    top = taken["largest"][0]
    assert (top["type"], top["len"]) == ("dict", len(holder.index)) and "_Holder.index" in top["held_by"]
    # frozen objects are not walked by a full pass, and not counted
    gc.freeze()
    try:
        assert loop_lag.census()["tracked"] < taken["tracked"] - 100_000
    finally:
        gc.unfreeze()
