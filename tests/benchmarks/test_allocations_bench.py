"""benchmarks/allocations.py runs, and its two ways of summing agree through its churn (it raises otherwise)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import allocations  # noqa: E402


def test_the_allocations_benchmark_agrees_and_prints_its_ratio(capsys):
    assert allocations.main(["--pods", "2000", "--nodes", "100", "--builds", "5"]) == 0
    out = capsys.readouterr().out
    assert "from the changes since" in out and "ratio:" in out
    r = allocations.measure(500, 20, 3, 4)
    assert r["copy_ms"] > 0 and r["follow_ms"] > 0
