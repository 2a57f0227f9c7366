"""The widgets against devcluster: live updates pushed through /stream, the launcher's fit check and submit."""

from __future__ import annotations

import time

import pytest

from jupyter_accel.notebook.widgets import AcceleratorView, JobLauncher

pytestmark = pytest.mark.cluster


def _queue_load(view: AcceleratorView) -> int:
    q = next(q for q in view.queues.queues if q.name == "default")
    return q.pending_workloads + q.reserving_workloads + q.admitted_workloads


def test_accelerator_view_follows_the_cluster(cluster_client, unique, wait_until):
    view = AcceleratorView(cluster_client, poll=60)  # a long poll: an update within the wait came through /stream
    name = unique("nbview")
    try:
        assert "gpu-h100-0" in view.inventory_html.value and "team-a-cq" in view.queues_html.value
        wait_until(lambda: view.updates >= 2, timeout=10, what="the refresh on the stream's first event")
        time.sleep(1)
        settled = view.updates
        cluster_client.submit(
            {
                "kind": "pytorch",
                "name": name,
                "workers": 1,
                "image": "busybox",
                "command": ["true"],
                "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
            }
        )
        # Kueue updates the LocalQueue's counts a moment after the job appears: wait for the push that carries it
        # (the 60 s poll cannot be what brings it within 30 s)
        wait_until(
            lambda: view.updates > settled and _queue_load(view) >= 1,
            timeout=30,
            what="the queue's new workload pushed through /stream",
        )
        assert view.queues_html.value  # re-rendered
    finally:
        cluster_client.delete("pytorch", name)
        view.close()


def test_launcher_fit_check_and_submit(cluster_client, unique):
    launcher = JobLauncher(cluster_client, script="print('hello')")
    try:
        assert not launcher.load_errors
        assert "nvidia.com/gpu" in launcher.gpu_type.options and "default" in launcher.queue.options
        launcher.image.value = "busybox"
        launcher.gpus.value = 16
        assert str(launcher.fit_result.verdict) == "never_fits", launcher.fit_result.message
        assert "Can never fit" in launcher.fit_html.value
        launcher.gpus.value = 1
        assert str(launcher.fit_result.verdict) != "never_fits", launcher.fit_result.message
        launcher.job_name.value = name = unique("nbform")
        job = launcher.submit()
        assert job.name == name
        monitor = launcher.monitor
        assert launcher.monitor_box.children == (monitor,)
        try:
            assert monitor.wait(150), f"still {monitor.status}"
            assert monitor.status == "Succeeded"
            assert f"pytorch {name}: Succeeded" in monitor.status_html.value
            assert monitor.logs.value.strip()
            assert not monitor._follower.running or monitor._follower.join(5) is None
        finally:
            cluster_client.delete("pytorch", name)
    finally:
        launcher.close()
