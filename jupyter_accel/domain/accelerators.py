"""Which extended resources are accelerators: an admin-configurable registry in Kubeflow's spawner shape.

Config shape (spawner_ui_config.yaml `gpus.value`): `{"vendors": [{"limitsKey": "nvidia.com/gpu", "uiName":
"NVIDIA"}]}`. A `limitsKey` may end in `*` (e.g. `nvidia.com/mig-*`) to cover a family of names that only the
nodes know. Admin entries come first, so they win over the defaults for the same name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

_MIG = re.compile(r"^nvidia\.com/mig-(?P<profile>\d+g\.\d+gb(?:\.\w+)?)$")

# Resource-name domain -> vendor id; anything else uses its domain as the vendor.
_VENDOR_BY_DOMAIN = {
    "nvidia.com": "nvidia",
    "amd.com": "amd",
    "habana.ai": "habana",
    "gpu.intel.com": "intel",
    "intel.com": "intel",
}


@dataclass(frozen=True)
class VendorRule:
    limits_key: str  # exact resource name, or a pattern ending in '*'
    ui_name: str

    @property
    def is_pattern(self) -> bool:
        return "*" in self.limits_key

    def matches(self, resource: str) -> bool:
        return fnmatchcase(resource, self.limits_key) if self.is_pattern else resource == self.limits_key


DEFAULT_VENDORS: tuple[VendorRule, ...] = (
    VendorRule("nvidia.com/gpu", "NVIDIA GPU"),
    VendorRule("nvidia.com/gpu.shared", "NVIDIA GPU (shared)"),
    VendorRule("nvidia.com/mig-*", "NVIDIA MIG"),
    VendorRule("amd.com/gpu", "AMD GPU"),
    VendorRule("habana.ai/gaudi", "Intel Gaudi"),
    VendorRule("gpu.intel.com/*", "Intel GPU"),
)


@dataclass(frozen=True)
class AcceleratorInfo:
    resource: str
    vendor: str  # nvidia | amd | habana | intel | the resource's domain
    ui_name: str
    mig_profile: str | None = None  # e.g. "1g.5gb" for nvidia.com/mig-1g.5gb


VENDORS: tuple[str, ...] = tuple(sorted(set(_VENDOR_BY_DOMAIN.values())))  # the vendors images can differ by


def vendor_of(resource: str) -> str:
    domain = resource.split("/", 1)[0] if "/" in resource else ""
    return _VENDOR_BY_DOMAIN.get(domain, domain or resource)


def mig_profile_of(resource: str) -> str | None:
    m = _MIG.match(resource)
    return m.group("profile") if m else None


class AcceleratorRegistry:
    """Classifies resource names; first matching rule wins."""

    def __init__(self, rules: Iterable[VendorRule] = DEFAULT_VENDORS):
        self.rules: tuple[VendorRule, ...] = tuple(rules)

    @classmethod
    def from_config(
        cls, config: dict[str, Any] | list[Any] | None, *, include_defaults: bool = True
    ) -> AcceleratorRegistry:
        """Build from `{"vendors": [...]}` (or the bare list); raises ValueError naming the bad entry."""
        entries = config.get("vendors", []) if isinstance(config, dict) else (config or [])
        if not isinstance(entries, list):
            raise ValueError("accelerators.vendors must be a list of {limitsKey, uiName}")
        rules: list[VendorRule] = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("limitsKey"), str) or not entry["limitsKey"]:
                raise ValueError(
                    f"accelerators.vendors[{i}].limitsKey must be a non-empty resource name, "
                    "e.g. nvidia.com/gpu or nvidia.com/mig-*"
                )
            key = entry["limitsKey"].strip()
            if "*" in key[:-1]:
                raise ValueError(f"accelerators.vendors[{i}].limitsKey: '*' is allowed only at the end, got {key!r}")
            rules.append(VendorRule(key, str(entry.get("uiName") or key)))
        if include_defaults:
            rules.extend(DEFAULT_VENDORS)
        return cls(rules)

    def classify(self, resource: str) -> AcceleratorInfo | None:
        """The accelerator behind a resource name, or None when it is not one (cpu, memory, pods, ...)."""
        for rule in self.rules:
            if rule.matches(resource):
                profile = mig_profile_of(resource)
                ui = f"{rule.ui_name} {profile}" if profile and rule.is_pattern else rule.ui_name
                return AcceleratorInfo(resource, vendor_of(resource), ui, profile)
        return None

    def is_accelerator(self, resource: str) -> bool:
        return self.classify(resource) is not None

    def known_names(self, discovered: Iterable[str] = ()) -> list[str]:
        """Requestable accelerator names: every exact configured key plus the discovered names (e.g. node
        allocatable keys) that match a rule. Sorted, without duplicates."""
        names = {r.limits_key for r in self.rules if not r.is_pattern}
        names.update(n for n in discovered if self.is_accelerator(n))
        return sorted(names)

    def check_name(self, resource: str, discovered: Iterable[str] = (), *, field: str = "accelerator") -> str:
        """Return `resource` when it is a known accelerator; else raise ValueError naming the field and the
        allowed names. Pattern families (MIG) are accepted even when no node shows the exact name."""
        if self.is_accelerator(resource):
            return resource
        allowed = self.known_names(discovered)
        patterns = [r.limits_key for r in self.rules if r.is_pattern]
        raise ValueError(f"{field}: {resource!r} is not a known accelerator; allowed: {', '.join(allowed + patterns)}")
