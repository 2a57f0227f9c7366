"""Kueue queue views and quota headroom (kueue.x-k8s.io v1beta2, with v1beta1 field names accepted).

Headroom follows Kueue's quota model: a ClusterQueue keeps `nominal - lendingLimit` for itself, lends the rest to
its cohort, and may borrow up to `borrowingLimit` above nominal from what the cohort members (and the Cohort
objects' own nominal quota) leave unused. Borrowing across a hierarchical cohort tree is estimated as one pool, so
borrowable figures are labelled approximate.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..models.base import Visibility
from ..models.inventory import Taint, Toleration
from ..models.queues import FlavorQuota, QueuesResponse, QueueView, ResourceQuota
from .objects import condition
from .resources import format_quantity, parse_quantity

NOT_VISIBLE = "not visible to your account"
DEFAULT_QUEUE_NAME = "default"
DEFAULT_QUEUE_ANNOTATION = "kueue.x-k8s.io/default-queue"  # CodeFlare SDK convention
# Node labels that name a GPU model, for "flavor gpu-h100 = NVIDIA-H100-80GB-HBM3".
MODEL_LABELS = (
    "nvidia.com/gpu.product",
    "amd.com/gpu.product-name",
    "gpu.intel.com/product",
    "cloud.google.com/gke-accelerator",
)

Key = tuple[str, str]  # (flavor, resource)


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _name(obj: dict[str, Any]) -> str:
    return _meta(obj).get("name", "")


def cohort_of(cq: dict[str, Any]) -> str | None:
    spec = cq.get("spec") or {}
    return spec.get("cohortName") or spec.get("cohort") or None  # v1beta2 | v1beta1


def status_amounts(status: dict[str, Any], kind: str) -> dict[Key, tuple[Decimal, Decimal | None]] | None:
    """`kind` usage | reservation -> {(flavor, resource): (total, borrowed)}; None when the status has no such
    list. Accepts v1beta2 flavorsUsage and v1beta1 flavorUsage."""
    names = ("flavorsUsage", "flavorUsage") if kind == "usage" else ("flavorsReservation", "flavorReservation")
    entries = next((status[n] for n in names if n in status), None)
    if entries is None:
        return None
    out: dict[Key, tuple[Decimal, Decimal | None]] = {}
    for flavor in entries or []:
        for res in flavor.get("resources") or []:
            borrowed = res.get("borrowed")
            out[(flavor.get("name", ""), res.get("name", ""))] = (
                parse_quantity(res.get("total", 0)),
                None if borrowed is None else parse_quantity(borrowed),
            )
    return out


@dataclass
class QuotaCell:
    nominal: Decimal
    borrowing_limit: Decimal | None
    lending_limit: Decimal | None

    @property
    def guaranteed(self) -> Decimal:
        """What the CQ never lends."""
        return self.nominal - self.lending_limit if self.lending_limit is not None else Decimal(0)

    @property
    def lendable(self) -> Decimal:
        return self.lending_limit if self.lending_limit is not None else self.nominal


def quota_cells(obj: dict[str, Any]) -> dict[Key, QuotaCell]:
    """spec.resourceGroups of a ClusterQueue or Cohort, in flavor preference order."""
    out: dict[Key, QuotaCell] = {}
    for group in (obj.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                bl, ll = res.get("borrowingLimit"), res.get("lendingLimit")
                out[(flavor.get("name", ""), res.get("name", ""))] = QuotaCell(
                    parse_quantity(res.get("nominalQuota", 0)),
                    None if bl is None else parse_quantity(bl),
                    None if ll is None else parse_quantity(ll),
                )
    return out


def flavor_order(cq: dict[str, Any]) -> list[tuple[list[str], list[str]]]:
    """[(covered resources, flavor names in preference order)] per resource group."""
    return [
        (list(g.get("coveredResources") or []), [f.get("name", "") for f in g.get("flavors") or []])
        for g in (cq.get("spec") or {}).get("resourceGroups") or []
    ]


def reserved_amounts(cq: dict[str, Any]) -> dict[Key, Decimal]:
    """Reservation if the status has it (what blocks admission), else admitted usage."""
    status = cq.get("status") or {}
    table = status_amounts(status, "reservation") or status_amounts(status, "usage") or {}
    return {k: v[0] for k, v in table.items()}


def _cohort_root(name: str, cohorts: dict[str, dict[str, Any]]) -> str:
    seen = {name}
    while (parent := ((cohorts.get(name) or {}).get("spec") or {}).get("parentName")) and parent not in seen:
        seen.add(parent)
        name = parent
    return name


def cohort_tree(
    cq: dict[str, Any], cluster_queues: list[dict[str, Any]], cohorts: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(member ClusterQueues incl. `cq`, Cohort objects) of the cohort tree `cq` belongs to."""
    own = cohort_of(cq)
    if not own:
        return [cq], []
    by_name = {_name(c): c for c in cohorts}
    root = _cohort_root(own, by_name)
    in_tree = {n for n in by_name if _cohort_root(n, by_name) == root} | {own}
    members = [c for c in cluster_queues if cohort_of(c) in in_tree and _name(c) != _name(cq)]
    return [cq, *members], [by_name[n] for n in sorted(in_tree) if n in by_name]


