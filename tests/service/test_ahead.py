"""Who is ahead of a queued job: the workloads before it in its LocalQueue that compete for the same accelerators
on the same flavor, with owner, size, priority and place (plain dicts, the visibility API's and Kueue's shapes)."""

from __future__ import annotations

from memory_cluster import MemoryHub

from jupyter_accel.domain.fit.assess import pending_ahead
from jupyter_accel.services.estimates import queued_ahead
from jupyter_accel.services.snapshot import Snapshot

GPU = "nvidia.com/gpu"
# Kueue 0.17's message for a workload waiting for quota, as devcluster records it
WAITING = (
    "couldn't assign flavors to pod set workers: insufficient unused quota for {res} in flavor {flavor}, 2 more needed"
)


def workload(name: str, requests: dict, *, flavor: str | None = "nvidia-h100-80gb", priority: int = 0, res=GPU) -> dict:
    qr = {"type": "QuotaReserved", "status": "False", "reason": "Pending"}
    if flavor:
        qr["message"] = WAITING.format(res=res, flavor=flavor)
    return {
        "metadata": {
            "name": name,
            "namespace": "team-a",
            "ownerReferences": [{"kind": "PyTorchJob", "name": name.removeprefix("pytorchjob-"), "controller": True}],
        },
        "spec": {
            "queueName": "default",
            "priority": priority,
            "podSets": [{"name": "workers", "count": 1, "template": {"spec": {"containers": [
                {"name": "c", "resources": {"requests": requests}}]}}}],
        },
        "status": {"conditions": [qr]},
    }  # fmt: skip


def item(name: str, position: int, priority: int = 0) -> dict:
    """A PendingWorkload of the visibility API."""
    return {
        "metadata": {"name": name, "namespace": "team-a", "ownerReferences": [{"kind": "PyTorchJob", "name": name}]},
        "priority": priority,
        "positionInLocalQueue": position,
        "positionInClusterQueue": position,
    }


def test_only_those_on_the_same_flavor_compete():
    wls = [
        workload("h100", {GPU: "4"}),
        workload("a100", {GPU: "4"}, flavor="nvidia-a100-mig"),
        workload("unknown", {GPU: "2"}, flavor=None),  # not tried yet: may compete
        workload("amd", {"amd.com/gpu": "1"}, flavor="amd-mi300x", res="amd.com/gpu"),
    ]
    items = [item(w["metadata"]["name"], i) for i, w in enumerate(wls)]
    ahead = pending_ahead(items, 0, {GPU}, wls, flavor="nvidia-h100-80gb")
    assert [a.name for a in ahead] == ["h100", "unknown"]
    assert [a.name for a in pending_ahead(items, 0, {GPU}, wls)] == ["h100", "a100", "unknown"]


def test_a_queued_job_lists_who_is_ahead_with_owner_size_priority_and_place():
    me = workload("pytorchjob-me", {GPU: "2"})
    wls = [
        workload("pytorchjob-big", {GPU: "8"}, priority=100),
        workload("pytorchjob-cpu", {"cpu": "4"}, flavor=None),  # asks for no accelerator: waits for other quota
        workload("pytorchjob-other", {GPU: "1"}, flavor="nvidia-a100-mig"),
        me,
        workload("pytorchjob-after", {GPU: "1"}),
    ]
    hub = MemoryHub()
    hub.caches["workloads"] = wls
    hub.pending["default"] = [item(w["metadata"]["name"], i, w["spec"]["priority"]) for i, w in enumerate(wls)]
    snap = Snapshot.of(hub, [GPU])  # positions from the visibility API's items, as the server reads them
    (ahead,) = queued_ahead(snap, me)
    assert (ahead.name, ahead.owner_kind, ahead.owner_name) == ("pytorchjob-big", "PyTorchJob", "pytorchjob-big")
    assert (ahead.priority, ahead.place, ahead.requests_text) == (100, "1st in line", {GPU: "8"})
    # admitted in the meantime: nobody is ahead any more
    me["status"]["conditions"] = [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved"}]
    assert queued_ahead(snap, me) == []


def test_the_job_view_carries_them_only_while_queued():
    from jupyter_accel.domain.fit.result import Ahead
    from jupyter_accel.domain.fit.wire import pending_ahead as wire
    from jupyter_accel.domain.job_status import JobSeen, job_view

    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "me", "namespace": "team-a", "uid": "u"},
        "spec": {"runPolicy": {"suspend": True}, "pytorchReplicaSpecs": {}},
    }
    ahead = [wire(Ahead("big", "PyTorchJob", "big", 100, 0, {}))]
    queued = workload("pytorchjob-me", {GPU: "2"})
    assert [a.name for a in job_view(job, JobSeen(workload=queued, ahead=ahead)).ahead] == ["big"]
    queued["spec"]["active"] = False  # suspended: nobody is ahead of it
    assert job_view(job, JobSeen(workload=queued, ahead=ahead)).ahead == []
