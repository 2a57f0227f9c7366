"""The snapshot between services/ and domain/ (services/snapshot.py): made from the caches with None for what this
identity may not read, immutable, and each index built once and shared by every view of the answer."""

from __future__ import annotations

import dataclasses

import pytest
from memory_cluster import MemoryHub

from jupyter_accel.cluster.informer import CacheState
from jupyter_accel.services.snapshot import Snapshot


def workload(name: str, queue: str = "default") -> dict:
    return {"metadata": {"name": name, "namespace": "team-a", "uid": f"wl-{name}"}, "spec": {"queueName": queue}}


def test_made_from_the_caches_with_none_where_not_readable():
    hub = MemoryHub()
    hub.caches.update(workloads=[workload("a")], pods=[], localqueues=[], clusterqueues=[{"metadata": {"name": "cq"}}])
    hub.unreadable.add("clusterqueues")
    hub.pending["default"] = [{"metadata": {"name": "a", "namespace": "team-a"}, "positionInLocalQueue": 0}]
    snap = Snapshot.of(hub, ["nvidia.com/gpu"])
    assert snap.cluster_queues is None and snap.cohorts is None  # not readable / not served: None, not []
    assert snap.pods == () and [w["metadata"]["name"] for w in snap.workloads or ()] == ["a"]
    assert snap.positions == {("team-a", "a"): (0, None)}
    hub.pending_state = CacheState.forbidden  # type: ignore[attr-defined]
    hidden = Snapshot.of(hub)
    assert hidden.pending is None and hidden.positions == {}


def test_immutable_and_each_index_built_once():
    snap = Snapshot("team-a", workloads=(workload("a"),), local_queues=(), cluster_queues=())
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.workloads = ()  # type: ignore[misc]
    assert snap.reading is snap.reading and snap.by_job is snap.by_job and snap.eta is snap.eta
    assert snap.reading.by_uid["wl-a"]["metadata"]["name"] == "a"


def test_a_service_asked_again_reads_the_caches_again():
    """api/answers keeps `lambda: service.list_jobs(scope)` and calls it again on every change of the caches: the
    second call must see the change (a snapshot kept on the service would answer the first reading forever)."""
    from memory_cluster import MemoryWriter

    from jupyter_accel.domain.accelerators import AcceleratorRegistry
    from jupyter_accel.services.jobs import JobSettings, JobsService

    hub = MemoryHub()
    for key in ("rayjobs", "pytorchjobs", "trainjobs", "workloads", "events", "nodes"):
        hub.caches[key] = []
    job = {"metadata": {"name": "rc", "namespace": "team-a", "uid": "u1"},
           "spec": {"headGroupSpec": {"template": {"spec": {"containers": []}}}}}  # fmt: skip
    pod = {"metadata": {"name": "rc-head", "namespace": "team-a", "labels": {"ray.io/cluster": "rc"}},
           "spec": {"containers": [{"name": "ray-head"}]}, "status": {"phase": "Pending"}}  # fmt: skip
    hub.caches.update(rayclusters=[job], pods=[pod])
    svc = JobsService(hub, MemoryWriter(hub), AcceleratorRegistry.from_config([]), JobSettings())
    answer = lambda: svc.list_jobs("namespace").jobs[0].pods  # noqa: E731 - what api/answers keeps
    assert [p.phase for p in answer()] == ["Pending"]
    hub.caches["pods"] = [{**pod, "status": {"phase": "Running"}}]
    assert [p.phase for p in answer()] == ["Running"]
