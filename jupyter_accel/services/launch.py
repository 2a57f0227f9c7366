"""What a job request goes through before anything is created, shared by the fit check and submit: validation,
the server's defaults (image, time limit, queue, hardware profile), and one build of the objects, their pods and
their queue. The fit check reads that build; it builds nothing again."""

from __future__ import annotations

import dataclasses
import secrets
from typing import TYPE_CHECKING, Any

from ..domain import labels as L
from ..domain.builders import Build, build
from ..domain.builders.common import BuildContext
from ..domain.builders.raycluster import growth
from ..domain.builders.script import workdir_limit
from ..domain.fit import assess_fit, fit_response
from ..domain.hardware_profiles import apply_profile, list_profiles
from ..domain.job_request import request_vendor, validate_job_request
from ..domain.kinds import spec_of_kind
from ..domain.queues import default_queue_name
from ..models import FieldError, FitResponse, JobRequest
from . import workdir
from .errors import Invalid, invalid
from .ports import Caches, JobSettings
from .snapshot import Snapshot

if TYPE_CHECKING:
    from ..domain.accelerators import AcceleratorRegistry
    from ..domain.resources import PodDemand

# what a fit check puts in a request whose program is not written yet: the verdict depends on its shape only
NO_OP_PROGRAM: dict[str, Any] = {"entrypoint": "true", "command": ["true"]}


def known_accelerators(hub: Caches, registry: AcceleratorRegistry) -> list[str]:
    discovered = {r for n in hub.items("nodes") for r in ((n.get("status") or {}).get("allocatable") or {})}
    return registry.known_names(discovered)


def _readable(hub: Caches, key: str) -> list[dict[str, Any]] | None:
    """The cached items, or None when this account may not read them."""
    return hub.items(key) if hub.readable(key) else None


def _profile(
    hub: Caches, registry: AcceleratorRegistry, request: JobRequest
) -> tuple[dict[str, Any] | None, FieldError | None]:
    profiles = list_profiles(hub.items("hardwareprofiles"), hub.items("acceleratorprofiles"), registry=registry)
    match = next((p for p in profiles if p.name == request.hardware_profile), None)
    if match is None:
        names = ", ".join(p.name for p in profiles) or "none"
        return None, FieldError(
            field="hardware_profile", message=f"no hardware profile {request.hardware_profile!r}; allowed: {names}"
        )
    count = request.accelerators.count if request.accelerators else None
    try:
        return dataclasses.asdict(apply_profile(match, accelerator_count=count)), None
    except ValueError as exc:
        return None, FieldError(field="hardware_profile", message=str(exc).split(": ", 1)[-1])


def prepare(
    hub: Caches, registry: AcceleratorRegistry, settings: JobSettings, request: JobRequest, *, pack: bool = True
) -> Build:
    """Validate and build once; raises Invalid naming every bad field. The caller checks the kind is served.
    `pack`: pack the request's working dir (a fit check, whose verdict does not depend on it, does not)."""
    known = known_accelerators(hub, registry)
    profile_dict = None
    errors: list[FieldError] = []
    if request.hardware_profile:
        profile_dict, err = _profile(hub, registry, request)
        if err:
            errors.append(err)
    vendor = request_vendor(request, profile_dict)
    default_image = settings.image_for(request.kind, vendor)
    limit = settings.max_run_seconds_limit
    errors += validate_job_request(
        request,
        known_accelerators=known,
        profile=profile_dict,
        default_image=default_image,
        max_run_limit=limit,
        vendor=vendor,
    )
    default_max_run = settings.default_limit(request.kind)
    queues = _readable(hub, "localqueues")
    if request.queue and queues is not None:
        names = sorted(q["metadata"]["name"] for q in queues)
        if request.queue not in names:
            errors.append(
                FieldError(
                    field="queue",
                    message=f"no LocalQueue {request.queue!r} in {hub.namespace}; allowed: {', '.join(names) or 'none'}",
                )
            )
    if errors:
        raise invalid(errors)
    archive = None
    if request.workdir:
        if not settings.files_root:
            raise Invalid("workdir: this server has no files of its own to send (no root folder)", field="workdir")
        archive = workdir.pack(settings.files_root, request.workdir, workdir_limit(request)) if pack else b""
    ctx = BuildContext(
        namespace=hub.namespace,
        workdir_archive=archive,
        image=default_image,
        queue=default_queue_name(queues, settings.default_queue) if queues is not None else None,
        workbench=settings.workbench_prefix,
        known_accelerators=known,
        profile=profile_dict,
        name_suffix=secrets.token_hex(3)[:5],
        max_run_seconds=default_max_run or None,
        kind_options=hub.build_options(request.kind),  # what the kind's spec read off the served API
    )
    try:
        return build(request, ctx)
    except ValueError as exc:
        raise Invalid(str(exc)) from None


