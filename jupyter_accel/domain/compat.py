"""The compatibility report: what the cluster's served APIs tell of its stack, in plain words. Pure.

Discovery gives each API group's served version and resources, and what each job kind read off its served schema
(KindSpec.build_options). From those alone: which APIs are used, which features they show, which deprecated APIs
this product would use, and what will not work. Versions of the operators themselves are not visible to a notebook
user, so nothing here claims one; what a served API implies is said as "or later".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import JobKind
from ..models.info import Compatibility
from .builders import trainjob as trainjob_builder
from .kinds import KINDS
from .kinds.trainjob import TRAINER_STATUS

KUEUE = "kueue.x-k8s.io"
VISIBILITY = "visibility.kueue.x-k8s.io"
PROFILES = "infrastructure.opendatahub.io"
OPERATOR = {  # who serves each job kind's API, as people name it
    JobKind.ray_cluster: "KubeRay",
    JobKind.ray_job: "KubeRay",
    JobKind.pytorch: "the Kubeflow Training Operator (v1)",
    JobKind.trainjob: "Kubeflow Trainer (v2)",
}


def compatibility(
    versions: Mapping[str, str], serves: Any, options: Mapping[JobKind, Mapping[str, Any]]
) -> Compatibility:
    """`versions`: group -> chosen version; `serves(group, plural)`: a resource is served; `options`: each kind's
    build options (Discovery.options)."""
    report = Compatibility()
    kueue = versions.get(KUEUE)
    if kueue:
        report.served.append(f"Kueue: {KUEUE}/{kueue}")
        if kueue == "v1beta1":
            report.deprecated.append(
                "Kueue serves only its v1beta1 API: this Kueue is older than 0.15, which added v1beta2; v1beta1 is "
                "deprecated since Kueue 0.19"
            )
        else:
            report.features.append("Kueue's v1beta2 API (Kueue 0.15 or later)")
    else:
        report.missing.append("Kueue is not installed: jobs start without quota, and no queue or place in line shows")
    if kueue and versions.get(VISIBILITY):
        report.served.append(f"Kueue visibility: {VISIBILITY}/{versions[VISIBILITY]}")
        report.features.append("places in line from Kueue's visibility API")
    elif kueue:
        report.missing.append("Kueue's visibility API is not served: a queued job's place in line is unknown")
    for spec in KINDS:
        version = versions.get(spec.group)
        if version is None or not serves(spec.group, spec.plural):
            report.missing.append(
                f"{spec.label} is not offered: {OPERATOR.get(spec.kind, spec.group)} is not installed"
            )
            continue
        report.served.append(f"{spec.label}: {spec.group}/{version}")
        opts = options.get(spec.kind) or {}
        if spec.kind is JobKind.pytorch:
            report.deprecated.append(
                "PyTorchJob (Training Operator v1): Kueue documents its Trainer v1 integration as deprecated; "
                "TrainJob (Trainer v2) replaces it"
            )
        if spec.kind is JobKind.trainjob:
            if opts.get(trainjob_builder.POD_OVERRIDES) == trainjob_builder.POD_TEMPLATE_OVERRIDES:
                report.deprecated.append(
                    "TrainJob's podTemplateOverrides (Trainer 2.1): Trainer 2.2 replaced it with runtimePatches; "
                    "this server writes what the cluster serves"
                )
            if opts.get(TRAINER_STATUS) == "served":
                report.features.append("TrainJob progress from status.trainerStatus (Trainer 2.2 or later)")
            elif opts.get(TRAINER_STATUS) == "absent":
                report.missing.append("TrainJob progress: the served Trainer has no status.trainerStatus (needs 2.2)")
    if versions.get(PROFILES):
        report.served.append(f"Hardware profiles: {PROFILES}/{versions[PROFILES]}")
    else:
        report.missing.append("Hardware profiles are not served: requests name devices directly")
    return report
