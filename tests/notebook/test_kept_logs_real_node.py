"""Logs that survive and show every rank (issue #26), on devcluster's real node, through a real Jupyter server and a
real kernel: `--wait` prints every rank's lines, each with its pod's prefix; a job that failed within a second shows
its whole log after its pods are gone, and again after the Jupyter server restarted."""

from __future__ import annotations

import time

import pytest

from jupyter_accel.cluster import rest
from jupyter_accel.notebook import AccelClient

NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image"]
pytestmark = [pytest.mark.cluster, pytest.mark.devcluster(needs=NODE_PARTS)]
KINDS = ("ray-cluster", "ray-job", "pytorch", "trainjob")

# every rank prints, then they meet at MASTER_ADDR:MASTER_PORT as torch's rendezvous would: the master (whose success
# ends the job, and whose operator then removes what still runs) ends only after every worker has printed
RANK_CELL = """import os, socket, time
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
print(f"hello from rank {rank} of {world}", flush=True)
if rank == 0:
    server = socket.create_server(("", port))
    server.settimeout(200)
    for _ in range(world - 1):
        server.accept()[0].close()
    time.sleep(2)
else:
    deadline = time.monotonic() + 200
    while True:
        try:
            socket.create_connection((addr, port), timeout=5).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)
"""


def real_node_config(devcluster) -> dict:
    image = devcluster.node_image()
    assert image, "the real node is declared present but is not running"
    return {"default_images": dict.fromkeys(KINDS, image), "default_queue": "real-node"}


def test_wait_prints_every_ranks_lines_each_with_its_pod(node_kernel, unique):
    name = unique("ranks")
    result = node_kernel.run(
        f"%%accel_job --kind pytorch --workers 2 --gpus 1 --cpu 500m --memory 1Gi --interpreter python "
        f"--name {name} --wait --timeout 240\n{RANK_CELL}",
        timeout=300,
    )
    try:
        assert result.ok, result.error
        out = result.stream()
        for rank, pod in ((0, "master-0"), (1, "worker-0")):
            assert f"[{pod}] hello from rank {rank} of 2" in out, out
        one = node_kernel.run(f"%accel logs {name} --pod {name}-worker-0")  # one pod only, no prefix
        assert one.ok and "hello from rank 1 of 2" in one.stream() and "[worker-0]" not in one.stream()
    finally:
        node_kernel.run(f"%accel delete {name}")


def test_a_job_that_failed_within_a_second_keeps_its_whole_log_after_its_pods_and_a_restart(
    devcluster, tmp_path, unique, start_connected_server
):
    name = unique("quick")
    admin = devcluster.api_client("admin")
    server = start_connected_server(tmp_path, real_node_config(devcluster))
    try:
        client = AccelClient(server.url, server.token)
        script = "print('step 1 ok', flush=True)\nraise SystemExit(5)\n"
        client.submit(
            {
                "kind": "pytorch",
                "name": name,
                "script": {"text": script, "interpreter": "python"},
                "workers": 1,
                "cpu": "500m",
                "memory": "1Gi",
            }
        )
        deadline = time.monotonic() + 180
        while str((detail := client.job("pytorch", name)).job.status) != "Failed":
            assert time.monotonic() < deadline, detail.job
            time.sleep(0.5)
        # the operator may keep a failed job's pods: remove them as others do, and wait until the server saw it
        path = rest.resource_path("", "v1", "pods", "team-a")
        rest.request(admin, "DELETE", path, query={"labelSelector": f"training.kubeflow.org/job-name={name}"})
        while (detail := client.job("pytorch", name)).job.pods:
            assert time.monotonic() < deadline, detail.job.pods
            time.sleep(0.5)
        for attempt in ("before", "after a restart"):
            assert detail.logs is not None and detail.logs.sentence, (attempt, detail.logs)
            assert "ran and were removed; their logs were kept" in detail.logs.sentence, (attempt, detail.logs)
            (kept,) = detail.logs.pods
            assert kept.kept and kept.complete and not kept.live, (attempt, kept)
            stream = client.logs("pytorch", name)  # the default pod: the master's, from the kept copy
            lines, label = list(stream), stream.label()
            assert "step 1 ok" in lines and label and "kept by the server" in label, (attempt, lines, label)
            every = list(client.logs("pytorch", name, all_pods=True))
            assert "[master-0] step 1 ok" in every, (attempt, every)
            if attempt == "before":
                server.process.terminate()  # the restart: the same storage, a new server
                server.process.wait(20)
                server = start_connected_server(tmp_path, real_node_config(devcluster))
                client = AccelClient(server.url, server.token)
                detail = client.job("pytorch", name)
    finally:
        AccelClient(server.url, server.token).delete("pytorch", name)