def fit(hub: Caches, registry: AcceleratorRegistry, settings: JobSettings, request: JobRequest) -> FitResponse:
    """Would this request be admitted now, wait, or never run; nothing is created."""
    # the verdict depends on the job's shape only: a request whose program is not written yet gets a no-op one
    spec = spec_of_kind(request.kind)
    if spec.program and not any(getattr(request, p) is not None for p in spec.program):
        request = request.model_copy(update={spec.program[0]: NO_OP_PROGRAM[spec.program[0]]})
    built = prepare(hub, registry, settings, request, pack=False)
    priority_class = ((built.objects[0].get("metadata") or {}).get("labels") or {}).get(L.PRIORITY_CLASS)
    answer = fit_demands(hub, registry, built.demands, built.queue, priority_class)
    answer.image = built.image
    if grows := growth_note(request):
        answer.notes.append(grows)
    return answer


def workload_priority(hub: Caches, priority_class: str | None) -> int | None:
    """The value of a Kueue WorkloadPriorityClass, which Kueue gives the job's Workload: 0 without a class, None
    when the class cannot be read here (not visible, or no such class)."""
    if not priority_class:
        return 0
    wpc = hub.get("workloadpriorityclasses", priority_class) if hub.readable("workloadpriorityclasses") else None
    return int(wpc.get("value") or 0) if wpc is not None else None


def growth_note(request: JobRequest) -> str | None:
    """What the verdict does not cover when a Ray cluster autoscales: it is judged at its starting size."""
    grows = [f"{name} from {low} to {top}" for name, low, top in growth(request)]
    if not grows:
        return None
    return (
        f"Judged at its starting size; it may grow ({', '.join(grows)} workers). Each worker Ray's autoscaler adds "
        "later needs free quota and a node then (Kueue admits it as a new slice), or it waits."
    )


def fit_demands(
    hub: Caches,
    registry: AcceleratorRegistry,
    demands: list[PodDemand],
    queue: str | None,
    priority_class: str | None = None,
) -> FitResponse:
    """The fit check of some pods going to `queue`, from the caches: jobs and the workbench's own pod. Judged at the
    value of `priority_class`, the WorkloadPriorityClass Kueue gives their Workload (0 when the class is not
    visible here, said in the notes)."""
    snap = Snapshot.of(hub)
    lq = snap.local_queue(queue) if queue else None
    cq_name = ((lq or {}).get("spec") or {}).get("clusterQueue")
    priority = workload_priority(hub, priority_class)
    answer = fit_response(
        assess_fit(
            demands,
            snap.fit_cluster(cq_name),
            local_queue=lq,
            cluster_queue=snap.cluster_queue(cq_name) if cq_name else None,
            priority=priority or 0,
            registry=registry,
        )
    )
    if priority_class and priority is None:
        answer.notes.append(
            f"WorkloadPriorityClass {priority_class} is not visible to your account: the workloads ahead are those "
            "a workload of priority 0 would wait behind."
        )
    return answer
