"""/jobs and /workloads read one Workload the same: its sentence and its place in line, from one WorkloadContext of the same
caches (queued for quota, can never be admitted, preempted by a job of the namespace)."""

from __future__ import annotations

from memory_cluster import MemoryHub, MemoryWriter

from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.services.jobs import JobSettings, JobsService
from jupyter_accel.services.reads import workloads as workloads_answer

GPU = "nvidia.com/gpu"
WAITING = (
    "couldn't assign flavors to pod set workers: insufficient unused quota for nvidia.com/gpu in flavor "
    "nvidia-h100-80gb, 2 more needed"
)
NO_MATCH = "couldn't assign flavors to pod set workers: flavor nvidia-h100-80gb doesn't match node affinity"
PREEMPTED = (
    "Preempted to accommodate a workload (UID: wl-high, JobUID: job-high) due to prioritization in the "
    "ClusterQueue; preemptor path: /team-a-cq; preemptee path: /team-a-cq"
)


def job(name: str) -> dict:
    return {
        "metadata": {"name": name, "namespace": "team-a", "uid": f"job-{name}",
                     "labels": {"kueue.x-k8s.io/queue-name": "default"}},
        "spec": {"suspend": True, "headGroupSpec": {"template": {"spec": {"containers": []}}}},
    }  # fmt: skip


def workload(name: str, conditions: list[dict], priority: int = 0) -> dict:
    return {
        "metadata": {
            "name": f"raycluster-{name}",
            "namespace": "team-a",
            "uid": f"wl-{name}",
            "labels": {"kueue.x-k8s.io/job-uid": f"job-{name}"},
            "ownerReferences": [{"kind": "RayCluster", "name": name, "uid": f"job-{name}", "controller": True}],
            "creationTimestamp": "2026-12-04T10:00:00Z",
        },
        "spec": {"queueName": "default", "active": True, "priority": priority, "podSets": [
            {"name": "workers", "count": 1, "template": {"spec": {"containers": [
                {"name": "w", "resources": {"requests": {GPU: "2"}}}]}}}]},
        "status": {"conditions": conditions},
    }  # fmt: skip


def pending(message: str) -> list[dict]:
    return [{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": message}]


def cluster() -> MemoryHub:
    hub = MemoryHub()
    for key in ("rayjobs", "pytorchjobs", "trainjobs", "pods", "events", "nodes", "cohorts"):
        hub.caches[key] = []
    hub.caches["rayclusters"] = [job(n) for n in ("waits", "never", "low", "high")]
    evicted = [
        *pending(WAITING),
        {"type": "Evicted", "status": "True", "reason": "Preempted", "message": PREEMPTED,
         "lastTransitionTime": "2026-12-04T16:03:40Z"},
        {"type": "Preempted", "status": "True", "reason": "InClusterQueue", "message": PREEMPTED,
         "lastTransitionTime": "2026-12-04T16:03:40Z"},
    ]  # fmt: skip
    admitted = [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}]
    hub.caches["workloads"] = [
        workload("waits", pending(WAITING)),
        workload("never", pending(NO_MATCH)),
        workload("low", evicted, priority=100),
        workload("high", admitted, priority=1000),
    ]
    hub.caches["localqueues"] = [{"metadata": {"name": "default", "namespace": "team-a"},
                                  "spec": {"clusterQueue": "team-a-cq"}}]  # fmt: skip
    hub.caches["clusterqueues"] = [
        {
            "metadata": {"name": "team-a-cq"},
            "spec": {"resourceGroups": [{"coveredResources": [GPU], "flavors": [
                {"name": "nvidia-h100-80gb", "resources": [{"name": GPU, "nominalQuota": "8"}]}]}]},
            "status": {"flavorsReservation": [{"name": "nvidia-h100-80gb", "resources": [
                {"name": GPU, "total": "8"}]}]},
        }
    ]  # fmt: skip
    hub.pending["default"] = [
        {"metadata": {"name": f"raycluster-{n}", "namespace": "team-a"}, "positionInLocalQueue": i,
         "positionInClusterQueue": i, "priority": 0}
        for i, n in enumerate(("low", "waits", "never"))
    ]  # fmt: skip
    return hub


def test_jobs_and_workloads_say_the_same_of_each_workload():
    hub = cluster()
    service = JobsService(hub, MemoryWriter(hub), AcceleratorRegistry(), JobSettings())
    jobs = {j.name: j for j in service.list_jobs("namespace").jobs}
    workloads = {w.owner_name: w for w in workloads_answer(hub).workloads}
    for name in ("waits", "never", "low"):
        job, wl = jobs[name], workloads[name]
        assert job.reason == wl.message + ".", name
        assert job.display.place == wl.place, name
    assert "8 of 8 in use" in jobs["waits"].reason  # the ClusterQueue's figures, in both
    assert jobs["waits"].display.place == "2nd in line"
    assert jobs["never"].display.label == "Can never start" and jobs["never"].display.place is None
    assert jobs["low"].reason.startswith("Preempted at 16:03 UTC by RayCluster high (priority 1000, this job's is 100)")
