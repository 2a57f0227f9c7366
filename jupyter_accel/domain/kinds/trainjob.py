"""Kubeflow Trainer v2 TrainJob: a training runtime (a JobSet underneath) run with the request's trainer."""

from __future__ import annotations

from ...models.jobs import JobKind, ScriptInterpreter
from ..builders import trainjob as builder
from ..objects import field
from .pytorchjob import PYTORCH_IMAGE, TRAINING_FIELDS
from .spec import KindSpec, Obj, end_from_conditions, terminal_from_conditions


def running(obj: Obj) -> bool:
    # TrainJob has no Running condition: the JobSet's jobs tell.
    return any(
        int(j.get("ready", 0) or 0) + int(j.get("active", 0) or 0) > 0 for j in field(obj, "status", "jobsStatus") or []
    )


SPEC = KindSpec(
    kind=JobKind.trainjob,
    group="trainer.kubeflow.org",
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
)
