"""Without a metrics API, or with one that cannot be reached: the charts say why they are empty, and nothing else
breaks (issue #28). Jobs on kwok's nodes, which hold accelerators the way real pods do."""

from __future__ import annotations

import socket

import pytest
from cluster_api import NAMESPACE

pytestmark = pytest.mark.cluster


@pytest.fixture
def metrics_url() -> str:
    return ""


@pytest.fixture
def accel_config(devcluster, identity: str, metrics_url: str) -> dict:
    return {
        "identity": "kubeconfig",
        "kubeconfig": str(devcluster.kubeconfig(identity)),
        "namespace": NAMESPACE,
        "metrics_url": metrics_url,
    }


def gpu_job(name: str) -> dict:
    # a Ray cluster: kwok keeps its pods running until it is deleted (a PyTorchJob's end after 5 s)
    return {
        "kind": "ray-cluster",
        "name": name,
        "image": "busybox",
        "workers": 1,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
    }


async def _with_running_job(api, unique):
    name = unique("nometrics")
    code, out = await api.call("POST", "jobs", gpu_job(name))
    assert code == 201, out
    await api.until(
        "jobs", lambda b: any(j["name"] == name and j["status"] == "Running" for j in b["jobs"]), timeout=90
    )
    return name


async def test_no_metrics_api_says_so_and_the_rest_works(api, unique):
    name = await _with_running_job(api, unique)
    try:
        body = await api.get("utilization")
        assert body["source"]["available"] is False and "metrics_url" in body["source"]["message"], body
        assert body["jobs"] == []
        detail = await api.get(f"jobs/ray-cluster/{name}/utilization")
        assert detail["source"]["available"] is False and detail["devices"] == []
        usage = await api.get("queues/usage")
        assert usage["source"]["available"] is False and usage["series"] == []
        jobs = await api.get("jobs")
        assert any(j["name"] == name for j in jobs["jobs"])  # the job list is unaffected
    finally:
        await api.call("DELETE", f"jobs/ray-cluster/{name}")


class TestUnreachable:
    @pytest.fixture
    def metrics_url(self) -> str:
        with socket.socket() as s:  # a loopback port nobody listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def test_an_unreachable_metrics_api_is_named_not_a_500(self, api, unique, metrics_url):
        name = await _with_running_job(api, unique)
        try:
            code, body = await api.call("GET", "utilization")
            assert code == 200, body
            assert body["source"]["available"] is False
            assert body["source"]["message"].startswith(f"The metrics API at {metrics_url} cannot be reached")
            code, detail = await api.call("GET", f"jobs/ray-cluster/{name}/utilization")
            assert code == 200 and "cannot be reached" in detail["source"]["message"]
        finally:
            await api.call("DELETE", f"jobs/ray-cluster/{name}")


class TestAnswersWithoutSeries:
    """A metrics API that answers but has no device series for the pods (kwok's nodes run no exporter)."""

    @pytest.fixture
    def metrics_url(self, devcluster) -> str:
        return devcluster.metrics_url

    @pytest.mark.devcluster(needs=["prometheus"])
    async def test_no_series_for_its_pods_is_said_in_the_detail(self, api, unique):
        name = await _with_running_job(api, unique)
        try:
            body = await api.get("utilization")
            [mine] = [j for j in body["jobs"] if j["name"] == name]
            assert body["source"]["available"] and mine["devices"] == 0 and mine["percent"] is None
            detail = await api.get(f"jobs/ray-cluster/{name}/utilization")
            assert detail["devices"] == [] and "no device series for its pods" in detail["note"]
        finally:
            await api.call("DELETE", f"jobs/ray-cluster/{name}")
