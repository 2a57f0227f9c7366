"""The fit check: before submitting, would this job be admitted now, wait in the queue, or never run?

Two independent gates, as in the cluster: Kueue quota (the ClusterQueue behind the LocalQueue, flavor by flavor in
preference order, with cohort borrowing) and node capacity (free devices, labels, taints). Whatever this identity
cannot read is skipped and said so; the verdict then rests on what is visible.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..models.base import Visibility
from ..models.fit import FitResponse, FitVerdict, PendingAhead, QuotaHeadroom, RoleFit
from .accelerators import AcceleratorRegistry
from .inventory import NOT_VISIBLE, allocated_by_node, node_quantities
from .objects import has_true
from .presentation import verdict_look
from .queues import cohort_of, flavor_order, headroom
from .resources import PodDemand, format_quantity, parse_quantity, to_number
from .scheduling import (
    flavor_matches,
    is_node_ready,
    is_node_unschedulable,
    matches_node_selector,
    placement_problems,
)
from .workloads import total_requests

ZERO = Decimal(0)


@dataclass
class _RoleQuota:
    flavors: dict[str, str] = field(default_factory=dict)  # resource -> flavor
    node_labels: dict[str, str] = field(default_factory=dict)  # injected by Kueue from the flavors
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    now: bool = True
    never: list[str] = field(default_factory=list)  # why quota can never admit it


def _q(resource: str, value: Decimal) -> str:
    return f"{format_quantity(resource, value)} {resource}"


def _primary(requests: dict[str, Decimal], registry: AcceleratorRegistry) -> str | None:
    accel = [r for r, v in requests.items() if v > 0 and registry.is_accelerator(r)]
    return sorted(accel)[0] if accel else None


def _check_quota(
    demands: list[PodDemand],
    cq: dict[str, Any],
    cluster_queues: list[dict[str, Any]] | None,
    cohorts: list[dict[str, Any]] | None,
    flavors: dict[str, dict[str, Any]] | None,
) -> tuple[list[QuotaHeadroom], dict[str, _RoleQuota]]:
    """Assign flavors podset by podset like Kueue's flavor assigner: per resource group, the first flavor that
    matches and fits now, else the first that could ever fit."""
    cq_name = (cq.get("metadata") or {}).get("name", "")
    groups = flavor_order(cq)
    taken: dict[tuple[str, str], Decimal] = {}  # what earlier roles of this job hold per (flavor, resource)
    rows: list[QuotaHeadroom] = []
    roles: dict[str, _RoleQuota] = {}
    for d in demands:
        rq = roles[d.role] = _RoleQuota()
        total = {r: v for r, v in d.total().items() if v > 0}
        covered = {r for cov, _ in groups for r in cov}
        for r in sorted(set(total) - covered):
            rq.now = False
            rq.never.append(f"ClusterQueue {cq_name} has no quota for {r}")
        for cov, names in groups:
            need = {r: total[r] for r in cov if r in total}
            if not need:
                continue
            best: tuple[int, str, list[QuotaHeadroom]] | None = None  # (rank: 0 now, 1 ever, 2 never)
            passed_over: list[str] = []
            for fname in names:
                rf = (flavors or {}).get(fname)
                mismatch = (
                    flavor_matches(rf, node_selector=d.node_selector, affinity=d.affinity, tolerations=d.tolerations)
                    if rf is not None
                    else []
                )
                if mismatch:
                    passed_over.append(f"{fname}: {mismatch[0]}")
                    continue
                cand = []
                for r, amount in need.items():
                    h = headroom(cq, fname, r, cluster_queues, cohorts)
                    if h is None:
                        continue
                    in_flavor = amount + taken.get((fname, r), ZERO)
                    cand.append(
                        QuotaHeadroom(
                            role=d.role,
                            flavor=fname,
                            resource=r,
                            needed=float(amount),
                            needed_in_flavor=float(in_flavor),
                            nominal=float(h.nominal),
                            reserved=float(h.reserved),
                            free=float(h.free),
                            borrowable=float(h.borrowable),
                            available=float(h.available),
                            max_capacity=float(h.max_capacity),
                            fits_now=in_flavor <= h.available,
                            ever_fits=in_flavor <= h.max_capacity,
                        )
                    )
                rank = 0 if all(c.fits_now for c in cand) else 1 if all(c.ever_fits for c in cand) else 2
                if best is None or rank < best[0]:
                    best = (rank, fname, cand)
                if rank == 0:
                    break
            if best is None:
                rq.now = False
                rq.never.append(
                    f"no flavor of ClusterQueue {cq_name} for {', '.join(sorted(need))} matches "
                    f"the {d.role} pod's node selector and tolerations ({'; '.join(passed_over)})"
                )
                continue
            rank, fname, cand = best
            rows.extend(cand)
            for c in cand:
                rq.flavors[c.resource] = fname
                taken[(fname, c.resource)] = taken.get((fname, c.resource), ZERO) + parse_quantity(c.needed)
            rq.now &= rank == 0
            rq.never += [
                f"ClusterQueue {cq_name} can hold at most {_q(c.resource, parse_quantity(c.max_capacity))}"
                f" in flavor {fname}, the job needs {format_quantity(c.resource, c.needed_in_flavor)}"
                for c in cand
                if not c.ever_fits
            ]
            spec = ((flavors or {}).get(fname) or {}).get("spec") or {}
            rq.node_labels.update(spec.get("nodeLabels") or {})
            rq.tolerations.extend(spec.get("tolerations") or [])
    return rows, roles


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
        primary = _primary(d.requests, registry) or "cpu"
        placed[d.role] = 0
        for _ in range(d.count):
            fitting = [n for n in eligible.get(d.role, []) if _fits(d.requests, room[n])]
            if not fitting:
                break
            node = min(fitting, key=lambda n: (room[n].get(primary, ZERO) - d.requests.get(primary, ZERO), n))
            for r, v in d.requests.items():
                room[node][r] = room[node].get(r, ZERO) - v
            placed[d.role] += 1
    return placed


def _check_nodes(
    demands: list[PodDemand],
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]] | None,
    roles_q: dict[str, _RoleQuota],
    registry: AcceleratorRegistry,
) -> dict[str, RoleFit]:
    by_name = {(n.get("metadata") or {}).get("name", ""): n for n in nodes}
    allocatable = {name: node_quantities(n, "allocatable") for name, n in by_name.items()}
    used = allocated_by_node(pods) if pods is not None else None
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
    fits: dict[str, RoleFit] = {}
    for d in demands:
        rq = roles_q.get(d.role) or _RoleQuota()
        selector = {**rq.node_labels, **d.node_selector}
        tolerations = d.tolerations + rq.tolerations
        wanted = {r: v for r, v in d.requests.items() if v > 0}
        # Only nodes big enough for one pod explain a placement failure; CPU nodes do not matter for a GPU pod.
        big_enough = [n for n in by_name if _fits(wanted, allocatable[n])]
        why: Counter[str] = Counter()
        elig = []
        for name, node in by_name.items():
            problems = placement_problems(
                node, node_selector=selector, tolerations=tolerations, affinity=d.affinity, check_state=False
            )
            if not problems:
                elig.append(name)
            elif name in big_enough:
                why.update(problems)
        eligible[d.role] = elig
        usable[d.role] = [n for n in elig if is_node_ready(by_name[n]) and not is_node_unschedulable(by_name[n])]
        largest = {r: max((allocatable[n].get(r, ZERO) for n in elig), default=ZERO) for r in wanted}
        role = RoleFit(
            role=d.role,
            count=d.count,
            requests={r: to_number(v) for r, v in wanted.items()},
            flavors=dict(rq.flavors),
            eligible_nodes=len(elig),
            usable_nodes=len(usable[d.role]),
            largest_allocatable={r: to_number(v) for r, v in largest.items()},
        )
        if free is not None:
            role.largest_free = {
                r: to_number(max((free[n].get(r, ZERO) for n in usable[d.role]), default=ZERO)) for r in wanted
            }
        if not big_enough:
            for r, v in wanted.items():
                top = max((allocatable[n].get(r, ZERO) for n in by_name), default=ZERO)
                if v > top:
                    role.problems.append(
                        f"a {d.role} pod needs {_q(r, v)}, the largest node has {format_quantity(r, top)}"
                    )
            if not role.problems:
                role.problems.append(f"no node has everything one {d.role} pod needs at once")
        elif not any(n in big_enough for n in elig):
            top = ", ".join(f"{p} on {c} node{'s' if c > 1 else ''}" for p, c in why.most_common(3))
            if selector:  # say how many nodes the selector matches at all, whatever their size
                matching = sum(
                    matches_node_selector((by_name[n].get("metadata") or {}).get("labels"), selector) for n in by_name
                )
                shown = ",".join(f"{k}={v}" for k, v in sorted(selector.items()))
                top += f"; its node selector {shown} matches {matching} node{'' if matching == 1 else 's'}"
            role.problems.append(f"no node big enough for a {d.role} pod accepts it ({top})")
        fits[d.role] = role
    ever = _pack(demands, eligible, allocatable, registry)
    now = _pack(demands, usable, free, registry) if free is not None else None
    for d in demands:
        role = fits[d.role]
        role.ever_fits = ever.get(d.role, 0) >= d.count
        if role.ever_fits is False and not role.problems:
            role.problems.append(
                f"the nodes that match can hold only {ever.get(d.role, 0)} of {d.count} {d.role} pods even when empty"
            )
        if now is not None:
            role.placeable_now = now.get(d.role, 0)
            role.fits_now = role.placeable_now >= d.count
    return fits


def _ahead(
    pending: list[dict[str, Any]],
    priority: int,
    competing: set[str] | None = None,
    workloads: list[dict[str, Any]] | None = None,
) -> list[PendingAhead]:
    """Pending entries that Kueue would consider before a new workload of `priority`: still without quota,
    active, unfinished, and of equal or higher priority. Accepts Workloads and visibility API items; a visibility
    item whose Workload is in `workloads` takes its requests from it. With `competing` (the accelerator resources
    the new workload asks for), an entry whose requests are known and ask for none of them is not ahead: it waits
    for other quota."""
    by_key = {
        ((w.get("metadata") or {}).get("namespace"), (w.get("metadata") or {}).get("name")): w for w in workloads or []
    }
    out = []
    for item in pending:
        meta = item.get("metadata") or {}
        owners = meta.get("ownerReferences") or []
        owner = owners[0] if owners else {}
        if "spec" in item:  # a Workload
            spec = item["spec"]
            if has_true(item, "QuotaReserved") or has_true(item, "Finished") or spec.get("active") is False:
                continue
            prio, reqs, pos = spec.get("priority"), total_requests(item), None
        else:  # a PendingWorkload from the visibility API; its Workload, when cached, says what it asks for
            known = by_key.get((meta.get("namespace"), meta.get("name")))
            reqs = total_requests(known) if known else {}
            prio, pos = item.get("priority"), item.get("positionInLocalQueue")
        if (prio or 0) < priority:
            continue
        if competing and reqs and not competing & {r for r, v in reqs.items() if v > 0}:
            continue
        out.append(
            PendingAhead(
                name=meta.get("name", ""),
                owner_kind=owner.get("kind"),
                owner_name=owner.get("name"),
                priority=prio,
                position_in_local_queue=pos,
                requests={r: to_number(v) for r, v in reqs.items()},
            )
        )
    return out


def _stopped(local_queue: dict[str, Any] | None, cluster_queue: dict[str, Any] | None) -> list[str]:
    """Why the queue admits nothing at the moment (stopPolicy, inactive), whatever the quota says."""
    out = []
    for kind, obj in (("LocalQueue", local_queue), ("ClusterQueue", cluster_queue)):
        if not obj:
            continue
        name = (obj.get("metadata") or {}).get("name")
        policy = (obj.get("spec") or {}).get("stopPolicy")
        active = next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == "Active"), None)
        if policy in ("Hold", "HoldAndDrain"):
            out.append(f"{kind} {name} is stopped ({policy})")
        elif active is not None and active.get("status") == "False":
            out.append(f"{kind} {name} is inactive ({active.get('message') or active.get('reason')})")
    return out


def check_fit(
    demands: list[PodDemand],
    *,
    nodes: list[dict[str, Any]] | None,
    pods: list[dict[str, Any]] | None,
    local_queue: dict[str, Any] | None = None,
    cluster_queue: dict[str, Any] | None = None,
    cluster_queues: list[dict[str, Any]] | None = None,
    cohorts: list[dict[str, Any]] | None = None,
    resource_flavors: list[dict[str, Any]] | None = None,
    pending: list[dict[str, Any]] | None = None,
    priority: int = 0,
    registry: AcceleratorRegistry | None = None,
    workloads: list[dict[str, Any]] | None = None,
) -> FitResponse:
    """Verdict for a job made of `demands` (one PodDemand per role).

    nodes / pods: cluster-wide lists, or None when not readable. local_queue: the chosen LocalQueue (None = no
    Kueue queue: only nodes are checked). cluster_queue: the CQ behind it, None when not readable.
    cluster_queues / cohorts: for cohort borrowing (siblings; all readable CQs is fine). resource_flavors: None
    when not readable (flavors then count as matching). pending: Workloads of the same LocalQueue (or visibility
    API items) to list those ahead of a new workload with `priority`; workloads: the cached Workloads those items
    may name (their requests tell whether they compete for the same accelerators).
    """
    registry = registry or AcceleratorRegistry()
    demands = [d for d in demands if d.count > 0]
    lq_name = ((local_queue or {}).get("metadata") or {}).get("name")
    cq_name = ((local_queue or {}).get("spec") or {}).get("clusterQueue")
    notes: list[str] = []
    total: dict[str, Decimal] = {}
    for d in demands:
        for r, v in d.total().items():
            total[r] = total.get(r, ZERO) + v
    primary = _primary(total, registry)

    quota_rows: list[QuotaHeadroom] = []
    roles_q: dict[str, _RoleQuota] = {}
    quota_vis = Visibility()
    borrowing = False
    if local_queue is None:
        quota_vis = Visibility(visible=False, message="no queue chosen: quota not checked")
    elif cluster_queue is None:
        quota_vis = Visibility(visible=False, message=f"ClusterQueue {cq_name} is {NOT_VISIBLE}")
        notes.append("Quota is not visible to your account; the verdict rests on the nodes only.")
    else:
        rf_map = (
            None
            if resource_flavors is None
            else {(f.get("metadata") or {}).get("name", ""): f for f in resource_flavors}
        )
        if rf_map is None:
            notes.append(
                "ResourceFlavors are not visible to your account: flavor node labels and taints were not checked."
            )
        quota_rows, roles_q = _check_quota(demands, cluster_queue, cluster_queues, cohorts, rf_map)
        borrowing = cohort_of(cluster_queue) is not None
        if borrowing:
            notes.append("Borrowing from the cohort is an estimate.")

    roles: dict[str, RoleFit]
    nodes_vis = Visibility()
    if nodes is None:
        nodes_vis = Visibility(visible=False, message=f"nodes are {NOT_VISIBLE}")
        notes.append("Nodes are not visible to your account; free devices were not checked.")
        roles = {
            d.role: RoleFit(
                role=d.role,
                count=d.count,
                flavors=dict(roles_q.get(d.role, _RoleQuota()).flavors),
                requests={r: to_number(v) for r, v in d.requests.items() if v > 0},
            )
            for d in demands
        }
    else:
        roles = _check_nodes(demands, nodes, pods, roles_q, registry)
        if pods is None:
            nodes_vis = Visibility(visible=False, message=f"pods are {NOT_VISIBLE}: free devices unknown")
            notes.append("Pods are not visible to your account; only node capacity was checked, not free devices.")
    node_never = [p for r in roles.values() if r.ever_fits is False for p in r.problems]
    quota_never = [p for rq in roles_q.values() for p in rq.never]
    for name, rq in roles_q.items():
        roles[name].problems = rq.never + roles[name].problems

    competing = {r for r, v in total.items() if v > 0 and registry.is_accelerator(r)}
    ahead = _ahead(pending or [], priority, competing, workloads) if local_queue is not None else []
    strict = ((cluster_queue or {}).get("spec") or {}).get("queueingStrategy") == "StrictFIFO"
    stopped = _stopped(local_queue, cluster_queue)

    quota_short = [q for q in quota_rows if not q.fits_now]
    nodes_short = [r for r in roles.values() if r.fits_now is False]

    if quota_never or node_never:
        verdict = FitVerdict.never_fits
        message = verdict_look(FitVerdict.never_fits)[0] + ": " + "; ".join(dict.fromkeys(quota_never + node_never))
    elif quota_short or nodes_short or (strict and ahead) or stopped:
        verdict = FitVerdict.must_queue
        parts = list(stopped)
        if ahead:
            parts.append(f"queued behind {len(ahead)} workload{'s' if len(ahead) != 1 else ''}")
        for q in quota_short:
            parts.append(
                f"quota {format_quantity(q.resource, parse_quantity(q.reserved))}/"
                f"{format_quantity(q.resource, parse_quantity(q.nominal))} {q.resource} used in flavor "
                f"{q.flavor}, {format_quantity(q.resource, parse_quantity(q.available))} available, "
                f"needs {format_quantity(q.resource, parse_quantity(q.needed_in_flavor))}"
            )
        for r in nodes_short:
            res = _primary({k: parse_quantity(v) for k, v in r.requests.items()}, registry) or next(
                iter(r.requests), "cpu"
            )
            biggest = (r.largest_free or {}).get(res, 0)
            parts.append(
                f"free nodes can take {r.placeable_now} of {r.count} {r.role} pods now (largest free: "
                f"{format_quantity(res, parse_quantity(biggest))} {res})"
            )
        message = verdict_look(FitVerdict.must_queue)[0] + ": " + "; ".join(parts)
    else:
        verdict = FitVerdict.fits_now
        bits = []
        if primary:
            bits.append(_q(primary, total[primary]))
        rows = [q for q in quota_rows if q.resource == primary] or quota_rows[:1]
        if rows:
            q = rows[-1]
            bits.append(
                f"in flavor {q.flavor}, quota {format_quantity(q.resource, parse_quantity(q.reserved))}/"
                f"{format_quantity(q.resource, parse_quantity(q.nominal))} used"
            )
        message = verdict_look(FitVerdict.fits_now)[0] + (": " + ", ".join(bits) if bits else "")
        if ahead:
            message += f"; {len(ahead)} workload{'s' if len(ahead) != 1 else ''} pending ahead may go first"
    if verdict != FitVerdict.never_fits and not quota_vis.visible and local_queue is not None:
        message += " (quota not visible to your account)"
    label, tone = verdict_look(verdict)
    if verdict == FitVerdict.fits_now and nodes is None:
        # the quota fits; whether a node can take the pods is not known to this account: say so, not "fits"
        label = "Quota fits"
        message = (
            "Quota fits" + message.removeprefix(verdict_look(FitVerdict.fits_now)[0]) + "; placement is unknown: "
            "nodes are not visible to your account"
        )
    elif verdict != FitVerdict.never_fits and nodes is None:
        message += " (nodes not visible to your account)"
    return FitResponse(
        verdict=verdict,
        label=label,
        tone=tone,
        message=message,
        local_queue=lq_name,
        cluster_queue=cq_name,
        quota=quota_rows,
        roles=[roles[d.role] for d in demands],
        ahead=ahead,
        notes=notes,
        quota_visibility=quota_vis,
        nodes_visibility=nodes_vis,
        approximate=borrowing or (nodes is not None and len(demands) > 1),
    )
