"""The fit check's verdict, computed once into a FitAssessment: the quota gate, the node gate, the queue ahead."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ...models.fit import FitVerdict
from ..accelerators import AcceleratorRegistry
from ..objects import has_true
from ..queues import cohort_of
from ..resources import PodDemand
from ..workload_state import total_requests, tried_flavor
from .nodes import check_nodes, primary, role_result
from .quota import RoleQuota, check_quota
from .result import Ahead, FitAssessment, QueueHeld, QuotaSeen

ZERO = Decimal(0)


def pending_ahead(
    pending: list[dict[str, Any]],
    priority: int,
    competing: set[str] | None = None,
    workloads: list[dict[str, Any]] | None = None,
    flavor: str | None = None,
) -> list[Ahead]:
    """Pending entries that Kueue would consider before a new workload of `priority`: still without quota,
    active, unfinished, and of equal or higher priority. Accepts Workloads and visibility API items; a visibility
    item whose Workload is in `workloads` takes its requests from it. With `competing` (the accelerator resources
    the new workload asks for), an entry whose requests are known and ask for none of them is not ahead: it waits
    for other quota. With `flavor` (the flavor Kueue tries for it), an entry Kueue tried on another flavor is not
    ahead either."""
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
            prio, reqs, pos, known = spec.get("priority"), total_requests(item), None, item
        else:  # a PendingWorkload from the visibility API; its Workload, when cached, says what it asks for
            known = by_key.get((meta.get("namespace"), meta.get("name")))
            reqs = total_requests(known) if known else {}
            prio, pos = item.get("priority"), item.get("positionInLocalQueue")
        if (prio or 0) < priority:
            continue
        if flavor and (theirs := tried_flavor(known)) and theirs != flavor:
            continue
        if competing and reqs and not competing & {r for r, v in reqs.items() if v > 0}:
            continue
        out.append(Ahead(meta.get("name", ""), owner.get("kind"), owner.get("name"), prio, pos, dict(reqs)))
    return out


def held_queues(local_queue: dict[str, Any] | None, cluster_queue: dict[str, Any] | None) -> list[QueueHeld]:
    """The queues that admit nothing at the moment (stopPolicy, inactive), whatever the quota says."""
    out = []
    for kind, obj in (("LocalQueue", local_queue), ("ClusterQueue", cluster_queue)):
        if not obj:
            continue
        name = (obj.get("metadata") or {}).get("name")
        policy = (obj.get("spec") or {}).get("stopPolicy")
        active = next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == "Active"), None)
        if policy in ("Hold", "HoldAndDrain"):
            out.append(QueueHeld(kind, name, policy=policy))
        elif active is not None and active.get("status") == "False":
            out.append(QueueHeld(kind, name, inactive=active.get("message") or active.get("reason")))
    return out


@dataclass(frozen=True)
class FitCluster:
    """What the fit check reads of the cluster; None wherever this identity may not read it.

    nodes / pods: cluster-wide lists; allocated: what the pods hold per node, summed (inventory.allocated_by_node,
    as the read service serves it), given instead of `pods`. cluster_queues / cohorts: for cohort borrowing
    (siblings; all readable CQs is fine). resource_flavors: None when not readable (flavors then count as matching).
    pending: Workloads of the LocalQueues on the chosen ClusterQueue (or visibility API items), to list those ahead
    of a new workload; workloads: the cached Workloads those items may name (their requests tell whether they
    compete for the same accelerators)."""

    nodes: list[dict[str, Any]] | None = None
    pods: list[dict[str, Any]] | None = None
    allocated: dict[str, dict[str, Decimal]] | None = None
    cluster_queues: list[dict[str, Any]] | None = None
    cohorts: list[dict[str, Any]] | None = None
    resource_flavors: list[dict[str, Any]] | None = None
    pending: list[dict[str, Any]] = field(default_factory=list)
    workloads: list[dict[str, Any]] | None = None


def assess_fit(
    demands: list[PodDemand],
    cluster: FitCluster,
    *,
    local_queue: dict[str, Any] | None = None,
    cluster_queue: dict[str, Any] | None = None,
    priority: int = 0,
    registry: AcceleratorRegistry | None = None,
) -> FitAssessment:
    """The verdict for a job made of `demands` (one PodDemand per role) going to `local_queue` (None: no Kueue
    queue, only nodes are checked) behind `cluster_queue` (None when not readable), with everything behind it."""
    registry = registry or AcceleratorRegistry()
    demands = [d for d in demands if d.count > 0]
    total: dict[str, Decimal] = {}
    for d in demands:
        for r, v in d.total().items():
            total[r] = total.get(r, ZERO) + v

    quota_rows = []
    roles_q: dict[str, RoleQuota] = {}
    quota_seen = QuotaSeen.shown
    if local_queue is None:
        quota_seen = QuotaSeen.unchecked
    elif cluster_queue is None:
        quota_seen = QuotaSeen.hidden
    else:
        rf_map = (
            None
            if cluster.resource_flavors is None
            else {(f.get("metadata") or {}).get("name", ""): f for f in cluster.resource_flavors}
        )
        quota_rows, roles_q = check_quota(demands, cluster_queue, cluster.cluster_queues, cluster.cohorts, rf_map)

    if cluster.nodes is None:
        roles = {d.role: role_result(d, roles_q.get(d.role), registry) for d in demands}
    else:
        roles = check_nodes(demands, cluster.nodes, cluster.pods, roles_q, registry, cluster.allocated)
    quota_never = [p for r in roles.values() for p in r.quota_problems]
    node_never = [p for r in roles.values() if r.ever_fits is False for p in r.node_problems]
    never = list(dict.fromkeys(quota_never + node_never))

    competing = {r for r, v in total.items() if v > 0 and registry.is_accelerator(r)}
    ahead = pending_ahead(cluster.pending, priority, competing, cluster.workloads) if local_queue is not None else []
    strict = ((cluster_queue or {}).get("spec") or {}).get("queueingStrategy") == "StrictFIFO"
    held = held_queues(local_queue, cluster_queue)
    result = FitAssessment(
        verdict=FitVerdict.fits_now,
        local_queue=((local_queue or {}).get("metadata") or {}).get("name"),
        cluster_queue=((local_queue or {}).get("spec") or {}).get("clusterQueue"),
        quota_seen=quota_seen,
        flavors_seen=cluster.resource_flavors is not None,
        borrowing=quota_seen is QuotaSeen.shown and cohort_of(cluster_queue or {}) is not None,
        nodes_seen=cluster.nodes is not None,
        pods_seen=cluster.pods is not None or cluster.allocated is not None,
        total=total,
        primary=primary(total, registry),
        quota=quota_rows,
        roles=[roles[d.role] for d in demands],
        ahead=ahead,
        held=held,
        never=never,
    )
    if never:
        result.verdict = FitVerdict.never_fits
    elif result.quota_short or result.nodes_short or (strict and ahead) or held:
        result.verdict = FitVerdict.must_queue
    return result
