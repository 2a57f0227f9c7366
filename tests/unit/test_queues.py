"""Queue views and quota headroom, incl. cohort borrowing/lending and the LocalQueue-only fallback."""

from __future__ import annotations

from k8s_objects import H100, cluster_queue, flavor, local_queue

from jupyter_accel.domain.queues import build_queues, default_queue_name, headroom

GPU = "nvidia.com/gpu"
F = "nvidia-h100-80gb"


def gpu_row(view):
    fq = next(f for f in view.flavors if f.name == F)
    return fq, next(r for r in fq.resources if r.resource == GPU)


def test_headroom_without_cohort():
    h = headroom(cluster_queue("team-a-cq", reserved_gpu=6), F, GPU)
    assert (h.nominal, h.reserved, h.free, h.borrowable, h.available, h.max_capacity) == (8, 6, 2, 0, 2, 8)
    assert headroom(cluster_queue("team-a-cq"), F, "amd.com/gpu") is None


def test_borrowing_is_capped_by_borrowing_limit():
    a = cluster_queue("team-a-cq", cohort="research", gpu_borrowing=4, reserved_gpu=6)
    b = cluster_queue("team-b-cq", cohort="research", reserved_gpu=2)
    h = headroom(a, F, GPU, [a, b])
    # own 2 free + min(6 unused in team-b, borrowingLimit 4 - 0 borrowed) = 6
    assert (h.free, h.borrowable, h.available, h.max_capacity) == (2, 4, 6, 12)
    unlimited = cluster_queue("team-a-cq", cohort="research", reserved_gpu=6)
    h = headroom(unlimited, F, GPU, [unlimited, b])
    assert (h.free, h.borrowable, h.available, h.max_capacity) == (2, 6, 8, 16)


def test_lending_limit_keeps_the_rest_of_a_siblings_quota():
    a = cluster_queue("team-a-cq", cohort="research", gpu_borrowing=8, reserved_gpu=8)
    b = cluster_queue("team-b-cq", cohort="research", gpu_lending=4, reserved_gpu=0)
    h = headroom(a, F, GPU, [a, b])
    assert (h.free, h.borrowable, h.available, h.max_capacity) == (0, 4, 4, 12)


def test_quota_lent_out_is_not_free_now():
    a = cluster_queue("team-a-cq", cohort="research", reserved_gpu=0)
    b = cluster_queue("team-b-cq", cohort="research", reserved_gpu=14)  # borrows 6 of team-a's 8
    h = headroom(a, F, GPU, [a, b])
    assert (h.free, h.borrowable, h.available) == (2, 0, 2)


def test_cohort_object_quota_and_hierarchy_count_in_the_pool():
    a = cluster_queue("team-a-cq", cohort="research", reserved_gpu=8)
    c = cluster_queue("team-c-cq", cohort="vision", reserved_gpu=4)
    research = {"metadata": {"name": "research"}, "spec": {"parentName": "org"}}
    vision = {"metadata": {"name": "vision"}, "spec": {"parentName": "org"}}
    org = {
        "metadata": {"name": "org"},
        "spec": {
            "resourceGroups": [
                {"coveredResources": [GPU], "flavors": [{"name": F, "resources": [{"name": GPU, "nominalQuota": 2}]}]}
            ]
        },
    }
    h = headroom(a, F, GPU, [a, c], [research, vision, org])
    # pool 8 + 8 + 2 (org), used 8 + 4 -> 6 free in the tree, all borrowable by team-a
    assert (h.free, h.borrowable, h.available, h.max_capacity) == (0, 6, 6, 18)


def test_v1beta1_cohort_field_is_read():
    a = cluster_queue("team-a-cq", cohort="research", v1beta1=True, reserved_gpu=8)
    b = cluster_queue("team-b-cq", cohort="research", v1beta1=True)
    assert headroom(a, F, GPU, [a, b]).borrowable == 8


def test_build_queues_with_cluster_queue_visible():
    lq = local_queue("team-a-queue", "team-a-cq", reserved_gpu=6, used_gpu=4, pendingWorkloads=3, admittedWorkloads=2)
    cq = cluster_queue("team-a-cq", cohort="research", gpu_borrowing=4, reserved_gpu=6, used_gpu=4, pendingWorkloads=5)
    rf = flavor(F, {"nvidia.com/gpu.product": H100})
    resp = build_queues([lq], [cq, cluster_queue("team-b-cq", cohort="research")], [], [rf])
    (view,) = resp.queues
    assert (view.cluster_queue, view.cohort, view.pending_workloads, view.admitted_workloads) == (
        "team-a-cq",
        "research",
        3,
        2,
    )
    assert view.cluster_queue_visibility.visible and view.cluster_queue_pending == 5
    assert view.queueing_strategy == "BestEffortFIFO" and view.borrowing_approximate
    fq, row = gpu_row(view)
    assert fq.accelerator_model == H100
    assert (row.nominal, row.borrowing_limit, row.lending_limit, row.usage, row.reserved, row.borrowed) == (
        8,
        4,
        None,
        4,
        6,
        0,
    )
    assert (row.free, row.borrowable, row.available, row.max_capacity) == (2, 4, 6, 12)
    assert [f.name for f in view.flavors] == ["default-flavor", F]
    assert not view.is_default and resp.default_queue is None


def test_build_queues_when_cluster_queues_are_not_readable():
    lq = local_queue("default", "team-a-cq", reserved_gpu=6, used_gpu=4, v1beta1=True, pendingWorkloads=1)
    resp = build_queues([lq], None)
    (view,) = resp.queues
    assert view.is_default and resp.default_queue == "default"
    assert view.cluster_queue_visibility.model_dump() == {"visible": False, "message": "not visible to your account"}
    _, row = gpu_row(view)
    assert (row.usage, row.reserved, row.nominal, row.free) == (4, 6, None, None)
    assert view.active is True and view.status_message == "Can submit new workloads to localQueue"


def test_missing_cluster_queue_and_unreadable_local_queues():
    view = build_queues([local_queue("q", "gone-cq")], []).queues[0]
    assert view.cluster_queue_visibility.message == "ClusterQueue gone-cq does not exist"
    assert build_queues(None).visibility.visible is False


def test_default_queue_name_prefers_kueue_default_then_annotation():
    a = local_queue("team-a-queue", "cq")
    b = local_queue("batch", "cq")
    b["metadata"]["annotations"] = {"kueue.x-k8s.io/default-queue": "true"}
    assert default_queue_name([a, b]) == "batch"
    assert default_queue_name([a, b, local_queue("default", "cq")]) == "default"
    assert default_queue_name([a]) is None
