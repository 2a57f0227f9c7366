"""api/base.os_error_answer: an error of the network or the machine is named for its true cause (issue #30)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("exc", "status", "says"),
    [
        (ConnectionRefusedError(111, "Connection refused"), 503, "API server cannot be reached"),
        (TimeoutError("timed out"), 503, "API server cannot be reached"),
        (PermissionError(13, "Permission denied", "/data/logs/x.log"), 500, "/data/logs/x.log"),
        (OSError(28, "No space left on device", "/data/logs"), 500, "No space left on device"),
    ],
)
def test_an_os_error_is_named_for_its_true_cause(exc, status, says):
    from jupyter_accel.api.base import os_error_answer

    got, body = os_error_answer(exc)
    assert got == status and says in body.message
    assert (status == 503) == ("API server" in body.message)
