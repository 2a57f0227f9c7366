"""Kubernetes resource quantities and per-pod demands, shared by inventory, quota math and the fit check."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from ..models.quantities import format_quantity  # how a quantity reads: one rule, shared with the wire's texts

_SUFFIX = {
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
}


def parse_quantity(value: Any) -> Decimal:
    """Parse a Kubernetes quantity ('500m', '2Gi', '8', 1.5e3) into a Decimal; raises ValueError when malformed."""
    if isinstance(value, int | float | Decimal):
        return Decimal(str(value))
    text = str(value).strip()
    for suffix in sorted(_SUFFIX, key=len, reverse=True):
        if text.endswith(suffix) and text[: -len(suffix)]:
            number, mult = text[: -len(suffix)], Decimal(_SUFFIX[suffix])
            break
    else:
        number, mult = text, Decimal(1)
    try:
        return Decimal(number) * mult
    except InvalidOperation:
        raise ValueError(f"not a Kubernetes quantity: {value!r}") from None


def sum_requests(containers: list[dict[str, Any]]) -> dict[str, Decimal]:
    """Sum of the requests of the given containers (limits stand in for missing requests, as the API server defaults)."""
    total: dict[str, Decimal] = {}
    for c in containers or []:
        res = c.get("resources") or {}
        req = {**(res.get("limits") or {}), **(res.get("requests") or {})}
        for name, qty in req.items():
            total[name] = total.get(name, Decimal(0)) + parse_quantity(qty)
    return total


def pod_requests(pod_spec: dict[str, Any]) -> dict[str, Decimal]:
    """Effective requests of a pod: max(sum of containers, each init container) per resource, plus overhead."""
    total = sum_requests(pod_spec.get("containers") or [])
    # Sidecars (restartPolicy Always init containers) run beside everything started after them, so they add to
    # the main containers and to each later init container (k8s.io/component-helpers PodRequests).
    sidecars: dict[str, Decimal] = {}
    init_peak: dict[str, Decimal] = {}
    for init in pod_spec.get("initContainers") or []:
        req = sum_requests([init])
        if init.get("restartPolicy") == "Always":
            sidecars = _add(sidecars, req)
            total = _add(total, req)
            step = sidecars
        else:
            step = _add(req, sidecars)
        for name, qty in step.items():
            init_peak[name] = max(init_peak.get(name, Decimal(0)), qty)
    for name, qty in init_peak.items():
        total[name] = max(total.get(name, Decimal(0)), qty)
    # Pod-level resources (PodLevelResources) replace the container sums, for cpu and memory only.
    for name, qty in ((pod_spec.get("resources") or {}).get("requests") or {}).items():
        if name in ("cpu", "memory"):
            total[name] = parse_quantity(qty)
    for name, qty in (pod_spec.get("overhead") or {}).items():
        total[name] = total.get(name, Decimal(0)) + parse_quantity(qty)
    return total


@dataclass
class PodDemand:
    """`count` identical pods, each asking for `requests`, constrained like the pod template says."""

    role: str
    count: int
    requests: dict[str, Decimal]
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    affinity: dict[str, Any] = field(default_factory=dict)  # pod spec.affinity; only nodeAffinity is evaluated

    @classmethod
    def from_pod_spec(cls, role: str, count: int, pod_spec: dict[str, Any]) -> PodDemand:
        return cls(
            role,
            count,
            pod_requests(pod_spec),
            dict(pod_spec.get("nodeSelector") or {}),
            list(pod_spec.get("tolerations") or []),
            dict(pod_spec.get("affinity") or {}),
        )

    def total(self) -> dict[str, Decimal]:
        """What all `count` pods ask for together."""
        return {name: qty * self.count for name, qty in self.requests.items()}


def _add(a: dict[str, Decimal], b: dict[str, Decimal]) -> dict[str, Decimal]:
    out = dict(a)
    for name, qty in b.items():
        out[name] = out.get(name, Decimal(0)) + qty
    return out


def to_number(value: Decimal) -> float | int:
    """A Decimal for the wire: an int when whole (device counts), else a float."""
    return int(value) if value == value.to_integral_value() else float(value)


__all__ = ["PodDemand", "format_quantity", "parse_quantity", "pod_requests", "sum_requests", "to_number"]
