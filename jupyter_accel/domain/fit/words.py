"""The fit check in words: every sentence of its answer, made from the structured result (result.py) alone."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ...models.base import Tone
from ...models.fit import FitVerdict
from ..inventory import NOT_VISIBLE
from ..presentation import verdict_look
from ..resources import format_quantity
from .result import (
    FitAssessment,
    NoFlavorMatches,
    NoNodeHasAll,
    NoQuotaFor,
    NotAccepted,
    OverQuotaCeiling,
    PodTooBig,
    Problem,
    QueueHeld,
    QuotaSeen,
    TooFewNodes,
)


@dataclass(frozen=True)
class FitWords:
    label: str
    tone: Tone
    message: str
    notes: list[str]
    quota_visibility: str | None  # why quota was not checked; None: it was
    nodes_visibility: str | None  # why nodes (or their free devices) were not checked; None: they were


def _q(resource: str, value: Decimal) -> str:
    return f"{format_quantity(resource, value)} {resource}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def problem_text(p: Problem) -> str:
    """One reason a job can never run, as a sentence fragment."""
    match p:
        case NoQuotaFor(cq, resource):
            return f"ClusterQueue {cq} has no quota for {resource}"
        case NoFlavorMatches(cq, resources, role, passed_over):
            tried = "; ".join(f"{flavor}: {why}" for flavor, why in passed_over)
            return (
                f"no flavor of ClusterQueue {cq} for {', '.join(resources)} matches "
                f"the {role} pod's node selector and tolerations ({tried})"
            )
        case OverQuotaCeiling(cq, flavor, resource, most, needed):
            return (
                f"ClusterQueue {cq} can hold at most {_q(resource, most)} in flavor {flavor}, "
                f"the job needs {format_quantity(resource, needed)}"
            )
        case PodTooBig(role, resource, needed, largest):
            return (
                f"a {role} pod needs {_q(resource, needed)}, the largest node has {format_quantity(resource, largest)}"
            )
        case NoNodeHasAll(role):
            return f"no node has everything one {role} pod needs at once"
        case NotAccepted(role, reasons, selector, matching):
            why = ", ".join(f"{problem} on {n} node{'s' if n > 1 else ''}" for problem, n in reasons)
            if selector:  # say how many nodes the selector matches at all, whatever their size
                shown = ",".join(f"{k}={v}" for k, v in selector)
                why += f"; its node selector {shown} matches {_plural(matching, 'node')}"
            return f"no node big enough for a {role} pod accepts it ({why})"
        case TooFewNodes(role, placed, count):
            return f"the nodes that match can hold only {placed} of {count} {role} pods even when empty"
    raise TypeError(f"not a fit problem: {p!r}")


def held_text(h: QueueHeld) -> str:
    if h.policy:
        return f"{h.kind} {h.name} is stopped ({h.policy})"
    return f"{h.kind} {h.name} is inactive ({h.inactive})"


def _wait_reasons(a: FitAssessment) -> list[str]:
    parts = [held_text(h) for h in a.held]
    if a.ahead:
        parts.append(f"queued behind {_plural(len(a.ahead), 'workload')}")
    for q in a.quota_short:
        reserved, nominal, available, needs = (
            format_quantity(q.resource, v) for v in (q.reserved, q.nominal, q.available, q.needed_in_flavor)
        )
        parts.append(
            f"quota {reserved}/{nominal} {q.resource} used in flavor {q.flavor}, {available} available, needs {needs}"
        )
    for r in a.nodes_short:
        res = r.primary or next(iter(r.requests), "cpu")
        biggest = (r.largest_free or {}).get(res, Decimal(0))
        parts.append(
            f"free nodes can take {r.placeable_now} of {r.count} {r.role} pods now (largest free: {_q(res, biggest)})"
        )
    return parts


def _fits_bits(a: FitAssessment) -> list[str]:
    bits = []
    if a.primary:
        bits.append(_q(a.primary, a.total[a.primary]))
    rows = [q for q in a.quota if q.resource == a.primary] or a.quota[:1]
    if rows:
        q = rows[-1]
        reserved, nominal = format_quantity(q.resource, q.reserved), format_quantity(q.resource, q.nominal)
        bits.append(f"in flavor {q.flavor}, quota {reserved}/{nominal} used")
    return bits


def fit_message(a: FitAssessment) -> tuple[str, Tone, str]:
    """(label, tone, the one verdict sentence)."""
    label, tone = verdict_look(a.verdict, placement_known=a.nodes_seen)
    if a.verdict is FitVerdict.never_fits:
        return label, tone, f"{label}: " + "; ".join(problem_text(p) for p in a.never)
    if a.verdict is FitVerdict.must_queue:
        message = f"{label}: " + "; ".join(_wait_reasons(a))
    else:
        bits = _fits_bits(a)
        message = label + (": " + ", ".join(bits) if bits else "")
        if a.ahead:
            message += f"; {_plural(len(a.ahead), 'workload')} pending ahead may go first"
    if a.quota_seen is QuotaSeen.hidden:
        message += " (quota not visible to your account)"
    if not a.nodes_seen:
        message += (
            "; placement is unknown: nodes are not visible to your account"
            if a.verdict is FitVerdict.fits_now
            else " (nodes not visible to your account)"
        )
    return label, tone, message


def fit_notes(a: FitAssessment) -> list[str]:
    """The caveats: what this account could not see, and which figures are estimates."""
    notes = []
    if a.quota_seen is QuotaSeen.hidden:
        notes.append("Quota is not visible to your account; the verdict rests on the nodes only.")
    if a.quota_seen is QuotaSeen.shown and not a.flavors_seen:
        notes.append("ResourceFlavors are not visible to your account: flavor node labels and taints were not checked.")
    if a.borrowing:
        notes.append("Borrowing from the cohort is an estimate.")
    if not a.nodes_seen:
        notes.append("Nodes are not visible to your account; free devices were not checked.")
    elif not a.pods_seen:
        notes.append("Pods are not visible to your account; only node capacity was checked, not free devices.")
    return notes


def fit_words(a: FitAssessment) -> FitWords:
    label, tone, message = fit_message(a)
    quota_vis = {
        QuotaSeen.unchecked: "no queue chosen: quota not checked",
        QuotaSeen.hidden: f"ClusterQueue {a.cluster_queue} is {NOT_VISIBLE}",
        QuotaSeen.shown: None,
    }[a.quota_seen]
    nodes_vis = (
        f"nodes are {NOT_VISIBLE}"
        if not a.nodes_seen
        else None
        if a.pods_seen
        else f"pods are {NOT_VISIBLE}: free devices unknown"
    )
    return FitWords(label, tone, message, fit_notes(a), quota_vis, nodes_vis)
