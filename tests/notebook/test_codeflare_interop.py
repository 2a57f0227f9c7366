"""CodeFlare SDK 0.40.1 beside jupyter-accel, on the real node (issue #26): a RayCluster the SDK made is listed with
its pods, their trouble and their logs, as the product's own; it takes Ray jobs through the product; and a cluster
the product made is listed by the SDK's `list_all_clusters` and shown by its widgets without error.

The SDK runs in its own virtualenv (it pins Ray 2.58 and ipywidgets 8.1.2), as the notebook user, from
tests/notebook/codeflare_driver.py."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jupyter_accel.notebook import AccelClient

NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image"]
pytestmark = [pytest.mark.cluster, pytest.mark.devcluster(needs=NODE_PARTS)]

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("codeflare_driver.py")
NAMESPACE = "team-a"
QUEUE = "real-node"  # devcluster's LocalQueue whose flavor places pods on the real node


@pytest.fixture(scope="module")
def codeflare(devcluster, tmp_path_factory) -> Callable[..., tuple[dict[str, Any], str]]:
    made = subprocess.run(
        ["bash", str(REPO / "scripts" / "interop-venv.sh"), "codeflare"], capture_output=True, text=True, timeout=900
    )
    assert made.returncode == 0, made.stderr[-3000:]
    python = Path(made.stdout.strip()) / "bin" / "python"
    home = tmp_path_factory.mktemp("codeflare-home")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "KUBECONFIG": str(devcluster.kubeconfig("notebook-user"))}

    def run(*args: str) -> tuple[dict[str, Any], str]:
        out = subprocess.run([str(python), str(DRIVER), *args], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
        return json.loads(out.stdout.strip().splitlines()[-1]), out.stdout

    return run


def until(what: str, fn: Callable[[], Any], timeout: float = 240) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = fn()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(2)


def test_a_codeflare_cluster_reads_like_our_own_and_ours_reads_in_codeflare(real_node_server, codeflare, unique):
    client = AccelClient(real_node_server.url, real_node_server.token)
    broken, working, ours = unique("cf-pull"), unique("cf-ray"), unique("ours")

    # 1. the SDK's defaults: its image cannot be pulled here, and the product says so, with the pod
    codeflare("make", broken, NAMESPACE, QUEUE)
    try:

        def pull_trouble():
            job = client.job("ray-cluster", broken).job
            return (
                job if job.pods and any(w in (job.reason or "") for w in ("ErrImagePull", "ImagePullBackOff")) else None
            )

        job = until("the pull error", pull_trouble)
        assert str(job.status) == "Starting" and [p.role for p in job.pods] == ["head"], job
        assert "quay.io/modh/ray" in job.reason, job.reason
        listed = {j.name for j in client.jobs(scope="namespace").jobs}
        assert broken in listed
    finally:
        codeflare("delete", broken, NAMESPACE)

    # 2. the SDK with the node's image: it runs, its log reads through the product, and it takes Ray jobs
    codeflare("make", working, NAMESPACE, QUEUE, real_node_server_image(real_node_server))
    try:
        until("the CodeFlare cluster running", lambda: str(client.job("ray-cluster", working).job.status) == "Running")
        head_log = "\n".join(client.logs("ray-cluster", working, tail=200))
        assert "Ray runtime started" in head_log, head_log[-2000:]
        sid = until("Ray's dashboard", lambda: _submit(client, working))
        until(
            "the Ray job",
            lambda: client.ray_job(working, sid)["status"] in ("SUCCEEDED", "FAILED", "STOPPED"),
            timeout=180,
        )
        assert client.ray_job(working, sid)["status"] == "SUCCEEDED"
        assert "HELLO FROM A CODEFLARE CLUSTER 3" in client.ray_job_logs(working, sid)
        detail = client.job("ray-cluster", working)
        assert [r.submission_id for r in detail.ray_jobs or []] == [sid], detail.ray_jobs_note

        # 3. a cluster the product made, in the SDK's list and widgets
        client.submit({"kind": "ray-cluster", "name": ours, "workers": 0, "head": {"cpu": "250m", "memory": "1Gi"}})
        answer, printed = codeflare("list", NAMESPACE)
        assert {working, ours} <= set(answer["clusters"]), answer
        assert ours in answer["widgets"] and working in answer["widgets"], answer
        assert ours in printed  # list_all_clusters printed it
    finally:
        codeflare("delete", working, NAMESPACE)
        with contextlib.suppress(Exception):
            client.delete("ray-cluster", ours)


def _submit(client: AccelClient, name: str) -> str | None:
    try:
        return client.ray_submit(name, "python -c \"print('HELLO FROM A CODEFLARE CLUSTER', 1 + 2)\"")
    except Exception:
        return None  # the dashboard answers a little after the head is ready


def real_node_server_image(server: Any) -> str:
    """The node's runtime image: the default image the product's server gives every kind on the real node."""
    info = AccelClient(server.url, server.token).info()
    kind = next(k for k in info.capabilities.kinds if k.kind == "ray-cluster")
    return kind.default_images[""]
