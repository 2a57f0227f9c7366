"""Kubeflow Training Operator PyTorchJob: torchrun on a master and workers."""

from __future__ import annotations

from ...models.jobs import JobKind, ScriptInterpreter
from ..builders import pytorchjob as builder
from ..objects import condition, field, has_true, sentence
from .spec import KindSpec, Labels, Obj, terminal_from_conditions

TRAINING_FIELDS = frozenset({"command", "script", "nproc_per_node", "workdir"})
PYTORCH_IMAGE = "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"  # CUDA; runs CPU-only too
# a CUDA build cannot drive ROCm, Gaudi or Intel devices: their requests name an image (or the admin sets one)
PYTORCH_VENDOR_IMAGES: dict[str, str | None] = {"amd": None, "habana": None, "intel": None}


def replica_type(labels: Labels) -> str | None:
    found = labels.get("training.kubeflow.org/replica-type")
    return found.lower() if found else None


def running_note(obj: Obj) -> str | None:
    if has_true(obj, "Restarting"):
        return sentence("Restarting", (condition(obj, "Restarting") or {}).get("message"))
    return None


SPEC = KindSpec(
    kind=JobKind.pytorch,
    group="kubeflow.org",
    versions=("v1",),
    cr_kind="PyTorchJob",
    plural="pytorchjobs",
    label="PyTorchJob",
    badge="P",
    name_prefix="ddp",
    build=builder.build_pytorchjob,
    pod_sets=builder.pod_sets,
    pod_selectors=lambda obj: [{"training.kubeflow.org/job-name": field(obj, "metadata", "name")}],
    pod_role=replica_type,
    roles=("master", "worker"),
    terminal=terminal_from_conditions("Failed", "Succeeded"),
    suspended=lambda obj: bool(field(obj, "spec", "runPolicy", "suspend")) or has_true(obj, "Suspended"),
    running=lambda obj: has_true(obj, "Running") or has_true(obj, "Restarting"),
    running_note=running_note,
    suspend_patch=lambda suspend: {"spec": {"runPolicy": {"suspend": suspend}}},
    request_fields=TRAINING_FIELDS | {"ttl_seconds_after_finished", "volumes", "secrets"},
    interpreter=ScriptInterpreter.torchrun,
    program=("command", "script"),
    min_workers=1,
    default_image=PYTORCH_IMAGE,
    vendor_images=PYTORCH_VENDOR_IMAGES,
    default=True,
)
