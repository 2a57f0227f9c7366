"""What a job kind is, as one value: its API, builder, pods, roles and status rules. One module per kind
exports one KindSpec; everything else iterates over the registry (kinds/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...models.jobs import JobKind, JobProgress, JobRequest, JobStatus, ScriptInterpreter
from ..builders.common import BuildContext
from ..objects import condition, has_true, sentence
from ..objects import field as get
from ..resources import PodDemand

Obj = Mapping[str, Any]
Labels = Mapping[str, str]
Terminal = tuple[JobStatus, str | None]


def _none(_obj: Obj) -> None:
    return None


def spec_suspend(suspend: bool) -> dict[str, Any]:
    return {"spec": {"suspend": suspend}}


def suspended_by_spec_or_condition(obj: Obj) -> bool:
    return bool(get(obj, "spec", "suspend")) or has_true(obj, "Suspended")


def end_from_status(obj: Obj) -> str | None:
    return get(obj, "status", "endTime") or get(obj, "status", "completionTime")


def end_from_conditions(*types: str) -> Callable[[Obj], str | None]:
    """The end time from status fields, else from when the first true condition of `types` became true."""

    def end(obj: Obj) -> str | None:
        if found := end_from_status(obj):
            return found
        for ctype in types:
            if has_true(obj, ctype):
                return (condition(obj, ctype) or {}).get("lastTransitionTime")
        return None

    return end


@dataclass(frozen=True)
class KindSpec:
    kind: JobKind
    group: str  # API group
    # the versions of `group` it is built for, preferred first: discovery uses the first the cluster serves
    # (kinds sharing a group list the same versions)
    versions: tuple[str, ...]
    cr_kind: str  # Kubernetes kind
    plural: str  # resource name, and the key of its cache
    label: str  # what people call it
    badge: str  # one letter, for compact lists
    name_prefix: str  # of generated names: <prefix>-<suffix>
    build: Callable[[JobRequest, BuildContext], dict[str, Any]]
    pod_sets: Callable[[dict[str, Any]], list[PodDemand]]  # the pods it runs, by Kueue PodSet name
    pod_selectors: Callable[[Obj], list[dict[str, str]]]  # equality selectors; a pod matching any belongs to it
    pod_role: Callable[[Labels], str | None]  # a pod's role from its labels (None: not said by the operator)
    roles: tuple[str, ...]  # every role, the one whose log is the job's output first
    terminal: Callable[[Obj], Terminal | None]  # finished, from the CR alone
    suspended: Callable[[Obj], bool] = suspended_by_spec_or_condition
    running: Callable[[Obj], bool] = lambda _obj: False
    starting_reason: Callable[[Obj], str | None] = _none  # why it is not up yet, from the CR
    running_note: Callable[[Obj], str | None] = _none  # running, but worth saying (restarting, degraded)
    end_time: Callable[[Obj], str | None] = end_from_status
    suspend_patch: Callable[[bool], dict[str, Any]] = spec_suspend
    ray_cluster: Callable[[Obj], str | None] | None = None  # the RayCluster whose dashboard it has
    takes_ray_jobs: bool = False  # while it runs, users send it Ray jobs (a long-lived, interactive cluster)
    progress: Callable[[Obj], JobProgress | None] = _none  # what its code reports of its progress, from the CR
    # the optional JobRequest fields it takes ("head" is the Ray head's resources), and the program fields of
    # which a request must give exactly one (none: it runs no program of its own)
    request_fields: frozenset[str] = frozenset()
    program: tuple[str, ...] = ()
    min_workers: int = 0
    interpreter: ScriptInterpreter | None = None  # what runs a script by default (None: takes no script)
    # what a request gets when it says nothing; the admin's AccelConfig.default_images / default_max_run_seconds
    # override these per kind
    default_image: str | None = None  # None: a request must name its image
    # per accelerator vendor (accelerators.vendor_of: nvidia, amd, habana, intel), the image instead of
    # default_image; a vendor mapped to None has no default here: its requests name one (or the admin sets one)
    vendor_images: Mapping[str, str | None] = field(default_factory=dict)
    default_max_run_seconds: int | None = None  # None: no time limit
    default: bool = False  # the kind a form or magic offers first (exactly one kind says so)
    # what its builder needs to know about the cluster's copy of the API, decided from the OpenAPI schema the
    # cluster serves for the kind (None when it could not be read); the server puts the answer in
    # BuildContext.kind_options. None: the served version says all it needs
    build_options: Callable[[Obj | None], Mapping[str, Any]] | None = None
    # the cluster-scoped catalogue, in the kind's own group, of what a request may name as its `runtime`
    # (TrainJob: clustertrainingruntimes); discovery lists its names for /info and the launch form. None: no such
    runtimes: str | None = None

    def __post_init__(self) -> None:
        if not self.versions:  # discovery would never choose a version: the kind would silently not be served
            raise ValueError(f"job kind {self.kind.value} names no API versions")

    @property
    def cache_key(self) -> str:
        return self.plural

    @property
    def log_role(self) -> str:
        return self.roles[0]


def terminal_from_conditions(failed: str, succeeded: str) -> Callable[[Obj], Terminal | None]:
    """Finished when condition `failed` or `succeeded` is true (a failure says its reason first)."""

    def terminal(obj: Obj) -> Terminal | None:
        for ctype, result in ((failed, JobStatus.failed), (succeeded, JobStatus.succeeded)):
            if has_true(obj, ctype):
                cond = condition(obj, ctype) or {}
                reason = cond.get("reason") if result is JobStatus.failed else None
                return result, sentence(reason, cond.get("message"))
        return None

    return terminal
