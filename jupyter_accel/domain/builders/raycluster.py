"""KubeRay RayCluster (ray.io/v1): a head and its worker groups, fixed or autoscaling; also a RayJob's rayClusterSpec."""

from __future__ import annotations

import json
import re
from typing import Any

from ...models.jobs import JobRequest
from ..resources import PodDemand
from . import common as C

API_VERSION = "ray.io/v1"
WORKER_GROUP = "workers"  # Kueue PodSet name (lower-cased groupName); never "head"
HEAD_CONTAINER = "ray-head"
WORKER_CONTAINER = "ray-worker"
# Kueue admits an autoscaling RayCluster only as an elastic job (workload slices): each worker the autoscaler adds
# is a new slice of quota. Kueue's webhook adds the scheduling gates; a Kueue without the feature refuses it.
ELASTIC_JOB = "kueue.x-k8s.io/elastic-job"
# what KubeRay gives the autoscaler sidecar when the cluster names nothing (and what Kueue reserves for it)
AUTOSCALER_RESOURCES = {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": "500m", "memory": "512Mi"}}
# how long a worker may sit idle before Ray's autoscaler removes it (KubeRay's default is 60 s)
IDLE_TIMEOUT_SECONDS = 300

# Ray resource names of accelerators KubeRay does not turn into num-gpus (CodeFlare SDK's mapping, so
# clusters built by either look the same to Ray code).
RAY_CUSTOM_RESOURCES = {
    "habana.ai/gaudi": "HPU",
    "aws.amazon.com/neuroncore": "neuron_cores",
    "google.com/tpu": "TPU",
    "huawei.com/Ascend910": "NPU",
    "huawei.com/Ascend310": "NPU",
}
_MIG = re.compile(r"^nvidia\.com/mig-\d+g\.\d+gb$")
_RAY_VERSION = re.compile(r":(\d+\.\d+\.\d+)")


def is_ray_gpu(resource: str) -> bool:
    """The keys KubeRay counts as Ray `GPU` (utils IsGPUResourceKey): `*gpu` and NVIDIA MIG slices."""
    return resource.endswith("gpu") or bool(_MIG.match(resource))


def ray_start_params(accelerators: dict[str, int]) -> dict[str, str]:
    """rayStartParams of a worker: num-gpus for GPU-typed keys, a `resources` JSON for the others.

    Values are strings (the CRD says map[string]string); `resources` is quoted the way KubeRay passes it on
    to `ray start --resources=...` through a shell.
    """
    params: dict[str, str] = {}
    gpus = sum(n for r, n in accelerators.items() if is_ray_gpu(r))
    if gpus:
        params["num-gpus"] = str(gpus)
    custom: dict[str, int] = {}
    for resource, n in accelerators.items():
        if not is_ray_gpu(resource):
            ray_name = RAY_CUSTOM_RESOURCES.get(resource, resource)
            custom[ray_name] = custom.get(ray_name, 0) + n
    if custom:
        params["resources"] = '"' + json.dumps(custom, sort_keys=True).replace('"', '\\"') + '"'
    return params


def ray_version(request: JobRequest, ctx: C.BuildContext) -> str | None:
    if ctx.ray_version:
        return ctx.ray_version
    match = _RAY_VERSION.search(C.image(request, ctx))
    return match.group(1) if match else None


def ray_cluster_spec(request: JobRequest, ctx: C.BuildContext, name: str) -> dict[str, Any]:
    """The RayCluster spec; `name` is the object that owns the script ConfigMap (RayCluster or RayJob)."""
    head = C.container(HEAD_CONTAINER, request, ctx, C.head_resources(request))
    spec: dict[str, Any] = {
        "headGroupSpec": {
            "rayStartParams": {},  # optional since KubeRay 1.4; older operators require the key
            "template": {"metadata": C.pod_metadata(request, ctx, "head"), "spec": C.pod_spec([head], name, request)},
        },
    }
    version = ray_version(request, ctx)
    if version:
        spec["rayVersion"] = version
    groups = [_worker_group(WORKER_GROUP, request, request.workers, request.max_workers, ctx, name)]
    for extra in request.worker_groups:
        as_request = request.model_copy(
            update={
                "accelerators": extra.accelerators,
                "hardware_profile": None,
                "cpu": extra.cpu,
                "memory": extra.memory,
            }
        )
        groups.append(_worker_group(extra.name, as_request, extra.workers, extra.max_workers, ctx, name))
    spec["workerGroupSpecs"] = [g for g in groups if g is not None]
    if not spec["workerGroupSpecs"]:
        del spec["workerGroupSpecs"]
    if autoscales(request):
        spec["enableInTreeAutoscaling"] = True
        spec["autoscalerOptions"] = {"upscalingMode": "Default", "idleTimeoutSeconds": IDLE_TIMEOUT_SECONDS}
    return spec


def growth(request: JobRequest) -> list[tuple[str, int, int]]:
    """(group, starting workers, most workers) of each worker group that may grow past its starting size."""
    bounds = [(WORKER_GROUP, request.workers, request.max_workers)]
    bounds += [(g.name, g.workers, g.max_workers) for g in request.worker_groups]
    return [(name, low, top) for name, low, top in bounds if top is not None and top > low]


def autoscales(request: JobRequest) -> bool:
    """Some group may grow past its starting size (Ray's autoscaler runs beside the head)."""
    return bool(growth(request))


def _worker_group(
    group: str, request: JobRequest, workers: int, max_workers: int | None, ctx: C.BuildContext, name: str
) -> dict[str, Any] | None:
    """One workerGroupSpec; None for a fixed group of no workers. `request` carries the group's own resources."""
    top = max_workers if max_workers is not None else workers
    if not top:
        return None
    resources = C.worker_resources(request, ctx)
    worker = C.container(WORKER_CONTAINER, request, ctx, resources)
    pod = C.apply_placement(C.pod_spec([worker], name, request), ctx, request)
    return {
        "groupName": group,
        "replicas": workers,
        "minReplicas": workers,
        "maxReplicas": top,
        "rayStartParams": ray_start_params(C.accelerators_of(resources, ctx.known_accelerators)),
        "template": {"metadata": C.pod_metadata(request, ctx, "worker"), "spec": pod},
    }


def build_raycluster(request: JobRequest, ctx: C.BuildContext) -> dict[str, Any]:
    # No spec.suspend: Kueue's webhook suspends a labelled cluster itself and resumes it at admission.
    name = C.job_name(request, ctx)
    meta = C.metadata(name, request, ctx)
    if autoscales(request) and C.effective_queue(request, ctx):
        meta.setdefault("annotations", {})[ELASTIC_JOB] = "true"
    return {
        "apiVersion": API_VERSION,
        "kind": "RayCluster",
        "metadata": meta,
        "spec": ray_cluster_spec(request, ctx, name),
    }


def cluster_pod_sets(spec: dict[str, Any]) -> list[PodDemand]:
    """Pods of a RayCluster spec, named like Kueue's PodSets (head, lower-cased group names)."""
    head = ((spec.get("headGroupSpec") or {}).get("template") or {}).get("spec") or {}
    if spec.get("enableInTreeAutoscaling"):  # KubeRay adds the autoscaler beside the head; Kueue counts it too
        sidecar = ((spec.get("autoscalerOptions") or {}).get("resources")) or AUTOSCALER_RESOURCES
        head = {**head, "containers": [*(head.get("containers") or []), {"name": "autoscaler", "resources": sidecar}]}
    demands = [PodDemand.from_pod_spec("head", 1, head)]
    for group in spec.get("workerGroupSpecs") or []:
        count = int(group.get("replicas", group.get("minReplicas", 0)) or 0) * int(group.get("numOfHosts", 1) or 1)
        template = (group.get("template") or {}).get("spec") or {}
        demands.append(PodDemand.from_pod_spec(str(group.get("groupName", "")).lower(), count, template))
    return demands


def pod_sets(obj: dict[str, Any]) -> list[PodDemand]:
    return cluster_pod_sets(obj.get("spec") or {})
