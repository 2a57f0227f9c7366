"""The API server killed and started again (issue #19), each with its measured recovery time in the "reliability
figures":

- during watches: /info's connection.degraded says the watches are reconnecting, the push stream announces it, and
  both clear once the caches listed again; a job submitted afterwards shows in the cached list;
- during a followed log: the client sees a broken stream (no closing chunk), not the log's end, and asking again
  resumes it with the lines written since.

They stop a devcluster process, so they need the session's own cluster, and run last (conftest.py)."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from polling import poll_until as _until
from reliability_report import note
from server_watch import Watcher

from devcluster.jupyter_server import JupyterProcess
from devcluster.manifests import LIVE_LOG_JOB
from devcluster.process import stop_together
from devcluster.rest import ApiError

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def owned(devcluster):
    if not devcluster.procs:
        pytest.skip("these tests stop and start devcluster processes: they need the session's own cluster")
    return devcluster


@pytest.fixture(scope="module")
def server(owned, tmp_path_factory) -> Iterator[JupyterProcess]:
    accel = {"identity": "kubeconfig", "kubeconfig": str(owned.kubeconfig("notebook-user")), "namespace": "team-a"}
    srv = JupyterProcess(tmp_path_factory.mktemp("jupyter"), accel).start()
    try:
        srv.wait_connected()
        yield srv
    finally:
        srv.stop()


class Restart:
    """Kill the API server (SIGKILL: Cluster.restart's SIGTERM lets it drain its watches for up to 10 s first), keep it
    down for `down_for` seconds and start it again with the same command line, in a thread; `killed_at` is when the
    process was gone, `ready_at` when it passed /readyz again."""

    NAME = "kube-apiserver"

    def __init__(self, cluster, down_for: float = 3.0) -> None:
        self.cluster, self.down_for = cluster, down_for
        self.killed_at = 0.0
        self.ready_at: float | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Restart:
        self.killed_at = time.monotonic()
        stop_together([self.cluster.recorded[self.NAME]], grace=0)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            time.sleep(self.down_for)
            self.cluster.recorded[self.NAME] = self.cluster.procs[self.NAME].start()
            self.cluster._write_state("running")
            _until(lambda: _ready(self.cluster), 90, "the API server ready again")
            self.ready_at = time.monotonic()
        except BaseException as exc:  # surfaced by join()
            self.error = exc

    def join(self, timeout: float = 120) -> float:
        self._thread.join(timeout)
        assert self.error is None, self.error
        assert self.ready_at is not None, "the API server did not come back"
        return self.ready_at


def _ready(cluster) -> bool:
    try:
        return bool(cluster.admin.get("/readyz"))
    except (OSError, ApiError):
        return False


def _cri(text: str) -> str:
    now = datetime.now(UTC)
    return f"{now:%Y-%m-%dT%H:%M:%S}.{now.microsecond:06d}000Z stdout F {text}\n"


def _listed(server: JupyterProcess, name: str) -> bool:
    code, body = server.get_json("/accel/v1/jobs")
    return code == 200 and any(j["name"] == name for j in body["jobs"])


def test_watches_reconnect_and_the_push_stream_tells(owned, server):
    with Watcher(server) as w:
        restart = Restart(owned).start()
        t_shown = _until(
            lambda: next((t for t, r, _ in w.states if r == "reconnecting"), None), 60, "'reconnecting' in /info"
        )
        message = next(m for _, r, m in w.states if r == "reconnecting")
        assert message.startswith("Reconnecting to the Kubernetes API server"), message
        t_push = w.info_pushed(restart.killed_at, timeout=10)
        t_ready = restart.join()
        t_clear = w.clear_after(t_ready, 90)
        w.info_pushed(t_clear - 2.0, timeout=10)  # the clearing is announced too
    name = f"after-restart-{int(time.time()) % 100000}"
    body = {"kind": "pytorch", "name": name, "queue": "default", "workers": 1, "command": ["true"]}
    code, answer = server.get_json("/accel/v1/jobs", method="POST", body=body)
    t_submitted = time.monotonic()
    try:
        assert code == 201, answer
        _until(lambda: _listed(server, name), 30, "the new job in the cached list")
        t_listed = time.monotonic()
    finally:
        server.get_json(f"/accel/v1/jobs/pytorch/{name}", method="DELETE")
    note(
        f"apiserver killed (down 3 s) during watches: 'reconnecting' in /info {t_shown - restart.killed_at:.1f} s "
        f"and pushed {t_push - restart.killed_at:.1f} s after the kill; API server ready "
        f"{t_ready - restart.killed_at:.1f} s after the kill; watches back (degraded cleared) "
        f"{t_clear - t_ready:.1f} s after that; a job submitted then was in the cached list "
        f"{t_listed - t_submitted:.1f} s later"
    )


@pytest.fixture
def live_log_job(owned, server) -> Iterator[str]:
    """devcluster's live-log PyTorchJob running in team-a: its master's log is the file Cluster.live_log, followed
    by kwok (a followed stream stays open while the pod runs)."""
    admin, name = owned.admin, LIVE_LOG_JOB
    path = "/apis/kubeflow.org/v1/namespaces/team-a/pytorchjobs"
    owned.live_log.write_text(_cri("starting"))
    if server.get_json(f"/accel/v1/jobs/pytorch/{name}")[0] == 200:
        admin.request("DELETE", f"{path}/{name}")
        _until(lambda: server.get_json(f"/accel/v1/jobs/pytorch/{name}")[0] == 404, 60, "the old live-log job gone")
    master = {
        "replicas": 1,
        "restartPolicy": "Never",
        "template": {
            "metadata": {"annotations": {"devcluster.jupyter-accel.io/run-for": "180s"}},
            "spec": {"containers": [{"name": "pytorch", "image": "busybox", "command": ["sleep", "180"]}]},
        },
    }
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": name, "labels": {"kueue.x-k8s.io/queue-name": "default"}},
        "spec": {"pytorchReplicaSpecs": {"Master": master}},
    }
    admin.request("POST", path, job)
    try:
        _until(
            lambda: (
                (r := server.get_json(f"/accel/v1/jobs/pytorch/{name}"))[0] == 200
                and r[1]["job"]["status"] == "Running"
            ),
            90,
            "the live-log job running",
        )
        yield name
    finally:
        admin.request("DELETE", f"{path}/{name}")


class Follow:
    """A followed log read line by line over a raw connection, so a missing closing chunk shows as an error."""

    def __init__(self, server: JupyterProcess, name: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        self.conn.request("GET", f"/accel/v1/jobs/pytorch/{name}/logs?follow=true&tail=50", headers=server.headers)
        self.resp = self.conn.getresponse()
        self.status = self.resp.status

    def until(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.resp.readline()
            assert line, f"the stream ended before {text!r}"
            if text in line.decode():
                return
        raise AssertionError(f"{text!r} not read within {timeout}s")

    def end(self) -> str:
        """Read to the end: 'broken' when the response stopped without its closing chunk, else 'ended'."""
        try:
            while self.resp.read(4096):
                pass
        except (http.client.IncompleteRead, ConnectionError):
            return "broken"
        finally:
            self.conn.close()
        return "ended"


def test_followed_log_break_is_seen_and_resumed(owned, server, live_log_job):
    with owned.live_log.open("a") as f:
        f.write(_cri("before the kill"))
    follow = Follow(server, live_log_job)
    assert follow.status == 200
    follow.until("before the kill")
    restart = Restart(owned).start()
    outcome = follow.end()
    t_break = time.monotonic()
    assert outcome == "broken", "a followed log whose API server went away must not look like the log's end"
    t_ready = restart.join()
    with owned.live_log.open("a") as f:
        f.write(_cri("after the restart"))

    def resumed() -> bool:
        again = Follow(server, live_log_job)
        if again.status != 200:
            again.conn.close()
            return False
        again.until("after the restart")  # the lines written while it was down come with tail=50
        again.conn.close()
        return True

    _until(resumed, 60, "a followed log again")
    t_resumed = time.monotonic()
    note(
        f"apiserver killed (down 3 s) during a followed log: the client saw the break "
        f"{t_break - restart.killed_at:.1f} s after the kill; API server ready {t_ready - restart.killed_at:.1f} s "
        f"after the kill; following again showed the new line {t_resumed - t_ready:.1f} s after that"
    )
