"""Workload views: owner, queue, priority, admission, the one-sentence status, positions, job lookup."""

from __future__ import annotations

from k8s_objects import cluster_queue, cond, local_queue, workload

from jupyter_accel.domain.workloads import (
    build_workloads,
    find_workload_for_job,
    positions_from_summaries,
    workload_view,
)
from jupyter_accel.models import WorkloadState
from jupyter_accel.services.snapshot import Snapshot

QUOTA_MSG = (
    "couldn't assign flavors to pod set gpu-workers: insufficient unused quota for nvidia.com/gpu in "
    "flavor nvidia-h100-80gb, 2 more needed"
)


def pending(msg=QUOTA_MSG, reason="Pending", **kw):
    return workload("rayjob-rj-1a2b3", conditions=[cond("QuotaReserved", "False", reason, msg)], **kw)


def test_waiting_for_quota_sentence_with_cluster_queue_numbers():
    cq = cluster_queue("team-a-cq", reserved_gpu=6)
    v = workload_view(pending(), cluster_queue="team-a-cq", cq=cq, position=(2, 5))
    assert v.state == WorkloadState.pending
    assert v.message == (
        "Waiting for quota in ClusterQueue team-a-cq: needs 4 nvidia.com/gpu on flavor nvidia-h100-80gb, 6 of 8 in use"
    )  # its place travels beside the sentence, as for a job
    assert (v.position_in_local_queue, v.position_in_cluster_queue, v.place) == (2, 5, "3rd in line")


def test_waiting_for_quota_without_cluster_queue_access():
    v = workload_view(pending(), cluster_queue="team-a-cq")
    assert v.message == (
        "Waiting for quota in ClusterQueue team-a-cq: needs 4 nvidia.com/gpu on flavor "
        "nvidia-h100-80gb, 2 more than is free"
    )


def test_borrowable_quota_is_mentioned():
    a = cluster_queue("team-a-cq", cohort="research", gpu_borrowing=4, reserved_gpu=6)
    b = cluster_queue("team-b-cq", cohort="research", reserved_gpu=2)
    v = workload_view(pending(), cluster_queue="team-a-cq", cq=a, cluster_queues=[a, b])
    assert v.message.endswith("6 of 8 in use (+4 borrowable)")


def test_never_fitting_messages():
    v = workload_view(
        pending(
            "couldn't assign flavors to pod set gpu-workers: insufficient quota for "
            "nvidia.com/gpu in flavor nvidia-h100-80gb, request > maximum capacity (24 > 12)",
            workers=24,
        ),
        cluster_queue="team-a-cq",
    )
    assert v.message == (
        "Can never be admitted as is: needs 24 nvidia.com/gpu but ClusterQueue team-a-cq can hold "
        "at most 12 on flavor nvidia-h100-80gb"
    )
    assert v.reason == "ExceedsMaxQuota"
    v = workload_view(
        pending("couldn't assign flavors to pod set gpu-workers: resource amd.com/gpu unavailable in ClusterQueue"),
        cluster_queue="team-a-cq",
    )
    assert v.message == "Can never be admitted as is: ClusterQueue team-a-cq has no quota for amd.com/gpu"


def test_granular_reasons_and_passthrough():
    v = workload_view(pending("LocalQueue team-a-queue doesn't exist", reason="Inadmissible"))
    assert v.message == "Cannot be admitted: LocalQueue team-a-queue doesn't exist"
    v = workload_view(pending("something new", reason="Pending"), cluster_queue="cq", position=(0, None))
    assert (v.message, v.place) == ("Waiting for quota in ClusterQueue cq: something new", "1st in line")
    assert workload_view(workload("new")).message == "Waiting to be evaluated by Kueue"


