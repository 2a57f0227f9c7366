"""The cluster's metrics API: a Prometheus-compatible HTTP API (plain Prometheus, or OpenShift's Thanos querier with
the user's own token). One blocking call per query; callers run them off the event loop and cache the answers."""

from __future__ import annotations

import json
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

PATH = "/api/v1/query_range"


class MetricsError(Exception):
    """`status` 0: it could not be reached at all."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class MetricsClient:
    url: str  # the API's base, e.g. https://thanos-querier.openshift-monitoring.svc:9091
    token: Callable[[], str | None] = lambda: None  # the bearer token to send (the user's own), read per call
    ca_file: str | None = None
    timeout: float = 10.0
    sent: ClassVar[int] = 0  # queries sent by this process (the benchmark counts them)
    _count_lock: ClassVar[threading.Lock] = threading.Lock()

    def query_range(self, promql: str, start: float, end: float, step: float) -> list[dict[str, Any]]:
        """The matrix of a range query (POSTed: a batch of pods makes a long selector). Raises MetricsError."""
        body = urllib.parse.urlencode({"query": promql, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": step})
        req = urllib.request.Request(self.url.rstrip("/") + PATH, data=body.encode(), method="POST")
        req.add_header("Content-Type", "application/x-www-form-urlencoded")
        req.add_header("Accept", "application/json")
        token = self.token()
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        context = ssl.create_default_context(cafile=self.ca_file or None) if self.url.startswith("https") else None
        with MetricsClient._count_lock:
            MetricsClient.sent += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout, context=context) as resp:
                doc = json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as exc:
            raise MetricsError(exc.code, _error_text(exc)) from None
        except (OSError, ValueError) as exc:  # refused, reset, timed out, TLS, not JSON
            raise MetricsError(0, str(getattr(exc, "reason", exc))) from None
        if doc.get("status") != "success":
            raise MetricsError(422, str(doc.get("error") or "the query failed"))
        return list((doc.get("data") or {}).get("result") or [])


def _error_text(exc: urllib.error.HTTPError) -> str:
    try:
        doc = json.loads(exc.read() or b"{}")
    except (OSError, ValueError):
        doc = {}
    return str(doc.get("error") or exc.reason or f"HTTP {exc.code}")
