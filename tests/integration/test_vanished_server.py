"""An API server that vanishes after the caches are warm: writes answer 503 JSON "cannot be reached" (never a 500
or a traceback) and create or delete nothing.

The server extension reaches the devcluster through a loopback socat relay that the test cuts, so the shared
API server itself stays up for the other tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
import yaml
from cluster_api import NAMESPACE, admin_delete
from test_jobs_api import admin_list, pytorch, ray_cluster

pytestmark = pytest.mark.cluster


class Relay:
    """socat on 127.0.0.1:<port> forwarding to the API server; `cut()` kills it with every forked connection."""

    def __init__(self, upstream_port: int) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            ["socat", f"TCP-LISTEN:{self.port},bind=127.0.0.1,reuseaddr,fork", f"TCP:127.0.0.1:{upstream_port}"],
            start_new_session=True,  # its own process group: the forked per-connection children die with it
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        self.cut()
        raise RuntimeError("the socat relay did not start listening")

    def cut(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@pytest.fixture
def relay(devcluster) -> Iterator[Relay]:
    r = Relay(devcluster.ports["apiserver"])
    yield r
    r.cut()


@pytest.fixture
def accel_config(devcluster, relay: Relay, tmp_path) -> dict:
    """The notebook user's kubeconfig, its server swapped for the relay (the certificate names 127.0.0.1)."""
    conf = yaml.safe_load(devcluster.kubeconfig("notebook-user").read_text())
    for cluster in conf["clusters"]:
        cluster["cluster"]["server"] = f"https://127.0.0.1:{relay.port}"
    path = tmp_path / "relayed.kubeconfig"
    path.write_text(yaml.safe_dump(conf))
    return {"identity": "kubeconfig", "kubeconfig": str(path), "namespace": NAMESPACE, "request_timeout": 5.0}


def _is_unreachable(code: int, body: dict | None) -> bool:
    return (
        code == 503
        and body is not None
        and body["reason"] == "Not connected"
        and "cannot be reached" in body["message"]
        and "Traceback" not in body["message"]
    )


async def test_writes_after_the_api_server_vanished_answer_503(api, admin_api, relay, unique):
    kept = unique("kept")
    code, out = await api.call("POST", "jobs", ray_cluster(kept, 1, 1))
    assert code == 201, out
    try:
        await api.until("jobs", lambda b: any(j["name"] == kept for j in b["jobs"]))  # in the warm cache
        relay.cut()

        fresh = unique("fresh")
        code, err = await api.call("POST", "jobs", pytorch(fresh, 1, 1))
        assert _is_unreachable(code, err), (code, err)
        code, err = await api.call("DELETE", f"jobs/ray-cluster/{kept}")
        assert _is_unreachable(code, err), (code, err)
        code, err = await api.call("POST", f"jobs/ray-cluster/{kept}/suspend")
        assert _is_unreachable(code, err), (code, err)

        assert fresh not in admin_list(admin_api, "pytorchjobs")
        assert kept in admin_list(admin_api, "rayclusters", "ray.io")
    finally:
        admin_delete(admin_api, "ray.io/v1", "RayCluster", kept, NAMESPACE)
