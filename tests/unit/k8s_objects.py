"""Realistic Kubernetes / Kueue objects as the API server returns them (JSON, camelCase), for the domain tests.

Label keys and shapes follow NVIDIA GFD, the AMD GPU Operator and Kueue v1beta2; they mirror devcluster/data.
"""

from __future__ import annotations

from typing import Any

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
H100 = "NVIDIA-H100-80GB-HBM3"


def node(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    allocatable: dict[str, str] | None = None,
    capacity: dict[str, str] | None = None,
    taints: list[dict[str, Any]] | None = None,
    ready: bool = True,
    unschedulable: bool = False,
) -> dict[str, Any]:
    alloc = {"cpu": "32", "memory": "128Gi", "pods": "110", "ephemeral-storage": "500Gi", **(allocatable or {})}
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", **(labels or {})},
        },
        "spec": spec,
        "status": {
            "capacity": {**alloc, **(capacity or {})},
            "allocatable": alloc,
            "conditions": [
                {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory"},
                {
                    "type": "Ready",
                    "status": "True" if ready else "Unknown",
                    "reason": "KubeletReady" if ready else "NodeStatusUnknown",
                },
            ],
        },
    }


def h100_node(name: str, **kw: Any) -> dict[str, Any]:
    kw.setdefault("taints", [GPU_TAINT])
    return node(
        name,
        labels={
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.product": H100,
            "nvidia.com/gpu.count": "8",
            "nvidia.com/gpu.memory": "81559",
            "nvidia.com/gpu.family": "hopper",
            "nvidia.com/mig.strategy": "none",
        },
        allocatable={"cpu": "96", "memory": "1024Gi", "nvidia.com/gpu": "8"},
        **kw,
    )


def a100_mig_node(name: str = "gpu-a100-mig-0") -> dict[str, Any]:
    return node(
        name,
        labels={
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB",
            "nvidia.com/gpu.count": "4",
            "nvidia.com/gpu.memory": "81920",
            "nvidia.com/mig.strategy": "mixed",
            "nvidia.com/mig-1g.10gb.count": "14",
            "nvidia.com/mig-1g.10gb.memory": "9728",
            "nvidia.com/mig-1g.10gb.product": "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb",
            "nvidia.com/mig-3g.40gb.count": "4",
            "nvidia.com/mig-3g.40gb.memory": "40192",
        },
        allocatable={
            "cpu": "64",
            "memory": "512Gi",
            "nvidia.com/gpu": "0",
            "nvidia.com/mig-1g.10gb": "14",
            "nvidia.com/mig-3g.40gb": "4",
        },
        taints=[GPU_TAINT],
    )


def mi300x_node(name: str = "gpu-mi300x-0") -> dict[str, Any]:
    return node(
        name,
        labels={
            "feature.node.kubernetes.io/amd-gpu": "true",
            "amd.com/gpu.product-name": "AMD_Instinct_MI300X",
            "amd.com/gpu.family": "AI",
            "amd.com/gpu.device-id": "74a1",
            "amd.com/gpu.vram": "192G",
        },
        allocatable={"cpu": "96", "memory": "1024Gi", "amd.com/gpu": "8"},
        taints=[{"key": "amd.com/gpu", "value": "present", "effect": "NoSchedule"}],
    )


def gaudi_node(name: str = "gaudi2-0") -> dict[str, Any]:
    return node(
        name,
        labels={"feature.node.kubernetes.io/pci-1da3.present": "true"},
        allocatable={"cpu": "80", "memory": "512Gi", "habana.ai/gaudi": "8"},
        taints=[{"key": "habana.ai/gaudi", "value": "present", "effect": "NoSchedule"}],
    )


def container(requests: dict[str, str], name: str = "main", *, limits: dict[str, str] | None = None) -> dict[str, Any]:
    res: dict[str, Any] = {"requests": requests}
    if limits is not None:
        res["limits"] = limits
    return {"name": name, "image": "rayproject/ray:2.52.0-gpu", "resources": res}


