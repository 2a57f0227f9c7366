"""How well the API server answers this identity: throttled, failing, slow, or watches reconnecting.

Every call through rest (retry.call) reports here. The latest trouble is shown for at least SHOWN_FOR seconds (a
blip must not flicker past unread), then until CLEAR_AFTER prompt answers in a row, or WINDOW seconds without new
trouble. The hub adds the caches whose watch is reconnecting and
publishes the result as /info's `connection.degraded`, one sentence decided here (like session.py's connection
sentences), and pushes the topic "info" when it appears, changes or clears.
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass

from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import ReadTimeoutError

from ..models import Degraded, DegradedReason

SLOW = 2.0  # seconds: one plain request (not a watch or a followed log) that took longer is a slow answer
SHOWN_FOR = 5.0  # seconds that trouble is shown at least
WINDOW = 15.0  # seconds that trouble is shown at most after it last happened, when prompt answers do not clear it
CLEAR_AFTER = 3  # prompt answers in a row that show the API server has recovered


@dataclass(frozen=True)
class Trouble:
    reason: DegradedReason
    detail: str  # e.g. "429 Too Many Requests; it asked for a 2 s wait"
    at: float  # time.monotonic()


class Health:
    """Thread-safe; one per ApiClient (health_of)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._trouble: Trouble | None = None
        self._prompt = 0  # prompt answers since the last trouble
        self.retries = 0  # tries repeated by retry.call, in all (tests and figures read it)

    def answered(self, seconds: float) -> None:
        if seconds >= SLOW:
            self._note(DegradedReason.slow, f"one request took {seconds:.1f} s")
            return
        with self._lock:
            self._prompt += 1

    def failed(self, exc: BaseException, seconds: float) -> None:
        if isinstance(exc, ApiException):
            if exc.status == 429:
                from .retry import retry_after  # one parser of Retry-After

                asked = retry_after(exc)
                wait = f"; it asked for a {asked:.0f} s wait" if asked else ""
                self._note(DegradedReason.throttled, f"429 Too Many Requests{wait}")
            elif exc.status >= 500:
                self._note(DegradedReason.failing, f"{exc.status} {exc.reason or ''}".strip())
            else:  # 4xx: an answer (a refusal is not a fault of the API server)
                self.answered(seconds)
        elif isinstance(exc, ReadTimeoutError | TimeoutError):
            self._note(DegradedReason.slow, f"no answer within {seconds:.1f} s")
        else:
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self._note(DegradedReason.failing, _short(text))

    def retried(self) -> None:
        with self._lock:
            self.retries += 1

    def _note(self, reason: DegradedReason, detail: str) -> None:
        with self._lock:
            self._trouble = Trouble(reason, detail, time.monotonic())
            self._prompt = 0

    def trouble(self) -> Trouble | None:
        with self._lock:
            t = self._trouble
            if t is None:
                return None
            age = time.monotonic() - t.at
            if age > WINDOW or (age > SHOWN_FOR and self._prompt >= CLEAR_AFTER):
                return None
            return t


_HEALTH: weakref.WeakKeyDictionary[object, Health] = weakref.WeakKeyDictionary()
_HEALTH_LOCK = threading.Lock()


def health_of(api: object) -> Health:
    """The Health of one ApiClient (one identity); dropped with the client."""
    with _HEALTH_LOCK:
        h = _HEALTH.get(api)
        if h is None:
            h = _HEALTH[api] = Health()
        return h


def degraded(
    trouble: Trouble | None, reconnecting: list[str], service: tuple[str, str] | None = None
) -> Degraded | None:
    """The sentence for the connection: broken watches first (what is shown may be stale), then the read service
    (`service`: its URL and what is wrong, cluster/remote.py), then the latest trouble."""
    if reconnecting:
        shown = ", ".join(reconnecting[:3]) + (f" and {len(reconnecting) - 3} more" if len(reconnecting) > 3 else "")
        return Degraded(
            reason=DegradedReason.reconnecting,
            message=f"Reconnecting to the Kubernetes API server: the watch of {shown} broke, so what is shown may be "
            "out of date until it answers again.",
        )
    if service is not None:
        url, detail = service
        return Degraded(
            reason=DegradedReason.reconnecting,
            message=f"Reconnecting to the cluster read service at {url}: {detail}. Nodes, accelerator allocations and "
            "Kueue's cluster queues shown may be out of date until it answers again.",
        )
    if trouble is None:
        return None
    message = {
        DegradedReason.throttled: f"The Kubernetes API server is throttling this server ({trouble.detail}): "
        "requests wait as long as it asks and are tried again, so answers and actions may be slow.",
        DegradedReason.failing: f"The Kubernetes API server is answering with errors ({trouble.detail}): requests "
        "that are safe to repeat are tried again a few times with growing pauses.",
        DegradedReason.slow: f"The Kubernetes API server is answering slowly ({trouble.detail}): answers and "
        "actions may be slow.",
    }[trouble.reason]
    return Degraded(reason=trouble.reason, message=message)


def _short(text: str) -> str:
    return text if len(text) <= 160 else text[:157] + "..."
