"""Kubeflow Trainer v2 TrainJob (trainer.kubeflow.org/v1alpha1) on a ClusterTrainingRuntime.

Pod-level settings (profile placement, the script volume) go through the version's override field:
`runtimePatches` (Trainer >= 2.2) or `podTemplateOverrides` (2.1, RHOAI 3.x); the kind's spec tells which from the
served schema (kinds/trainjob.py) through BuildContext.kind_options[POD_OVERRIDES].
"""

from __future__ import annotations

from typing import Any

from ...models.jobs import JobRequest
from ..resources import PodDemand
from . import common as C
from .pytorchjob import command, nproc_per_node

API_VERSION = "trainer.kubeflow.org/v1alpha1"
NODE_JOB = "node"  # replicated job (and container) of the torch runtimes
MANAGER = "jupyter-accel.io/launcher"  # our entry in runtimePatches; Kueue writes its own
POD_OVERRIDES = "pod_overrides"  # the kind_options key naming the field below
RUNTIME_PATCHES = "runtimePatches"  # Trainer >= 2.2
POD_TEMPLATE_OVERRIDES = "podTemplateOverrides"  # Trainer 2.1


def _pod_override(request: JobRequest, ctx: C.BuildContext, name: str) -> dict[str, Any]:
    spec = C.apply_placement({}, ctx, request)
    if pulls := C.pull_secrets(request):
        spec["imagePullSecrets"] = pulls
    if C.ships_files(request):
        spec["volumes"] = C.file_volumes(name, request)
        spec["containers"] = [{"name": NODE_JOB, "volumeMounts": C.file_mounts(request)}]
    return spec


def build_trainjob(request: JobRequest, ctx: C.BuildContext) -> dict[str, Any]:
    name = C.job_name(request, ctx)
    resources = C.worker_resources(request, ctx)
    trainer: dict[str, Any] = {
        "image": C.image(request, ctx),
        "command": C.in_workdir(request, command(request)),
        "numNodes": request.workers,
        "numProcPerNode": nproc_per_node(request, resources, ctx),  # int32 since 2.2; set for Gaudi
        "resourcesPerNode": resources,
    }
    if request.env:
        trainer["env"] = C.env_list(request)
    spec: dict[str, Any] = {
        "runtimeRef": {
            "name": request.runtime or ctx.training_runtime,
            "apiGroup": "trainer.kubeflow.org",
            "kind": "ClusterTrainingRuntime",
        },
        "trainer": trainer,
    }
    override = _pod_override(request, ctx, name)
    if override and ctx.kind_options.get(POD_OVERRIDES, RUNTIME_PATCHES) == RUNTIME_PATCHES:
        spec[RUNTIME_PATCHES] = [
            {
                "manager": MANAGER,
                "trainingRuntimeSpec": {
                    "template": {
                        "spec": {
                            "replicatedJobs": [
                                {"name": NODE_JOB, "template": {"spec": {"template": {"spec": override}}}}
                            ]
                        }
                    }
                },
            }
        ]
    elif override:
        spec[POD_TEMPLATE_OVERRIDES] = [{"targetJobs": [{"name": NODE_JOB}], "spec": override}]
    return {"apiVersion": API_VERSION, "kind": "TrainJob", "metadata": C.metadata(name, request, ctx), "spec": spec}


def _override_spec(spec: dict[str, Any]) -> dict[str, Any]:
    for patch in spec.get("runtimePatches") or []:
        for rj in (((patch.get("trainingRuntimeSpec") or {}).get("template") or {}).get("spec") or {}).get(
            "replicatedJobs"
        ) or []:
            if rj.get("name") == NODE_JOB:
                return ((rj.get("template") or {}).get("spec") or {}).get("template", {}).get("spec") or {}
    for override in spec.get("podTemplateOverrides") or []:
        if any(t.get("name") == NODE_JOB for t in override.get("targetJobs") or []):
            return override.get("spec") or {}
    return {}


def pod_sets(obj: dict[str, Any]) -> list[PodDemand]:
    """The trainer nodes only: the runtime's own template (and any initializers) is not in the TrainJob."""
    spec = obj.get("spec") or {}
    trainer = spec.get("trainer") or {}
    override = _override_spec(spec)
    pod = {
        "containers": [{"name": NODE_JOB, "resources": trainer.get("resourcesPerNode") or {}}],
        "nodeSelector": override.get("nodeSelector") or {},
        "tolerations": override.get("tolerations") or [],
    }
    return [PodDemand.from_pod_spec(NODE_JOB, int(trainer.get("numNodes", 1)), pod)]