def pod(
    name: str,
    node_name: str | None,
    requests: dict[str, str],
    *,
    phase: str = "Running",
    namespace: str = "team-a",
    **spec: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": [container(requests)], **spec}
    if node_name:
        body["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": body,
        "status": {"phase": phase},
    }


def flavor(
    name: str,
    node_labels: dict[str, str] | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    node_taints: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if node_labels:
        spec["nodeLabels"] = node_labels
    if tolerations:
        spec["tolerations"] = tolerations
    if node_taints:
        spec["nodeTaints"] = node_taints
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def resource(name: str, nominal: Any, *, borrowing: Any = None, lending: Any = None) -> dict[str, Any]:
    r: dict[str, Any] = {"name": name, "nominalQuota": nominal}
    if borrowing is not None:
        r["borrowingLimit"] = borrowing
    if lending is not None:
        r["lendingLimit"] = lending
    return r


def usage(
    entries: dict[str, dict[str, Any]], borrowed: dict[tuple[str, str], Any] | None = None
) -> list[dict[str, Any]]:
    """{flavor: {resource: total}} -> status.flavorsUsage / flavorsReservation list."""
    out = []
    for fname, res in entries.items():
        rows = []
        for rname, total in res.items():
            row: dict[str, Any] = {"name": rname, "total": str(total)}
            b = (borrowed or {}).get((fname, rname))
            row["borrowed"] = str(b if b is not None else 0)
            rows.append(row)
        out.append({"name": fname, "resources": rows})
    return out


def cluster_queue(
    name: str,
    *,
    gpu_nominal: Any = 8,
    gpu_borrowing: Any = None,
    gpu_lending: Any = None,
    cohort: str | None = None,
    reserved_gpu: Any = 0,
    used_gpu: Any | None = None,
    reserved_cpu: Any = 0,
    strategy: str = "BestEffortFIFO",
    gpu_flavors: tuple[str, ...] = ("nvidia-h100-80gb",),
    v1beta1: bool = False,
    **status: Any,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "queueingStrategy": strategy,
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory"],
                "flavors": [
                    {"name": "default-flavor", "resources": [resource("cpu", 64), resource("memory", "512Gi")]}
                ],
            },
            {
                "coveredResources": ["nvidia.com/gpu"],
                "flavors": [
                    {
                        "name": f,
                        "resources": [
                            resource("nvidia.com/gpu", gpu_nominal, borrowing=gpu_borrowing, lending=gpu_lending)
                        ],
                    }
                    for f in gpu_flavors
                ],
            },
        ],
    }
    if cohort:
        spec["cohort" if v1beta1 else "cohortName"] = cohort
    gpu_flavor = gpu_flavors[0]
    reservation = {"default-flavor": {"cpu": reserved_cpu, "memory": 0}, gpu_flavor: {"nvidia.com/gpu": reserved_gpu}}
    used = reservation if used_gpu is None else {**reservation, gpu_flavor: {"nvidia.com/gpu": used_gpu}}
    over = max(0, float(reserved_gpu) - float(gpu_nominal))
    borrowed = {(gpu_flavor, "nvidia.com/gpu"): int(over)}
    return {
        "apiVersion": f"kueue.x-k8s.io/{'v1beta1' if v1beta1 else 'v1beta2'}",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": spec,
        "status": {
            "conditions": [
                {"type": "Active", "status": "True", "reason": "Ready", "message": "Can admit new workloads"}
            ],
            "flavorsReservation": usage(reservation, borrowed),
            "flavorsUsage": usage(used, borrowed),
            "pendingWorkloads": 0,
            "reservingWorkloads": 0,
            "admittedWorkloads": 0,
            **status,
        },
    }


def local_queue(
    name: str,
    cq: str,
    *,
    namespace: str = "team-a",
    reserved_gpu: Any = None,
    used_gpu: Any = None,
    v1beta1: bool = False,
    **status: Any,
) -> dict[str, Any]:
    st: dict[str, Any] = {
        "conditions": [
            {"type": "Active", "status": "True", "reason": "Ready", "message": "Can submit new workloads to localQueue"}
        ],
        "pendingWorkloads": 0,
        "reservingWorkloads": 0,
        "admittedWorkloads": 0,
        **status,
    }
    if reserved_gpu is not None:
        st["flavorsReservation"] = [
            {"name": "nvidia-h100-80gb", "resources": [{"name": "nvidia.com/gpu", "total": str(reserved_gpu)}]}
        ]
    if used_gpu is not None:
        st["flavorUsage" if v1beta1 else "flavorsUsage"] = [
            {"name": "nvidia-h100-80gb", "resources": [{"name": "nvidia.com/gpu", "total": str(used_gpu)}]}
        ]
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cq},
        "status": st,
    }


def workload(
    name: str,
    *,
    queue: str = "team-a-queue",
    namespace: str = "team-a",
    owner_kind: str = "RayJob",
    owner_name: str = "rj",
    owner_uid: str = "uid-rj",
    gpus_per_worker: int = 1,
    workers: int = 4,
    conditions: list[dict[str, Any]] | None = None,
    priority: int | None = None,
    created: str = "2026-12-02T12:00:00Z",
    **status: Any,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "queueName": queue,
        "active": True,
        "podSets": [
            {
                "name": "head",
                "count": 1,
                "template": {"spec": {"containers": [container({"cpu": "2", "memory": "8Gi"})]}},
            },
            {
                "name": "gpu-workers",
                "count": workers,
                "template": {
                    "spec": {
                        "tolerations": [GPU_TOLERATION],
                        "containers": [
                            container(
                                {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": str(gpus_per_worker)},
                                limits={"nvidia.com/gpu": str(gpus_per_worker)},
                            )
                        ],
                    }
                },
            },
        ],
    }
    if priority is not None:
        spec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high-priority"}
        spec["priority"] = priority
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"wl-{name}",
            "creationTimestamp": created,
            "labels": {"kueue.x-k8s.io/job-uid": owner_uid},
            "ownerReferences": [
                {
                    "apiVersion": "ray.io/v1",
                    "kind": owner_kind,
                    "name": owner_name,
                    "uid": owner_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": spec,
        "status": {"conditions": conditions or [], **status},
    }


def cond(
    cond_type: str, status: str, reason: str, message: str = "", at: str = "2026-12-02T12:03:00Z"
) -> dict[str, Any]:
    return {
        "type": cond_type,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": at,
        "observedGeneration": 1,
    }
