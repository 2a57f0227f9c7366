"""Inventory from nodes and pods: per node and per model, MIG separate, the kubectl-describe arithmetic."""

from __future__ import annotations

from k8s_objects import GPU_TOLERATION, H100, a100_mig_node, gaudi_node, h100_node, mi300x_node, node, pod

from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.domain.inventory import allocated_by_node, build_inventory

REG = AcceleratorRegistry()


def cluster():
    nodes = [
        node("cpu-0"),
        h100_node("gpu-h100-0"),
        h100_node("gpu-h100-1"),
        a100_mig_node(),
        mi300x_node(),
        gaudi_node(),
    ]
    pods = [
        pod(
            "train-0", "gpu-h100-0", {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "3"}, tolerations=[GPU_TOLERATION]
        ),
        pod("pending-bound", "gpu-h100-0", {"nvidia.com/gpu": "1"}, phase="Pending"),
        pod("done", "gpu-h100-0", {"nvidia.com/gpu": "4"}, phase="Succeeded"),
        pod("failed", "gpu-h100-1", {"nvidia.com/gpu": "8"}, phase="Failed"),
        pod("unbound", None, {"nvidia.com/gpu": "8"}, phase="Pending"),
        pod("mig-a", "gpu-a100-mig-0", {"nvidia.com/mig-1g.10gb": "2"}),
        pod("mig-b", "gpu-a100-mig-0", {"nvidia.com/mig-3g.40gb": "1"}),
        pod("rocm", "gpu-mi300x-0", {"amd.com/gpu": "8"}),
    ]
    return nodes, pods


def by_node(inv, name, resource):
    n = next(n for n in inv.nodes if n.name == name)
    return next(a for a in n.accelerators if a.resource == resource)


def test_free_h100s_after_a_3_gpu_pod_and_a_bound_pending_pod():
    inv = build_inventory(*cluster(), REG)
    dev = by_node(inv, "gpu-h100-0", "nvidia.com/gpu")
    assert (dev.allocatable, dev.allocated, dev.free) == (8, 4, 4)  # 3 running + 1 bound pending; terminal skipped
    assert (dev.model, dev.memory_mib, dev.vendor) == (H100, 81559, "nvidia")
    other = by_node(inv, "gpu-h100-1", "nvidia.com/gpu")
    assert (other.allocated, other.free) == (0, 8)
    h100 = next(m for m in inv.summary.models if m.model == H100)
    assert (h100.node_count, h100.allocatable, h100.allocated, h100.free) == (2, 16, 4, 12)
    assert (h100.largest_allocatable_per_node, h100.largest_free_per_node) == (8, 8)


def test_cpu_memory_use_on_node():
    inv = build_inventory(*cluster(), REG)
    n = next(n for n in inv.nodes if n.name == "gpu-h100-0")
    assert n.cpu.allocatable == 96 and n.cpu.allocated == 8 and n.cpu.free == 88
    assert n.memory.free == (1024 - 64) * 2**30
    assert [t.key for t in n.taints] == ["nvidia.com/gpu"] and n.usable


def test_mig_profiles_are_models_of_their_own_and_the_zero_gpu_is_kept():
    inv = build_inventory(*cluster(), REG)
    small = by_node(inv, "gpu-a100-mig-0", "nvidia.com/mig-1g.10gb")
    assert (small.model, small.mig_profile, small.parent_model) == (
        "NVIDIA-A100-SXM4-80GB MIG 1g.10gb",
        "1g.10gb",
        "NVIDIA-A100-SXM4-80GB",
    )
    assert (small.memory_mib, small.allocatable, small.free) == (9728, 14, 12)
    assert small.product_label == "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"
    big = by_node(inv, "gpu-a100-mig-0", "nvidia.com/mig-3g.40gb")
    assert (big.memory_mib, big.free) == (40192, 3)
    whole = by_node(inv, "gpu-a100-mig-0", "nvidia.com/gpu")
    assert (whole.allocatable, whole.free) == (0, 0)  # MIG-only node is not hidden
    models = {(m.resource, m.model): m for m in inv.summary.models}
    assert models[("nvidia.com/gpu", H100)].allocatable == 16  # MIG slices never added to whole GPUs
    assert ("nvidia.com/gpu", "NVIDIA-A100-SXM4-80GB") not in models  # no empty whole-GPU row for it


def test_amd_and_gaudi_naming():
    inv = build_inventory(*cluster(), REG)
    amd = by_node(inv, "gpu-mi300x-0", "amd.com/gpu")
    assert (amd.vendor, amd.model, amd.memory_mib, amd.free) == ("amd", "AMD_Instinct_MI300X", 192 * 1024, 0)
    gaudi = by_node(inv, "gaudi2-0", "habana.ai/gaudi")
    assert (gaudi.vendor, gaudi.model, gaudi.vendor_name, gaudi.free) == (
        "habana",
        "Intel Gaudi (habana.ai/gaudi), unknown model",
        "Intel Gaudi",
        8,
    )
    assert "cpu-0" not in [n.name for n in inv.nodes]  # no accelerator resource at all
    assert inv.summary.accelerator_names == [
        "amd.com/gpu",
        "habana.ai/gaudi",
        "nvidia.com/gpu",
        "nvidia.com/mig-1g.10gb",
        "nvidia.com/mig-3g.40gb",
    ]


