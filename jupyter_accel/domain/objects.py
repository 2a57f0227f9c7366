"""Reading Kubernetes objects as plain dicts: nested fields, conditions, and status sentences. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def field(obj: Mapping[str, Any] | None, *path: str) -> Any:
    """obj[path[0]][path[1]]…, or None where any step is missing or not a mapping."""
    cur: Any = obj
    for key in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


def condition(obj: Mapping[str, Any] | None, ctype: str) -> dict[str, Any] | None:
    """The status condition of that type, if any."""
    return next((c for c in field(obj, "status", "conditions") or [] if c.get("type") == ctype), None)


def is_true(cond: Mapping[str, Any] | None) -> bool:
    return bool(cond) and str(cond.get("status")) == "True"


def has_true(obj: Mapping[str, Any] | None, ctype: str) -> bool:
    """The object has condition `ctype` with status True."""
    return is_true(condition(obj, ctype))


def sentence(*parts: str | None) -> str | None:
    """Parts joined by ': ' into one sentence with a single final period; None when all are empty."""
    text = ": ".join(p.strip().rstrip(".") for p in parts if p and p.strip())
    return text + "." if text else None
