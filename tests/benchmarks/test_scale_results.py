"""Every scale run saved in benchmarks/results still prints its table with today's scale_table.py: the README and
docs/scale.md cite them by name, and the table's code changes as the runs keep more."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import scale_table  # noqa: E402

RUNS = sorted((REPO / "benchmarks" / "results").glob("scale-*.json"))


def test_there_are_saved_runs():
    assert any(p.name == "scale-full.json" for p in RUNS), RUNS


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_a_saved_run_prints_its_table(path: Path):
    result = json.loads(path.read_text())
    text = scale_table.table(result)
    assert "| issue #15 target |" in text and "| API-server requests caused by refreshes: zero |" in text
