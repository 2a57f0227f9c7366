"""The snapshot between services/ and domain/ (services/snapshot.py): made from the caches with None for what this
identity may not read, immutable, and each index built once and shared by every view of the answer."""

from __future__ import annotations

import dataclasses

import pytest
from memory_cluster import MemoryHub

from jupyter_accel.cluster.informer import CacheState
from jupyter_accel.services.jobs import JobsService
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
    assert (
        snap.pods is not None
        and list(snap.pods) == []
        and [w["metadata"]["name"] for w in snap.workloads or ()] == ["a"]
    )
    assert snap.positions == {("team-a", "a"): (0, None)}
    hub.pending_state = CacheState.forbidden  # type: ignore[attr-defined]
    hidden = Snapshot.of(hub)
    assert hidden.pending is None and hidden.positions == {}


def test_a_slice_is_read_on_first_use_and_then_held():
    """The events of a cache are copied only when an answer reads them, and once read, a later change of the cache
    does not reach the snapshot: every index of one answer sees the same objects."""
    hub = MemoryHub()
    hub.caches.update(workloads=[workload("a")], events=[])
    snap = Snapshot.of(hub)
    assert "not read yet" in repr(snap.events)
    hub.caches["workloads"] = [workload("a"), workload("b")]  # before first use: the snapshot reads this
    assert [w["metadata"]["name"] for w in snap.workloads or ()] == ["a", "b"]
    hub.caches["workloads"] = []  # after it: the snapshot keeps what it read
    assert len(snap.workloads or ()) == 2 and snap.by_job is snap.by_job


def test_immutable_and_each_index_built_once():
    snap = Snapshot("team-a", workloads=(workload("a"),), local_queues=(), cluster_queues=())
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.workloads = ()  # type: ignore[misc]
    assert snap.reading is snap.reading and snap.by_job is snap.by_job and snap.eta is snap.eta
    assert snap.reading.by_uid["wl-a"]["metadata"]["name"] == "a"


def one_ray_cluster(pod_spec: dict, phase: str) -> tuple[MemoryHub, dict, JobsService]:
    """Caches holding one RayCluster and its head pod, and a jobs service reading them."""
    from memory_cluster import MemoryWriter

    from jupyter_accel.domain.accelerators import AcceleratorRegistry
    from jupyter_accel.services.jobs import JobSettings

    hub = MemoryHub()
    for key in ("rayjobs", "pytorchjobs", "trainjobs", "workloads", "events", "nodes"):
        hub.caches[key] = []
    job = {"metadata": {"name": "rc", "namespace": "team-a", "uid": "u1"},
           "spec": {"headGroupSpec": {"template": {"spec": {"containers": []}}}}}  # fmt: skip
    pod = {"metadata": {"name": "rc-head", "namespace": "team-a", "labels": {"ray.io/cluster": "rc"}},
           "spec": {"containers": [{"name": "ray-head"}], **pod_spec}, "status": {"phase": phase}}  # fmt: skip
    hub.caches.update(rayclusters=[job], pods=[pod])
    return hub, pod, JobsService(hub, MemoryWriter(hub), AcceleratorRegistry.from_config([]), JobSettings())


def test_a_service_asked_again_reads_the_caches_again():
    """api/answers keeps `lambda: service.list_jobs(scope)` and calls it again on every change of the caches: the
    second call must see the change (a snapshot kept on the service would answer the first reading forever)."""
    hub, pod, svc = one_ray_cluster({}, "Pending")
    answer = lambda: svc.list_jobs("namespace").jobs[0].pods  # noqa: E731 - what api/answers keeps
    assert [p.phase for p in answer()] == ["Pending"]
    hub.caches["pods"] = [{**pod, "status": {"phase": "Running"}}]
    assert [p.phase for p in answer()] == ["Running"]


