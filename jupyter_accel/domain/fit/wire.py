"""The edge of the fit check: its structured result and words become the wire model. The only place its
Decimal figures become wire numbers."""

from __future__ import annotations

from decimal import Decimal

from ...models.base import Visibility
from ...models.fit import FitResponse, PendingAhead, QuotaHeadroom, RoleFit
from ..presentation import place_in_line
from ..resources import to_number
from .result import Ahead, FitAssessment, QuotaRow, RoleResult
from .words import fit_words, problem_text


def _numbers(amounts: dict[str, Decimal]) -> dict[str, float | int]:
    return {r: to_number(v) for r, v in amounts.items()}


def _visibility(message: str | None) -> Visibility:
    return Visibility() if message is None else Visibility(visible=False, message=message)


def quota_headroom(q: QuotaRow) -> QuotaHeadroom:
    return QuotaHeadroom(
        role=q.role,
        flavor=q.flavor,
        resource=q.resource,
        needed=float(q.needed),
        needed_in_flavor=float(q.needed_in_flavor),
        nominal=float(q.nominal),
        reserved=float(q.reserved),
        free=float(q.free),
        borrowable=float(q.borrowable),
        available=float(q.available),
        max_capacity=float(q.max_capacity),
        fits_now=q.fits_now,
        ever_fits=q.ever_fits,
    )


def role_fit(r: RoleResult) -> RoleFit:
    return RoleFit(
        role=r.role,
        count=r.count,
        requests=_numbers(r.requests),
        flavors=dict(r.flavors),
        eligible_nodes=r.eligible_nodes,
        usable_nodes=r.usable_nodes,
        placeable_now=r.placeable_now,
        fits_now=r.fits_now,
        ever_fits=r.ever_fits,
        largest_allocatable=_numbers(r.largest_allocatable),
        largest_free=None if r.largest_free is None else _numbers(r.largest_free),
        problems=[problem_text(p) for p in r.problems],
    )


def pending_ahead(a: Ahead) -> PendingAhead:
    return PendingAhead(
        name=a.name,
        owner_kind=a.owner_kind,
        owner_name=a.owner_name,
        priority=a.priority,
        position_in_local_queue=a.position,
        place=place_in_line(a.position),
        requests=_numbers(a.requests),
    )


def fit_response(a: FitAssessment) -> FitResponse:
    words = fit_words(a)
    return FitResponse(
        verdict=a.verdict,
        label=words.label,
        tone=words.tone,
        message=words.message,
        local_queue=a.local_queue,
        cluster_queue=a.cluster_queue,
        quota=[quota_headroom(q) for q in a.quota],
        roles=[role_fit(r) for r in a.roles],
        ahead=[pending_ahead(x) for x in a.ahead],
        notes=words.notes,
        quota_visibility=_visibility(words.quota_visibility),
        nodes_visibility=_visibility(words.nodes_visibility),
        approximate=a.approximate,
    )
