"""Start estimates of the queued jobs of one answer: what they read is gathered once per answer (EtaIndex), then
each queued Workload's estimate comes from domain/eta.py with the visible quota of its ClusterQueue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..domain.eta import StartEstimate, estimate_start
from ..domain.fit.assess import pending_ahead
from ..domain.fit.wire import pending_ahead as ahead_wire
from ..domain.objects import has_true
from ..domain.queues import Headrooms
from ..domain.workload_state import total_requests, tried_flavor
from ..models import PendingAhead

if TYPE_CHECKING:
    from .snapshot import Snapshot


class EtaIndex:
    """What every start estimate of one answer reads, gathered in one pass over the workloads: the admitted ones
    by ClusterQueue, and the queued ones by LocalQueue with their place in line and accelerator requests.
    `cluster_queues` / `cohorts`: None when not readable (the estimate then says what it cannot see)."""

    def __init__(
        self,
        workloads: list[dict[str, Any]],
        positions,
        namespace: str,
        known: list[str],
        *,
        cluster_queues: list[dict[str, Any]] | None,
        cohorts: list[dict[str, Any]] | None,
    ) -> None:
        self.wanted = set(known)
        # the quota lists and their headroom, read once for every estimate of the answer
        self.cluster_queues, self.cohorts = cluster_queues, cohorts
        self.headrooms = Headrooms(self.cluster_queues, self.cohorts)
        self._positions, self._namespace = positions, namespace
        self.admitted: dict[str | None, list[dict[str, Any]]] = {}
        self.queued: dict[str | None, list[tuple[int, dict[str, Any]]]] = {}
        for w in workloads:
            cq = ((w.get("status") or {}).get("admission") or {}).get("clusterQueue")
            if cq and has_true(w, "Admitted"):
                self.admitted.setdefault(cq, []).append(w)
            pos = self.position(w)
            if pos is not None:
                requests = {r: v for r, v in total_requests(w).items() if r in self.wanted}
                self.queued.setdefault((w.get("spec") or {}).get("queueName"), []).append((pos, requests))

    def position(self, wl: dict[str, Any]) -> int | None:
        return self._positions.get((self._namespace, wl["metadata"]["name"]), (None, None))[0]


def start_estimate(snap: Snapshot, wl: dict[str, Any]) -> StartEstimate | None:
    """The start estimate of a workload waiting for quota, from the visible admitted workloads of its
    ClusterQueue and their time limits, and the pending ones ahead of it in its LocalQueue."""
    if has_true(wl, "QuotaReserved") or (wl.get("spec") or {}).get("active") is False:
        return None
    index = snap.eta
    queue = (wl.get("spec") or {}).get("queueName")
    lq = snap.local_queue(queue) if queue else None
    cq_name = ((lq or {}).get("spec") or {}).get("clusterQueue")
    cq = snap.cluster_queue(cq_name) if cq_name else None
    needs = {r: v for r, v in total_requests(wl).items() if r in index.wanted and v > 0}
    mine = index.position(wl)
    ahead = [] if mine is None else [req for pos, req in index.queued.get(queue, []) if pos < mine]
    return estimate_start(
        needs,
        cluster_queue=cq,
        admitted=index.admitted.get(cq_name, []),
        ahead=ahead,
        cluster_queues=index.cluster_queues,
        cohorts=index.cohorts,
        flavor=tried_flavor(wl),
        headroom_of=index.headrooms,
    )


def queued_ahead(snap: Snapshot, wl: dict[str, Any]) -> list[PendingAhead]:
    """The workloads before a queued one in its LocalQueue (the visibility API's order) that compete for the same
    accelerators on the same flavor: the fit check's rule (fit.assess.pending_ahead), with the flavor Kueue tried."""
    index = snap.eta
    mine = index.position(wl)
    if mine is None or has_true(wl, "QuotaReserved"):
        return []
    queue = (wl.get("spec") or {}).get("queueName") or ""
    before = [i for i in (snap.pending or {}).get(queue, ()) if (i.get("positionInLocalQueue") or 0) < mine]
    competing = {r for r, v in total_requests(wl).items() if r in index.wanted and v > 0}
    priority = int((wl.get("spec") or {}).get("priority") or 0)
    found = pending_ahead(before, priority, competing or None, list(snap.workloads or ()), flavor=tried_flavor(wl))
    return [ahead_wire(a) for a in sorted(found, key=lambda a: -1 if a.position is None else a.position)]
