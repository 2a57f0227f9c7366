"""The fit check: quota per flavor (with cohort borrowing) and nodes (free devices, labels, taints)."""

from __future__ import annotations

from decimal import Decimal

from k8s_objects import (
    GPU_TOLERATION,
    H100,
    a100_mig_node,
    cluster_queue,
    cond,
    flavor,
    h100_node,
    local_queue,
    node,
    pod,
    workload,
)

from jupyter_accel.domain.fit import FitCluster, assess_fit, fit_response
from jupyter_accel.domain.resources import PodDemand
from jupyter_accel.models import FitVerdict

GPU = "nvidia.com/gpu"
F = "nvidia-h100-80gb"
FLAVORS = [flavor("default-flavor"), flavor(F, {"nvidia.com/gpu.product": H100}, tolerations=[GPU_TOLERATION])]
LQ = local_queue("team-a-queue", "team-a-cq")


def workers(count, gpus, **kw):
    return PodDemand("worker", count, {"cpu": Decimal(8), "memory": Decimal(32 * 2**30), GPU: Decimal(gpus)}, **kw)


def head():
    return PodDemand("head", 1, {"cpu": Decimal(2), "memory": Decimal(8 * 2**30)})


def nodes():
    return [node("cpu-0"), h100_node("gpu-h100-0"), h100_node("gpu-h100-1")]


def busy_pods():
    return [pod("a", "gpu-h100-0", {GPU: "3"}), pod("b", "gpu-h100-1", {GPU: "7"})]


def test_fits_now_with_free_quota_and_devices():
    r = fit_response(
        assess_fit(
            [head(), workers(1, 4)],
            FitCluster(nodes=nodes(), pods=busy_pods(), resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq", reserved_gpu=2),
        )
    )
    assert r.verdict == FitVerdict.fits_now
    assert r.message == "Fits now: 4 nvidia.com/gpu, in flavor nvidia-h100-80gb, quota 2/8 used"
    gpu = next(q for q in r.quota if q.resource == GPU)
    assert (gpu.flavor, gpu.needed, gpu.nominal, gpu.reserved, gpu.free, gpu.available, gpu.max_capacity) == (
        F,
        4,
        8,
        2,
        6,
        6,
        8,
    )
    w = r.roles[1]
    assert (w.flavors[GPU], w.eligible_nodes, w.placeable_now, w.fits_now, w.ever_fits) == (F, 2, 1, True, True)
    assert w.largest_free[GPU] == 5 and w.largest_allocatable[GPU] == 8  # 8 - 3 on gpu-h100-0
    assert r.roles[0].eligible_nodes == 1  # head: only the untainted CPU node
    assert (r.cluster_queue, r.local_queue) == ("team-a-cq", "team-a-queue")


def test_must_queue_on_quota_with_pending_workloads_ahead():
    ahead = [
        workload(
            f"rayjob-{i}-aaaaa",
            owner_name=f"job{i}",
            conditions=[cond("QuotaReserved", "False", "Pending", "insufficient unused quota")],
        )
        for i in range(3)
    ]
    admitted = workload("rayjob-ok-bbbbb", conditions=[cond("QuotaReserved", "True", "QuotaReserved", "")])
    r = fit_response(
        assess_fit(
            [workers(1, 4)],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS, pending=[*ahead, admitted]),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq", reserved_gpu=6),
        )
    )
    assert r.verdict == FitVerdict.must_queue
    assert r.message == (
        "Must queue: queued behind 3 workloads; quota 6/8 nvidia.com/gpu used in flavor "
        "nvidia-h100-80gb, 2 available, needs 4"
    )
    assert [a.owner_name for a in r.ahead] == ["job0", "job1", "job2"]
    assert r.ahead[0].requests[GPU] == 4


def test_lower_priority_pending_workloads_are_not_ahead():
    low = workload("low", priority=100, conditions=[cond("QuotaReserved", "False", "Pending", "")])
    item = {"metadata": {"name": "vis"}, "priority": 1000, "positionInLocalQueue": 0}
    r = fit_response(
        assess_fit(
            [workers(1, 1)],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS, pending=[low, item]),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq"),
            priority=500,
        )
    )
    assert [a.name for a in r.ahead] == ["vis"] and r.ahead[0].requests == {}
    assert r.verdict == FitVerdict.fits_now and r.message.endswith("; 1 workload pending ahead may go first")
    strict = fit_response(
        assess_fit(
            [workers(1, 1)],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS, pending=[item]),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq", strategy="StrictFIFO"),
        )
    )
    assert strict.verdict == FitVerdict.must_queue and strict.message == "Must queue: queued behind 1 workload"