def test_amd_beta_labels_and_single_strategy_mig():
    amd = node(
        "old-amd",
        labels={"beta.amd.com/gpu.device-id.74a1": "8", "beta.amd.com/gpu.vram.192G": "8"},
        allocatable={"amd.com/gpu": "8"},
    )
    amd_product = node(
        "beta-amd", labels={"beta.amd.com/gpu.product-name.AMD_Instinct_MI250X": "8"}, allocatable={"amd.com/gpu": "8"}
    )
    single = node(
        "mig-single",
        labels={
            "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
            "nvidia.com/gpu.memory": "4864",
            "nvidia.com/mig.strategy": "single",
        },
        allocatable={"nvidia.com/gpu": "28"},
    )
    inv = build_inventory([amd, amd_product, single], [], REG)
    assert by_node(inv, "old-amd", "amd.com/gpu").model == "AMD device 74a1"
    assert by_node(inv, "old-amd", "amd.com/gpu").memory_mib == 192 * 1024
    assert by_node(inv, "beta-amd", "amd.com/gpu").model == "AMD_Instinct_MI250X"
    dev = by_node(inv, "mig-single", "nvidia.com/gpu")
    assert (dev.mig_profile, dev.parent_model, dev.free) == ("1g.5gb", "NVIDIA-A100-SXM4-40GB", 28)


def test_not_ready_and_cordoned_nodes_are_flagged_and_excluded_from_usable_free():
    nodes = [h100_node("gpu-h100-0", ready=False), h100_node("gpu-h100-1", unschedulable=True), h100_node("ok")]
    inv = build_inventory(nodes, [], REG)
    flags = {n.name: (n.ready, n.unschedulable, n.usable) for n in inv.nodes}
    assert flags == {"gpu-h100-0": (False, False, False), "gpu-h100-1": (True, True, False), "ok": (True, False, True)}
    looks = {n.name: (n.label, n.tone.value) for n in inv.nodes}
    assert looks == {"gpu-h100-0": ("Not ready", "error"), "gpu-h100-1": ("Cordoned", "warn"), "ok": ("Ready", "ok")}
    (h100,) = inv.summary.models
    assert (h100.free, h100.free_on_usable_nodes) == (24, 8)


def test_nodes_not_visible_and_pods_not_visible():
    hidden = build_inventory(None, None, REG)
    assert (
        hidden.summary.visibility.visible is False
        and hidden.summary.visibility.message == "not visible to your account"
    )
    assert hidden.nodes == [] and hidden.summary.models == []
    no_pods = build_inventory([h100_node("gpu-h100-0")], None, REG)
    dev = no_pods.nodes[0].accelerators[0]
    assert (dev.allocatable, dev.allocated, dev.free) == (8, None, None)
    assert no_pods.summary.pods_visibility.visible is False and no_pods.summary.visibility.visible is True
    assert no_pods.summary.models[0].free is None


def test_allocated_by_node_counts_sidecars_and_init_containers():
    p = pod(
        "sidecar",
        "gpu-h100-0",
        {"cpu": "1"},
        initContainers=[
            {"name": "setup", "resources": {"requests": {"cpu": "4"}}},
            {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
            {"name": "late-init", "resources": {"requests": {"cpu": "2"}}},
        ],
    )
    # main 1 + sidecar 0.5 = 1.5; init peaks: 4, then 2 + 0.5 = 2.5 -> max 4
    assert allocated_by_node([p])["gpu-h100-0"]["cpu"] == 4


def test_the_memo_sums_what_a_sum_from_scratch_does_through_a_churn_of_pods():
    """InventoryMemo.allocated after pods came, went and changed (a changed pod is a new dict, as the informer
    makes it) equals allocated_by_node from scratch: the same nodes, resources and Decimals, their digits too."""
    import random

    from jupyter_accel.domain.inventory import InventoryMemo

    rng = random.Random(7)

    def one(i: int) -> dict:
        requests = {"cpu": rng.choice(["250m", "0.5", "1", "2"]), "memory": rng.choice(["1Gi", "512Mi", "1.5Gi"])}
        if rng.random() < 0.5:
            requests["nvidia.com/gpu"] = rng.choice(["1", "2", "0"])
        return {
            "metadata": {"name": f"p{i}"},
            "spec": {
                "nodeName": rng.choice(["a", "b", "c", "d", None]),
                "containers": [{"name": "c", "resources": {"requests": requests}}],
            },
            "status": {"phase": rng.choice(["Running", "Pending", "Succeeded", "Failed"])},
        }

    def exact(allocated: dict) -> dict:
        return {node: {name: str(q) for name, q in used.items()} for node, used in allocated.items()}

    pods = [one(i) for i in range(60)]
    memo, made = InventoryMemo(), 60
    for _ in range(300):
        for _ in range(rng.randint(1, 6)):
            step = rng.random()
            if step < 0.5 and pods:
                pods[rng.randrange(len(pods))] = one(made)
            elif step < 0.75 and pods:
                pods.pop(rng.randrange(len(pods)))
            else:
                pods.append(one(made))
            made += 1
        assert exact(memo.allocated(list(pods))) == exact(allocated_by_node(pods))
    assert exact(memo.allocated([])) == {}
