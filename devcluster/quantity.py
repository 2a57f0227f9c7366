"""Kubernetes quantities, as far as devcluster needs them: to see that the API server's canonical form of a node's
allocatable ('1Ti') is the amount the manifest asked for ('1024Gi'). devcluster imports nothing of the product."""

from __future__ import annotations

import re
from fractions import Fraction

_QUANTITY = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([KMGTPE]i|[numkMGTPE]?)$")
_BINARY = "KMGTPE"
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def amount(text: str | int) -> Fraction:
    """The exact amount of a quantity; ValueError when it is not one."""
    m = _QUANTITY.match(str(text).strip())
    if not m:
        raise ValueError(f"not a Kubernetes quantity: {text!r}")
    number, suffix = Fraction(m.group(1)), m.group(2)
    if suffix.endswith("i"):
        return number * 1024 ** (_BINARY.index(suffix[0]) + 1)
    return number * Fraction(10) ** _DECIMAL[suffix]


def same_amounts(a: dict[str, str], b: dict[str, str]) -> bool:
    """The two resource lists name the same resources with equal amounts, whatever their spelling."""
    return a.keys() == b.keys() and all(amount(a[k]) == amount(b[k]) for k in a)
