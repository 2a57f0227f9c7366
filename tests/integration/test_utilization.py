"""Utilization of the user's accelerators from the cluster's metrics API (issue #28), against devcluster's real
Prometheus: it scrapes the real node's device exporter (DCGM's metric names; values from each container's CPU and
memory use, every series labelled simulated) and Kueue's own metrics. The product's queries, parsing and idle
warnings are the real thing; only the devices are not GPUs, and the answers say so."""

from __future__ import annotations

import time

import pytest
from cluster_api import NAMESPACE

NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image", "prometheus"]
pytestmark = [pytest.mark.cluster, pytest.mark.devcluster(needs=NODE_PARTS)]
QUEUE = "real-node"
IDLE_AFTER = 20
BUSY = "import time\nend = time.time() + 300\nwhile time.time() < end:\n    pass\n"
IDLE = "import time\ntime.sleep(300)\n"


@pytest.fixture
def accel_config(devcluster, identity: str) -> dict:
    return {
        "identity": "kubeconfig",
        "kubeconfig": str(devcluster.kubeconfig(identity)),
        "namespace": NAMESPACE,
        "metrics_url": devcluster.metrics_url,
        "idle_device_seconds": IDLE_AFTER,
    }


def job(name: str, image: str, text: str, cpu: str) -> dict:
    return {
        "kind": "pytorch",
        "name": name,
        "image": image,
        "queue": QUEUE,
        "workers": 1,
        "cpu": cpu,  # the busy job may use a whole CPU: its device reads near 100 %
        "memory": "1Gi",
        "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
        "script": {"text": text, "interpreter": "python"},
    }


def row(body: dict, name: str) -> dict | None:
    return next((j for j in body["jobs"] if j["name"] == name), None)


async def test_a_busy_job_reads_busy_an_idle_one_idle_and_warned(api, devcluster, unique):
    image = devcluster.node_image()
    busy, idle = unique("busy"), unique("idle")
    for name, text, cpu in ((busy, BUSY, "1"), (idle, IDLE, "500m")):
        code, out = await api.call("POST", "jobs", job(name, image, text, cpu))
        assert code == 201, out
    try:
        await api.until("jobs", lambda b: (j := row(b, busy)) and j["status"] == "Running", timeout=180)
        running = time.monotonic()
        body = await api.until("utilization", lambda b: (j := row(b, busy)) and (j["percent"] or 0) > 50, timeout=90)
        within = time.monotonic() - running
        print(f"busy job over 50 % {within:.0f} s after it ran")
        assert within <= 60, within
        mine = row(body, busy)
        assert mine["devices"] == 1 and mine["simulated"] == "cpu-use" and mine["idle"] is None
        assert body["source"]["available"] and "NVIDIA DCGM exporter" in body["source"]["exporters"]

        body = await api.until("utilization", lambda b: (j := row(b, idle)) and j["idle"], timeout=120)
        quiet = row(body, idle)
        assert quiet["percent"] is not None and quiet["percent"] < 5, quiet
        assert quiet["idle"].startswith("1 accelerator at 0 % for"), quiet["idle"]
        assert row(body, busy)["idle"] is None

        detail = await api.get(f"jobs/pytorch/{busy}/utilization")
        [device] = detail["devices"]
        assert device["pod"].startswith(busy) and device["simulated"] == "cpu-use"
        assert max(v for _t, v in device["utilization"]) > 50
        assert device["memory_used_mib"] and device["memory_total_mib"] == 16384

        def cpu_in_use(b: dict) -> bool:
            return any(
                s["cluster_queue"] == "real-node-cq"
                and s["resource"] == "cpu"
                and s["usage"]
                and s["usage"][-1][1] >= 1
                for s in b["series"]
            )

        usage = await api.until("queues/usage", cpu_in_use, timeout=120)
        cpu = next(s for s in usage["series"] if s["cluster_queue"] == "real-node-cq" and s["resource"] == "cpu")
        assert cpu["nominal"] == 2 and "Kueue" in usage["source"]["message"]
    finally:
        for name in (busy, idle):
            await api.call("DELETE", f"jobs/pytorch/{name}")
