"""One typed, immutable reading of the caches, between services/ and domain/.

Every read answer that looks at Workloads, pods, events or queues reads them through a Snapshot: the slices
(None where this identity may not read them) and the indexes built from them (workloads by job, pods by label,
events by object, positions in line, the WorkloadContext of a Workload's sentence, the start-estimate index), each built
once, on first use. /jobs, a job's detail and /workloads take the same WorkloadContext from it, so one Workload reads the
same in all of them by construction. Services make it from the caches (`Snapshot.of`) afresh for each answer they
compute, never keeping one: api/answers.py keeps an answer's function and calls it again when the caches change, so
one Snapshot serves one revision's answer. Tests construct it directly from plain dicts.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cluster.informer import CacheState
from ..domain.job_status import PodsByLabel
from ..domain.workloads import Positions, WorkloadContext, WorkloadsByJob, positions_from_summaries
from .estimates import EtaIndex
from .ports import Caches

Objects = Sequence[dict[str, Any]]


@dataclass(frozen=True)
class Snapshot:
    namespace: str
    workloads: Objects | None = None
    pods: Objects | None = None
    events: Objects | None = None
    local_queues: Objects | None = None
    cluster_queues: Objects | None = None
    cohorts: Objects | None = None
    # the visibility API's pending workloads by LocalQueue; None when it is not served or not visible
    pending: Mapping[str, Objects] | None = None
    known_accelerators: tuple[str, ...] = field(default=())

    @classmethod
    def of(cls, hub: Caches, known_accelerators: Sequence[str] = ()) -> Snapshot:
        def readable(key: str) -> Objects | None:
            return tuple(hub.items(key)) if key in hub.informers and hub.readable(key) else None

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
    def eta(self) -> EtaIndex:
        return EtaIndex(
            list(self.workloads or ()),
            self.positions,
            self.namespace,
            list(self.known_accelerators),
            cluster_queues=list(self.cluster_queues) if self.cluster_queues is not None else None,
            cohorts=list(self.cohorts) if self.cohorts is not None else None,
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