@dataclass
class Headroom:
    nominal: Decimal
    reserved: Decimal
    free: Decimal
    borrowable: Decimal
    available: Decimal
    max_capacity: Decimal
    has_cohort: bool


def headroom(
    cq: dict[str, Any],
    flavor: str,
    resource: str,
    cluster_queues: list[dict[str, Any]] | None = None,
    cohorts: list[dict[str, Any]] | None = None,
) -> Headroom | None:
    """How much of `resource` in `flavor` a new workload in `cq` could get now and ever; None when the CQ does
    not cover that resource in that flavor. `cluster_queues` should list the cohort siblings (all readable CQs
    is fine); missing siblings only make the estimate smaller."""
    cells = quota_cells(cq)
    cell = cells.get((flavor, resource))
    if cell is None:
        return None
    reserved = reserved_amounts(cq).get((flavor, resource), Decimal(0))
    free = max(Decimal(0), cell.nominal - reserved)
    if not cohort_of(cq):
        return Headroom(cell.nominal, reserved, free, Decimal(0), free, cell.nominal, False)
    members, cohort_objs = cohort_tree(cq, cluster_queues or [], cohorts or [])
    pool = used = Decimal(0)
    for m in members:
        mcell = (cells if m is cq else quota_cells(m)).get((flavor, resource))
        if mcell is None:
            continue
        mres = reserved if m is cq else reserved_amounts(m).get((flavor, resource), Decimal(0))
        pool += mcell.lendable
        used += max(Decimal(0), mres - mcell.guaranteed)
    for co in cohort_objs:
        if (ccell := quota_cells(co).get((flavor, resource))) is not None:
            pool += ccell.nominal
    others = pool - cell.lendable
    max_capacity = cell.nominal + (min(others, cell.borrowing_limit) if cell.borrowing_limit is not None else others)
    available = min(
        max(Decimal(0), max_capacity - reserved),
        max(Decimal(0), cell.guaranteed - reserved) + max(Decimal(0), pool - used),
    )
    # Own quota lent to (and used by) cohort members comes back only through preemption, so it is not free now.
    free = min(free, available)
    return Headroom(cell.nominal, reserved, free, available - free, available, max_capacity, True)


class Headrooms:
    """headroom() for one answer's read of the caches, each question computed once: a list of 500 jobs queued in
    one ClusterQueue asks the same one 1,500 times. Holds the lists it was made with, so make one per answer."""

    def __init__(
        self, cluster_queues: list[dict[str, Any]] | None = None, cohorts: list[dict[str, Any]] | None = None
    ) -> None:
        self.cluster_queues, self.cohorts = cluster_queues, cohorts
        self._known: dict[tuple[str, str, str], Headroom | None] = {}

    def __call__(self, cq: dict[str, Any], flavor: str, resource: str) -> Headroom | None:
        key = (_name(cq), flavor, resource)
        if key not in self._known:
            self._known[key] = headroom(cq, flavor, resource, self.cluster_queues, self.cohorts)
        return self._known[key]


