"""Start estimates from Kueue's maximum execution times: a bound when the limits give one, 'unknown' otherwise."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from k8s_objects import cluster_queue

from jupyter_accel.domain.eta import deadline, duration, estimate_start, time_limit_sentence
from jupyter_accel.domain.job_status import JobSeen, job_view
from jupyter_accel.domain.labels import MAX_EXEC_TIME

GPU = "nvidia.com/gpu"
FLAVOR = "nvidia-h100-80gb"
T0 = datetime(2026, 12, 4, 14, 0, tzinfo=UTC)


def admitted(name: str, gpus: int, limit: int | None, at: datetime = T0, spent: int = 0) -> dict:
    spec = {"queueName": "default", "active": True}
    if limit is not None:
        spec["maximumExecutionTimeSeconds"] = limit
    return {
        "metadata": {"name": name, "namespace": "team-a"},
        "spec": spec,
        "status": {
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "lastTransitionTime": at.isoformat()},
                {"type": "Admitted", "status": "True", "lastTransitionTime": at.isoformat()},
            ],
            "admission": {
                "clusterQueue": "team-a-cq",
                "podSetAssignments": [{"name": "main", "flavors": {GPU: FLAVOR}, "resourceUsage": {GPU: str(gpus)}}],
            },
            "accumulatedPastExexcutionTimeSeconds": spent,
        },
    }


def cq(reserved: int) -> dict:
    return cluster_queue("team-a-cq", gpu_nominal=8, reserved_gpu=reserved)


def test_two_running_jobs_with_limits_of_2_and_4_minutes_bound_the_start():
    running = [admitted("a", 4, 120), admitted("b", 4, 240)]
    four = estimate_start({GPU: Decimal(4)}, cluster_queue=cq(8), admitted=running)
    assert four.at == T0 + timedelta(minutes=2)
    assert four.sentence == "Starts no later than ~14:02 UTC if the jobs ahead stop at their time limits."
    eight = estimate_start({GPU: Decimal(8)}, cluster_queue=cq(8), admitted=running)
    assert eight.at == T0 + timedelta(minutes=4)
    # a pending workload ahead needs its share first
    behind = estimate_start({GPU: Decimal(4)}, cluster_queue=cq(8), admitted=running, ahead=[{GPU: Decimal(4)}])
    assert behind.at == T0 + timedelta(minutes=4)


def test_time_already_spent_before_an_eviction_counts():
    assert deadline(admitted("a", 4, 600, spent=300))[0] == T0 + timedelta(minutes=5)


def test_unknown_when_the_quota_it_needs_is_held_without_a_limit():
    running = [admitted("a", 4, None), admitted("b", 4, None), admitted("c", 0, 60)]
    r = estimate_start({GPU: Decimal(4)}, cluster_queue=cq(8), admitted=running)
    assert r.at is None
    assert (
        r.sentence == "Start time unknown: the nvidia.com/gpu it needs is held by 2 running jobs without a time limit."
    )
    one = estimate_start({GPU: Decimal(8)}, cluster_queue=cq(8), admitted=[admitted("a", 8, None)])
    assert (
        one.sentence == "Start time unknown: the nvidia.com/gpu it needs is held by 1 running job without a time limit."
    )
    # limited ones that free enough are enough, whatever the others do
    mixed = estimate_start(
        {GPU: Decimal(4)}, cluster_queue=cq(8), admitted=[admitted("a", 4, None), admitted("b", 4, 60)]
    )
    assert mixed.at == T0 + timedelta(minutes=1)


def test_unknown_when_the_quota_is_held_by_workloads_out_of_sight():
    r = estimate_start({GPU: Decimal(4)}, cluster_queue=cq(8), admitted=[])
    assert r.at is None and "not visible to your account" in r.sentence
    hidden_cq = estimate_start({GPU: Decimal(4)}, cluster_queue=None, admitted=[])
    assert hidden_cq.sentence == "Start time unknown: its ClusterQueue is not visible to your account."


def test_queued_behind_a_pending_job_says_so_not_that_something_is_out_of_sight():
    # #27: a server running as cluster admin was told "held by workloads not visible to your account"
    running = [admitted("a", 4, 120)]
    r = estimate_start({GPU: Decimal(4)}, cluster_queue=cq(8), admitted=running, ahead=[{GPU: Decimal(8)}])
    assert r.at is None
    assert (
        r.sentence
        == "Start time unknown: the job ahead of it needs the nvidia.com/gpu that the running jobs free first."
    )


def test_free_quota_means_it_waits_for_something_else():
    r = estimate_start({GPU: Decimal(2)}, cluster_queue=cq(4), admitted=[admitted("a", 4, 60)])
    assert r.at is None and r.sentence.startswith("Quota is free for it")
    assert estimate_start({}, cluster_queue=cq(4), admitted=[]) is None


def test_a_running_job_with_a_limit_shows_when_kueue_stops_it():
    wl = admitted("a", 4, 7200)
    assert time_limit_sentence(wl, T0 + timedelta(minutes=85)) == "Kueue stops it at 16:00 UTC (limit 2h, 35m left)."
    assert [duration(s) for s in (90, 3600, 5400, 60)] == ["2m", "1h", "1h 30m", "1m"]
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "a", "namespace": "team-a", "labels": {MAX_EXEC_TIME: "7200"}},
        "status": {"conditions": [{"type": "Running", "status": "True"}]},
    }
    view = job_view(job, JobSeen(workload=wl), now=T0 + timedelta(minutes=85))
    assert view.max_run_seconds == 7200 and view.stops_at == "2026-12-04T16:00:00Z"
    assert view.display.time_limit == "Kueue stops it at 16:00 UTC (limit 2h, 35m left)."
