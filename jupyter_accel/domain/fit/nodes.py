"""The node gate of the fit check: labels, taints and affinity per role, then best-fit packing of all pods on the
nodes as they are now (free devices) and as they would be empty (could it ever fit)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

from ..accelerators import AcceleratorRegistry
from ..inventory import allocated_by_node, node_quantities
from ..resources import PodDemand
from ..scheduling import is_node_ready, is_node_unschedulable, matches_node_selector, placement_problems
from .quota import RoleQuota
from .result import NoNodeHasAll, NotAccepted, PodTooBig, RoleResult, TooFewNodes

ZERO = Decimal(0)


def primary(requests: dict[str, Decimal], registry: AcceleratorRegistry) -> str | None:
    """The accelerator a demand asks for (the first by name when several), else None."""
    accel = [r for r, v in requests.items() if v > 0 and registry.is_accelerator(r)]
    return sorted(accel)[0] if accel else None


def role_result(d: PodDemand, rq: RoleQuota | None, registry: AcceleratorRegistry) -> RoleResult:
    """A role before the nodes are looked at (and as it stays when they are not visible)."""
    wanted = {r: v for r, v in d.requests.items() if v > 0}
    return RoleResult(
        role=d.role,
        count=d.count,
        requests=wanted,
        primary=primary(wanted, registry),
        flavors=dict(rq.flavors) if rq else {},
        quota_problems=list(rq.never) if rq else [],
    )


def _fits(requests: dict[str, Decimal], room: dict[str, Decimal]) -> bool:
    return all(v <= room.get(r, ZERO) for r, v in requests.items() if v > 0)


def _pack(
    demands: list[PodDemand],
    eligible: dict[str, list[str]],
    room: dict[str, dict[str, Decimal]],
    registry: AcceleratorRegistry,
) -> dict[str, int]:
    """Greedy best-fit-decreasing placement of all pods; returns pods placed per role."""
    room = {n: dict(r) for n, r in room.items()}
    placed: dict[str, int] = {}

    def weight(d: PodDemand) -> tuple[Decimal, Decimal]:
        acc = sum((v for r, v in d.requests.items() if registry.is_accelerator(r)), ZERO)
        return acc, d.requests.get("cpu", ZERO)

    for d in sorted(demands, key=weight, reverse=True):
        first = primary(d.requests, registry) or "cpu"
        placed[d.role] = 0
        for _ in range(d.count):
            fitting = [n for n in eligible.get(d.role, []) if _fits(d.requests, room[n])]
            if not fitting:
                break
            node = min(fitting, key=lambda n: (room[n].get(first, ZERO) - d.requests.get(first, ZERO), n))
            for r, v in d.requests.items():
                room[node][r] = room[node].get(r, ZERO) - v
            placed[d.role] += 1
    return placed


def check_nodes(
    demands: list[PodDemand],
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]] | None,
    roles_q: dict[str, RoleQuota],
    registry: AcceleratorRegistry,
    allocated: dict[str, dict[str, Decimal]] | None = None,
) -> dict[str, RoleResult]:
    """Per role: the nodes that accept its pods, how many fit now (when pods are visible) and ever, and why not.
    `allocated`: what the pods hold per node when it comes summed already (the read service), instead of `pods`."""
    by_name = {(n.get("metadata") or {}).get("name", ""): n for n in nodes}
    allocatable = {name: node_quantities(n, "allocatable") for name, n in by_name.items()}
    used = allocated if allocated is not None else allocated_by_node(pods) if pods is not None else None
    free = (
        None
        if used is None
        else {
            name: {r: v - used.get(name, {}).get(r, ZERO) for r, v in alloc.items()}
            for name, alloc in allocatable.items()
        }
    )
    eligible: dict[str, list[str]] = {}
    usable: dict[str, list[str]] = {}
    results: dict[str, RoleResult] = {}
    for d in demands:
        rq = roles_q.get(d.role) or RoleQuota()
        role = results[d.role] = role_result(d, roles_q.get(d.role), registry)
        selector = {**rq.node_labels, **d.node_selector}
        wanted = role.requests
        # Only nodes big enough for one pod explain a placement failure; CPU nodes do not matter for a GPU pod.
        big_enough = [n for n in by_name if _fits(wanted, allocatable[n])]
        why: Counter[str] = Counter()
        elig = []
        for name, node in by_name.items():
            problems = placement_problems(
                node,
                node_selector=selector,
                tolerations=d.tolerations + rq.tolerations,
                affinity=d.affinity,
                check_state=False,
            )
            if not problems:
                elig.append(name)
            elif name in big_enough:
                why.update(problems)
        eligible[d.role] = elig
        usable[d.role] = [n for n in elig if is_node_ready(by_name[n]) and not is_node_unschedulable(by_name[n])]
        role.eligible_nodes, role.usable_nodes = len(elig), len(usable[d.role])
        role.largest_allocatable = {r: max((allocatable[n].get(r, ZERO) for n in elig), default=ZERO) for r in wanted}
        if free is not None:
            role.largest_free = {r: max((free[n].get(r, ZERO) for n in usable[d.role]), default=ZERO) for r in wanted}
        if not big_enough:
            for r, v in wanted.items():
                top = max((allocatable[n].get(r, ZERO) for n in by_name), default=ZERO)
                if v > top:
                    role.node_problems.append(PodTooBig(d.role, r, v, top))
            if not role.node_problems:
                role.node_problems.append(NoNodeHasAll(d.role))
        elif not any(n in big_enough for n in elig):
            matching = sum(
                matches_node_selector((by_name[n].get("metadata") or {}).get("labels"), selector) for n in by_name
            )
            role.node_problems.append(
                NotAccepted(d.role, tuple(why.most_common(3)), tuple(sorted(selector.items())), matching)
            )
    ever = _pack(demands, eligible, allocatable, registry)
    now = _pack(demands, usable, free, registry) if free is not None else None
    for d in demands:
        role = results[d.role]
        role.ever_fits = ever.get(d.role, 0) >= d.count
        if role.ever_fits is False and not role.node_problems:
            role.node_problems.append(TooFewNodes(d.role, ever.get(d.role, 0), d.count))
        if now is not None:
            role.placeable_now = now.get(d.role, 0)
            role.fits_now = role.placeable_now >= d.count
    return results
