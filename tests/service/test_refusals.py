"""Log and dashboard refusals become the service's errors, and the one table in api/base.py gives their status."""

from __future__ import annotations

import pytest

from jupyter_accel.api.base import http_error
from jupyter_accel.cluster.writes import WriteError
from jupyter_accel.services.refusals import dashboard_refusal, log_refusal


@pytest.mark.parametrize(
    ("upstream", "status", "reason"),
    [
        (400, 400, "Logs unavailable"),
        (404, 404, "Logs unavailable"),
        (403, 403, "Forbidden"),
        (500, 502, "Logs unavailable"),
    ],
)
def test_a_refused_log_maps_through_the_service_errors(upstream, status, reason):
    err = http_error(log_refusal(WriteError(upstream, 'container "x" is not valid'), "train-1-master-0"))
    assert (err.status_code, err.body.reason) == (status, reason)
    assert 'logs of train-1-master-0: container "x" is not valid' in err.body.message
    if upstream == 403:
        assert err.body.message.startswith("not visible to your account")


def test_a_dashboard_answer_maps_through_the_service_errors():
    assert dashboard_refusal(200, "ray-1") is None and dashboard_refusal(304, "ray-1") is None
    hidden = http_error(dashboard_refusal(401, "ray-1"))
    assert (hidden.status_code, hidden.body.reason) == (403, "Not visible to your account")
    assert "The Ray dashboard of ray-1 is not visible to your account" in hidden.body.message
    down = http_error(dashboard_refusal(503, "ray-1"))
    assert (down.status_code, down.body.reason) == (502, "Dashboard unavailable")
    assert down.body.message.startswith("The Ray dashboard of ray-1 did not answer (HTTP 503)")
