"""The magics' and launcher's request knobs: a maximum run time in people's units."""

from __future__ import annotations

import pytest

from jupyter_accel.models import JobRequest
from jupyter_accel.notebook.requests import job_request, parse_duration


def test_durations_in_people_units():
    assert [parse_duration(t) for t in ("90m", "2h", "1h30m", "1d", "3600", " 45S ")] == [
        5400, 7200, 5400, 86400, 3600, 45
    ]  # fmt: skip
    for bad in ("2 hours", "h", "1.5h", "-1h", ""):
        with pytest.raises(ValueError, match="not a duration"):
            parse_duration(bad)


def test_the_request_carries_seconds_and_validates():
    body = job_request("pytorch", max_run="2h", command=["true"])
    assert body["max_run_seconds"] == 7200
    assert JobRequest.model_validate(body).max_run_seconds == 7200
    assert "max_run_seconds" not in job_request("pytorch", command=["true"])
