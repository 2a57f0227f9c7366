"""Semantic checks of a JobRequest beyond its wire syntax: what the kind allows, what the cluster knows.

Every problem is reported (not just the first) as FieldError(field=<dotted path>, message=<what is allowed>).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..models.base import FieldError
from ..models.jobs import JobRequest, ScriptInterpreter
from . import labels as L
from .accelerators import vendor_of
from .builders.raycluster import WORKER_GROUP
from .builders.script import MAX_SCRIPT_BYTES, script_size
from .kinds import KINDS, KindSpec, kinds_taking, spec_of_kind
from .resources import parse_quantity

# The optional fields a kind may take (KindSpec.request_fields); anything else set is an error, not ignored.
# "head" has a default, so it counts as set only when the request names it.
_OPTIONAL = (
    "entrypoint",
    "runtime_env",
    "command",
    "script",
    "nproc_per_node",
    "runtime",
    "ttl_seconds_after_finished",
    "workdir",
    "volumes",
    "secrets",
    "max_workers",
    "worker_groups",
)


def _kinds(specs: Sequence[KindSpec]) -> str:
    return " or ".join(s.kind.value for s in specs)


def _given(request: JobRequest, name: str) -> bool:
    if name == "head":
        return name in request.model_fields_set
    value = getattr(request, name)
    return bool(value) if isinstance(value, list) else value is not None


def request_vendor(request: JobRequest, profile: Mapping[str, Any] | None = None) -> str | None:
    """The vendor of the accelerators a request asks for: its `accelerators`, else the accelerator its hardware
    profile requests (the translated profile's limits: only accelerators get one); None: CPU only."""
    if request.accelerators is not None:
        return vendor_of(request.accelerators.resource)
    for name in (profile or {}).get("limits") or {}:
        if "/" in name:  # an extended resource: cpu and memory have no domain
            return vendor_of(name)
    return None


def validate_job_request(
    request: JobRequest,
    *,
    known_accelerators: Sequence[str],
    profile: Mapping[str, Any] | None = None,
    default_image: str | None = None,
    max_run_limit: int = 0,
    vendor: str | None = None,
) -> list[FieldError]:
    """All semantic problems of `request`; [] when it can be built.

    known_accelerators: the accelerator resource names this cluster offers (accelerator registry).
    profile: the translated hardware profile named by request.hardware_profile, None when it was not found.
    default_image: the server's default image for request.kind (None: the request must name one).
    max_run_limit: the admin's ceiling on max_run_seconds (0: none).
    vendor: the vendor of the accelerators it asks for (request_vendor), which the default image depends on.
    """
    errors: list[FieldError] = []

    def err(field: str, message: str) -> None:
        errors.append(FieldError(field=field, message=message))

    kind, spec = request.kind, spec_of_kind(request.kind)
    for name in (*_OPTIONAL, "head"):
        if _given(request, name) and name not in spec.request_fields:
            err(name, f"only for kind {_kinds(kinds_taking(name))}" + ("" if name == "head" else f", not {kind.value}"))

    if spec.program and sum(_given(request, p) for p in spec.program) != 1:
        err(spec.program[0], f"a {kind.value} job needs exactly one of {' and '.join(spec.program)}")
    if request.workers < spec.min_workers:
        err("workers", f"a {kind.value} job needs at least {spec.min_workers} node")

    if request.script:
        size = script_size(request)
        if size > MAX_SCRIPT_BYTES:
            err("script.text", f"the script is {size} bytes; at most {MAX_SCRIPT_BYTES} fit in a ConfigMap")
        torchrun = [s for s in KINDS if s.interpreter is ScriptInterpreter.torchrun]
        if request.script.interpreter is ScriptInterpreter.torchrun and spec not in torchrun:
            err("script.interpreter", f"torchrun only for kind {_kinds(torchrun)}")

    for field, message in _mount_errors(request):
        err(field, message)
    for field, message in _group_errors(request, known_accelerators):
        err(field, message)

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

    if max_run_limit and request.max_run_seconds and request.max_run_seconds > max_run_limit:
        err("max_run_seconds", f"at most {max_run_limit} seconds on this server")

    if not request.image and not default_image:
        if vendor:
            err(
                "image",
                f"no default image for {kind.value} on {vendor} accelerators (the default is a CUDA or CPU build); "
                f"name one, or an admin sets default_images['{kind.value}@{vendor}']",
            )
        else:
            err("image", f"no default image is configured for {kind.value}; name one")

    for key in request.labels:
        if L.is_reserved(key):
            err(
                f"labels.{key}",
                "reserved for Kueue, the operators or jupyter-accel; use the request's "
                "queue / priority_class fields, or another key",
            )
    return errors


# the head's name and the first worker group's: Kueue names PodSets after them
RESERVED_GROUPS = ("head", WORKER_GROUP)


def _group_errors(request: JobRequest, known_accelerators: Sequence[str]) -> list[tuple[str, str]]:
    """Autoscaling bounds and the extra worker groups: unique names, known accelerators, sizes > 0."""
    out: list[tuple[str, str]] = []
    if request.max_workers is not None and request.max_workers < request.workers:
        out.append(("max_workers", f"at least workers ({request.workers}): the workers scale between the two"))
    seen: set[str] = set()
    for i, group in enumerate(request.worker_groups):
        at = f"worker_groups[{i}]"
        if group.name in RESERVED_GROUPS:
            out.append((f"{at}.name", f"{group.name!r} is taken (the head and the first group); choose another"))
        elif group.name in seen:
            out.append((f"{at}.name", f"{group.name!r} names another group of this job already"))
        seen.add(group.name)
        if group.max_workers is not None:
            if (
                "max_workers" not in spec_of_kind(request.kind).request_fields
            ):  # the kinds that autoscale take max_workers
                autoscaling = _kinds(kinds_taking("max_workers"))
                out.append((f"{at}.max_workers", f"only for kind {autoscaling} (an interactive cluster autoscales)"))
            elif group.max_workers < group.workers:
                out.append((f"{at}.max_workers", f"at least workers ({group.workers})"))
        if group.accelerators and group.accelerators.resource not in known_accelerators:
            known = ", ".join(sorted(known_accelerators)) or "none"
            out.append((f"{at}.accelerators.resource", f"unknown accelerator; this cluster offers: {known}"))
        for name, value in (("cpu", group.cpu), ("memory", group.memory)):
            if value is not None and parse_quantity(value) <= 0:
                out.append((f"{at}.{name}", "must be more than 0"))
    return out


# where the product mounts its own files (builders/common.py): a user's volume may not shadow them
RESERVED_MOUNTS = "/opt/jupyter-accel"


def _mount_errors(request: JobRequest) -> list[tuple[str, str]]:
    """Mount paths: normalized absolute paths, each once, none over the product's own; sub-paths inside."""
    out: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    mounts = [(f"volumes[{i}].mount_path", v.mount_path) for i, v in enumerate(request.volumes)]
    mounts += [(f"secrets[{i}].mount_path", s.mount_path) for i, s in enumerate(request.secrets) if s.mount_path]
    for field, path in mounts:
        parts = path.split("/")
        if any(p in (".", "..") for p in parts) or "//" in path or path.endswith("/"):
            out.append((field, f"{path!r}: an absolute path without '.', '..', '//' or a trailing '/'"))
        elif path == RESERVED_MOUNTS or path.startswith(RESERVED_MOUNTS + "/"):
            out.append((field, f"{path!r}: {RESERVED_MOUNTS} holds the job's own script and working dir"))
        elif path in seen:
            out.append((field, f"{path!r} is already the mount path of {seen[path]}"))
        seen.setdefault(path, field)
    for i, v in enumerate(request.volumes):
        if v.sub_path is not None and (v.sub_path.startswith("/") or ".." in v.sub_path.split("/")):
            out.append((f"volumes[{i}].sub_path", f"{v.sub_path!r}: a relative path inside the volume, without '..'"))
    return out
