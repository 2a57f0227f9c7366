"""The registry of job kinds: every module of this package exports one KindSpec named SPEC.

Adding a kind is one module here (plus its builder): the caches, permissions, push topics, request checks,
status rules, the wire's kind list and the front-ends all iterate over KINDS.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping, Sequence
from typing import Any

from ...models.info import JobKindInfo
from ...models.jobs import JobKind
from .. import labels as L
from ..objects import field
from .spec import KindSpec


def _discover() -> tuple[KindSpec, ...]:
    specs = []
    for mod in pkgutil.iter_modules(__path__):
        if mod.name != "spec":
            specs.append(importlib.import_module(f"{__name__}.{mod.name}").SPEC)
    order = list(JobKind)
    return tuple(sorted(specs, key=lambda s: order.index(s.kind)))


KINDS: tuple[KindSpec, ...] = _discover()
_BY_KIND = {s.kind: s for s in KINDS}
_BY_API = {(s.group, s.cr_kind): s for s in KINDS}
_BY_CR_KIND = {s.cr_kind: s for s in KINDS}
if set(_BY_KIND) != set(JobKind):  # a wire kind without its module, or the other way round
    raise ImportError(f"job kinds without a spec: {sorted(set(JobKind) - set(_BY_KIND))}")
_DEFAULTS = [s for s in KINDS if s.default]
if len(_DEFAULTS) != 1:
    raise ImportError(f"exactly one job kind must be the default, not {[s.kind.value for s in _DEFAULTS]}")
DEFAULT_KIND: JobKind = _DEFAULTS[0].kind  # what a form or magic offers first


def _group_versions() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for s in KINDS:
        if table.setdefault(s.group, s.versions) != s.versions:  # discovery chooses one version per group
            raise ImportError(f"job kinds of {s.group} name different versions: {table[s.group]} and {s.versions}")
    return table


GROUP_VERSIONS: dict[str, tuple[str, ...]] = _group_versions()  # the job kinds' API groups, versions preferred first


def spec_of_kind(kind: JobKind) -> KindSpec:
    return _BY_KIND[kind]


def spec_of_object(obj: Mapping[str, Any]) -> KindSpec | None:
    """The spec of a job CR by its apiVersion group and kind; None for anything else."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    return _BY_API.get((group, str(obj.get("kind", ""))))


def spec_of_cr_kind(cr_kind: str) -> KindSpec | None:
    return _BY_CR_KIND.get(cr_kind)


def kinds_taking(request_field: str) -> list[KindSpec]:
    return [s for s in KINDS if request_field in s.request_fields]


def pod_role(spec: KindSpec | None, pod: Mapping[str, Any]) -> str | None:
    """A pod's role in its job: what the operator labelled, else the role jupyter-accel wrote on it."""
    labels = field(pod, "metadata", "labels") or {}
    return (spec.pod_role(labels) if spec else None) or labels.get(L.ROLE)


def kind_info(spec: KindSpec, version: str | None) -> JobKindInfo:
    """A kind as /info reports it; `version` None: the cluster does not serve it."""
    return JobKindInfo(
        kind=spec.kind,
        label=spec.label,
        badge=spec.badge,
        kubernetes_kind=spec.cr_kind,
        served=version is not None,
        version=version,
        roles=list(spec.roles),
        dashboard=spec.ray_cluster is not None,
        program=list(spec.program),
        min_workers=spec.min_workers,
        request_fields=sorted(spec.request_fields),
        default=spec.default,
        default_max_run_seconds=None,  # the admin's setting, filled in by the server (app.current_state)
        runtimes=None,  # what the cluster offers, filled in from discovery
    )


def log_pod(spec: KindSpec, pods: Sequence[Mapping[str, Any]]) -> str | None:
    """The pod whose log is the job's output: the first of its roles (a RayJob's submitter, which follows the
    job's logs; the Ray head; the PyTorch master), ties and unknown roles by name."""

    def rank(pod: Mapping[str, Any]) -> tuple[int, str]:
        role = pod_role(spec, pod)
        place = spec.roles.index(role) if role in spec.roles else len(spec.roles)
        return place, field(pod, "metadata", "name") or ""

    return field(min(pods, key=rank), "metadata", "name") if pods else None


__all__ = [
    "DEFAULT_KIND",
    "GROUP_VERSIONS",
    "KINDS",
    "KindSpec",
    "kind_info",
    "kinds_taking",
    "log_pod",
    "pod_role",
    "spec_of_cr_kind",
    "spec_of_kind",
    "spec_of_object",
]
