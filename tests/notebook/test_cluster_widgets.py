"""The widgets against devcluster: live updates pushed through /stream, the launcher's fit check and submit."""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from devcluster.manifests import LIVE_LOG_JOB
from jupyter_accel.notebook.widgets import AcceleratorView, JobLauncher, JobMonitor

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
        assert launcher.gpu_type.value == "nvidia.com/gpu"  # the common default, not the first name (amd.com/gpu)
        # devcluster serves every kind: Trainer v2 as CRDs only (no controller; devcluster/components.toml)
        assert set(launcher.kind.options) == {"pytorch", "ray-job", "ray-cluster", "trainjob"}
        launcher.image.value = "busybox"
        launcher.gpus.value = 16
        assert str(launcher.fit_result.verdict) == "never_fits", launcher.fit_result.message
        assert "Can never fit" in launcher.fit_html.value
        launcher.gpus.value = 1
        assert str(launcher.fit_result.verdict) != "never_fits", launcher.fit_result.message
        launcher.job_name.value = name = unique("nbform")
        launcher.max_run.value = "30m"
        job = launcher.submit()
        assert job.name == name and job.max_run_seconds == 1800
        monitor = launcher.monitor
        assert launcher.monitor_box.children == (monitor,)
        assert launcher.submit_button.disabled
        # a second click on the same form finds the same job (idempotency key), not a 409 or a second job
        key = launcher.client_request_id
        assert launcher.submit().name == name and launcher.monitor is monitor
        launcher.cpu.value = "2"  # an edit makes a new job: a new key, Submit enabled again
        assert launcher.client_request_id != key and not launcher.submit_button.disabled
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


def _cri_line(text: str) -> str:
    now = datetime.now(UTC)
    return f"{now:%Y-%m-%dT%H:%M:%S}.{now.microsecond:06d}000Z stdout F {text}\n"


def test_monitor_log_tail_shows_lines_as_the_job_writes_them(devcluster, cluster_client, wait_until):
    """The log tail moves while the job runs, with no status change to trigger a refresh: kwok follows the
    live-log pod's file, and each line appended to it must reach the widget's log box within seconds."""
    name = LIVE_LOG_JOB
    custom = client.CustomObjectsApi(devcluster.api_client("notebook-user"))
    with contextlib.suppress(ApiException):  # a leftover of an interrupted run on a reused cluster
        custom.delete_namespaced_custom_object("kubeflow.org", "v1", "team-a", "pytorchjobs", name)
    wait_until(lambda: name not in [j.name for j in cluster_client.jobs("namespace").jobs], 60, "old job gone")
    devcluster.live_log.write_text(_cri_line("starting"))
    master = {
        "replicas": 1,
        "restartPolicy": "Never",
        "template": {
            "metadata": {"annotations": {"devcluster.jupyter-accel.io/run-for": "120s"}},
            "spec": {"containers": [{"name": "pytorch", "image": "busybox", "command": ["sleep", "120"]}]},
        },
    }
    # watched before it exists (as a job created a moment ago that the server's cache has not seen yet): the
    # monitor must wait for it, not take the 404 for a deletion
    monitor = JobMonitor("pytorch", name, client=cluster_client, poll=60)
    assert monitor.status is None and not monitor.ended.is_set() and monitor._follower.running
    custom.create_namespaced_custom_object(
        "kubeflow.org",
        "v1",
        "team-a",
        "pytorchjobs",
        {
            "apiVersion": "kubeflow.org/v1",
            "kind": "PyTorchJob",
            "metadata": {"name": name, "labels": {"kueue.x-k8s.io/queue-name": "default"}},
            "spec": {"pytorchReplicaSpecs": {"Master": master}},
        },
    )
    try:
        seen: list[tuple] = []

        def following() -> bool:
            seen.append((monitor.status, monitor.following_logs, monitor.updates, monitor.logs.placeholder))
            return seen[-1][:2] == ("Running", True)

        try:
            wait_until(following, 90, "the monitor following")
        except AssertionError:
            raise AssertionError(f"monitor (status, following, updates, placeholder): {seen[-1]}") from None
        wait_until(lambda: "starting" in monitor.logs.value, 15, "the first line")
        for i in range(3):
            with devcluster.live_log.open("a") as f:
                f.write(_cri_line(f"step {i}: loss {1.0 / (i + 1):.3f}"))
            wait_until(lambda i=i: f"step {i}:" in monitor.logs.value, 15, f"line {i} in the log box")
        assert monitor.status == "Running" and not monitor.ended.is_set()
        assert monitor.logs.value.splitlines()[-1].startswith("step 2:")
        assert monitor._log_follow.connections == 1  # one stream carried every line: no re-polling
    finally:
        monitor.close()
        custom.delete_namespaced_custom_object("kubeflow.org", "v1", "team-a", "pytorchjobs", name)
    assert not monitor.following_logs