def test_cohort_borrowing_lets_it_fit():
    a = cluster_queue("team-a-cq", cohort="research", gpu_borrowing=4, reserved_gpu=6)
    b = cluster_queue("team-b-cq", cohort="research", reserved_gpu=0)
    r = fit_response(
        assess_fit(
            [workers(1, 4)],
            FitCluster(nodes=nodes(), pods=[], cluster_queues=[a, b], resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=a,
        )
    )
    gpu = next(q for q in r.quota if q.resource == GPU)
    assert (gpu.free, gpu.borrowable, gpu.available, gpu.max_capacity) == (2, 4, 6, 12)
    assert r.verdict == FitVerdict.fits_now and r.approximate
    assert "Borrowing from the cohort is an estimate." in r.notes


def test_never_fits_largest_node():
    r = fit_response(
        assess_fit(
            [workers(1, 10)],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq", gpu_nominal=16),
        )
    )
    assert r.verdict == FitVerdict.never_fits
    assert r.message == "Can never fit: a worker pod needs 10 nvidia.com/gpu, the largest node has 8"
    assert r.roles[0].ever_fits is False


def test_never_fits_quota_ceiling_and_uncovered_resource():
    r = fit_response(
        assess_fit(
            [workers(3, 4)],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq", gpu_borrowing=2),
        )
    )
    assert r.verdict == FitVerdict.never_fits
    assert r.message == (
        "Can never fit: ClusterQueue team-a-cq can hold at most 8 nvidia.com/gpu in flavor "
        "nvidia-h100-80gb, the job needs 12"
    )  # borrowingLimit needs a cohort to count
    amd = PodDemand("worker", 1, {"amd.com/gpu": Decimal(1)})
    r = fit_response(
        assess_fit(
            [amd],
            FitCluster(nodes=None, pods=None, resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq"),
        )
    )
    assert r.message == "Can never fit: ClusterQueue team-a-cq has no quota for amd.com/gpu"


def test_must_queue_when_quota_is_free_but_nodes_are_busy():
    r = fit_response(
        assess_fit(
            [workers(2, 4)],
            FitCluster(nodes=nodes(), pods=busy_pods(), resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq"),
        )
    )
    assert r.verdict == FitVerdict.must_queue
    assert r.message == ("Must queue: free nodes can take 1 of 2 worker pods now (largest free: 5 nvidia.com/gpu)")
    assert r.roles[0].placeable_now == 1


def test_pods_of_several_roles_share_nodes():
    # 2 x 5 GPUs cannot share one 8-GPU node: needs both nodes even when empty
    r = fit_response(
        assess_fit(
            [
                workers(2, 5, tolerations=[GPU_TOLERATION]),
                PodDemand("extra", 1, {GPU: Decimal(4)}, tolerations=[GPU_TOLERATION]),
            ],
            FitCluster(nodes=nodes(), pods=[]),
            local_queue=None,
        )
    )
    assert r.verdict == FitVerdict.never_fits
    assert "the nodes that match can hold only 0 of 1 extra pods even when empty" in r.message
    assert r.quota_visibility.visible is False and r.quota == []


def test_flavor_labels_and_tolerations_are_injected_for_the_node_check():
    # Without the flavor's toleration the tainted H100 nodes would be rejected.
    r = fit_response(
        assess_fit(
            [workers(1, 1)],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq"),
        )
    )
    assert r.roles[0].eligible_nodes == 2
    bare = fit_response(assess_fit([workers(1, 1)], FitCluster(nodes=nodes(), pods=[]), local_queue=None))
    assert bare.verdict == FitVerdict.never_fits
    assert bare.message == (
        "Can never fit: no node big enough for a worker pod accepts it (taint "
        "nvidia.com/gpu=present:NoSchedule is not tolerated on 2 nodes)"
    )


def test_no_matching_flavor():
    pinned = workers(1, 1, node_selector={"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"})
    r = fit_response(
        assess_fit(
            [pinned],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq"),
        )
    )
    assert r.verdict == FitVerdict.never_fits
    assert r.message.startswith(
        "Can never fit: no flavor of ClusterQueue team-a-cq for nvidia.com/gpu matches "
        "the worker pod's node selector and tolerations (nvidia-h100-80gb: nodeSelector"
    )


def test_second_flavor_is_used_when_the_first_is_full():
    cq = cluster_queue("team-a-cq", gpu_flavors=(F, "nvidia-a100"), reserved_gpu=8)
    flavors = [
        *FLAVORS,
        flavor("nvidia-a100", {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}, tolerations=[GPU_TOLERATION]),
    ]
    a100 = node(
        "gpu-a100-0", labels={"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}, allocatable={"nvidia.com/gpu": "8"}
    )
    r = fit_response(
        assess_fit(
            [workers(1, 2)],
            FitCluster(nodes=[*nodes(), a100], pods=[], resource_flavors=flavors),
            local_queue=LQ,
            cluster_queue=cq,
        )
    )
    assert r.verdict == FitVerdict.fits_now and r.roles[0].flavors[GPU] == "nvidia-a100"
    assert r.roles[0].eligible_nodes == 1


def test_quota_not_visible_decides_from_nodes():
    r = fit_response(
        assess_fit(
            [workers(1, 4, tolerations=[GPU_TOLERATION])],
            FitCluster(nodes=nodes(), pods=busy_pods()),
            local_queue=LQ,
            cluster_queue=None,
        )
    )
    assert r.verdict == FitVerdict.fits_now
    assert r.message == "Fits now: 4 nvidia.com/gpu (quota not visible to your account)"
    assert r.quota_visibility.model_dump() == {
        "visible": False,
        "message": "ClusterQueue team-a-cq is not visible to your account",
    }


def test_nothing_but_quota_visible():
    r = fit_response(
        assess_fit(
            [workers(1, 4)],
            FitCluster(nodes=None, pods=None, resource_flavors=None),
            local_queue=LQ,
            cluster_queue=cluster_queue("team-a-cq", reserved_gpu=6),
        )
    )
    assert r.verdict == FitVerdict.must_queue and r.message.endswith("(nodes not visible to your account)")
    assert r.nodes_visibility.visible is False and r.roles[0].eligible_nodes is None
    assert any("ResourceFlavors are not visible" in n for n in r.notes)


def test_nodes_visible_pods_not_checks_capacity_only():
    r = fit_response(
        assess_fit(
            [workers(1, 4, tolerations=[GPU_TOLERATION])], FitCluster(nodes=nodes(), pods=None), local_queue=None
        )
    )
    assert r.verdict == FitVerdict.fits_now and r.roles[0].fits_now is None and r.roles[0].ever_fits is True


def test_mig_slices_fit_on_the_mig_node():
    mig = PodDemand("worker", 2, {"nvidia.com/mig-1g.10gb": Decimal(7)}, tolerations=[GPU_TOLERATION])
    r = fit_response(
        assess_fit(
            [mig],
            FitCluster(nodes=[a100_mig_node()], pods=[pod("m", "gpu-a100-mig-0", {"nvidia.com/mig-1g.10gb": "2"})]),
            local_queue=None,
        )
    )
    assert r.verdict == FitVerdict.must_queue and r.roles[0].placeable_now == 1
    assert r.roles[0].largest_free == {"nvidia.com/mig-1g.10gb": 12}


def test_stopped_or_inactive_queues_admit_nothing():
    held = local_queue("team-a-queue", "team-a-cq")
    held["spec"]["stopPolicy"] = "Hold"
    r = fit_response(
        assess_fit(
            [workers(1, 1)],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS),
            local_queue=held,
            cluster_queue=cluster_queue("team-a-cq"),
        )
    )
    assert (r.verdict, r.message) == (FitVerdict.must_queue, "Must queue: LocalQueue team-a-queue is stopped (Hold)")
    cq = cluster_queue("team-a-cq")
    cq["status"]["conditions"] = [
        {
            "type": "Active",
            "status": "False",
            "reason": "FlavorNotFound",
            "message": "Can't admit new workloads: references missing ResourceFlavor(s)",
        }
    ]
    r = fit_response(
        assess_fit(
            [workers(1, 1)],
            FitCluster(nodes=nodes(), pods=[], resource_flavors=FLAVORS),
            local_queue=LQ,
            cluster_queue=cq,
        )
    )
    assert r.message == (
        "Must queue: ClusterQueue team-a-cq is inactive (Can't admit new workloads: references "
        "missing ResourceFlavor(s))"
    )
