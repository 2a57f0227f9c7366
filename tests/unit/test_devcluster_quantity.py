"""devcluster's own quantity helper, and that devcluster imports nothing of the product it tests."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest

from devcluster.quantity import amount, same_amounts

DEVCLUSTER = Path(__file__).resolve().parents[2] / "devcluster"


def test_amounts_whatever_the_spelling():
    assert amount("1Ti") == amount("1024Gi") == 2**40
    assert amount("500m") == Fraction(1, 2)
    assert amount("1.5k") == 1500 and amount("2e3") == 2000 and amount(8) == 8
    assert same_amounts({"cpu": "1000m", "memory": "1Ti"}, {"cpu": "1", "memory": "1024Gi"})
    assert not same_amounts({"cpu": "2"}, {"cpu": "1"})
    assert not same_amounts({"cpu": "1"}, {"cpu": "1", "nvidia.com/gpu": "8"})
    with pytest.raises(ValueError):
        amount("8 GPUs")


def test_devcluster_imports_nothing_of_jupyter_accel():
    for path in sorted(DEVCLUSTER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names.append(node.module or "")
            assert not any(n.split(".")[0] == "jupyter_accel" for n in names), f"{path.name} imports the product"
