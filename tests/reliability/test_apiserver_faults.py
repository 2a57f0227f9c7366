"""The API server answering 429, 500 and slowly (issue #19), injected by a real proxy (Debian's mitmproxy, see
fault_proxy.py) between a Jupyter server and devcluster. Counted at the proxy: the retries are bounded, Retry-After
is waited, a 5xx is repeated only where a repeat cannot do the work twice; /info's connection.degraded shows the
trouble (and the push stream announces it) and clears; the server's threads and sockets are as many afterwards.
Recovery times go to the "reliability figures"."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fault_proxy import FaultProxy
from reliability_report import note
from server_watch import Watcher, resources

from devcluster.jupyter_server import JupyterProcess
from jupyter_accel.cluster import health, retry
from jupyter_accel.domain.labels import REQUEST_ID

pytestmark = pytest.mark.cluster

CREATE = r"/pytorchjobs\?fieldValidation="  # a real create (a dry run's query starts with dryRun=All)
DRY_RUN = r"/pytorchjobs\?dryRun=All"


@pytest.fixture(scope="module")
def proxy(devcluster, tmp_path_factory) -> Iterator[FaultProxy]:
    p = FaultProxy(devcluster, tmp_path_factory.mktemp("fault-proxy")).start()
    yield p
    p.stop()


@pytest.fixture(scope="module")
def server(proxy, throwaway_namespace, tmp_path_factory) -> Iterator[JupyterProcess]:
    accel = {
        "identity": "kubeconfig",
        "kubeconfig": str(proxy.kubeconfig()),
        "namespace": throwaway_namespace.name,
        "request_timeout": 3.0,
    }
    srv = JupyterProcess(tmp_path_factory.mktemp("jupyter"), accel).start()
    try:
        srv.wait_connected()
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def baseline(server, throwaway_namespace) -> dict[str, int]:
    """Threads and sockets once the server is warm: a submit, a delete and a few reads have run, concurrently."""
    name = _submit(server, throwaway_namespace)[1]["job"]["name"]
    _cached(server, name)
    threads = [threading.Thread(target=server.get_json, args=(p,)) for p in ("/accel/v1/info", "/accel/v1/jobs") * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert server.get_json(f"/accel/v1/jobs/pytorch/{name}", method="DELETE")[0] in (200, 202, 204)
    time.sleep(1.0)
    return resources(server.proc.pid)


def _body(ns, request_id: str | None = None) -> dict:
    body = {"kind": "pytorch", "queue": ns.QUEUE, "workers": 1, "command": ["true"]}
    if request_id:
        body["client_request_id"] = request_id
    return body


def _submit(server, ns, request_id: str | None = None, timeout: float = 60) -> tuple[int, dict]:
    return server.get_json("/accel/v1/jobs", method="POST", body=_body(ns, request_id), timeout=timeout)


def _jobs(ns, request_id: str | None = None) -> list[str]:
    path = f"/apis/kubeflow.org/v1/namespaces/{ns.name}/pytorchjobs"
    if request_id:
        path += f"?labelSelector={REQUEST_ID}%3D{request_id}"
    return sorted(i["metadata"]["name"] for i in ns.admin.get(path)["items"])


def _cached(server, name: str, timeout: float = 30) -> None:
    """The job is in the server's cache (a delete goes through the cache first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(j["name"] == name for j in (server.get_json("/accel/v1/jobs")[1] or {}).get("jobs", [])):
            return
        time.sleep(0.2)
    raise AssertionError(f"{name} not in the server's cache after {timeout}s")


def _hits(proxy: FaultProxy, since: float, method: str, pattern: str) -> list[dict]:
    return [r for r in proxy.requests(since) if r["method"] == method and re.search(pattern, r["path"])]


def _gaps(hits: list[dict]) -> list[float]:
    ts = sorted(h["t"] for h in hits)
    return [b - a for a, b in itertools.pairwise(ts)]


