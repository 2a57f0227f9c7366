"""Semantic checks of a JobRequest beyond its wire syntax: what the kind allows, what the cluster knows.

Every problem is reported (not just the first) as FieldError(field=<dotted path>, message=<what is allowed>).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..models.base import FieldError
from ..models.jobs import JobKind, JobRequest, ScriptInterpreter
from . import labels as L
from .builders.script import MAX_SCRIPT_BYTES, script_size
from .resources import parse_quantity

RAY_KINDS = (JobKind.ray_cluster, JobKind.ray_job)
TRAINING_KINDS = (JobKind.pytorch, JobKind.trainjob)
# Which optional fields each kind takes (anything else set is an error, not silently ignored).
_FIELD_KINDS: dict[str, tuple[JobKind, ...]] = {
    "entrypoint": (JobKind.ray_job,),
    "runtime_env": (JobKind.ray_job,),
    "command": TRAINING_KINDS,
    "script": (JobKind.ray_job, *TRAINING_KINDS),
    "nproc_per_node": TRAINING_KINDS,
    "runtime": (JobKind.trainjob,),
    "ttl_seconds_after_finished": (JobKind.ray_job, JobKind.pytorch),
}


def _kinds(kinds: Sequence[JobKind]) -> str:
    return " or ".join(k.value for k in kinds)


def validate_job_request(
    request: JobRequest,
    *,
    known_accelerators: Sequence[str],
    profile: Mapping[str, Any] | None = None,
    default_image: str | None = None,
) -> list[FieldError]:
    """All semantic problems of `request`; [] when it can be built.

    known_accelerators: the accelerator resource names this cluster offers (accelerator registry).
    profile: the translated hardware profile named by request.hardware_profile, None when it was not found.
    default_image: the server's default image for request.kind (None: the request must name one).
    """
    errors: list[FieldError] = []

    def err(field: str, message: str) -> None:
        errors.append(FieldError(field=field, message=message))

    kind = request.kind
    for field, kinds in _FIELD_KINDS.items():
        if getattr(request, field) is not None and kind not in kinds:
            err(field, f"only for kind {_kinds(kinds)}, not {kind.value}")

    if kind is JobKind.ray_job and (request.entrypoint is None) == (request.script is None):
        err("entrypoint", "a ray-job needs exactly one of entrypoint and script")
    if kind in TRAINING_KINDS and (request.command is None) == (request.script is None):
        err("command", f"a {kind.value} job needs exactly one of command and script")
    if kind in TRAINING_KINDS and request.workers < 1:
        err("workers", f"a {kind.value} job needs at least 1 node")
    if kind not in RAY_KINDS and "head" in request.model_fields_set:
        err("head", "only for kind ray-cluster or ray-job")

    if request.script:
        size = script_size(request)
        if size > MAX_SCRIPT_BYTES:
            err("script.text", f"the script is {size} bytes; at most {MAX_SCRIPT_BYTES} fit in a ConfigMap")
        if request.script.interpreter is ScriptInterpreter.torchrun and kind not in TRAINING_KINDS:
            err("script.interpreter", "torchrun only for kind pytorch or trainjob")

    if request.accelerators and request.hardware_profile:
        err("accelerators", "give accelerators or hardware_profile, not both")
    if request.accelerators and request.accelerators.resource not in known_accelerators:
        known = ", ".join(sorted(known_accelerators)) or "none"
        err(
            "accelerators.resource",
            f"unknown accelerator {request.accelerators.resource!r}; this cluster offers: {known}",
        )
    if request.hardware_profile and profile is None:
        err("hardware_profile", f"no hardware profile named {request.hardware_profile!r} is visible")

    for field, value in (
        ("cpu", request.cpu),
        ("memory", request.memory),
        ("head.cpu", request.head.cpu),
        ("head.memory", request.head.memory),
    ):
        if value is not None and parse_quantity(value) <= 0:
            err(field, "must be more than 0")

    if not request.image and not default_image:
        err("image", f"no default image is configured for {kind.value}; name one")

    for key in request.labels:
        if L.is_reserved(key):
            err(
                f"labels.{key}",
                "reserved for Kueue, the operators or jupyter-accel; use the request's "
                "queue / priority_class fields, or another key",
            )
    return errors
