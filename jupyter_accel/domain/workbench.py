"""This workbench's Notebook (kubeflow.org/v1): what it holds, and the patch that changes its hardware profile.

OpenShift AI's dashboard changes a workbench's accelerator by writing the Notebook's hardware-profile annotations
(and, in a Kueue-managed project, its queue label); the platform's webhook turns them into resources, node selector
and tolerations when the pod is made again. We write the same fields, and leave the restart to the platform.
"""

from __future__ import annotations

from typing import Any

from ..models.base import Visibility
from ..models.inventory import HardwareProfileView
from ..models.workbench import WorkbenchView
from . import labels as L
from .accelerators import AcceleratorRegistry
from .hardware_profiles import ProfilePlacement
from .objects import field
from .resources import PodDemand, parse_quantity

KUEUE_MANAGED_LABEL = "kueue.openshift.io/managed"  # RHOAI: the project opts in to Kueue (managedJobsNamespaceSelector)
STOPPED_ANNOTATION = "kubeflow-resource-stopped"  # the notebook controller scales the pod to 0 while it is set
RESTART_WARNING = (
    "Changing the hardware profile restarts the workbench when the platform applies it: the kernel and everything in "
    "its memory are lost. Save your notebooks first."
)


POD_SPEC = ("spec", "template", "spec")  # a Notebook's pod spec


def _containers(nb: dict[str, Any]) -> list[dict[str, Any]]:
    return field(nb, *POD_SPEC, "containers") or []


def notebook_container(nb: dict[str, Any]) -> dict[str, Any]:
    """The notebook's own container: the one named like the Notebook (the controller's convention), else the first."""
    containers = _containers(nb)
    name = field(nb, "metadata", "name")
    return next((c for c in containers if c.get("name") == name), containers[0] if containers else {})


def kueue_managed(namespace: dict[str, Any] | None) -> bool | None:
    if namespace is None:
        return None
    return field(namespace, "metadata", "labels", KUEUE_MANAGED_LABEL) == "true"


def workbench_view(
    name: str | None,
    namespace: str | None,
    nb: dict[str, Any] | None,
    registry: AcceleratorRegistry,
    *,
    namespace_obj: dict[str, Any] | None = None,
    profiles: list[HardwareProfileView] | None = None,
    refused: str | None = None,
) -> WorkbenchView:
    """What the sidebar's "This workbench" shows. `refused`: why the Notebook could not be read."""
    if name is None:
        return WorkbenchView(message="This server does not run in a workbench (no NB_PREFIX).")
    if nb is None:
        if refused:
            return WorkbenchView(
                name=name,
                namespace=namespace,
                visibility=Visibility(visible=False, message=refused),
                message=f"Workbench {name} is not visible to your account: {refused}.",
            )
        return WorkbenchView(name=name, namespace=namespace, message=f"No Notebook named {name} in {namespace}.")
    meta = nb.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    resources = notebook_container(nb).get("resources") or {}
    requests = {k: str(v) for k, v in (resources.get("requests") or {}).items()}
    limits = {k: str(v) for k, v in (resources.get("limits") or {}).items()}
    accelerators: dict[str, int] = {}
    for res, value in {**requests, **limits}.items():
        if registry.is_accelerator(res):
            accelerators[res] = int(parse_quantity(value))
    profile = annotations.get(L.HARDWARE_PROFILE_NAME)
    profile_ns = annotations.get(L.HARDWARE_PROFILE_NAMESPACE)
    shown = next(
        (p.display_name for p in profiles or [] if p.name == profile and (not profile_ns or p.namespace == profile_ns)),
        None,
    )
    stopped = STOPPED_ANNOTATION in annotations
    held = ", ".join(f"{n} {r}" for r, n in sorted(accelerators.items())) or "no accelerator"
    message = f"Workbench {meta.get('name', name)}{' (stopped)' if stopped else ''} has {held}" + (
        f", hardware profile {shown or profile}." if profile else ", no hardware profile."
    )
    return WorkbenchView(
        name=meta.get("name", name),
        namespace=meta.get("namespace", namespace),
        found=True,
        hardware_profile=profile,
        hardware_profile_namespace=profile_ns,
        profile_display_name=shown,
        requests=requests,
        limits=limits,
        accelerators=accelerators,
        queue=queue_label(nb),
        kueue_managed=kueue_managed(namespace_obj),
        stopped=stopped,
        message=message,
    )


