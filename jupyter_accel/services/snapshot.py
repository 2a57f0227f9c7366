"""One typed, immutable reading of the caches, between services/ and domain/.

Every read answer that looks at Workloads, pods, events or queues reads them through a Snapshot: the slices
(None where this identity may not read them) and the indexes built from them (workloads by job, pods by label,
events by object, the simulated nodes, positions in line, the WorkloadContext of a Workload's sentence, the
start-estimate index), each built once, on first use. /jobs, a job's detail and /workloads take the same
WorkloadContext from it, so one Workload reads the same in all of them by construction. Services make it from the
caches (`Snapshot.of`) afresh for each answer they compute, never keeping one: api/answers.py keeps an answer's
function and calls it again when the caches change, so one Snapshot serves one revision's answer. Tests construct
it directly from plain dicts."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from ..cluster.informer import CacheState
from ..domain.fit import FitCluster
from ..domain.inventory import allocations_from_wire
from ..domain.job_status import PodsByLabel, simulated_nodes
from ..domain.workloads import Positions, WorkloadContext, WorkloadsByJob, positions_from_summaries
from .estimates import EtaIndex
from .ports import Caches

Objects = Sequence[dict[str, Any]]


class CachedSlice(Sequence[dict[str, Any]]):
    """One cache's objects, copied from it on first use: an answer that never looks at the events (or the 20,000
    pods of the cluster) does not copy them. Whether the slice is readable at all is decided when the Snapshot is
    made; its objects are read once, so every index of the answer sees the same ones."""

    def __init__(self, hub: Caches, key: str) -> None:
        self._hub, self._key = hub, key

    @functools.cached_property
    def _items(self) -> tuple[dict[str, Any], ...]:
        return tuple(self._hub.items(self._key))

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | Sequence[dict[str, Any]]:
        return self._items[i]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._items)

    def __repr__(self) -> str:
        return f"CachedSlice({self._key!r}, {'read' if '_items' in self.__dict__ else 'not read yet'})"


@dataclass(frozen=True)
class Snapshot:
    namespace: str
    workloads: Objects | None = None
    pods: Objects | None = None
    events: Objects | None = None
    local_queues: Objects | None = None
    cluster_queues: Objects | None = None
    cohorts: Objects | None = None
    nodes: Objects | None = None
    # what the fit check reads besides (domain/fit): cluster-wide pods, or the per-node sums the read service serves
    all_pods: Objects | None = None
    allocations: Objects | None = None
    resource_flavors: Objects | None = None
    # the visibility API's pending workloads by LocalQueue; None when it is not served or not visible
    pending: Mapping[str, Objects] | None = None
    known_accelerators: tuple[str, ...] = field(default=())

    @classmethod
    def of(cls, hub: Caches, known_accelerators: Sequence[str] = ()) -> Snapshot:
        def readable(key: str) -> Objects | None:
            return CachedSlice(hub, key) if key in hub.informers and hub.readable(key) else None

        state = getattr(hub, "pending_state", CacheState.synced)
        hidden = state in (CacheState.forbidden, CacheState.absent, CacheState.starting)
        return cls(
            namespace=hub.namespace,
            workloads=readable("workloads"),
            pods=readable("pods"),
            events=readable("events"),
            local_queues=readable("localqueues"),
            cluster_queues=readable("clusterqueues"),
            cohorts=readable("cohorts"),
            nodes=readable("nodes"),
            # where the read service serves the sums, they stand for the pods, readable or not
            all_pods=None if "allocations" in hub.informers else readable("allpods"),
            allocations=readable("allocations"),
            resource_flavors=readable("resourceflavors"),
            pending=None if hidden else {q: tuple(items) for q, items in hub.pending.items()},
            known_accelerators=tuple(known_accelerators),
        )

    # -- the indexes, each built once ---------------------------------------------------------------------------
    @functools.cached_property
    def positions(self) -> Positions:
        return positions_from_summaries(*({"items": list(items)} for items in (self.pending or {}).values()))

    @functools.cached_property
    def reading(self) -> WorkloadContext:
        """What a Workload's sentence reads besides the Workload: /jobs and /workloads read it here."""
        return WorkloadContext.of(
            list(self.workloads) if self.workloads is not None else None,
            local_queues=list(self.local_queues) if self.local_queues is not None else None,
            cluster_queues=list(self.cluster_queues) if self.cluster_queues is not None else None,
            positions=self.positions,
        )

    @functools.cached_property
    def by_job(self) -> WorkloadsByJob:
        return WorkloadsByJob(list(self.workloads or ()))

    @functools.cached_property
    def by_label(self) -> PodsByLabel:
        return PodsByLabel(self.pods or ())

    @functools.cached_property
    def events_by_object(self) -> Mapping[tuple[str, str], list[dict[str, Any]]]:
        """Events by the (kind, name) they are about, for one pass over the events."""
        out: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for e in self.events or ():
            about = e.get("involvedObject") or {}
            out.setdefault((about.get("kind") or "", about.get("name") or ""), []).append(e)
        return out

    @functools.cached_property
    def simulated(self) -> frozenset[str]:
        """The simulated (kwok) nodes among those this account reads: their pods' output is a fixture's."""
        return simulated_nodes(self.nodes)

    @functools.cached_property
    def eta(self) -> EtaIndex:
        return EtaIndex(
            list(self.workloads or ()),
            self.positions,
            self.namespace,
            list(self.known_accelerators),
            cluster_queues=list(self.cluster_queues) if self.cluster_queues is not None else None,
            cohorts=list(self.cohorts) if self.cohorts is not None else None,
        )

    def fit_cluster(self, cluster_queue: str | None) -> FitCluster:
        """What the fit check of a job for `cluster_queue` reads: the per-node sums of the pods where the read service
        serves them, else the pods; as pending, the workloads of the LocalQueues whose ClusterQueue is that one (one
        waiting for other quota is not ahead; a LocalQueue not readable here counts: it may be)."""
        pending = [
            item
            for queue, items in (self.pending or {}).items()
            if (lq := self.local_queue(queue)) is None or (lq.get("spec") or {}).get("clusterQueue") == cluster_queue
            for item in items
        ]
        return FitCluster(
            nodes=_list(self.nodes),
            pods=None if self.allocations is not None else _list(self.all_pods),
            allocated=allocations_from_wire(_list(self.allocations)),
            cluster_queues=_list(self.cluster_queues),
            cohorts=_list(self.cohorts),
            resource_flavors=_list(self.resource_flavors),
            pending=pending,
            workloads=_list(self.workloads),
        )

    def local_queue(self, name: str) -> dict[str, Any] | None:
        return self._local_queues.get(name)

    def cluster_queue(self, name: str) -> dict[str, Any] | None:
        return self.reading.cqs.get(name)

    @functools.cached_property
    def _local_queues(self) -> Mapping[str, dict[str, Any]]:
        return {
            (lq.get("metadata") or {}).get("name", ""): lq
            for lq in self.local_queues or ()
            if (lq.get("metadata") or {}).get("namespace", self.namespace) == self.namespace
        }


def _list(items: Objects | None) -> list[dict[str, Any]] | None:
    return None if items is None else list(items)
