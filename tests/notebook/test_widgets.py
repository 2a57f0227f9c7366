"""The ipywidgets, driven through their models (trait values, children) against a real Jupyter server."""

from __future__ import annotations

import pytest

from jupyter_accel.notebook import AccelClient
from jupyter_accel.notebook.client import JOB_KINDS
from jupyter_accel.notebook.widgets import AcceleratorView, Follower, JobLauncher, JobMonitor


@pytest.fixture
def client(jupyter_server) -> AccelClient:
    return AccelClient(jupyter_server.url, jupyter_server.token, timeout=20)


def test_accelerator_view_shows_the_server_error_and_stops_on_close(client):
    view = AcceleratorView(client, poll=0.2)
    assert view.inventory is None
    assert "not connected" in view.status.value and "not connected" in view.inventory_html.value
    text = view._repr_mimebundle_()["text/plain"]  # what a terminal or a saved notebook shows
    assert text.startswith("⚠ [503") and "not connected" in text
    assert view._follower.running
    view.close()
    view._follower.join(5)
    assert not view._follower.running


def test_launcher_checks_fields_as_the_user_edits(client):
    launcher = JobLauncher(client)
    assert len(launcher.load_errors) == 4  # jobs, inventory, queues and profiles: all need the cluster
    assert launcher.gpu_type.options == ("nvidia.com/gpu",)  # the fallback when no inventory is visible
    assert launcher.kind.options == JOB_KINDS  # kinds served are unknown: every kind, the fit check judges
    assert launcher.fit_error.status == 503
    launcher.job_name.value = "Not_A_Name"
    assert launcher.fit_error.field == "name" and launcher.fit_error.status is None  # caught before the trip
    assert "lower-case" in launcher.fit_html.value
    launcher.job_name.value = "ok-name"
    assert launcher.fit_error.status == 503
    launcher.max_run.value = "soon"
    assert launcher.fit_error.field == "max_run_seconds" and launcher.fit_error.status is None
    assert "not a duration" in launcher.fit_html.value
    launcher.max_run.value = "1h30m"
    assert launcher.request()["max_run_seconds"] == 5400 and launcher.fit_error.status == 503
    launcher.close()


def test_monitor_keeps_trying_until_closed(client):
    monitor = JobMonitor("pytorch", "nothing-here", client=client, poll=0.2)
    assert monitor.status is None and not monitor.ended.is_set()
    assert "not connected" in monitor.status_html.value
    monitor.close()
    monitor._follower.join(5)
    assert not monitor._follower.running


def test_follower_fires_on_the_first_stream_event_and_stops(client):
    import threading

    fired = threading.Event()
    follower = Follower(client, ("jobs",), fired.set, poll=30).start()
    assert fired.wait(10)  # the "*" event each (re)connection starts with
    follower.stop()
    follower.join(5)
    assert not follower.running


def test_monitor_shows_a_reported_percentage_as_a_bar_and_hides_it_otherwise(client):
    from jupyter_accel.models import JobProgress

    monitor = JobMonitor("trainjob", "nothing-here", client=client, live=False)
    try:
        assert monitor.progress.layout.display == "none"
        monitor._show_progress(JobProgress(percent=50, text="50 %"))
        assert (monitor.progress.value, monitor.progress.description, monitor.progress.layout.display) == (
            50,
            "50 %",
            "",
        )
        monitor._show_progress(JobProgress(percent=None, text="loss 2"))  # numbers, no percentage: no bar
        assert monitor.progress.layout.display == "none"
    finally:
        monitor.close()
