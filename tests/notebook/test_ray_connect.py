"""`%accel connect` / `%%accel_job --cluster` refuse a Ray cluster that is not running, naming its state (the
server's own words), before anything is sent to it. The client is a plain stand-in that answers one job detail."""

from __future__ import annotations

import pytest

from jupyter_accel.models import JobDetail
from jupyter_accel.notebook.client import AccelError
from jupyter_accel.notebook.ray_cluster import require_running, submit_cell

QUEUED = {
    "job": {
        "kind": "ray-cluster",
        "name": "rc",
        "namespace": "team-a",
        "managed_by_us": True,
        "status": "Queued",
        "display": {
            "label": "Queued",
            "tone": "info",
            "sentence": "Waiting for quota in ClusterQueue team-a-cq",
            "finished": False,
            "actions": [],
        },
    }
}


class OneDetail:
    def __init__(self, detail: dict) -> None:
        self.detail = JobDetail.model_validate(detail)
        self.submitted: list[str] = []

    def job(self, kind: str, name: str) -> JobDetail:
        return self.detail

    def ray_submit(self, name: str, entrypoint: str, runtime_env=None, workdir=None) -> str:
        self.submitted.append(name)
        return "raysubmit_1"


def test_a_cluster_that_is_not_running_is_refused_with_its_state_and_nothing_is_sent():
    client = OneDetail(QUEUED)
    with pytest.raises(AccelError) as refused:
        require_running(client, "rc")  # type: ignore[arg-type]
    assert refused.value.status == 409 and refused.value.field == "cluster"
    assert str(refused.value.message) == "rc is not running (Queued: Waiting for quota in ClusterQueue team-a-cq)"
    with pytest.raises(AccelError):
        submit_cell(client, "rc", "print(1)")  # type: ignore[arg-type]
    assert client.submitted == []
    running = {
        "job": {**QUEUED["job"], "status": "Running", "display": {**QUEUED["job"]["display"], "label": "Running"}}
    }
    assert submit_cell(OneDetail(running), "rc", "print(1)") == "raysubmit_1"  # type: ignore[arg-type]


def test_a_cell_too_big_for_an_environment_string_is_refused_before_anything():
    client = OneDetail(QUEUED)
    with pytest.raises(AccelError) as refused:
        submit_cell(client, "rc", "x" * 200_000)  # type: ignore[arg-type]
    assert refused.value.status == 400 and "--workdir" in refused.value.message and client.submitted == []