def _settled(server: JupyterProcess, timeout: float = health.WINDOW + 10) -> None:
    """No degraded state left from an earlier test."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not server.get_json("/accel/v1/info")[1]["connection"].get("degraded"):
            return
        time.sleep(0.3)
    raise AssertionError("the server stayed degraded")


def test_throttled_submit_waits_retry_after(server, proxy, throwaway_namespace, baseline):
    ns, rid = throwaway_namespace, f"thr-{uuid.uuid4().hex[:8]}"
    _settled(server)
    with Watcher(server) as w:
        t0 = time.monotonic()
        proxy.inject({"method": "POST", "path": CREATE, "status": 429, "retry_after": "2", "times": 2})
        code, answer = _submit(server, ns, rid)
        t_done = time.monotonic()
        assert code == 201, answer
        hits = _hits(proxy, t0, "POST", CREATE)
        assert [h["status"] for h in hits] == [429, 429, 201], hits
        assert all(g >= 1.95 for g in _gaps(hits)), _gaps(hits)  # Retry-After: 2 was waited each time
        assert _jobs(ns, rid) == [answer["job"]["name"]]
        proxy.clear()
        t_shown = w.first("throttled")
        assert hits[0]["t"] <= t_shown <= t_done + 2, (hits[0]["t"], t_shown, t_done)
        message = next(m for _, r, m in w.states if r == "throttled")
        assert "throttling" in message and "2 s wait" in message, message
        w.info_pushed(hits[0]["t"])  # the push stream told the browser to fetch /info again
        t_clear = w.clear_after(t_done, health.WINDOW + 10)
        w.info_pushed(t_clear - 1.5)
    note(
        f"apiserver faults: 2 x 429 (Retry-After: 2) on a submit: 3 tries seen at the proxy, pauses "
        f"{', '.join(f'{g:.2f}' for g in _gaps(hits))} s; submit answered 201 after {t_done - t0:.1f} s; "
        f"'throttled' shown in /info {t_shown - hits[0]['t']:.1f} s after the first 429 and cleared "
        f"{t_clear - hits[-1]['t']:.1f} s after the last"
    )


def test_endless_429_is_bounded_and_creates_nothing(server, proxy, throwaway_namespace, baseline):
    ns = throwaway_namespace
    before = _jobs(ns)
    t0 = time.monotonic()
    proxy.inject({"method": "POST", "path": DRY_RUN, "status": 429, "retry_after": "1"})
    try:
        code, answer = _submit(server, ns, f"end-{uuid.uuid4().hex[:8]}")
    finally:
        proxy.clear()
    elapsed = time.monotonic() - t0
    hits = _hits(proxy, t0, "POST", DRY_RUN)
    assert len(hits) == retry.ATTEMPTS, hits  # bounded: then the answer is given
    assert all(h["status"] == 429 for h in hits)
    assert all(g >= 0.95 for g in _gaps(hits)), _gaps(hits)
    assert code in (502, 503) and "429" in answer["message"], (code, answer)
    assert "Traceback" not in answer["message"]
    assert not _hits(proxy, t0, "POST", CREATE)  # the real create was never tried
    assert _jobs(ns) == before
    note(
        f"apiserver faults: endless 429 (Retry-After: 1) on a submit: {len(hits)} tries, then {code} after "
        f"{elapsed:.1f} s; nothing created"
    )


def test_500_bursts_retried_only_where_safe(server, proxy, throwaway_namespace, baseline):
    ns = throwaway_namespace
    _settled(server)
    with Watcher(server) as w:
        # a create the API server did, answered 500: the repeat meets AlreadyExists and finds the job by its id
        rid = f"f500-{uuid.uuid4().hex[:8]}"
        t0 = time.monotonic()
        proxy.inject({"method": "POST", "path": CREATE, "status": 500, "after": True, "times": 1})
        code, answer = _submit(server, ns, rid)
        assert code in (200, 201), answer
        hits = _hits(proxy, t0, "POST", CREATE)
        assert [h["status"] for h in hits] == [500, 409], hits
        assert _jobs(ns, rid) == [answer["job"]["name"]]  # exactly one job
        name = answer["job"]["name"]

        # a create without a request id is not repeated after a 500: the API server may have done it
        before = _jobs(ns)
        t1 = time.monotonic()
        proxy.inject({"method": "POST", "path": CREATE, "status": 500, "times": 1})
        code, answer = _submit(server, ns)
        assert code in (502, 503) and "500" in answer["message"], (code, answer)
        assert [h["status"] for h in _hits(proxy, t1, "POST", CREATE)] == [500]
        assert _jobs(ns) == before

        # a delete is safe to repeat: a burst of three 500s, backoff growing between the tries
        _cached(server, name)
        t2 = time.monotonic()
        proxy.inject({"method": "DELETE", "path": f"/pytorchjobs/{name}$", "status": 500, "times": 3})
        code, _ = server.get_json(f"/accel/v1/jobs/pytorch/{name}", method="DELETE")
        t_done = time.monotonic()
        assert code in (200, 202, 204)
        deletes = _hits(proxy, t2, "DELETE", f"/pytorchjobs/{name}$")
        assert [h["status"] for h in deletes] == [500, 500, 500, 200], deletes
        gaps = _gaps(deletes)
        assert gaps[0] < gaps[1] < gaps[2], gaps  # exponential: 0.25, 0.5, 1 s, each within ±20 %
        proxy.clear()
        t_shown = w.first("failing")
        t_clear = w.clear_after(t_done, health.WINDOW + 10)
    note(
        f"apiserver faults: 500 bursts: a create done but answered 500 was repeated once and found its job "
        f"(1 job); a create without request id was not repeated; a delete met 3 x 500 and went through on the "
        f"4th try (pauses {', '.join(f'{g:.2f}' for g in gaps)} s); 'failing' shown {t_shown - t0:.1f} s after the "
        f"first 500, cleared {t_clear - t_done:.1f} s after the last"
    )


def test_a_submit_cut_off_between_job_and_configmap_is_completed_by_its_retry(proxy, throwaway_namespace, tmp_path):
    """The Jupyter server dies while its script ConfigMap is on its way (held at the proxy): the job exists without
    it. The retry with the same client_request_id, on a new server, makes the ConfigMap, owned by the job, once."""
    ns, rid = throwaway_namespace, f"cut-{uuid.uuid4().hex[:8]}"
    accel = {"identity": "kubeconfig", "kubeconfig": str(proxy.kubeconfig()), "namespace": ns.name}
    body = {**_body(ns, rid), "script": {"text": "print('cut off')\n", "interpreter": "python"}}
    del body["command"]
    cm_create = r"/configmaps\?fieldValidation="
    doomed = JupyterProcess(tmp_path / "doomed", accel).start()
    try:
        doomed.wait_connected()
        t0 = time.monotonic()
        proxy.inject({"method": "POST", "path": cm_create, "delay": 20.0, "status": 503, "times": 1})

        def submit() -> None:
            with contextlib.suppress(OSError):  # the server is killed before it answers: the connection drops
                doomed.get_json("/accel/v1/jobs", "POST", body, 60)

        threading.Thread(target=submit, daemon=True).start()
        deadline = time.monotonic() + 30
        while not [h for h in _hits(proxy, t0, "POST", CREATE) if h["status"] == 201]:
            assert time.monotonic() < deadline, proxy.requests(t0)
            time.sleep(0.1)
        time.sleep(1.0)  # the ConfigMap's create is held at the proxy now
        os.killpg(doomed.proc.pid, signal.SIGKILL)
        doomed.proc.wait(10)
    finally:
        doomed.stop()
        proxy.clear()
    [name] = _jobs(ns, rid)
    assert f"{name}-script" not in ns.names("/api/v1/namespaces/{ns}/configmaps")  # half made
    again = JupyterProcess(tmp_path / "again", accel).start()
    try:
        again.wait_connected()
        code, answer = again.get_json("/accel/v1/jobs", method="POST", body=body, timeout=60)
        assert code == 200 and not answer["created"] and answer["job"]["name"] == name, (code, answer)
        assert answer["objects"] == [f"ConfigMap/{name}-script"], answer
        code, answer = again.get_json("/accel/v1/jobs", method="POST", body=body, timeout=60)
        assert code == 200 and answer["objects"] == [], answer  # once
    finally:
        again.stop()
    cm = ns.admin.get(f"/api/v1/namespaces/{ns.name}/configmaps/{name}-script")
    job = ns.admin.get(f"/apis/kubeflow.org/v1/namespaces/{ns.name}/pytorchjobs/{name}")
    assert cm["metadata"]["ownerReferences"][0]["uid"] == job["metadata"]["uid"]
    assert list(cm["data"].values()) == ["print('cut off')\n"]
    assert _jobs(ns, rid) == [name]
    note(
        "apiserver faults: Jupyter server killed between a job's create and its script ConfigMap's: the retry "
        "with the same client_request_id on a new server made the missing ConfigMap (owned by the job), once"
    )


def test_slow_answers_shown_and_timeouts_retried(server, proxy, throwaway_namespace, baseline):
    ns = throwaway_namespace
    _settled(server)
    lookup = r"/pytorchjobs\?labelSelector="  # the submit asks the API server for a job of its request id
    with Watcher(server) as w:
        t0 = time.monotonic()
        # longer than the request timeout (3 s): that try is abandoned and the read asked again
        proxy.inject({"method": "GET", "path": lookup, "delay": 4.0, "times": 1})
        code, answer = _submit(server, ns, f"slow-{uuid.uuid4().hex[:8]}")
        t_done = time.monotonic()
        proxy.clear()
        assert code == 201, answer
        assert 3.0 <= t_done - t0 < 15, t_done - t0
        t_shown = w.first("slow")
        message = next(m for _, r, m in w.states if r == "slow")
        assert "slowly" in message and "no answer within" in message, message
        time.sleep(1.5)  # the abandoned try's answer reaches the proxy's log when the delay is over
        lookups = _hits(proxy, t0, "GET", lookup)
        assert len(lookups) == 2, lookups
        t_clear = w.clear_after(t_done, health.WINDOW + 10)
    note(
        f"apiserver faults: a read held 4 s (timeout 3 s): retried once, submit answered after {t_done - t0:.1f} s; "
        f"'slow' shown {t_shown - t0:.1f} s after the request, cleared {t_clear - t_done:.1f} s after the answer"
    )


def test_no_thread_or_socket_leak(server, proxy, throwaway_namespace, baseline):
    """After the faults above and five more rounds of them (every retry path once each a round), the server's threads
    and sockets do not grow from the second round on: a leak grows with every round (+4 over rounds 2 to 6 for one a
    round). The client's connection pool may keep a few more idle connections after the concurrent retries, mostly
    once after the first round (CI saw 15 -> 17 and 16 -> 19, then flat): at most 6 over the warm baseline."""
    ns = throwaway_namespace
    samples = []
    for _ in range(6):
        t0 = time.monotonic()
        proxy.inject(
            {"method": "POST", "path": DRY_RUN, "status": 429, "retry_after": "0", "times": 2},
            {"method": "GET", "path": r"/pytorchjobs\?labelSelector=", "delay": 3.5, "times": 1},
            {"method": "POST", "path": CREATE, "status": 500, "after": True, "times": 1},
        )
        code, answer = _submit(server, ns, f"leak-{uuid.uuid4().hex[:8]}")
        assert code in (200, 201), answer
        assert len(_hits(proxy, t0, "POST", DRY_RUN)) == 3
        _cached(server, answer["job"]["name"])
        assert server.get_json(f"/accel/v1/jobs/pytorch/{answer['job']['name']}", method="DELETE")[0] < 300
        proxy.clear()
        time.sleep(5.0)  # abandoned tries end at the proxy, idle pooled connections settle
        samples.append(resources(server.proc.pid))
    first, after = samples[0], samples[-1]
    for what in ("threads", "sockets", "fds"):
        assert after[what] <= samples[1][what] + 2, (what, samples)
    assert after["threads"] <= baseline["threads"] + 2, (baseline, after)
    assert after["sockets"] <= baseline["sockets"] + 6, (baseline, after)
    note(
        f"apiserver faults: server process before the faults {baseline['threads']} threads, {baseline['fds']} fds "
        f"({baseline['sockets']} sockets); after 4 fault tests and the first of 6 more rounds: {first['threads']} "
        f"threads, {first['fds']} fds ({first['sockets']} sockets); after the last: {after['threads']} threads, "
        f"{after['fds']} fds ({after['sockets']} sockets)"
    )


def test_proxy_binds_loopback_only(proxy):
    listening = Path("/proc/net/tcp").read_text().splitlines()[1:]
    port = f"{proxy.port:04X}"
    local = [line.split()[1] for line in listening if line.split()[1].endswith(":" + port) and line.split()[3] == "0A"]
    assert local and all(addr.startswith("0100007F:") for addr in local), local
