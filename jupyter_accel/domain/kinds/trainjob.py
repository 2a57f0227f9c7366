"""Kubeflow Trainer v2 TrainJob: a training runtime (a JobSet underneath) run with the request's trainer."""

from __future__ import annotations

from ...models.jobs import JobKind, ScriptInterpreter
from ..builders import trainjob as builder
from ..objects import field
from ..progress import trainer_progress
from .pytorchjob import PYTORCH_IMAGE, PYTORCH_VENDOR_IMAGES, TRAINING_FIELDS
from .spec import KindSpec, Obj, end_from_conditions, terminal_from_conditions


def running(obj: Obj) -> bool:
    # TrainJob has no Running condition: the JobSet's jobs tell.
    return any(
        int(j.get("ready", 0) or 0) + int(j.get("active", 0) or 0) > 0 for j in field(obj, "status", "jobsStatus") or []
    )


TRAINER_STATUS = "trainer_status"  # build_options key: does the served TrainJob have status.trainerStatus


def build_options(schema: Obj | None) -> dict[str, str]:
    """Where pod-level settings go on the cluster's Trainer. 2.1 and 2.2+ both serve v1alpha1, so discovery cannot
    tell; the served TrainJob schema can: 2.1 (RHOAI 3.x) has spec.podTemplateOverrides, 2.2 replaced it with
    spec.runtimePatches. A schema that shows neither, or none read: the current shape."""
    served = field(schema, "properties", "spec", "properties") or {}
    old = builder.POD_TEMPLATE_OVERRIDES in served and builder.RUNTIME_PATCHES not in served
    options = {builder.POD_OVERRIDES: builder.POD_TEMPLATE_OVERRIDES if old else builder.RUNTIME_PATCHES}
    if schema is not None:  # Trainer >= 2.2 has status.trainerStatus (progress); the compatibility report says so
        status = field(schema, "properties", "status", "properties") or {}
        options[TRAINER_STATUS] = "served" if "trainerStatus" in status else "absent"
    return options


SPEC = KindSpec(
    kind=JobKind.trainjob,
    group="trainer.kubeflow.org",
    versions=("v1alpha1",),
    cr_kind="TrainJob",
    plural="trainjobs",
    label="TrainJob",
    badge="T",
    name_prefix="train",
    build=builder.build_trainjob,
    pod_sets=builder.pod_sets,
    pod_selectors=lambda obj: [{"jobset.sigs.k8s.io/jobset-name": field(obj, "metadata", "name")}],
    pod_role=lambda labels: labels.get("jobset.sigs.k8s.io/replicatedjob-name"),
    roles=("node",),
    terminal=terminal_from_conditions("Failed", "Complete"),
    running=running,
    end_time=end_from_conditions("Complete", "Failed"),
    request_fields=TRAINING_FIELDS | {"runtime"},
    interpreter=ScriptInterpreter.torchrun,
    program=("command", "script"),
    min_workers=1,
    default_image=PYTORCH_IMAGE,
    vendor_images=PYTORCH_VENDOR_IMAGES,
    build_options=build_options,
    progress=trainer_progress,
    runtimes="clustertrainingruntimes",
)