def test_admitted_pods_starting_then_running():
    admission = {
        "clusterQueue": "team-a-cq",
        "podSetAssignments": [
            {
                "name": "head",
                "count": 1,
                "flavors": {"cpu": "default-flavor", "memory": "default-flavor"},
                "resourceUsage": {"cpu": "2", "memory": "8Gi"},
            },
            {
                "name": "gpu-workers",
                "count": 4,
                "flavors": {"cpu": "default-flavor", "memory": "default-flavor", "nvidia.com/gpu": "nvidia-h100-80gb"},
                "resourceUsage": {"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": "4"},
            },
        ],
    }
    conds = [
        cond("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue team-a-cq"),
        cond("Admitted", "True", "Admitted", "The workload is admitted"),
        cond("PodsReady", "False", "WaitForStart", "Not all pods are ready or succeeded"),
    ]
    v = workload_view(workload("w", conditions=conds, admission=admission))
    assert v.state == WorkloadState.admitted
    assert v.message == "Admitted to nvidia-h100-80gb, default-flavor at 12:03 UTC; pods starting"
    assert v.admission[1].flavors["nvidia.com/gpu"] == "nvidia-h100-80gb"
    assert v.admission[1].resource_usage == {"cpu": 32, "memory": 128 * 2**30, "nvidia.com/gpu": 4}
    conds[2] = cond("PodsReady", "True", "Started", "All pods reached readiness", at="2026-12-02T12:05:00Z")
    v = workload_view(workload("w", conditions=conds, admission=admission))
    assert v.state == WorkloadState.running
    assert v.message == ("Running in ClusterQueue team-a-cq on flavor nvidia-h100-80gb, default-flavor since 12:05 UTC")


def test_quota_reserved_waiting_for_admission_checks():
    conds = [cond("QuotaReserved", "True", "QuotaReserved", ""), cond("Admitted", "False", "UnsatisfiedChecks", "")]
    v = workload_view(
        workload(
            "w",
            conditions=conds,
            admission={"clusterQueue": "team-a-cq"},
            admissionChecks=[{"name": "dws-prov", "state": "Pending"}],
        )
    )
    assert v.state == WorkloadState.quota_reserved
    assert v.message == "Quota reserved in ClusterQueue team-a-cq; waiting for admission checks: dws-prov (Pending)"


def test_evicted_pods_ready_timeout_and_preempted():
    conds = [
        cond("QuotaReserved", "False", "Pending", ""),
        cond("Evicted", "True", "PodsReadyTimeout", "Exceeded the PodsReady timeout default/w"),
    ]
    v = workload_view(workload("w", conditions=conds, requeueState={"count": 1, "requeueAt": "2026-12-02T12:40:00Z"}))
    assert v.state == WorkloadState.evicted and v.reason == "PodsReadyTimeout"
    assert v.message == (
        "Evicted: its pods were not ready in time (PodsReadyTimeout); Kueue requeues it; next try at 12:40 UTC"
    )
    assert (v.requeue_count, v.requeue_at) == (1, "2026-12-02T12:40:00Z")
    conds = [
        cond("QuotaReserved", "False", "Pending", ""),
        cond("Evicted", "True", "Preempted", "Preempted"),
        cond(
            "Preempted",
            "True",
            "InClusterQueue",
            "Preempted to accommodate a workload (UID: x) due to prioritization in the ClusterQueue",
        ),
    ]
    v = workload_view(workload("w", conditions=conds))
    assert v.message == (
        "Preempted at 12:03 UTC by a workload not visible to your account: it has a higher priority in the same "
        "ClusterQueue; queued again"
    )
    assert v.reason == "InClusterQueue"


def test_finished_and_deactivated():
    ok = workload_view(workload("w", conditions=[cond("Finished", "True", "Succeeded", "Job finished")]))
    assert (ok.state, ok.message) == (WorkloadState.succeeded, "Finished successfully")
    bad = workload_view(workload("w", conditions=[cond("Finished", "True", "Failed", "BackoffLimitExceeded")]))
    assert (bad.state, bad.message) == (WorkloadState.failed, "Finished with a failure: BackoffLimitExceeded")
    off = workload(
        "w",
        conditions=[
            cond(
                "DeactivationTarget",
                "True",
                "RequeuingLimitExceeded",
                "exceeded the maximum number of re-queuing retries",
            )
        ],
    )
    off["spec"]["active"] = False
    v = workload_view(off)
    assert (v.state, v.active) == (WorkloadState.inactive, False)
    assert v.message == "Stopped: the workload is deactivated (exceeded the maximum number of re-queuing retries)"