def quota_summary(q: ResourceQuota) -> str:
    """One resource of a queue in a sentence: admitted use, reservations beyond it (waiting on admission checks),
    nominal quota and what the cohort may lend, e.g. 'nvidia.com/gpu: 2 used, 1 reserved of 8 nominal, 4
    borrowable'. Unknown figures count as none."""
    used = q.usage or 0.0
    reserved = max(used, q.reserved if q.reserved is not None else used)
    borrowable = q.borrowable or 0.0
    parts = [f"{format_quantity(q.resource, used)} used"]
    if reserved > used:
        parts.append(f"{format_quantity(q.resource, reserved - used)} reserved")
    text = f"{q.resource}: {', '.join(parts)} of {format_quantity(q.resource, q.nominal or 0.0)} nominal"
    if borrowable > 0:
        text += f", {format_quantity(q.resource, borrowable)} borrowable"
    return text


def _quota(**figures: Any) -> ResourceQuota:
    q = ResourceQuota(**figures)
    q.summary = quota_summary(q)
    return q


def _num(v: Decimal | None) -> float | None:
    return None if v is None else float(v)


def _flavor_meta(flavor: dict[str, Any] | None, name: str) -> FlavorQuota:
    spec = (flavor or {}).get("spec") or {}
    labels = {str(k): str(v) for k, v in (spec.get("nodeLabels") or {}).items()}
    return FlavorQuota(
        name=name,
        node_labels=labels,
        node_taints=[
            Taint(key=t.get("key", ""), value=t.get("value") or None, effect=t.get("effect", ""))
            for t in spec.get("nodeTaints") or []
        ],
        tolerations=[
            Toleration(
                key=t.get("key"),
                operator=t.get("operator"),
                value=t.get("value"),
                effect=t.get("effect"),
                toleration_seconds=t.get("tolerationSeconds"),
            )
            for t in spec.get("tolerations") or []
        ],
        accelerator_model=next((labels[k] for k in MODEL_LABELS if k in labels), None),
    )


def cluster_queue_flavors(
    cq: dict[str, Any],
    *,
    cluster_queues: list[dict[str, Any]] | None = None,
    cohorts: list[dict[str, Any]] | None = None,
    resource_flavors: dict[str, dict[str, Any]] | None = None,
) -> list[FlavorQuota]:
    """Per flavor and resource: nominal, limits, usage, reservation, borrowed and headroom of a ClusterQueue."""
    status = cq.get("status") or {}
    usage = status_amounts(status, "usage") or {}
    reservation = status_amounts(status, "reservation") or {}
    out: list[FlavorQuota] = []
    for _covered, flavors in flavor_order(cq):
        for fname in flavors:
            fq = _flavor_meta((resource_flavors or {}).get(fname), fname)
            for (f, res), cell in quota_cells(cq).items():
                if f != fname:
                    continue
                h = headroom(cq, f, res, cluster_queues, cohorts)
                used, resv = usage.get((f, res)), reservation.get((f, res))
                borrowed = (resv or used or (Decimal(0), None))[1]
                fq.resources.append(
                    _quota(
                        resource=res,
                        nominal=float(cell.nominal),
                        borrowing_limit=_num(cell.borrowing_limit),
                        lending_limit=_num(cell.lending_limit),
                        usage=float(used[0]) if used else 0.0,
                        reserved=float(resv[0]) if resv else 0.0,
                        borrowed=float(borrowed or 0),
                        free=_num(h.free) if h else None,
                        borrowable=_num(h.borrowable) if h else None,
                        available=_num(h.available) if h else None,
                        max_capacity=_num(h.max_capacity) if h else None,
                    )
                )
            out.append(fq)
    return out


def local_queue_flavors(
    lq: dict[str, Any], resource_flavors: dict[str, dict[str, Any]] | None = None
) -> list[FlavorQuota]:
    """What a namespace user can always see: the LocalQueue's own usage/reservation (no quota figures)."""
    status = lq.get("status") or {}
    usage = status_amounts(status, "usage") or {}
    reservation = status_amounts(status, "reservation") or {}
    flavors: dict[str, FlavorQuota] = {}
    for f, res in list(reservation) + [k for k in usage if k not in reservation]:
        fq = flavors.setdefault(f, _flavor_meta((resource_flavors or {}).get(f), f))
        fq.resources.append(
            _quota(
                resource=res,
                usage=float(usage[(f, res)][0]) if (f, res) in usage else None,
                reserved=float(reservation[(f, res)][0]) if (f, res) in reservation else None,
            )
        )
    return list(flavors.values())


