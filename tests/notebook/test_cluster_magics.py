"""The magics in a real kernel against devcluster, through a real Jupyter server."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.cluster


def text_of(result) -> str:
    return "\n".join(result.data("text/plain"))


def test_reads(cluster_kernel):
    gpus = cluster_kernel.run("%accel gpus")
    assert gpus.ok, gpus.error
    assert "nvidia.com/gpu" in text_of(gpus) and "gpu-h100-0" in text_of(gpus)
    assert "<table>" in gpus.data("text/html")[0]
    queues = cluster_kernel.run("%accel queues")
    assert "default → team-a-cq (default)" in text_of(queues)
    fit = cluster_kernel.run("%accel fit --kind pytorch --workers 2 --gpus 1")
    assert text_of(fit).startswith("Fits now"), text_of(fit)
    never = cluster_kernel.run("%accel fit --kind pytorch --workers 2 --gpus 16 --gpu-type nvidia.com/gpu")
    assert text_of(never).startswith("Can never fit"), text_of(never)
    info = cluster_kernel.run("%accel info")
    assert "Kubernetes: connected" in text_of(info)


def test_this_workbench_and_a_previewed_profile_change(cluster_kernel, cluster_client):
    """The test servers say they run in devcluster's Notebook notebook-tests (NB_PREFIX)."""
    before = cluster_client.workbench()
    shown = cluster_kernel.run("%accel workbench")
    assert shown.ok, shown.error
    assert "This workbench" in text_of(shown) and before.message in text_of(shown)
    preview = cluster_kernel.run("%accel workbench --profile nvidia-h100-queued --dry-run")
    assert preview.ok, preview.error
    text = text_of(preview)
    assert "Not changed yet (preview): workbench notebook-tests" in text, text
    assert "hardware-profile-name" in text and "nvidia-h100-queued" in text and "Save your notebooks" in text
    after = cluster_client.workbench()
    assert after.hardware_profile == before.hardware_profile and after.requests == before.requests
    bad = cluster_kernel.run("%accel workbench --profile no-such-profile --dry-run")
    assert not bad.ok and "hardware_profile" in str(bad.error), bad.error


def test_cell_job_with_wait_streams_logs_and_ends(cluster_kernel, cluster_client, unique):
    name = unique("nbcell")
    result = cluster_kernel.run(
        f"%%accel_job --kind pytorch --workers 2 --gpus 1 --image busybox --name {name} --wait --timeout 150\n"
        "import torch.distributed as dist\nprint('rank', dist.get_rank())\n",
        timeout=200,
    )
    try:
        assert result.ok, result.error
        final = result.data("text/plain")[-1]  # the status display, updated to the end state
        assert final.startswith(f"pytorch {name}: Succeeded"), final
        assert result.stream().strip()  # the logs were printed
        logs = cluster_kernel.run(f"%accel logs {name} --tail 2")  # no --kind: found by name
        assert logs.ok, logs.error
        label, *lines = logs.stream().strip().splitlines()  # the server kept it: its sentence says so first
        assert label.startswith("Kept by the server since") and 0 < len(lines) <= 2, (label, lines)
        assert all(line.startswith("[") for line in lines), lines  # every pod's lines, each with its pod
        status = cluster_kernel.run(f"%accel status {name}")
        assert text_of(status).startswith(f"pytorch {name}: Succeeded")
        jobs = cluster_kernel.run("%accel jobs")
        assert name in text_of(jobs)
    finally:
        deleted = cluster_kernel.run(f"%accel delete {name}")
    assert deleted.ok and f"Deleting pytorch {name}" in deleted.stream()
    missing = cluster_kernel.run(f"%accel status {name}-nope")
    assert not missing.ok and "No job named" in "\n".join(missing.error["traceback"])


def test_cell_job_without_wait_shows_a_live_monitor(cluster_kernel, cluster_client, unique, wait_until):
    name = unique("nbmon")
    result = cluster_kernel.run(
        f"%%accel_job --kind ray-job --workers 1 --image rayproject/ray:2.41.0 --name {name}\nprint('hi')\n"
    )
    try:
        assert result.ok, result.error
        assert result.data("application/vnd.jupyter.widget-view+json"), result.outputs
        # its text form (nbconvert, a saved notebook without widget state) is the job, not a trait dump
        assert result.data("text/plain")[0].startswith(f"ray-job {name}:"), result.data("text/plain")
        check = cluster_kernel.run("monitor = _\nprint(monitor.name, monitor._follower.running)")
        assert check.ok, check.error
        assert check.stream().split() == [name, "True"]
        suspended = cluster_kernel.run(f"%accel suspend {name}")
        assert suspended.ok, suspended.error
        wait_until(
            lambda: str(cluster_client.job("ray-job", name).job.status) == "Suspended", timeout=90, what="Suspended"
        )
        assert cluster_kernel.run(f"%accel resume {name} --kind ray-job").ok
    finally:
        cluster_kernel.run(f"%accel delete {name} --kind ray-job")
    closed = cluster_kernel.run("monitor.close(); monitor._follower.join(10); print(monitor._follower.running)")
    assert closed.stream().strip() == "False", closed


def test_terminal_ipython_gets_the_job_as_text_not_a_widget(cluster_server, cluster_client, unique, tmp_path):
    """In a terminal (no widget front-end) %%accel_job shows the submitted job and how to follow it."""
    name = unique("nbterm")
    cell = f"%%accel_job --kind pytorch --workers 1 --image busybox --name {name}\nprint('hi')\n"
    env = {**cluster_server.env(), "IPYTHONDIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "IPython", "--ext=jupyter_accel", "--colors=nocolor", "-c", cell],
        env=env,
        cwd=cluster_server.root_dir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        assert out.returncode == 0, out.stderr
        assert f"pytorch {name}:" in out.stdout, out.stdout
        assert f"%accel logs {name} --follow" in out.stdout
        assert "JobMonitor(" not in out.stdout and "VBox(" not in out.stdout
        assert cluster_client.job("pytorch", name).job.name == name
    finally:
        cluster_client.delete("pytorch", name)
