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


def test_worker_groups_from_the_magics_flag():
    from jupyter_accel.notebook.requests import parse_worker_group

    assert parse_worker_group("cpu-workers=2-8,cpu=4,memory=8Gi") == {
        "name": "cpu-workers",
        "workers": 2,
        "max_workers": 8,
        "cpu": "4",
        "memory": "8Gi",
    }
    assert parse_worker_group("gpu=1,gpus=2,gpu-type=amd.com/gpu")["accelerators"] == {
        "resource": "amd.com/gpu",
        "count": 2,
    }
    for bad in ("cpu", "cpu=x", "cpu=1,disk=5"):
        with pytest.raises(ValueError, match="NAME=WORKERS"):
            parse_worker_group(bad)
