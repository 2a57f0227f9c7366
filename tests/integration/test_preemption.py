"""Who preempted me, on Kueue itself: a low-priority Ray cluster is preempted by a high-priority one in a
ClusterQueue that preempts lower priorities (made here), and /jobs and /workloads both name the preemptor, with
its priority and why."""

from __future__ import annotations

import uuid

import pytest
from cluster_api import NAMESPACE, admin_create, admin_delete

pytestmark = pytest.mark.cluster
KUEUE = "kueue.x-k8s.io/v1beta2"


@pytest.fixture
def preempting_queue(admin_api):
    """A ClusterQueue of 2 H100 that preempts lower priorities, and a LocalQueue of team-a on it."""
    suffix = uuid.uuid4().hex[:5]
    cq, lq = f"preempt-cq-{suffix}", f"preempt-{suffix}"
    admin_create(admin_api, {
        "apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": cq},
        "spec": {
            "namespaceSelector": {},
            "preemption": {"withinClusterQueue": "LowerPriority"},
            "resourceGroups": [
                {"coveredResources": ["cpu", "memory"], "flavors": [{"name": "default-flavor", "resources": [
                    {"name": "cpu", "nominalQuota": 16}, {"name": "memory", "nominalQuota": "64Gi"}]}]},
                {"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "nvidia-h100-80gb", "resources": [
                    {"name": "nvidia.com/gpu", "nominalQuota": 2}]}]},
            ],
        },
    })  # fmt: skip
    admin_create(
        admin_api,
        {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": lq}, "spec": {"clusterQueue": cq}},
        NAMESPACE,
    )
    yield lq
    admin_delete(admin_api, KUEUE, "LocalQueue", lq, NAMESPACE)
    admin_delete(admin_api, KUEUE, "ClusterQueue", cq)


def raycluster(name: str, queue: str, priority_class: str) -> dict:
    return {
        "kind": "ray-cluster",
        "name": name,
        "image": "rayproject/ray:2.41.0",
        "queue": queue,
        "priority_class": priority_class,
        "workers": 1,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 2},
    }


def job_of(body: dict, name: str) -> dict | None:
    return next((j for j in body["jobs"] if j["name"] == name), None)


@pytest.mark.parametrize("identity", ["admin"])  # reads the preemptor's Workload (the notebook user may too)
async def test_a_preempted_job_names_who_preempted_it_why_and_reads_the_same_in_workloads(
    api, unique, preempting_queue
):
    low, high = unique("low"), unique("high")
    try:
        code, out = await api.call("POST", "jobs", raycluster(low, preempting_queue, "low-priority"))
        assert code == 201, out
        await api.until("jobs", lambda b: (j := job_of(b, low)) and j["status"] == "Running", timeout=120)
        code, out = await api.call("POST", "jobs", raycluster(high, preempting_queue, "high-priority"))
        assert code == 201, out
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, low)) and (j["reason"] or "").startswith("Preempted"), timeout=120
        )
        job = job_of(body, low)
        assert job["status"] == "Queued", job
        assert f"by RayCluster {high} (priority 1000, this job's is 100)" in job["reason"], job["reason"]
        assert "it has a higher priority in the same ClusterQueue" in job["reason"]
        workloads = await api.get("workloads")
        wl = next(w for w in workloads["workloads"] if w["owner_name"] == low)
        assert wl["reason"] == "InClusterQueue" and job["reason"] == wl["message"] + "."
    finally:
        for name in (high, low):
            await api.call("DELETE", f"jobs/ray-cluster/{name}")
