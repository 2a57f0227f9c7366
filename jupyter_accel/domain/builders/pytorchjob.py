"""Kubeflow Training Operator v1 PyTorchJob (kubeflow.org/v1): one Master and `workers - 1` Workers."""

from __future__ import annotations

from typing import Any

from ...models.jobs import JobRequest
from ..resources import PodDemand
from . import common as C

API_VERSION = "kubeflow.org/v1"
CONTAINER = "pytorch"  # the operator's webhook requires this name


def command(request: JobRequest) -> list[str]:
    if request.script:
        return C.script_command(request)
    if not request.command:
        raise ValueError("command: a pytorch job needs a command or a script")
    return list(request.command)


def nproc_per_node(request: JobRequest, resources: dict[str, Any], ctx: C.BuildContext) -> int:
    """Explicit, because `auto` means one process per CPU on CPU-only pods and misses Gaudi."""
    if request.nproc_per_node:
        return request.nproc_per_node
    return max(1, sum(C.accelerators_of(resources, ctx.known_accelerators).values()))


def _replica(
    request: JobRequest, ctx: C.BuildContext, name: str, role: str, replicas: int, resources: dict[str, Any]
) -> dict[str, Any]:
    c = C.container(CONTAINER, request, ctx, resources, command=command(request))
    pod = C.apply_placement(C.pod_spec([c], name, request), ctx, request)
    return {
        "replicas": replicas,
        # Never, with backoffLimit 0: a failed process fails the job at once and its pod stays, with the exit code
        # and the log tail (OnFailure restarted it in place, and cleanPodPolicy then deleted the running pod).
        "restartPolicy": "Never",
        "template": {"metadata": C.pod_metadata(request, ctx, role), "spec": pod},
    }


def build_pytorchjob(request: JobRequest, ctx: C.BuildContext) -> dict[str, Any]:
    name = C.job_name(request, ctx)
    resources = C.worker_resources(request, ctx)
    replicas = {"Master": _replica(request, ctx, name, "master", 1, resources)}
    if request.workers > 1:
        replicas["Worker"] = _replica(request, ctx, name, "worker", request.workers - 1, resources)
    run_policy: dict[str, Any] = {"cleanPodPolicy": "Running", "backoffLimit": 0}  # default None leaves pods
    if request.ttl_seconds_after_finished is not None:
        run_policy["ttlSecondsAfterFinished"] = request.ttl_seconds_after_finished
    return {
        "apiVersion": API_VERSION,
        "kind": "PyTorchJob",
        "metadata": C.metadata(name, request, ctx),
        # runPolicy.suspend is left to Kueue (queue label); schedulingPolicy.queue is Volcano's, not Kueue's.
        "spec": {
            "nprocPerNode": str(nproc_per_node(request, resources, ctx)),
            "runPolicy": run_policy,
            "pytorchReplicaSpecs": replicas,
        },
    }


def pod_sets(obj: dict[str, Any]) -> list[PodDemand]:
    specs = (obj.get("spec") or {}).get("pytorchReplicaSpecs") or {}
    return [
        PodDemand.from_pod_spec(rtype.lower(), int(rs.get("replicas", 1)), (rs.get("template") or {}).get("spec") or {})
        for rtype, rs in specs.items()
    ]
