"""Setting and extending a job's time limit through the jobs service, against an in-memory hub: which writes each
state gets, and that a refusal writes nothing (the cluster test tests/integration/test_time_limit.py does it on
Kueue itself)."""

from __future__ import annotations

import pytest
from memory_cluster import MemoryHub, MemoryWriter

from jupyter_accel.api.base import http_error
from jupyter_accel.cluster.writes import WriteError
from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.models import JobKind
from jupyter_accel.services import errors
from jupyter_accel.services.jobs import JobSettings, JobsService

LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
ADMITTED = [
    {
        "type": "QuotaReserved",
        "status": "True",
        "reason": "QuotaReserved",
        "lastTransitionTime": "2026-12-04T15:00:00Z",
    },
    {"type": "Admitted", "status": "True", "reason": "Admitted", "lastTransitionTime": "2026-12-04T15:00:00Z"},
]
EXPIRED = [
    {"type": "Evicted", "status": "True", "reason": "DeactivatedDueToMaximumExecutionTimeExceeded"},
    {"type": "DeactivationTarget", "status": "True", "reason": "MaximumExecutionTimeExceeded"},
]


def cluster(conditions: list[dict], active: bool = True, ceiling: int = 8 * 3600):
    hub = MemoryHub()
    for key in ("rayclusters", "rayjobs", "pytorchjobs", "trainjobs", "pods", "events", "nodes"):
        hub.caches[key] = []
    hub.caches["rayclusters"] = [
        {
            "metadata": {"name": "rc", "namespace": "team-a", "uid": "u1",
                         "labels": {"kueue.x-k8s.io/queue-name": "default", LABEL: "3600"}},
            "spec": {"suspend": not active, "headGroupSpec": {"template": {"spec": {"containers": []}}}},
        }
    ]  # fmt: skip
    hub.caches["workloads"] = [
        {
            "metadata": {"name": "raycluster-rc-1", "namespace": "team-a", "resourceVersion": "7",
                         "labels": {"kueue.x-k8s.io/job-uid": "u1"}},
            "spec": {"active": active, "queueName": "default", "maximumExecutionTimeSeconds": 3600, "podSets": []},
            "status": {"conditions": conditions},
        }
    ]  # fmt: skip
    writer = MemoryWriter(hub)
    service = JobsService(hub, writer, AcceleratorRegistry(), JobSettings(max_run_seconds_limit=ceiling))
    return hub, writer, service


def writes(writer: MemoryWriter) -> list[tuple[str, str, str]]:
    return [c for c in writer.calls if c[0] != "get"]


def test_a_queued_job_gets_the_new_label_and_nothing_else():
    hub, writer, service = cluster([])
    view = service.set_time_limit(JobKind.ray_cluster, "rc", extend_seconds=1800)
    assert writes(writer) == [("patch", "rayclusters", "rc")]
    assert hub.caches["rayclusters"][0]["metadata"]["labels"][LABEL] == "5400"
    assert view.max_run_seconds == 5400


def test_a_running_job_moves_kueues_count_of_time_used_then_notes_its_new_limit():
    hub, writer, service = cluster(ADMITTED)
    view = service.set_time_limit(JobKind.ray_cluster, "rc", max_run_seconds=7200)
    assert writes(writer) == [("patch", "workloads/status", "raycluster-rc-1"), ("patch", "rayclusters", "rc")]
    assert hub.caches["workloads"][0]["status"]["accumulatedPastExecutionTimeSeconds"] == -3600
    assert hub.caches["rayclusters"][0]["metadata"]["labels"][LABEL] == "3600"  # immutable while it runs
    assert view.max_run_seconds == 7200
    assert view.stops_at == "2026-12-04T17:00:00Z"


def test_a_running_job_without_the_right_to_write_workload_status_is_refused_and_nothing_changes():
    hub, writer, service = cluster(ADMITTED)
    writer.refuse["workloads/status"] = WriteError(403, "forbidden", reason="Forbidden")
    with pytest.raises(errors.NotVisible) as refused:
        service.set_time_limit(JobKind.ray_cluster, "rc", extend_seconds=600)
    assert "not visible to your account" in refused.value.message and "workloads/status" in refused.value.message
    assert http_error(refused.value).status_code == 403
    assert writes(writer) == [("patch", "workloads/status", "raycluster-rc-1")]
    assert "annotations" not in hub.caches["rayclusters"][0]["metadata"]


def test_past_the_ceiling_is_a_400_naming_the_field_and_nothing_is_written():
    _hub, writer, service = cluster(ADMITTED, ceiling=4 * 3600)
    with pytest.raises(errors.Invalid) as refused:
        service.set_time_limit(JobKind.ray_cluster, "rc", extend_seconds=4 * 3600)
    assert refused.value.field == "extend_seconds"
    assert "at most 14400 seconds (4h) in all on this server; it has 1h now" in refused.value.message
    assert http_error(refused.value).status_code == 400
    assert writes(writer) == []


def test_a_job_stopped_at_its_limit_is_relabelled_and_gets_a_fresh_workload():
    hub, writer, service = cluster(EXPIRED, active=False)
    service.set_time_limit(JobKind.ray_cluster, "rc", extend_seconds=1800)
    assert writes(writer) == [("patch", "rayclusters", "rc"), ("delete", "workloads", "raycluster-rc-1")]
    assert hub.caches["rayclusters"][0]["metadata"]["labels"][LABEL] == "1800"  # what its next run may use


def test_a_job_stopped_at_its_limit_is_not_resumed_but_told_to_extend():
    _hub, writer, service = cluster(EXPIRED, active=False)
    with pytest.raises(errors.Conflict) as refused:
        service.set_suspended(JobKind.ray_cluster, "rc", suspend=False)
    assert "extend its limit" in refused.value.message
    assert writes(writer) == []
