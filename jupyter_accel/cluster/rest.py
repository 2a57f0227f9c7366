"""Raw JSON access to any API path through the official client's ApiClient (auth, TLS, proxies handled there).

Every call goes through retry.call: bounded retries with backoff and jitter, Retry-After respected, each answer
recorded in the client's Health. Reads keep the objects as plain dicts in their wire (camelCase) form, which is
what domain/ works on.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from kubernetes.watch.watch import iter_resp_lines

from . import retry

# The GETs that the background loops (watch caches' lists, the visibility poll, discovery, kept logs) make on their
# own schedule, per path: benchmarks/scale.py takes them from the API server's audit of this product's reads (by its
# user agent), and what is left was made for someone's request (a refresh must read the caches only).
SCHEDULED_READS: Counter[str] = Counter()
# kept logs read a path per pod: a long-lived server stops adding paths here (about 1 MB), never grows without bound
MAX_SCHEDULED_PATHS = 10_000
_scheduled_lock = threading.Lock()
_thread = threading.local()


def on_schedule() -> None:
    """Count the calling thread's GETs as a background loop's, in SCHEDULED_READS."""
    _thread.scheduled = True


def scheduled_reads() -> dict[str, int]:
    with _scheduled_lock:
        return dict(SCHEDULED_READS)


def _count_scheduled(method: str, path: str, query: dict[str, Any] | None) -> None:
    """Called before a request is sent: the count is never behind the server's (a watch is not a read)."""
    if method == "GET" and getattr(_thread, "scheduled", False) and not (query or {}).get("watch"):
        with _scheduled_lock:
            if path in SCHEDULED_READS or len(SCHEDULED_READS) < MAX_SCHEDULED_PATHS:
                SCHEDULED_READS[path] += 1


def resource_path(
    group: str,
    version: str,
    plural: str,
    namespace: str | None = None,
    name: str | None = None,
    subresource: str | None = None,
) -> str:
    base = f"/api/{version}" if not group else f"/apis/{group}/{version}"
    path = base + (f"/namespaces/{namespace}" if namespace else "") + f"/{plural}"
    if name:
        path += f"/{name}"
    if subresource:
        path += f"/{subresource}"
    return path


def _serialize(
    api: ApiClient,
    method: str,
    path: str,
    query: dict[str, Any] | None,
    body: Any = None,
    content_type: str | None = None,
    accept: str = "application/json",
):
    headers = {"Accept": accept}
    if body is not None:
        headers["Content-Type"] = content_type or "application/json"
    q = [(k, str(v).lower() if isinstance(v, bool) else v) for k, v in (query or {}).items() if v is not None]
    return api.param_serialize(
        method=method,
        resource_path=path,
        query_params=q,
        header_params=headers,
        body=body,
        auth_settings=["BearerToken"],
    )


def _call(api: ApiClient, serialized: tuple[Any, ...], timeout: Any) -> Any:
    """ApiClient.call_api on param_serialize's (method, url, headers, body, post_params)."""
    method, url, headers, body, post_params = serialized
    return api.call_api(method, url, headers, body, post_params, _request_timeout=timeout)


def request(
    api: ApiClient,
    method: str,
    path: str,
    *,
    query: dict[str, Any] | None = None,
    body: Any = None,
    content_type: str | None = None,
    timeout: float | tuple[float, float] = 10.0,
    safe: bool | None = None,
    attempts: int = retry.ATTEMPTS,
) -> dict[str, Any]:
    """One JSON call; raises ApiException with status and body on non-2xx. `safe`: the call may be repeated after
    an answer that came too late or failed (default: for GET); see retry.py."""

    def once() -> dict[str, Any]:
        _count_scheduled(method, path, query)
        resp = _call(api, _serialize(api, method, path, query, body, content_type), timeout)
        data = resp.read()
        if not 200 <= resp.status <= 299:
            raise ApiException(status=resp.status, reason=resp.reason, http_resp=resp)
        return json.loads(data) if data else {}

    return retry.call(api, once, safe=method == "GET" if safe is None else safe, attempts=attempts)


def forward(
    api: ApiClient,
    method: str,
    path: str,
    *,
    query: dict[str, Any] | None = None,
    body: Any = None,
    content_type: str | None = None,
    timeout: float | tuple[float, float] = 10.0,
) -> tuple[int, str, bytes]:
    """One call whose answer is handed on whatever it is (a service proxy's): (status, content type, body). Not
    retried: a forwarded write may not be safe to repeat."""
    _count_scheduled(method, path, query)
    resp = _call(api, _serialize(api, method, path, query, body, content_type, accept="*/*"), timeout)
    data = resp.read()
    return resp.status, resp.getheader("Content-Type") or "application/octet-stream", data


def stream(
    api: ApiClient,
    path: str,
    *,
    query: dict[str, Any] | None = None,
    accept: str = "application/json",
    timeout: float | tuple[float, float] | None = None,
    attempts: int = retry.ATTEMPTS,
):
    """An unread HTTP response for streaming (watch, follow logs); the caller must release it. Opening it is
    retried like a read; a stream that breaks later is the caller's to resume."""

    def once():
        _count_scheduled("GET", path, query)
        resp = _call(api, _serialize(api, "GET", path, query, accept=accept), timeout)
        if not 200 <= resp.status <= 299:
            resp.read()
            raise ApiException(status=resp.status, reason=resp.reason, http_resp=resp)
        return resp

    return retry.call(api, once, safe=True, attempts=attempts)


def watch_events(resp) -> Iterator[dict[str, Any]]:
    """Decode a watch stream into {"type", "object"} events."""
    for line in iter_resp_lines(resp.response):
        if line:
            yield json.loads(line)


def _status_body(exc: ApiException) -> dict[str, Any]:
    try:
        body = json.loads(exc.body or "{}")
    except (ValueError, TypeError):
        return {}
    return body if isinstance(body, dict) else {}


def error_message(exc: ApiException) -> str:
    """The API server's own message from a Status body, else the HTTP reason."""
    return _status_body(exc).get("message") or f"{exc.status} {exc.reason}"


def error_reason(exc: ApiException) -> str | None:
    """The Status reason (AlreadyExists, Invalid, Forbidden, ...)."""
    return _status_body(exc).get("reason")


def error_causes(exc: ApiException) -> list[dict[str, str]]:
    """Field-level causes of an Invalid answer: [{"field": "spec.x", "message": "..."}]."""
    causes = (_status_body(exc).get("details") or {}).get("causes") or []
    return [{"field": c.get("field") or "", "message": c.get("message") or c.get("reason") or ""} for c in causes]