def test_owner_priority_podsets_v1beta2_and_v1beta1():
    v = workload_view(workload("w", priority=1000, owner_kind="RayCluster", owner_name="rc-gpu"))
    assert (v.owner_kind, v.owner_name, v.owner_uid, v.job_uid) == ("RayCluster", "rc-gpu", "uid-rj", "uid-rj")
    assert (v.priority_class, v.priority_class_kind, v.priority) == ("high-priority", "WorkloadPriorityClass", 1000)
    assert [(p.name, p.count, p.requests.get("nvidia.com/gpu")) for p in v.pod_sets] == [
        ("head", 1, None),
        ("gpu-workers", 4, 1),
    ]
    old = workload("w")
    old["spec"].update(priorityClassName="low", priorityClassSource="scheduling.k8s.io/priorityclass", priority=5)
    v = workload_view(old)
    assert (v.priority_class, v.priority_class_kind, v.priority) == ("low", "PriorityClass", 5)


def test_positions_merge_local_and_cluster_queue_summaries():
    lq_summary = {
        "kind": "PendingWorkloadsSummary",
        "apiVersion": "visibility.kueue.x-k8s.io/v1beta2",
        "items": [
            {
                "metadata": {"name": "a", "namespace": "team-a"},
                "priority": 0,
                "localQueueName": "team-a-queue",
                "positionInClusterQueue": 4,
                "positionInLocalQueue": 0,
            }
        ],
    }
    cq_summary = {
        "kind": "PendingWorkloadsSummary",
        "apiVersion": "visibility.kueue.x-k8s.io/v1beta1",
        "items": [
            {"metadata": {"name": "b", "namespace": "team-b"}, "positionInClusterQueue": 1, "positionInLocalQueue": 0},
            {"metadata": {"name": "a", "namespace": "team-a"}, "positionInClusterQueue": 4, "positionInLocalQueue": 0},
        ],
    }
    assert positions_from_summaries(lq_summary, cq_summary, None) == {("team-a", "a"): (0, 4), ("team-b", "b"): (0, 1)}


def test_build_workloads_maps_queue_to_cluster_queue_and_sorts_newest_first():
    old = pending(created="2026-12-02T11:00:00Z")
    new = workload("rayjob-new-ffff0", created="2026-12-02T12:30:00Z")
    summary = {
        "items": [
            {
                "metadata": {"name": "rayjob-rj-1a2b3", "namespace": "team-a"},
                "positionInLocalQueue": 1,
                "positionInClusterQueue": 3,
            }
        ]
    }
    snap = Snapshot(
        "team-a",
        workloads=(old, new),
        local_queues=(local_queue("team-a-queue", "team-a-cq"),),
        cluster_queues=(cluster_queue("team-a-cq", reserved_gpu=6),),
        pending={"team-a-queue": tuple(summary["items"])},
    )
    resp = build_workloads([old, new], reading=snap.reading, positions_visible=True)
    assert [w.name for w in resp.workloads] == ["rayjob-new-ffff0", "rayjob-rj-1a2b3"]
    w = resp.workloads[1]
    assert w.cluster_queue == "team-a-cq" and w.position_in_local_queue == 1
    assert w.message.endswith("6 of 8 in use") and w.place == "2nd in line"
    no_pos = build_workloads([old], reading=Snapshot("team-a", workloads=(old,)).reading, positions_visible=False)
    assert no_pos.positions_visibility.visible is False and no_pos.workloads[0].position_in_local_queue is None
    assert build_workloads(None, reading=snap.reading, positions_visible=True).visibility.visible is False


def test_find_workload_for_job_by_label_then_owner():
    mine = workload("rayjob-rj-1a2b3", owner_uid="uid-rj")
    other = workload("rayjob-x-00000", owner_name="x", owner_uid="uid-x")
    job = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "rj", "uid": "uid-rj"}}
    assert find_workload_for_job([other, mine], job) is mine
    unlabelled = workload("rayjob-rj-22222", owner_uid="uid-rj", created="2026-12-02T13:00:00Z")
    del unlabelled["metadata"]["labels"]
    assert find_workload_for_job([mine, unlabelled], job) is unlabelled  # newest of the matches
    assert find_workload_for_job([other], job) is None
    assert find_workload_for_job([mine, other], {"kind": "RayJob", "metadata": {"name": "x"}}) is other
