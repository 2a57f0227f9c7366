"""The quota gate of the fit check: flavors assigned podset by podset as Kueue's flavor assigner does."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..queues import flavor_order, headroom
from ..resources import PodDemand
from ..scheduling import flavor_matches
from .result import NoFlavorMatches, NoQuotaFor, OverQuotaCeiling, Problem, QuotaRow

ZERO = Decimal(0)


@dataclass
class RoleQuota:
    """What quota says about one role: its flavors, what they add to its pods, and why it can never be admitted."""

    flavors: dict[str, str] = field(default_factory=dict)  # resource -> flavor
    node_labels: dict[str, str] = field(default_factory=dict)  # injected by Kueue from the flavors
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    never: list[Problem] = field(default_factory=list)


def check_quota(
    demands: list[PodDemand],
    cq: dict[str, Any],
    cluster_queues: list[dict[str, Any]] | None,
    cohorts: list[dict[str, Any]] | None,
    flavors: dict[str, dict[str, Any]] | None,
) -> tuple[list[QuotaRow], dict[str, RoleQuota]]:
    """Assign flavors podset by podset like Kueue's flavor assigner: per resource group, the first flavor that
    matches and fits now, else the first that could ever fit."""
    cq_name = (cq.get("metadata") or {}).get("name", "")
    groups = flavor_order(cq)
    covered = {r for cov, _ in groups for r in cov}
    taken: dict[tuple[str, str], Decimal] = {}  # what earlier roles of this job hold per (flavor, resource)
    rows: list[QuotaRow] = []
    roles: dict[str, RoleQuota] = {}
    for d in demands:
        rq = roles[d.role] = RoleQuota()
        total = {r: v for r, v in d.total().items() if v > 0}
        rq.never += [NoQuotaFor(cq_name, r) for r in sorted(set(total) - covered)]
        for cov, names in groups:
            need = {r: total[r] for r in cov if r in total}
            if not need:
                continue
            best: tuple[int, str, list[QuotaRow]] | None = None  # (rank: 0 now, 1 ever, 2 never)
            passed_over: list[tuple[str, str]] = []
            for fname in names:
                rf = (flavors or {}).get(fname)
                mismatch = (
                    flavor_matches(rf, node_selector=d.node_selector, affinity=d.affinity, tolerations=d.tolerations)
                    if rf is not None
                    else []
                )
                if mismatch:
                    passed_over.append((fname, mismatch[0]))
                    continue
                cand = []
                for r, amount in need.items():
                    h = headroom(cq, fname, r, cluster_queues, cohorts)
                    if h is None:
                        continue
                    cand.append(
                        QuotaRow(
                            role=d.role,
                            flavor=fname,
                            resource=r,
                            needed=amount,
                            needed_in_flavor=amount + taken.get((fname, r), ZERO),
                            nominal=h.nominal,
                            reserved=h.reserved,
                            free=h.free,
                            borrowable=h.borrowable,
                            available=h.available,
                            max_capacity=h.max_capacity,
                        )
                    )
                rank = 0 if all(c.fits_now for c in cand) else 1 if all(c.ever_fits for c in cand) else 2
                if best is None or rank < best[0]:
                    best = (rank, fname, cand)
                if rank == 0:
                    break
            if best is None:
                rq.never.append(NoFlavorMatches(cq_name, tuple(sorted(need)), d.role, tuple(passed_over)))
                continue
            _, fname, cand = best
            rows.extend(cand)
            for c in cand:
                rq.flavors[c.resource] = fname
                taken[(fname, c.resource)] = taken.get((fname, c.resource), ZERO) + c.needed
            rq.never += [
                OverQuotaCeiling(cq_name, fname, c.resource, c.max_capacity, c.needed_in_flavor)
                for c in cand
                if not c.ever_fits
            ]
            spec = ((flavors or {}).get(fname) or {}).get("spec") or {}
            rq.node_labels.update(spec.get("nodeLabels") or {})
            rq.tolerations.extend(spec.get("tolerations") or [])
    return rows, roles
