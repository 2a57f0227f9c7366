"""The one retry policy for calls to the Kubernetes API server.

- `Backoff`: exponential pauses, capped, with ±20 % jitter. The informers' reconnect loop, the hub's start-up and
  the per-call retries below all take their pauses from it.
- `call`: one request tried at most ATTEMPTS times. A 429 (the API server's priority and fairness turned the request
  away before doing anything) and a connection that could not be opened are retried for every verb. A 5xx, a broken
  connection or a read timeout may come after the API server did the work, so they are retried only for calls that
  are safe to repeat: reads, merge patches, deletes, access reviews, dry runs, and creates that carry a client
  request id (a repeat that meets AlreadyExists is resolved to the job by that id). Retry-After is waited, capped.
  Loops that retry by themselves (watches, the visibility poll) pass attempts=1: retries inside retries multiply.

This follows client-go's rest.WithRetry (Retry-After wins over a shorter backoff); kubernetes>=37 ships a port of it
(kubernetes.utils.retry), but this package supports older clients, and client-go does not retry a 5xx without
Retry-After, which a creaking API server answers in bursts.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TypeVar

from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, ProtocolError, ReadTimeoutError

from .health import health_of

T = TypeVar("T")

ATTEMPTS = 4  # tries of one call, the first included
RETRY_AFTER_CAP = 10.0  # seconds: a longer Retry-After is waited this long, then asked again
BUDGET = 15.0  # seconds one call may spend pausing between its tries, in all
SERVER_ERRORS = frozenset({500, 502, 503, 504})


@dataclass(frozen=True)
class Backoff:
    """Pauses of first * 2**n seconds, at most cap, each varied by ±20 % so that clients do not retry in step."""

    first: float
    cap: float

    def pause(self, failures: int) -> float:
        return min(self.first * 2 ** max(0, failures), self.cap) * random.uniform(0.8, 1.2)


CALL = Backoff(0.25, 4.0)  # between the tries of one call
RECONNECT = Backoff(0.5, 30.0)  # a watch or start-up loop waiting for the API server to come back


def retry_after(exc: BaseException) -> float | None:
    """The Retry-After of a 429 / 5xx answer in seconds (delta-seconds or an HTTP date), capped; None without one."""
    headers = getattr(exc, "headers", None) or {}
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    value = str(value).strip()
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP)


def _root(exc: BaseException) -> BaseException:
    return exc.reason if isinstance(exc, MaxRetryError) and exc.reason is not None else exc


def retriable(exc: BaseException, safe: bool) -> bool:
    """Whether another try may help, and may not do the work twice (see the module's docstring)."""
    exc = _root(exc)
    if isinstance(exc, ApiException):
        return exc.status == 429 or (safe and exc.status in SERVER_ERRORS)
    if isinstance(exc, ConnectTimeoutError):  # urllib3's NewConnectionError is one: nothing was sent
        return True
    return safe and isinstance(exc, ProtocolError | ReadTimeoutError | ConnectionError)


def pause(exc: BaseException, failures: int, backoff: Backoff = CALL) -> float:
    """How long to wait before the next try: the Retry-After asked for when longer than the backoff."""
    wait = backoff.pause(failures)
    asked = retry_after(_root(exc))
    return max(wait, asked) if asked is not None else wait


def call(api: object, once: Callable[[], T], *, safe: bool, attempts: int = ATTEMPTS) -> T:
    """Run one API call with the policy above; every answer and failure is recorded in the client's Health."""
    health = health_of(api)
    paused = 0.0
    for failures in range(attempts):
        t0 = time.monotonic()
        try:
            out = once()
        except Exception as exc:
            health.failed(_root(exc), time.monotonic() - t0)
            if failures + 1 >= attempts or not retriable(exc, safe):
                raise
            wait = pause(exc, failures)
            if paused + wait > BUDGET:
                raise
            paused += wait
            health.retried()
            time.sleep(wait)
            continue
        health.answered(time.monotonic() - t0)
        return out
    raise AssertionError("unreachable")  # the loop returns or raises
