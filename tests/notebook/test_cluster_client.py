"""AccelClient against devcluster: reads, fit, and a job's whole life (submit, logs, suspend, resume, delete)."""

from __future__ import annotations

import threading

import pytest

from jupyter_accel.notebook import AccelError

pytestmark = pytest.mark.cluster


def test_reads_parse_into_models(cluster_client):
    inv = cluster_client.inventory()
    assert "nvidia.com/gpu" in inv.accelerator_names
    h100 = next(m for m in inv.models if m.resource == "nvidia.com/gpu" and "H100" in m.model)
    page = cluster_client.inventory_nodes(h100.model, limit=1)  # by name, as %accel nodes --model takes it
    assert page.model == h100.key and page.total == h100.node_count and len(page.nodes) == 1
    assert page.nodes[0].name.startswith("gpu-h100")
    assert sum(len(cluster_client.inventory_nodes(offset=o, limit=2).nodes) for o in range(0, inv.node_count, 2)) == (
        inv.node_count
    )  # the pages cover every node once
    queues = cluster_client.queues()
    assert queues.default_queue == "default"
    assert any(q.cluster_queue == "team-a-cq" for q in queues.queues)
    assert cluster_client.profiles().profiles  # devcluster seeds hardware profiles
    cluster_client.workloads()


def test_fit_verdicts(cluster_client):
    small = cluster_client.fit({"kind": "pytorch", "workers": 1, "command": ["true"], "cpu": "100m", "memory": "128Mi"})
    assert small.verdict == "fits_now", small.message  # a sliver of CPU fits even on a busy shared cluster
    huge = cluster_client.fit(
        {
            "kind": "pytorch",
            "workers": 2,
            "command": ["true"],
            "accelerators": {"resource": "nvidia.com/gpu", "count": 16},
        }
    )
    assert huge.verdict == "never_fits", huge.message


def test_job_life_cycle(cluster_client, unique, wait_until):
    c = cluster_client
    name = unique("nbclient")
    request = {
        "kind": "pytorch",
        "name": name,
        "workers": 2,
        "image": "busybox",
        "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
        "script": {"text": "print('hello from the notebook')"},
    }
    submitted = c.submit(request)
    assert submitted.created and submitted.job.name == name
    try:
        with pytest.raises(AccelError) as clash:
            c.submit(request)
        assert clash.value.status == 409
        assert c.find_job(name).kind == "pytorch"
        mine = c.jobs("mine")
        assert any(j.name == name and j.managed_by_us for j in mine.jobs)
        detail = wait_until(
            lambda: (d := c.job("pytorch", name)) and str(d.job.status) == "Succeeded" and d,
            timeout=150,
            what=f"{name} Succeeded",
        )
        assert len(detail.job.pods) == 2
        lines = list(c.logs("pytorch", name, tail=3))
        assert 0 < len(lines) <= 3
    finally:
        c.delete("pytorch", name)
    wait_until(lambda: not any(j.name == name for j in c.jobs("namespace").jobs), timeout=60, what="deleted")
    with pytest.raises(AccelError) as gone:
        c.job("pytorch", name)
    assert gone.value.status == 404


def test_suspend_resume_and_follow_closed_by_another_thread(cluster_client, unique, wait_until):
    c = cluster_client
    name = unique("nbray")
    c.submit({"kind": "ray-cluster", "name": name, "workers": 1, "image": "rayproject/ray:2.41.0"})

    def status() -> str | None:
        try:
            return str(c.job("ray-cluster", name).job.status)
        except AccelError as exc:  # the server's cache may see the new job a moment after the submit answered
            if exc.status == 404:
                return None
            raise

    try:
        wait_until(lambda: status() == "Running", timeout=120, what="Running")
        c.suspend("ray-cluster", name)
        wait_until(lambda: str(c.job("ray-cluster", name).job.status) == "Suspended", timeout=90, what="Suspended")
        c.resume("ray-cluster", name)  # its answer may still show the cached Suspended state
        wait_until(lambda: str(c.job("ray-cluster", name).job.status) == "Running", timeout=120, what="resumed")
        stream = c.logs("ray-cluster", name, follow=True)
        reader_done = threading.Event()
        threading.Thread(target=lambda: (list(stream), reader_done.set()), daemon=True).start()
        assert not reader_done.wait(1.0)  # a running head keeps the stream open
        stream.close()
        assert reader_done.wait(5), "close() did not end the log stream"
    finally:
        c.delete("ray-cluster", name)  # also checks the server still serves writes after a closed follow
