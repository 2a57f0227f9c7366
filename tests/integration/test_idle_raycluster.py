"""An interactive Ray cluster on devcluster's real node (a real Ray head) that holds a device and runs nothing gets
a warning, read from its own Ray dashboard through the API server's service proxy; a Ray job running there clears
it. The server checks after 20 s here (the default is 15 minutes)."""

from __future__ import annotations

import json

import pytest
from cluster_api import NAMESPACE

from jupyter_accel.cluster import rest

NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image"]
pytestmark = [pytest.mark.cluster, pytest.mark.devcluster(needs=NODE_PARTS)]
SLEEPS = "python -c 'import ray, time; ray.init(); ray.get(ray.remote(lambda: time.sleep(150)).remote())'"


@pytest.fixture
def accel_config(devcluster, identity: str) -> dict:
    return {
        "identity": "kubeconfig",
        "kubeconfig": str(devcluster.kubeconfig(identity)),
        "namespace": NAMESPACE,
        "idle_warning_seconds": 20,
    }


def job_of(body: dict, name: str) -> dict | None:
    return next((j for j in body["jobs"] if j["name"] == name), None)


def warning(body: dict, name: str) -> str | None:
    return ((job_of(body, name) or {}).get("display") or {}).get("warning")


async def test_a_raycluster_that_holds_a_device_and_runs_nothing_is_flagged_until_it_runs_a_job(
    devcluster, api, unique
):
    name = unique("idle")
    req = {"kind": "ray-cluster", "name": name, "image": devcluster.node_image(), "queue": "real-node",
           "workers": 1, "cpu": "500m", "memory": "1Gi", "head": {"cpu": "500m", "memory": "2Gi"},
           "accelerators": {"resource": "nvidia.com/gpu", "count": 1}}  # fmt: skip
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=300)
        body = await api.until("jobs", lambda b: warning(b, name), timeout=150)
        assert warning(body, name).startswith("Holds 1 nvidia.com/gpu and has run nothing for"), warning(body, name)
        detail = await api.get(f"jobs/ray-cluster/{name}")
        assert detail["job"]["display"]["warning"] == warning(body, name)
        # a Ray job there (submitted to its dashboard, as `ray job submit` does): the warning goes
        proxy = f"/api/v1/namespaces/{NAMESPACE}/services/{name}-head-svc:dashboard/proxy/api/jobs/"
        submitted = rest.request(devcluster.api_client("admin"), "POST", proxy, body={"entrypoint": SLEEPS})
        assert submitted.get("submission_id"), json.dumps(submitted)
        await api.until("jobs", lambda b: job_of(b, name) is not None and not warning(b, name), timeout=120)
    finally:
        await api.call("DELETE", f"jobs/ray-cluster/{name}")
