"""KubeRay RayCluster (ray.io/v1): a head and one worker group; also the rayClusterSpec of a RayJob."""

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
    if request.workers:
        resources = C.worker_resources(request, ctx)
        worker = C.container(WORKER_CONTAINER, request, ctx, resources)
        pod = C.apply_placement(C.pod_spec([worker], name, request), ctx, request)
        spec["workerGroupSpecs"] = [
            {
                "groupName": WORKER_GROUP,
                # Fixed size: autoscaling under Kueue needs the elastic-job annotation and feature gate.
                "replicas": request.workers,
                "minReplicas": request.workers,
                "maxReplicas": request.workers,
                "rayStartParams": ray_start_params(C.accelerators_of(resources, ctx.known_accelerators)),
                "template": {"metadata": C.pod_metadata(request, ctx, "worker"), "spec": pod},
            }
        ]
    return spec


def build_raycluster(request: JobRequest, ctx: C.BuildContext) -> dict[str, Any]:
    # No spec.suspend: Kueue's webhook suspends a labelled cluster itself and resumes it at admission.
    name = C.job_name(request, ctx)
    return {
        "apiVersion": API_VERSION,
        "kind": "RayCluster",
        "metadata": C.metadata(name, request, ctx),
        "spec": ray_cluster_spec(request, ctx, name),
    }


def cluster_pod_sets(spec: dict[str, Any]) -> list[PodDemand]:
    """Pods of a RayCluster spec, named like Kueue's PodSets (head, lower-cased group names)."""
    head = ((spec.get("headGroupSpec") or {}).get("template") or {}).get("spec") or {}
    demands = [PodDemand.from_pod_spec("head", 1, head)]
    for group in spec.get("workerGroupSpecs") or []:
        count = int(group.get("replicas", group.get("minReplicas", 0)) or 0) * int(group.get("numOfHosts", 1) or 1)
        template = (group.get("template") or {}).get("spec") or {}
        demands.append(PodDemand.from_pod_spec(str(group.get("groupName", "")).lower(), count, template))
    return demands


def pod_sets(obj: dict[str, Any]) -> list[PodDemand]:
    return cluster_pod_sets(obj.get("spec") or {})
