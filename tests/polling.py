"""Waiting in tests for a cluster or a server to reach a state: one helper, with the last value shown on failure."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def poll_until(check: Callable[[], Any], timeout: float = 90, what: str = "", every: float = 0.2) -> Any:
    """Call `check` every `every` seconds until it returns something truthy, and return that."""
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}: last {last!r}")