def default_queue_name(local_queues: list[dict[str, Any]], configured: str = "") -> str | None:
    """The admin's configured LocalQueue when it exists; else Kueue's default LocalQueue (the one named
    `default`); else the CodeFlare-annotated one."""
    names = [_name(lq) for lq in local_queues]
    if configured and configured in names:
        return configured
    if DEFAULT_QUEUE_NAME in names:
        return DEFAULT_QUEUE_NAME
    for lq in local_queues:
        if str((_meta(lq).get("annotations") or {}).get(DEFAULT_QUEUE_ANNOTATION, "")).lower() == "true":
            return _name(lq)
    return None


def queue_view(
    lq: dict[str, Any],
    cq: dict[str, Any] | None,
    *,
    cq_visible: bool,
    cluster_queues: list[dict[str, Any]] | None = None,
    cohorts: list[dict[str, Any]] | None = None,
    resource_flavors: dict[str, dict[str, Any]] | None = None,
) -> QueueView:
    """One LocalQueue; with its ClusterQueue when `cq` is given, else the LocalQueue status view with the
    ClusterQueue parts marked not visible (cq_visible=False) or missing (cq_visible=True, cq=None)."""
    meta, spec, status = _meta(lq), lq.get("spec") or {}, lq.get("status") or {}
    active = condition(lq, "Active")
    view = QueueView(
        name=meta.get("name", ""),
        namespace=meta.get("namespace", ""),
        cluster_queue=spec.get("clusterQueue", ""),
        is_default=meta.get("name") == DEFAULT_QUEUE_NAME,
        active=None if active is None else active.get("status") == "True",
        status_message=None if active is None else (active.get("message") or active.get("reason")),
        stop_policy=spec.get("stopPolicy"),
        pending_workloads=int(status.get("pendingWorkloads") or 0),
        reserving_workloads=int(status.get("reservingWorkloads") or 0),
        admitted_workloads=int(status.get("admittedWorkloads") or 0),
    )
    if cq is None:
        view.flavors = local_queue_flavors(lq, resource_flavors)
        view.cluster_queue_visibility = (
            Visibility(visible=False, message=NOT_VISIBLE)
            if not cq_visible
            else Visibility(visible=False, message=f"ClusterQueue {view.cluster_queue} does not exist")
        )
        return view
    cq_status, cq_spec = cq.get("status") or {}, cq.get("spec") or {}
    cq_active = condition(cq, "Active")
    view.flavors = cluster_queue_flavors(
        cq, cluster_queues=cluster_queues, cohorts=cohorts, resource_flavors=resource_flavors
    )
    view.cohort = cohort_of(cq)
    view.queueing_strategy = cq_spec.get("queueingStrategy") or "BestEffortFIFO"
    view.cluster_queue_active = None if cq_active is None else cq_active.get("status") == "True"
    view.cluster_queue_pending = cq_status.get("pendingWorkloads")
    view.cluster_queue_admitted = cq_status.get("admittedWorkloads")
    view.borrowing_approximate = view.cohort is not None
    return view


def build_queues(
    local_queues: list[dict[str, Any]] | None,
    cluster_queues: list[dict[str, Any]] | None = None,
    cohorts: list[dict[str, Any]] | None = None,
    resource_flavors: list[dict[str, Any]] | None = None,
    configured_default: str = "",
) -> QueuesResponse:
    """The queues answer. None for a list = not readable by this identity (LocalQueues: the whole answer says
    so; ClusterQueues: each queue falls back to its LocalQueue status)."""
    if local_queues is None:
        return QueuesResponse(visibility=Visibility(visible=False, message=NOT_VISIBLE))
    cqs = {_name(c): c for c in cluster_queues or []}
    rfs = {_name(f): f for f in resource_flavors or []} if resource_flavors is not None else None
    views = [
        queue_view(
            lq,
            cqs.get((lq.get("spec") or {}).get("clusterQueue", "")),
            cq_visible=cluster_queues is not None,
            cluster_queues=cluster_queues,
            cohorts=cohorts,
            resource_flavors=rfs,
        )
        for lq in sorted(local_queues, key=_name)
    ]
    return QueuesResponse(queues=views, default_queue=default_queue_name(local_queues, configured_default))
