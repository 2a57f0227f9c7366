"""%accel util and the JobMonitor's line of accelerator use, in a server configured as `make demo` is (jobs on
devcluster's real node, its Prometheus as the metrics API; issue #28)."""

from __future__ import annotations

import time

import pytest

from jupyter_accel.notebook import AccelClient
from jupyter_accel.notebook.magics import AccelMagics
from jupyter_accel.notebook.widgets.monitor import JobMonitor

NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image", "prometheus"]
pytestmark = [pytest.mark.cluster, pytest.mark.devcluster(needs=NODE_PARTS)]
BUSY = "import time\nend = time.time() + 240\nwhile time.time() < end:\n    pass\n"


def test_util_magic_and_the_monitor_show_a_busy_jobs_devices(real_node_server, unique):
    client = AccelClient(real_node_server.url, real_node_server.token)
    name = unique("util")
    client.submit(
        {
            "kind": "pytorch",
            "name": name,
            "workers": 1,
            "cpu": "1",
            "memory": "1Gi",
            "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
            "script": {"text": BUSY, "interpreter": "python"},
        }
    )
    try:
        deadline = time.monotonic() + 240
        while True:
            row = next((j for j in client.utilization().jobs if j.name == name), None)
            if row is not None and (row.percent or 0) > 50:
                break
            assert time.monotonic() < deadline, row
            time.sleep(5)
        magics = AccelMagics(shell=None, client=client)
        listing = repr(magics.accel("util"))
        assert name in listing and "Simulated devices" in listing, listing
        one = repr(magics.accel(f"util {name}"))
        assert "devcluster-gpu-" in one and f"Accelerator use of {name}" in one, one
        monitor = JobMonitor("pytorch", name, client, live=False)
        monitor.show_use()
        assert "Accelerator use:" in monitor.use_html.value and "simulated: CPU use" in monitor.use_html.value
        monitor.close()
    finally:
        client.delete("pytorch", name)
