"""The objects of the scale benchmark, as manifests: fake GPU nodes for kwok, pods bound to them, ClusterQueues in
cohorts, namespaces with LocalQueues, Workloads, and jobs of every kind in the working namespace.

Every name starts with `bench-` and every object carries the BENCH label, so one label selector finds them all and
the benchmark can remove what it made. Bench nodes are tainted: no other test's pod lands on them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

BENCH = "jupyter-accel.io/bench"
LABELS = {BENCH: "true"}
TAINT = {"key": BENCH, "value": "true", "effect": "NoSchedule"}
TOLERATION = {"key": BENCH, "operator": "Exists", "effect": "NoSchedule"}
WORK_NS = "bench-work"  # the namespace the Jupyter server works in
# none of devcluster's own models, so that a test counting those is not disturbed
MODELS = ("NVIDIA-B200", "NVIDIA-H200", "NVIDIA-L40S")
GPUS_PER_NODE = 8


@dataclass(frozen=True)
class Scale:
    nodes: int
    pods: int
    cluster_queues: int
    cohorts: int
    namespaces: int
    workloads: int
    jobs: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


# the target, and a small one that `make test` runs so the benchmark cannot rot
FULL = Scale(nodes=1000, pods=20000, cluster_queues=100, cohorts=3, namespaces=500, workloads=5000, jobs=500)
SMOKE = Scale(nodes=20, pods=200, cluster_queues=6, cohorts=3, namespaces=5, workloads=30, jobs=12)


def _meta(name: str, namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"name": name, "labels": dict(LABELS)}
    if namespace:
        m["namespace"] = namespace
    m.update(extra)
    return m


def node(i: int) -> dict[str, Any]:
    name = f"bench-gpu-{i:04d}"
    cap = {"cpu": "128", "memory": "1Ti", "pods": "110", "nvidia.com/gpu": str(GPUS_PER_NODE)}
    labels = {
        **LABELS,
        "kubernetes.io/hostname": name,
        "nvidia.com/gpu.product": MODELS[i % len(MODELS)],
        "nvidia.com/gpu.memory": "81559",
        "type": "kwok",
    }
    annotations = {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels, "annotations": annotations},
        "spec": {"taints": [TAINT]},
        "status": {"capacity": cap, "allocatable": cap},
    }


def namespace_names(scale: Scale) -> list[str]:
    return [WORK_NS] + [f"bench-ns-{i:03d}" for i in range(max(0, scale.namespaces - 1))]


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta(name)}


def pod(i: int, scale: Scale) -> dict[str, Any]:
    """Pods spread over the nodes and namespaces; one in four holds a GPU (a node's 8 fill up, then CPU only)."""
    namespaces = namespace_names(scale)
    node_i = i % scale.nodes
    gpu = (i // scale.nodes) < GPUS_PER_NODE and i % 4 == 0
    requests = {"cpu": "1", "memory": "2Gi"} | ({"nvidia.com/gpu": "1"} if gpu else {})
    limits = {"nvidia.com/gpu": "1"} if gpu else {}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _meta(f"bench-pod-{i:05d}", namespaces[i % len(namespaces)]),
        "spec": {
            "nodeName": f"bench-gpu-{node_i:04d}",
            "tolerations": [TOLERATION],
            "containers": [{"name": "main", "image": "bench", "resources": {"requests": requests, "limits": limits}}],
        },
    }


def flavor() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": _meta("bench-gpu"),
        "spec": {"nodeLabels": {BENCH: "true"}, "tolerations": [TOLERATION]},
    }


def cohort(i: int) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": _meta(f"bench-cohort-{i}")}


def cluster_queue(i: int, scale: Scale) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": _meta(f"bench-cq-{i:03d}"),
        "spec": {
            "cohortName": f"bench-cohort-{i % scale.cohorts}",
            "namespaceSelector": {"matchLabels": LABELS},
            "queueingStrategy": "BestEffortFIFO",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": "bench-gpu",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "64"},
                                {"name": "memory", "nominalQuota": "512Gi"},
                                {"name": "nvidia.com/gpu", "nominalQuota": "8", "borrowingLimit": "8"},
                            ],
                        }
                    ],
                }
            ],
        },
    }


def local_queue(ns: str, i: int, scale: Scale) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": _meta("bench-lq", ns),
        "spec": {"clusterQueue": f"bench-cq-{i % scale.cluster_queues:03d}"},
    }


def workload(i: int, scale: Scale) -> dict[str, Any]:
    """A bare Workload (no job behind it): Kueue admits or queues it like any other."""
    namespaces = namespace_names(scale)[1:] or [WORK_NS]
    gpus = 1 + i % 4
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": _meta(f"bench-wl-{i:05d}", namespaces[i % len(namespaces)]),
        "spec": {
            "queueName": "bench-lq",
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [
                                {
                                    "name": "main",
                                    "image": "bench",
                                    "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": str(gpus)}},
                                }
                            ],
                        }
                    },
                }
            ],
        },
    }


def job(i: int) -> dict[str, Any]:
    """Jobs of the working namespace, the kinds in turn (RayJob, RayCluster, PyTorchJob), each asking Kueue for GPUs; some get admitted and run on
    the bench nodes (the flavor adds the toleration), the rest wait: mixed states."""
    labels = {**LABELS, "kueue.x-k8s.io/queue-name": "bench-lq"}
    name = f"bench-job-{i:04d}"
    gpu = {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}
    container = {"name": "main", "image": "bench", "command": ["sleep", "3600"], "resources": gpu}
    kind = i % 3
    if kind == 0:
        head = {"rayStartParams": {}, "template": {"spec": {"containers": [{**container, "name": "ray-head"}]}}}
        return {
            "apiVersion": "ray.io/v1",
            "kind": "RayJob",
            "metadata": _meta(name, WORK_NS) | {"labels": labels},
            "spec": {
                "suspend": True,
                "entrypoint": "python -c 'print(1)'",
                "shutdownAfterJobFinishes": True,  # KubeRay's webhook asks this of Kueue-managed RayJobs
                "rayClusterSpec": {"headGroupSpec": head},
            },
        }
    if kind == 1:
        ray = {**container, "name": "ray-head", "ports": [{"name": "gcs", "containerPort": 6379}]}
        return {
            "apiVersion": "ray.io/v1",
            "kind": "RayCluster",
            "metadata": _meta(name, WORK_NS) | {"labels": labels},
            "spec": {
                "suspend": True,
                "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [ray]}}},
            },
        }
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": _meta(name, WORK_NS) | {"labels": labels},
        "spec": {
            "runPolicy": {"suspend": True},
            "pytorchReplicaSpecs": {
                "Master": {
                    "replicas": 1,
                    "restartPolicy": "Never",
                    "template": {"spec": {"containers": [{**container, "name": "pytorch"}]}},
                }
            },
        },
    }


def everything(scale: Scale) -> list[list[dict[str, Any]]]:
    """The objects in creation waves: each wave depends only on earlier ones."""
    names = namespace_names(scale)
    return [
        [namespace(n) for n in names] + [flavor()] + [cohort(i) for i in range(scale.cohorts)],
        [node(i) for i in range(scale.nodes)] + [cluster_queue(i, scale) for i in range(scale.cluster_queues)],
        [local_queue(n, i, scale) for i, n in enumerate(names)],
        [pod(i, scale) for i in range(scale.pods)]
        + [workload(i, scale) for i in range(scale.workloads)]
        + [job(i) for i in range(scale.jobs)],
    ]
