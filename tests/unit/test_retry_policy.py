"""The retry policy's rules and the health record, on plain values (cluster/retry.py, cluster/health.py); the same
policy against a real API server behind a fault-injecting proxy: tests/reliability/test_apiserver_faults.py."""

from __future__ import annotations

import time
from email.utils import formatdate

from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import NewConnectionError, ProtocolError, ReadTimeoutError

from jupyter_accel.cluster import health, retry
from jupyter_accel.models import DegradedReason


def _answer(status: int, retry_after: str | None = None) -> ApiException:
    exc = ApiException(status=status, reason="x")
    exc.headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return exc


def test_what_is_repeated():
    assert retry.retriable(_answer(429), safe=False)  # turned away before any work
    assert not retry.retriable(_answer(500), safe=False)  # may have been done
    assert retry.retriable(_answer(503), safe=True)
    assert not retry.retriable(_answer(409), safe=True)
    assert not retry.retriable(_answer(403), safe=True)
    assert retry.retriable(NewConnectionError(None, "refused"), safe=False)  # nothing was sent
    assert not retry.retriable(ProtocolError("reset"), safe=False)
    assert retry.retriable(ReadTimeoutError(None, "/x", "timed out"), safe=True)


def test_retry_after_seconds_date_and_cap():
    assert retry.retry_after(_answer(429, "2")) == 2.0
    assert retry.retry_after(_answer(429, "3600")) == retry.RETRY_AFTER_CAP
    assert retry.retry_after(_answer(429)) is None
    assert retry.retry_after(_answer(429, "soon")) is None
    in_5s = retry.retry_after(_answer(503, formatdate(time.time() + 5, usegmt=True)))
    assert in_5s is not None and 3.0 <= in_5s <= 5.0
    # the pause is the longer of the backoff and Retry-After
    assert retry.pause(_answer(429, "2"), 0) == 2.0
    assert 0.2 <= retry.pause(_answer(500), 0) <= 0.3


def test_backoff_doubles_with_jitter_up_to_its_cap():
    b = retry.Backoff(1.0, 8.0)
    for failures, base in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (10, 8.0)]:
        pauses = {b.pause(failures) for _ in range(50)}
        assert all(0.8 * base <= p <= 1.2 * base for p in pauses)
        assert len(pauses) > 1  # jittered


def test_call_is_bounded_and_records_health():
    class Client:  # any object keys a Health; this one stands for an ApiClient
        pass

    api, tries = Client(), []

    def throttled():
        tries.append(time.monotonic())
        raise _answer(429, "0")

    t0 = time.monotonic()
    try:
        retry.call(api, throttled, safe=False)
    except ApiException as exc:
        assert exc.status == 429
    assert len(tries) == retry.ATTEMPTS
    assert time.monotonic() - t0 < 3.0  # backoff 0.25, 0.5, 1 s with jitter
    h = health.health_of(api)
    assert h.retries == retry.ATTEMPTS - 1
    assert h.trouble().reason == DegradedReason.throttled


def test_health_shows_trouble_for_a_while_then_clears_on_prompt_answers(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(health.time, "monotonic", lambda: now[0])
    h = health.Health()
    h.failed(_answer(500), 0.1)
    for _ in range(health.CLEAR_AFTER):
        h.answered(0.05)
    assert h.trouble().reason == DegradedReason.failing  # shown at least SHOWN_FOR
    now[0] += health.SHOWN_FOR + 0.1
    assert h.trouble() is None  # prompt answers since
    h.answered(health.SLOW + 0.5)
    assert h.trouble().reason == DegradedReason.slow
    now[0] += health.WINDOW + 0.1
    assert h.trouble() is None  # nothing since: the window passed
    h.failed(_answer(404), 0.05)  # a refusal is an answer, not trouble
    assert h.trouble() is None


def test_degraded_sentences():
    assert health.degraded(None, []) is None
    d = health.degraded(health.Trouble(DegradedReason.throttled, "429 Too Many Requests", 0.0), [])
    assert d.reason == DegradedReason.throttled and "throttling" in d.message and d.tone == "warn"
    d = health.degraded(None, ["pods", "pytorchjobs", "rayclusters", "workloads"])
    assert d.reason == DegradedReason.reconnecting and "pods, pytorchjobs, rayclusters and 1 more" in d.message
