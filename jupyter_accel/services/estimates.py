"""Start estimates of the queued jobs of one answer: what they read is gathered once per answer (EtaIndex), then
each queued Workload's estimate comes from domain/eta.py with the visible quota of its ClusterQueue."""

from __future__ import annotations

from typing import Any

from ..domain.eta import StartEstimate, estimate_start
from ..domain.fit.assess import pending_ahead
from ..domain.fit.wire import pending_ahead as ahead_wire
from ..domain.objects import has_true
from ..domain.queues import Headrooms
from ..domain.workload_state import total_requests, tried_flavor
from ..models import PendingAhead
from .ports import Caches


class EtaIndex:
    """What every start estimate of one answer reads, gathered in one pass over the workloads: the admitted ones
    by ClusterQueue, and the queued ones by LocalQueue with their place in line and accelerator requests."""

    def __init__(
        self, hub: Caches, workloads: list[dict[str, Any]], positions, namespace: str, known: list[str]
    ) -> None:
        self.wanted = set(known)
        # the quota lists and their headroom, read once for every estimate of the answer
        self.cluster_queues = hub.items("clusterqueues") if hub.readable("clusterqueues") else None
        self.cohorts = hub.items("cohorts") if hub.readable("cohorts") else None
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


def start_estimate(hub: Caches, wl: dict[str, Any], index: EtaIndex) -> StartEstimate | None:
    """The start estimate of a workload waiting for quota, from the visible admitted workloads of its
    ClusterQueue and their time limits, and the pending ones ahead of it in its LocalQueue."""
    if has_true(wl, "QuotaReserved") or (wl.get("spec") or {}).get("active") is False:
        return None
    queue = (wl.get("spec") or {}).get("queueName")
    lq = hub.get("localqueues", queue, hub.namespace) if queue else None
    cq_name = ((lq or {}).get("spec") or {}).get("clusterQueue")
    cq = hub.get("clusterqueues", cq_name) if cq_name and hub.readable("clusterqueues") else None
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


def queued_ahead(
    hub: Caches, wl: dict[str, Any], index: EtaIndex, workloads: list[dict[str, Any]]
) -> list[PendingAhead]:
    """The workloads before a queued one in its LocalQueue (the visibility API's order) that compete for the same
    accelerators on the same flavor: the fit check's rule (fit.assess.pending_ahead), with the flavor Kueue tried."""
    mine = index.position(wl)
    if mine is None or has_true(wl, "QuotaReserved"):
        return []
    queue = (wl.get("spec") or {}).get("queueName") or ""
    before = [i for i in hub.pending.get(queue, []) if (i.get("positionInLocalQueue") or 0) < mine]
    competing = {r for r, v in total_requests(wl).items() if r in index.wanted and v > 0}
    priority = int((wl.get("spec") or {}).get("priority") or 0)
    found = pending_ahead(before, priority, competing or None, workloads, flavor=tried_flavor(wl))
    return [ahead_wire(a) for a in sorted(found, key=lambda a: -1 if a.position is None else a.position)]
