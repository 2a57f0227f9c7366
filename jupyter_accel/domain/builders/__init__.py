"""Job builders: JobRequest + BuildContext -> the Kubernetes objects to create, main CR first. Pure functions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ...models.jobs import JobRequest
from ..resources import PodDemand
from .common import BuildContext, effective_queue, image, job_name, owner_reference, with_owner
from .script import MAX_SCRIPT_BYTES, build_script_configmap

# Each kind's builder is named by its KindSpec (domain/kinds), which imports this package: look it up late.


def _build(request: JobRequest, ctx: BuildContext) -> dict[str, Any]:
    from ..kinds import spec_of_kind

    return spec_of_kind(request.kind).build(request, ctx)


@dataclass(frozen=True)
class Build:
    """A request built once: what to create, the pods it will run and the LocalQueue it goes to."""

    objects: list[dict[str, Any]]  # the job CR first, then the script ConfigMap if any
    demands: list[PodDemand]  # read off the built CR, so the fit check and the builders agree
    queue: str | None
    image: str  # what its pods run: the request's, else the server's default for the kind and vendor


def build(request: JobRequest, ctx: BuildContext) -> Build:
    """Create the CR first, then the ConfigMap through `with_owner(configmap, created_cr)` so it is garbage-
    collected with the job; pods that mount it wait in ContainerCreating until it exists.
    Raises ValueError on what validate_job_request() reports; validate first for field-path errors.
    """
    main = _build(request, ctx)
    objects = [main]
    if request.script or request.workdir:
        objects.append(build_script_configmap(request, ctx, main["metadata"]["name"]))
    return Build(objects, pod_sets(main), effective_queue(request, ctx), image(request, ctx))


def build_objects(request: JobRequest, ctx: BuildContext) -> list[dict[str, Any]]:
    """The objects to create in order: the job CR, then the script ConfigMap if any (see build)."""
    return build(request, ctx).objects


def pod_sets(obj: dict[str, Any]) -> list[PodDemand]:
    """The pods a job CR (built by us or not) will run, by Kueue PodSet name; [] for other kinds."""
    from ..kinds import spec_of_cr_kind

    spec = spec_of_cr_kind(str(obj.get("kind")))
    return spec.pod_sets(obj) if spec else []


def demands(request: JobRequest, ctx: BuildContext) -> list[PodDemand]:
    """The pods a request will create, read off the built objects so the fit check and the builders agree."""
    # The name does not change any pod's demand; a placeholder suffix lets unnamed requests be sized too.
    return pod_sets(_build(request, replace(ctx, name_suffix=ctx.name_suffix or "00000")))


__all__ = [
    "MAX_SCRIPT_BYTES",
    "Build",
    "BuildContext",
    "build",
    "build_objects",
    "demands",
    "job_name",
    "owner_reference",
    "pod_sets",
    "with_owner",
]
