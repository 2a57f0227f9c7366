"""The Jupyter server killed and started again while jobs run (issue #19): it keeps no state of its own, so the new
server finds every job again by its labels (managed-by, workbench, client request id), with the same status, and
controls them. Jobs of two kinds: a RayCluster running, a RayCluster suspended, a PyTorchJob with a script that
ran to its end. The recovery time goes to the "reliability figures"."""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid

import pytest
from polling import poll_until as _wait
from reliability_report import note

from devcluster.jupyter_server import JupyterProcess

pytestmark = pytest.mark.cluster

WORKBENCH = "/notebook/team-a/restart-wb"


def _server(devcluster, workdir) -> JupyterProcess:
    accel = {"identity": "kubeconfig", "kubeconfig": str(devcluster.kubeconfig("notebook-user")), "namespace": "team-a"}
    server = JupyterProcess(workdir, accel, env={"NB_PREFIX": WORKBENCH}).start()
    server.wait_connected()
    return server


def _mine(server: JupyterProcess, names: set[str]) -> dict[str, dict]:
    code, body = server.get_json("/accel/v1/jobs?scope=mine")
    assert code == 200, body
    return {j["name"]: j for j in body["jobs"] if j["name"] in names}


def _status(server: JupyterProcess, kind: str, name: str) -> str | None:
    code, body = server.get_json(f"/accel/v1/jobs/{kind}/{name}")
    return body["job"]["status"] if code == 200 else None


def _until_status(server: JupyterProcess, kind: str, name: str, want: set[str | None], timeout: float) -> None:
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        code, body = server.get_json(f"/accel/v1/jobs/{kind}/{name}")
        if (body["job"]["status"] if code == 200 else None) in want:
            return
        last = (code, body)
        time.sleep(0.5)
    raise AssertionError(f"{kind} {name} not {want} after {timeout}s: {last}")


def test_a_restarted_server_finds_every_job_again_and_controls_them(devcluster, tmp_path):
    tag = uuid.uuid4().hex[:5]
    running, held, script = f"rs-run-{tag}", f"rs-held-{tag}", f"rs-script-{tag}"
    requests = {
        running: {"kind": "ray-cluster", "name": running, "workers": 1},
        held: {"kind": "ray-cluster", "name": held, "workers": 1},
        script: {
            "kind": "pytorch",
            "name": script,
            "script": {"text": "print('before the restart')\n", "interpreter": "python"},
        },
    }
    for body in requests.values():
        body["client_request_id"] = f"{body['name']}-rid"
    kinds = {name: body["kind"] for name, body in requests.items()}
    names = set(requests)
    first = _server(devcluster, tmp_path / "first")
    second = None
    try:
        for body in requests.values():
            code, answer = first.get_json("/accel/v1/jobs", method="POST", body=body)
            assert code == 201, answer
        _wait(lambda: _status(first, "ray-cluster", held), 30, "the held cluster in the cache")
        assert first.get_json(f"/accel/v1/jobs/ray-cluster/{held}/suspend", method="POST", body=b"")[0] == 200
        want = {running: "Running", held: "Suspended", script: "Succeeded"}
        before = _wait(
            lambda: (m := _mine(first, names)) and {n: j["status"] for n, j in m.items()} == want and m,
            150,
            f"the jobs to be {want}",
        )

        os.killpg(first.proc.pid, signal.SIGKILL)  # no goodbye: nothing it held in memory survives
        first.proc.wait(10)
        t0 = time.monotonic()
        second = _server(devcluster, tmp_path / "second")
        after = _wait(lambda: len(m := _mine(second, names)) == len(names) and m, 60, "the jobs on the new server")
        found = time.monotonic() - t0

        for name in names:
            a, b = before[name], after[name]
            assert (b["kind"], b["uid"], b["status"], b["workbench"], b["managed_by_us"], b["queue"]) == (
                a["kind"],
                a["uid"],
                a["status"],
                a["workbench"],
                a["managed_by_us"],
                a["queue"],
            ), (name, a, b)
            assert b["display"]["label"] == a["display"]["label"] and b["display"]["actions"] == a["display"]["actions"]
            code, detail = second.get_json(f"/accel/v1/jobs/{kinds[name]}/{name}")
            assert code == 200, detail
            if name != held:  # a suspended RayCluster's pods are still being deleted: their count is not settled
                assert len(detail["job"]["pods"]) == len(a["pods"]), detail

        # a retry of a submit the first server answered: found by its request id, nothing made twice
        code, again = second.get_json("/accel/v1/jobs", method="POST", body=requests[script])
        assert code == 200 and not again["created"] and again["job"]["uid"] == before[script]["uid"], again
        assert again["objects"] == []  # its script ConfigMap is there

        # the new server controls them
        assert second.get_json(f"/accel/v1/jobs/ray-cluster/{running}/suspend", method="POST", body=b"")[0] == 200
        assert second.get_json(f"/accel/v1/jobs/ray-cluster/{held}/resume", method="POST", body=b"")[0] == 200
        assert second.get_json(f"/accel/v1/jobs/pytorch/{script}", method="DELETE")[0] in (200, 202, 204)
        _until_status(second, "ray-cluster", running, {"Suspended"}, 60)
        # Kueue admits it again (its pods are KubeRay's to make)
        _until_status(second, "ray-cluster", held, {"Admitted", "Starting", "Running"}, 60)
        _until_status(second, "pytorch", script, {None}, 60)
        controlled = time.monotonic() - t0
    finally:
        for srv in (first, second):
            if srv is not None:
                srv.stop()
        admin = devcluster.admin
        for name, kind in kinds.items():
            api = (
                "kubeflow.org/v1/namespaces/team-a/pytorchjobs"
                if kind == "pytorch"
                else "ray.io/v1/namespaces/team-a/rayclusters"
            )
            with contextlib.suppress(Exception):  # already gone
                admin.request("DELETE", f"/apis/{api}/{name}")
    note(
        f"server restart: Jupyter server killed (SIGKILL) with 3 jobs of 2 kinds (running, suspended, succeeded); "
        f"the new server listed all of them with the same uid and status {found:.1f} s after it was started, and "
        f"suspended, resumed and deleted them ({controlled:.1f} s in all)"
    )