def _pointer(*parts: str | int) -> str:
    """A JSON pointer (RFC 6901): '/' and '~' in keys escaped, as annotation names need."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _set_map(ops: list[dict[str, Any]], obj: dict[str, Any], path: tuple[str, ...], values: dict[str, Any]) -> None:
    """Ops that set (value) or remove (None) keys of the map at `path` of `obj`, making the map where it is absent."""
    current = field(obj, *path)
    have = current if isinstance(current, dict) else {}
    changes = {k: v for k, v in values.items() if (k in have if v is None else have.get(k) != v)}
    if not changes:
        return
    if not isinstance(current, dict):
        ops.append({"op": "add", "path": _pointer(*path), "value": {}})
    for key, value in changes.items():
        if value is None:
            ops.append({"op": "remove", "path": _pointer(*path, key)})
        else:
            ops.append({"op": "add", "path": _pointer(*path, key), "value": value})


def queue_label(nb: dict[str, Any]) -> str | None:
    return field(nb, "metadata", "labels", L.QUEUE_NAME)


def workbench_priority_class(nb: dict[str, Any], placement: ProfilePlacement, queue: str | None) -> str | None:
    """The WorkloadPriorityClass the workbench's Workload gets after the change: none outside Kueue; the profile's,
    else the one the Notebook already names (profile_ops leaves that label as it is)."""
    if not queue:
        return None
    return placement.priority_class or field(nb, "metadata", "labels", L.PRIORITY_CLASS)


def workbench_queue(
    nb: dict[str, Any], placement: ProfilePlacement, managed: bool | None, requested: str | None
) -> str | None:
    """The LocalQueue the workbench goes to: where the project is Kueue-managed or the Notebook already queued, the
    one asked for, else the profile's, else the one it has; elsewhere none (Kueue does not manage it)."""
    current = queue_label(nb)
    if managed or current:
        return requested or placement.queue_name or current
    return None


def profile_ops(
    nb: dict[str, Any], profile: HardwareProfileView, placement: ProfilePlacement, queue: str | None
) -> list[dict[str, Any]]:
    """The JSON patch (RFC 6902) the dashboard's change of profile amounts to: the profile's annotations (a stale
    profile namespace removed); the notebook container's resources from the profile (the platform's webhook fills
    only containers without any, so a profile change must write them); for a Node profile its node selector and
    tolerations; and the queue label `queue` (workbench_queue) with the profile's priority class, if it names one.
    A `test` op before the resources: the patch fails rather than change another container if the pod template
    moved meanwhile."""
    target = notebook_container(nb)
    index = next((i for i, c in enumerate(_containers(nb)) if c is target), None)
    ops: list[dict[str, Any]] = []
    _set_map(
        ops,
        nb,
        ("metadata", "annotations"),
        {L.HARDWARE_PROFILE_NAME: profile.name, L.HARDWARE_PROFILE_NAMESPACE: profile.namespace},
    )
    if queue:
        labels = {L.QUEUE_NAME: queue}
        if placement.priority_class:  # as the platform's webhook sets it on a new workbench of this profile
            labels[L.PRIORITY_CLASS] = placement.priority_class
        _set_map(ops, nb, ("metadata", "labels"), labels)
    if index is not None:
        base = (*POD_SPEC, "containers", index)
        ops.append({"op": "test", "path": _pointer(*base, "name"), "value": target.get("name")})
        resources = {"requests": dict(placement.requests), "limits": dict(placement.limits)}
        ops.append({"op": "add", "path": _pointer(*base, "resources"), "value": resources})
    if profile.scheduling_type != "Queue" and (placement.node_selector or placement.tolerations):
        ops.append({"op": "add", "path": _pointer(*POD_SPEC, "nodeSelector"), "value": dict(placement.node_selector)})
        ops.append({"op": "add", "path": _pointer(*POD_SPEC, "tolerations"), "value": list(placement.tolerations)})
    return ops


def workbench_demand(nb: dict[str, Any], placement: ProfilePlacement) -> PodDemand:
    """The workbench's pod as the profile would make it: the profile's resources, placement and the rest of its
    pod spec as it is (the fit check of jobs takes it as one pod)."""
    pod_spec = dict(field(nb, *POD_SPEC) or {})
    target = notebook_container(nb)
    container = {**target, "resources": {"requests": dict(placement.requests), "limits": dict(placement.limits)}}
    others = [c for c in _containers(nb) if c is not target]
    pod_spec["containers"] = [container, *others]
    if placement.node_selector:
        pod_spec["nodeSelector"] = {**(pod_spec.get("nodeSelector") or {}), **placement.node_selector}
    if placement.tolerations:
        pod_spec["tolerations"] = [*(pod_spec.get("tolerations") or []), *placement.tolerations]
    return PodDemand.from_pod_spec("workbench", 1, pod_spec)