def test_a_node_that_appears_later_marks_its_pods_simulated_in_the_next_answer():
    """The simulated nodes are the snapshot's, read with each answer: a kwok node the caches learn of after the
    first answer marks its pods in the next one (a set kept on the service would not)."""
    from jupyter_accel.domain.labels import SIMULATED_NODE

    hub, _, svc = one_ray_cluster({"nodeName": "gpu-0"}, "Running")
    answer = lambda: svc.list_jobs("namespace").jobs[0].pods[0].simulated  # noqa: E731 - what api/answers keeps
    assert answer() is False
    key, value = SIMULATED_NODE
    hub.caches["nodes"] = [{"metadata": {"name": "gpu-0", "annotations": {key: value}}}]
    assert answer() is True
    hub.unreadable.add("nodes")  # nodes not readable: nothing is claimed simulated
    assert answer() is False


def test_the_fit_check_counts_ahead_only_the_workloads_waiting_for_the_same_cluster_queue():
    """Kueue orders a ClusterQueue's workloads: one waiting in a LocalQueue of another ClusterQueue waits for other
    quota and is not ahead of a new job (a LocalQueue this account cannot read is counted: it may be)."""
    from decimal import Decimal

    from jupyter_accel.domain.accelerators import AcceleratorRegistry
    from jupyter_accel.domain.resources import PodDemand
    from jupyter_accel.services.launch import fit_demands

    def lq(name: str, cq: str) -> dict:
        return {"metadata": {"name": name, "namespace": "team-a"}, "spec": {"clusterQueue": cq}}

    def item(name: str, pos: int) -> dict:
        return {"metadata": {"name": name, "namespace": "team-a"}, "priority": 0, "positionInLocalQueue": pos}

    hub = MemoryHub()
    hub.caches.update(localqueues=[lq("default", "cq-1"), lq("other", "cq-2")], workloads=[])
    hub.pending.update(default=[item("mine-first", 0)], other=[item("elsewhere", 0)], hidden=[item("maybe", 0)])
    snap = Snapshot.of(hub)
    assert [i["metadata"]["name"] for i in snap.fit_cluster("cq-1").pending] == ["mine-first", "maybe"]
    gpu = PodDemand("worker", 1, {"nvidia.com/gpu": Decimal(1)})
    answer = fit_demands(hub, AcceleratorRegistry.from_config([]), [gpu], "default")
    assert sorted(a.name for a in answer.ahead) == ["maybe", "mine-first"]


def test_the_fit_check_judges_a_job_at_its_priority_class_value():
    """Kueue gives a job's Workload its WorkloadPriorityClass's value: workloads of lower priority are not ahead of
    it. A class this account cannot read is said, and the job is judged as priority 0."""
    from memory_cluster import MemoryWriter, queue_with_pending

    from jupyter_accel.domain.accelerators import AcceleratorRegistry
    from jupyter_accel.models import JobRequest
    from jupyter_accel.services.jobs import JobSettings, JobsService

    hub = MemoryHub()
    for key in ("rayjobs", "rayclusters", "pytorchjobs", "trainjobs", "workloads", "events", "nodes", "pods"):
        hub.caches[key] = []
    queue_with_pending(hub, priorities=(100, 10), classes={"urgent": 50})
    svc = JobsService(hub, MemoryWriter(hub), AcceleratorRegistry.from_config([]), JobSettings(default_queue="default"))
    job = {"kind": "pytorch", "name": "t", "workers": 1, "image": "img", "command": ["python", "t.py"]}

    def ahead(**more: str) -> tuple[list[str], bool]:
        answer = svc.fit(JobRequest.model_validate({**job, **more}))
        return sorted(a.name for a in answer.ahead), any("urgent is not visible" in n for n in answer.notes)

    assert ahead() == (["wl-10", "wl-100"], False)
    assert ahead(priority_class="urgent") == (["wl-100"], False)
    hub.unreadable.add("workloadpriorityclasses")
    assert ahead(priority_class="urgent") == (["wl-10", "wl-100"], True)
