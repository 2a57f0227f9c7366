"""OpenShift AI / ODH hardware profiles (infrastructure.opendatahub.io/v1 HardwareProfile, legacy
dashboard.opendatahub.io/v1 AcceleratorProfile) as views, and their translation into pod settings.

ODH's webhook applies profiles only to Notebooks and InferenceServices, so Ray and training job builders call
`apply_profile` themselves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..models.inventory import HardwareProfileView, ProfileIdentifier, Toleration
from . import labels as L
from .accelerators import AcceleratorRegistry
from .resources import format_quantity, parse_quantity


def _toleration(t: dict[str, Any]) -> Toleration:
    return Toleration(
        key=t.get("key"),
        operator=t.get("operator"),
        value=t.get("value"),
        effect=t.get("effect"),
        toleration_seconds=t.get("tolerationSeconds"),
    )


def toleration_dict(t: Toleration) -> dict[str, Any]:
    """Back to the Kubernetes JSON form, without empty fields."""
    raw = {
        "key": t.key,
        "operator": t.operator,
        "value": t.value,
        "effect": t.effect,
        "tolerationSeconds": t.toleration_seconds,
    }
    return {k: v for k, v in raw.items() if v is not None}


def _visible_in(annotations: dict[str, str]) -> list[str]:
    raw = annotations.get("opendatahub.io/dashboard-feature-visibility")
    if not raw:
        return []
    try:
        value = json.loads(raw)
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def hardware_profile_view(obj: dict[str, Any], registry: AcceleratorRegistry | None = None) -> HardwareProfileView:
    """infrastructure.opendatahub.io/v1 HardwareProfile -> view."""
    registry = registry or AcceleratorRegistry()
    meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
    ann = meta.get("annotations") or {}
    idents = []
    for ident in spec.get("identifiers") or []:
        name = str(ident.get("identifier", ""))
        rtype = ident.get("resourceType")
        idents.append(
            ProfileIdentifier(
                identifier=name,
                display_name=str(ident.get("displayName") or name),
                resource_type=rtype,
                accelerator=rtype == "Accelerator" or (rtype is None and registry.is_accelerator(name)),
                min_count=str(ident.get("minCount", ident.get("defaultCount", "0"))),
                max_count=None if ident.get("maxCount") is None else str(ident["maxCount"]),
                default_count=str(ident.get("defaultCount", ident.get("minCount", "0"))),
            )
        )
    sched = spec.get("scheduling") or {}
    kueue, node = sched.get("kueue") or {}, sched.get("node") or {}
    return HardwareProfileView(
        name=meta.get("name", ""),
        namespace=meta.get("namespace"),
        kind="HardwareProfile",
        display_name=ann.get("opendatahub.io/display-name") or meta.get("name", ""),
        description=ann.get("opendatahub.io/description") or None,
        enabled=ann.get("opendatahub.io/disabled", "false").lower() != "true",
        visible_in=_visible_in(ann),
        identifiers=idents,
        accelerator=next((i.identifier for i in idents if i.accelerator), None),
        scheduling_type=sched.get("type"),
        local_queue_name=kueue.get("localQueueName") or None,
        priority_class=kueue.get("priorityClass") or None,
        node_selector={str(k): str(v) for k, v in (node.get("nodeSelector") or {}).items()},
        tolerations=[_toleration(t) for t in node.get("tolerations") or []],
    )


def accelerator_profile_view(obj: dict[str, Any]) -> HardwareProfileView:
    """Legacy dashboard.opendatahub.io/v1 AcceleratorProfile -> view (one accelerator, count 1 by default)."""
    meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
    ident = str(spec.get("identifier", ""))
    display = str(spec.get("displayName") or meta.get("name", ""))
    tolerations = [_toleration(t) for t in spec.get("tolerations") or []]
    return HardwareProfileView(
        name=meta.get("name", ""),
        namespace=meta.get("namespace"),
        kind="AcceleratorProfile",
        display_name=display,
        description=spec.get("description") or None,
        enabled=bool(spec.get("enabled", True)),
        identifiers=[
            ProfileIdentifier(
                identifier=ident,
                display_name=display,
                resource_type="Accelerator",
                accelerator=True,
                min_count="0",
                default_count="1",
            )
        ]
        if ident
        else [],
        accelerator=ident or None,
        scheduling_type="Node" if tolerations else None,
        tolerations=tolerations,
    )


def list_profiles(
    hardware_profiles: list[dict[str, Any]] | None,
    accelerator_profiles: list[dict[str, Any]] | None = None,
    *,
    registry: AcceleratorRegistry | None = None,
    include_disabled: bool = False,
    feature: str | None = None,
) -> list[HardwareProfileView]:
    """HardwareProfiles (preferred) then legacy AcceleratorProfiles, sorted by display name. `feature` (e.g.
    "workbench") keeps only profiles visible there (profiles without the annotation are visible everywhere)."""
    views = [hardware_profile_view(p, registry) for p in hardware_profiles or []]
    views += [accelerator_profile_view(p) for p in accelerator_profiles or []]
    if not include_disabled:
        views = [v for v in views if v.enabled]
    if feature:
        views = [v for v in views if not v.visible_in or feature in v.visible_in]
    return sorted(views, key=lambda v: (v.display_name.lower(), v.namespace or "", v.name))


@dataclass
class ProfilePlacement:
    """What a profile means for one pod template; the job builders merge it into their specs."""

    requests: dict[str, str] = field(default_factory=dict)
    limits: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # queue / priority labels for the job object
    annotations: dict[str, str] = field(default_factory=dict)
    queue_name: str | None = None
    priority_class: str | None = None


def _check_range(ident: ProfileIdentifier, value: Decimal, field_name: str) -> None:
    low = parse_quantity(ident.min_count)
    high = None if ident.max_count is None else parse_quantity(ident.max_count)
    if value < low or (high is not None and value > high):
        allowed = f"{ident.min_count}..{ident.max_count}" if high is not None else f">= {ident.min_count}"
        raise ValueError(
            f"{field_name}: {format_quantity(ident.identifier, value)} {ident.identifier} is outside "
            f"what hardware profile allows ({allowed})"
        )


def apply_profile(
    profile: HardwareProfileView,
    *,
    accelerator_count: int | None = None,
    overrides: dict[str, str] | None = None,
    field_name: str = "hardware_profile",
) -> ProfilePlacement:
    """Translate a profile into pod resources, placement and queue labels.

    Each identifier gets its defaultCount unless `overrides[identifier]` (or `accelerator_count` for the
    accelerator identifiers) says otherwise; values outside min/max raise ValueError naming `field_name`.
    Accelerators get request == limit (extended resources cannot be overcommitted, and KubeRay reads limits).
    """
    if not profile.enabled:
        raise ValueError(f"{field_name}: hardware profile {profile.name!r} is disabled")
    overrides = dict(overrides or {})
    known = {i.identifier for i in profile.identifiers}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(
            f"{field_name}: {', '.join(unknown)} not in profile {profile.name!r}; allowed: "
            f"{', '.join(sorted(known)) or 'none'}"
        )
    out = ProfilePlacement()
    for ident in profile.identifiers:
        raw = overrides.get(ident.identifier)
        if raw is None and ident.accelerator and accelerator_count is not None:
            raw = str(accelerator_count)
        raw = ident.default_count if raw is None else str(raw)
        try:
            value = parse_quantity(raw)
        except ValueError:
            raise ValueError(f"{field_name}.{ident.identifier}: {raw!r} is not a quantity") from None
        _check_range(ident, value, f"{field_name}.{ident.identifier}")
        if value == 0:
            continue
        out.requests[ident.identifier] = raw
        if ident.accelerator:
            out.limits[ident.identifier] = raw
    if profile.scheduling_type == "Queue" and profile.local_queue_name:
        out.queue_name = profile.local_queue_name
        out.labels[L.QUEUE_NAME] = profile.local_queue_name
        if profile.priority_class:
            out.priority_class = profile.priority_class
            out.labels[L.PRIORITY_CLASS] = profile.priority_class
    else:  # Node scheduling, or a legacy AcceleratorProfile's tolerations
        out.node_selector = dict(profile.node_selector)
        out.tolerations = [toleration_dict(t) for t in profile.tolerations]
    if profile.kind == "HardwareProfile":
        out.annotations[L.HARDWARE_PROFILE_NAME] = profile.name
        if profile.namespace:
            out.annotations[L.HARDWARE_PROFILE_NAMESPACE] = profile.namespace
    return out
