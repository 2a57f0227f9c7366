"""KubeRay RayJob (ray.io/v1): a batch entrypoint on a RayCluster created for it and deleted after it."""

from __future__ import annotations

import json
from typing import Any

from ...models.jobs import JobRequest
from ..resources import PodDemand
from . import common as C
from .raycluster import API_VERSION, cluster_pod_sets, ray_cluster_spec

SUBMITTER_CONTAINER = "ray-job-submitter"
# KubeRay's own default submitter resources (GetDefaultSubmitterTemplate); spelled out so that the fit check
# and Kueue's `submitter` PodSet see the same numbers.
SUBMITTER_RESOURCES = {"requests": {"cpu": "500m", "memory": "200Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}}


def entrypoint(request: JobRequest) -> str:
    """The driver's shell command (run on the head), in the unpacked working dir when the request sends one."""
    if request.script:
        return C.shell_in_workdir(request, C.script_shell_command(request))
    if not request.entrypoint:
        raise ValueError("entrypoint: a ray-job needs an entrypoint or a script")
    return C.shell_in_workdir(request, request.entrypoint)


def build_rayjob(request: JobRequest, ctx: C.BuildContext) -> dict[str, Any]:
    name = C.job_name(request, ctx)
    ttl = request.ttl_seconds_after_finished
    spec: dict[str, Any] = {
        "entrypoint": entrypoint(request),
        "submissionMode": "K8sJobMode",  # a submitter pod whose log is the job's log
        # Required by Kueue for a queued RayJob, and the only way a finished job gives its GPUs back.
        "shutdownAfterJobFinishes": True,
        "ttlSecondsAfterFinished": C.DEFAULT_RAY_JOB_TTL if ttl is None else ttl,
        "backoffLimit": 0,
        "rayClusterSpec": ray_cluster_spec(request, ctx, name),
        "submitterPodTemplate": {
            "metadata": C.pod_metadata(request, ctx, "submitter"),
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    # KubeRay fills in the `ray job submit` command when the container has none.
                    {"name": SUBMITTER_CONTAINER, "image": C.image(request, ctx), "resources": SUBMITTER_RESOURCES},
                ],
                **({"imagePullSecrets": pulls} if (pulls := C.pull_secrets(request)) else {}),
            },
        },
    }
    if request.runtime_env:
        spec["runtimeEnvYAML"] = json.dumps(request.runtime_env, sort_keys=True)  # JSON is YAML
    return {"apiVersion": API_VERSION, "kind": "RayJob", "metadata": C.metadata(name, request, ctx), "spec": spec}


def pod_sets(obj: dict[str, Any]) -> list[PodDemand]:
    spec = obj.get("spec") or {}
    demands = cluster_pod_sets(spec.get("rayClusterSpec") or {})
    if spec.get("submissionMode", "K8sJobMode") == "K8sJobMode":
        template = (spec.get("submitterPodTemplate") or {}).get("spec") or {
            "containers": [{"name": SUBMITTER_CONTAINER, "resources": SUBMITTER_RESOURCES}]
        }
        demands.append(PodDemand.from_pod_spec("submitter", 1, template))
    return demands
