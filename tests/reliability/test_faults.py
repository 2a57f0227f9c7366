"""Faults of the real devcluster while the extension serves (issue #19), each with its measured recovery time in
the test output ("reliability figures" at the end of the run):

- the API server stopped and started again while a submit is being retried with one `client_request_id`: the
  retries end in exactly one job;
- etcd restarted: the watch-backed caches recover (a job created afterwards shows in the server's list);
- Kueue stopped (its admission webhook gone): a submit is a 503 "Kueue is not answering" and leaves neither the job
  nor its script ConfigMap; once Kueue runs again the same submit goes through.

They need the Cluster object that started the processes (not JA_DEVCLUSTER_RUNDIR)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from polling import poll_until as _wait
from reliability_report import note

from devcluster.jupyter_server import JupyterProcess
from devcluster.process import stop_together
from jupyter_accel.domain.labels import REQUEST_ID

pytestmark = pytest.mark.cluster


@pytest.fixture
def owned(devcluster):
    if not devcluster.procs:
        pytest.skip("the fault tests stop and start devcluster processes: they need the session's own cluster")
    return devcluster


@pytest.fixture
def server(owned, throwaway_namespace, tmp_path):
    srv = JupyterProcess(tmp_path, throwaway_namespace.accel_config()).start()
    srv.wait_connected()
    yield srv
    srv.stop()


def _jobs_with_request_id(ns, request_id: str) -> list[str]:
    path = f"/apis/kubeflow.org/v1/namespaces/{ns.name}/pytorchjobs?labelSelector={REQUEST_ID}%3D{request_id}"
    return [i["metadata"]["name"] for i in ns.admin.get(path)["items"]]


def _submit_body(ns, request_id: str | None = None, script: bool = False) -> dict:
    body = {"kind": "pytorch", "queue": ns.QUEUE, "workers": 1}
    if request_id:
        body["client_request_id"] = request_id
    if script:
        body["script"] = {"text": "print('hello')\n", "interpreter": "python"}
    else:
        body["command"] = ["true"]
    return body


def test_api_server_restart_during_submit_yields_one_job(owned, server, throwaway_namespace):
    request_id = f"fault-{uuid.uuid4().hex[:8]}"
    body = _submit_body(throwaway_namespace, request_id)
    restarted = threading.Event()
    errors: list[BaseException] = []
    ready_at: list[float] = []

    def restart() -> None:
        try:
            owned.restart("kube-apiserver", down_for=3.0)
            ready_at.append(time.monotonic() - t_kill)
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            restarted.set()

    answers: list[tuple[float, int, str]] = []
    t_kill = time.monotonic()
    thread = threading.Thread(target=restart, daemon=True)
    thread.start()
    final = None
    while time.monotonic() - t_kill < 120:
        code, answer = server.get_json("/accel/v1/jobs", method="POST", body=body, timeout=40)
        answers.append((round(time.monotonic() - t_kill, 2), code, (answer or {}).get("message", "")[:80]))
        assert code < 500 or code in (502, 503), answers[-1]  # never a 500: a state to show while it is down
        if code >= 500:
            assert (answer or {}).get("message"), answer
        if code in (200, 201) and restarted.is_set():
            final = (code, answer)
            break
        time.sleep(0.25)
    thread.join(90)
    assert not errors, errors
    assert final is not None, f"no successful submit after the restart: {answers[-5:]}"
    refused = [a for a in answers if a[1] >= 500]
    assert refused, f"no submit met the stopped API server: {answers[:10]}"
    t_back = next(t for t, c, _ in answers if c in (200, 201) and t > refused[0][0])
    assert _jobs_with_request_id(throwaway_namespace, request_id) == [final[1]["job"]["name"]]
    created = [a for a in answers if a[1] == 201]
    assert len(created) <= 1, answers
    note(
        f"faults: kube-apiserver down 3 s during {len(answers)} submit retries (one client_request_id): "
        f"{len(refused)} answered 502/503; first successful submit {t_back:.1f} s after the stop (the API server "
        f"passed /readyz {ready_at[0]:.1f} s after the stop; recovery after it {max(0.0, t_back - ready_at[0]):.1f} s); "
        "exactly 1 job"
    )


def test_etcd_restart_caches_recover(owned, server, throwaway_namespace):
    t0 = time.monotonic()
    owned.restart("etcd", down_for=2.0)
    t_ready = time.monotonic()
    name = f"after-etcd-{uuid.uuid4().hex[:5]}"
    body = {**_submit_body(throwaway_namespace), "name": name}
    _wait(
        lambda: (r := server.get_json("/accel/v1/jobs", method="POST", body=body))[0] in (201, 409) and r,
        90,
        "a submit after the etcd restart",
    )
    t_submit = time.monotonic()
    _wait(
        lambda: any(j["name"] == name for j in (server.get_json("/accel/v1/jobs")[1] or {}).get("jobs", [])),
        90,
        "the job in the server's cached list",
    )
    t_cache = time.monotonic()
    note(
        f"faults: etcd down 2 s: API server ready {t_ready - t0:.1f} s after the stop; a submit went through "
        f"{t_submit - t_ready:.1f} s later; the cache showed it {t_cache - t_submit:.1f} s after that "
        f"(recovered {t_cache - t_ready:.1f} s after the API server was ready)"
    )


def test_kueue_down_submit_is_503_and_nothing_half_created(owned, server, throwaway_namespace):
    ns = throwaway_namespace
    rec = owned.recorded["kueue"]
    proc = owned.procs["kueue"]
    before_jobs = ns.names("/apis/kubeflow.org/v1/namespaces/{ns}/pytorchjobs")
    before_cms = ns.names("/api/v1/namespaces/{ns}/configmaps")
    name = f"no-kueue-{uuid.uuid4().hex[:5]}"
    body = {**_submit_body(ns, f"nokueue-{uuid.uuid4().hex[:8]}", script=True), "name": name}
    t0 = time.monotonic()
    stop_together([rec])
    try:
        code, answer = server.get_json("/accel/v1/jobs", method="POST", body=body, timeout=60)
        assert code == 503, (code, answer)
        assert answer["message"].startswith("Kueue is not answering"), answer
        assert "nothing was created" in answer["message"]
        assert ns.names("/apis/kubeflow.org/v1/namespaces/{ns}/pytorchjobs") == before_jobs
        assert ns.names("/api/v1/namespaces/{ns}/configmaps") == before_cms
    finally:
        owned.recorded["kueue"] = proc.start()
        owned._write_state("running")
    t_started = time.monotonic()
    code, answer = _wait(
        lambda: (r := server.get_json("/accel/v1/jobs", method="POST", body=body, timeout=60))[0] in (200, 201) and r,
        120,
        "a submit once Kueue runs again",
    )
    t_ok = time.monotonic()
    objects = answer["objects"]
    assert [o.split("/")[0] for o in objects] == ["PyTorchJob", "ConfigMap"], objects
    jobs = ns.names("/apis/kubeflow.org/v1/namespaces/{ns}/pytorchjobs") - before_jobs
    cms = ns.names("/api/v1/namespaces/{ns}/configmaps") - before_cms
    assert jobs == {answer["job"]["name"]} and len(cms) == 1, (jobs, cms)
    note(
        f"faults: Kueue stopped: submit refused with 503 'Kueue is not answering' and nothing created; "
        f"after restarting it the submit went through {t_ok - t_started:.1f} s later "
        f"({t_ok - t0:.1f} s after the stop)"
    )
