"""Hand-written hostile requests (issue #19): oversized bodies and scripts, unicode and control characters, path
tricks in kind / name and in the Ray dashboard sub-path, Host / Origin mismatches (Jupyter's own checks), log
`tail` bounds, and the per-user bound on long-lived streams (push stream, followed logs) with clean-up on
disconnect. Requests go over raw sockets where a client library would tidy them up (dot segments, headers)."""

from __future__ import annotations

import http.client
import http.cookies
import json
import socket
import time
import uuid

import pytest
from handler_routes import mutating_routes
from reliability_report import note

from devcluster.jupyter_server import JupyterProcess
from devcluster.manifests import LIVE_LOG_JOB
from jupyter_accel.api.base import MAX_STREAMS_PER_USER
from jupyter_accel.api.jobs import dashboard_query, dashboard_subpath
from jupyter_accel.domain.builders.script import MAX_SCRIPT_BYTES


def raw(server: JupyterProcess, method: str, target: str, body: bytes | None = None, headers=None, auth=True):
    """One request exactly as written (no client-side normalisation of `target`); (status, headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    hdrs = {"Host": f"127.0.0.1:{server.port}", **(server.headers if auth else {}), **(headers or {})}
    conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
    for k, v in hdrs.items():
        conn.putheader(k, v)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data


def json_error(status: int, headers: dict, data: bytes) -> dict:
    assert headers.get("content-type", "").startswith("application/json"), (status, data[:300])
    body = json.loads(data)
    assert body["message"], body
    return body


# ---- no cluster needed ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory):
    """identity none: a request that reaches a job handler answers 503 "not connected"; one stopped before it
    (Jupyter's Host / Origin / XSRF checks) answers something else."""
    server = JupyterProcess(tmp_path_factory.mktemp("bare"), {"identity": "none"}).start()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("subpath", "safe"),
    [
        ("", ""),
        ("index.html", "index.html"),
        ("api/jobs/", "api/jobs/"),
        ("static/js/main.js", "static/js/main.js"),
        ("a//b", "a/b"),
        ("a?b#c", "a%3Fb%23c"),
        ("100%", "100%25"),
        ("naïve", "na%C3%AFve"),
    ],
)
def test_dashboard_subpath_keeps_paths_inside_the_dashboard(subpath, safe):
    assert dashboard_subpath(subpath) == safe


def test_the_dashboard_proxy_forwards_no_jupyter_credentials():
    browser = {"token": "jupyter-token", "_xsrf": "2|abc", "Token": "x", "limit": "10", "view": "summary"}
    assert dashboard_query(browser) == {"limit": "10", "view": "summary"}


@pytest.mark.parametrize(
    "subpath",
    [
        "..",
        "../../../configmaps",
        "a/../../b",
        "./x",
        "a/./b",
        "/etc/passwd",
        "//evil.example/x",
        "http://evil.example/",
        "https:evil",
        "\\\\evil\\x",
        "a\\..\\b",
        "a\x00b",
        "a\nb",
    ],
)
def test_dashboard_subpath_refuses_escapes(subpath):
    from jupyter_accel.api.base import ApiError

    with pytest.raises(ApiError) as err:
        dashboard_subpath(subpath)
    assert err.value.status_code == 400 and err.value.body.field == "subpath"


def _browser_cookies(server: JupyterProcess) -> tuple[str, str]:
    """Log in like a browser: the login page's _xsrf cookie, then the token login's session cookie."""
    jar: dict[str, str] = {}
    for target in ("/login", f"/login?token={server.token}"):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", target, headers={"Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())})
        for k, v in conn.getresponse().getheaders():
            if k.lower() == "set-cookie":
                jar.update({m.key: m.value for m in http.cookies.SimpleCookie(v).values()})
        conn.close()
    assert "_xsrf" in jar and any(k.startswith("username-") for k in jar), jar
    return "; ".join(f"{k}={v}" for k, v in jar.items()), jar["_xsrf"]


def _body(verb: str) -> bytes | None:
    return b"{}" if verb in ("POST", "PUT", "PATCH") else None  # refused before the body is read, or a 400 after


@pytest.mark.parametrize(("method", "path"), mutating_routes())
def test_foreign_origin_host_and_missing_xsrf_are_refused_before_the_handler(bare_server, method, path):
    """Every mutating verb of the handler table, as a browser session (cookie + XSRF token): from the server's own
    origin it reaches the handler (503 "not connected" here, a 400 or 200 where the body or the verb decides first);
    from another site Jupyter's check_origin answers 404, with another Host its Host check 403, and without the
    XSRF token 403, all three before the handler."""
    cookie, xsrf = _browser_cookies(bare_server)
    target, body = f"/accel/v1/{path}", _body(method)
    own = {"Cookie": cookie, "X-XSRFToken": xsrf, "Origin": f"http://127.0.0.1:{bare_server.port}"}
    status, headers, data = raw(bare_server, method, target, body, own, auth=False)
    assert status in (200, 400, 503), (status, data[:300])  # the handler's own answer
    if status != 200:
        json_error(status, headers, data)
    status, headers, data = raw(bare_server, method, target, body, {**own, "Origin": "http://evil.example"}, auth=False)
    assert status == 404, data
    json_error(status, headers, data)
    status, headers, data = raw(bare_server, method, target, body, {**own, "Host": "evil.example"}, auth=False)
    assert status == 403, data
    no_xsrf = {"Cookie": cookie, "Origin": f"http://127.0.0.1:{bare_server.port}"}
    status, headers, data = raw(bare_server, method, target, body, no_xsrf, auth=False)
    assert status == 403 and b"_xsrf" in data, data


def test_the_xsrf_cases_cover_every_mutating_route_of_the_table():
    covered = {path.split("/")[0] for _, path in mutating_routes()}
    assert {"jobs", "fit", "identity"} <= covered, covered  # the table's writes, incl. suspend, limit and the token
    assert ("POST", "jobs/pytorch/x/limit") in mutating_routes() and ("PUT", "identity/token") in mutating_routes()


class Streams:
    """Raw long-lived GETs: open() returns the socket after the status line and headers."""

    def __init__(self, server: JupyterProcess):
        self.server = server
        self.open_socks: list[socket.socket] = []

    def open(self, target: str) -> tuple[int, socket.socket, bytes]:
        s = socket.create_connection(("127.0.0.1", self.server.port), timeout=30)
        auth = self.server.headers["Authorization"]
        s.sendall(
            f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{self.server.port}\r\nAuthorization: {auth}\r\n\r\n".encode()
        )
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        status = int(buf.split(b" ", 2)[1])
        self.open_socks.append(s)
        return status, s, buf

    def close(self, s: socket.socket) -> None:
        self.open_socks.remove(s)
        s.close()

    def close_all(self) -> None:
        for s in list(self.open_socks):
            self.close(s)


def _bound_and_release(streams: Streams, target: str, what: str) -> None:
    held = []
    for i in range(MAX_STREAMS_PER_USER):
        status, s, head = streams.open(target)
        assert status == 200, (i, head[:500])
        held.append(s)
    status, s, head = streams.open(target)
    assert status == 429, head[:500]
    assert b"retry-after: 5" in head.lower() and b"application/json" in head.lower(), head
    assert what.encode() in head and str(MAX_STREAMS_PER_USER).encode() in head, head
    streams.close(s)
    # one client goes away: its slot is free again at once (not at the next heartbeat)
    streams.close(held.pop())
    t0 = time.monotonic()
    while True:
        status, s, head = streams.open(target)
        if status == 200:
            break
        streams.close(s)
        assert time.monotonic() - t0 < 3, f"slot not given back after a disconnect: {head[:300]}"
        time.sleep(0.05)
    freed = time.monotonic() - t0
    note(
        f"hostile: {what}: {MAX_STREAMS_PER_USER} per user, 429 past it; a slot came back {freed:.2f} s after a disconnect"
    )
    streams.close_all()


def test_push_streams_are_bounded_per_user_and_freed_on_disconnect(bare_server):
    streams = Streams(bare_server)
    try:
        _bound_and_release(streams, "/accel/v1/stream", "push streams")
        # every slot came back: a full set opens again
        time.sleep(0.3)
        for _ in range(MAX_STREAMS_PER_USER):
            assert streams.open("/accel/v1/stream")[0] == 200
    finally:
        streams.close_all()


# ---- against the devcluster ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ns_server(throwaway_namespace, tmp_path_factory):
    server = JupyterProcess(tmp_path_factory.mktemp("hostile"), throwaway_namespace.accel_config()).start()
    server.wait_connected()
    yield server
    server.stop()


def _job_names(ns) -> set[str]:
    out = set()
    for path in (
        "/apis/kubeflow.org/v1/namespaces/{ns}/pytorchjobs",
        "/apis/ray.io/v1/namespaces/{ns}/rayjobs",
        "/apis/ray.io/v1/namespaces/{ns}/rayclusters",
    ):
        out |= ns.names(path)
    return out | {f"cm/{n}" for n in ns.names("/api/v1/namespaces/{ns}/configmaps")}


@pytest.mark.cluster
@pytest.mark.parametrize("path", ["/accel/v1/fit", "/accel/v1/jobs"])
def test_script_past_the_configmap_limit_is_refused(ns_server, throwaway_namespace, path):
    before = _job_names(throwaway_namespace)
    body = {"kind": "pytorch", "name": f"big-{uuid.uuid4().hex[:5]}", "script": {"text": "#" * (MAX_SCRIPT_BYTES + 1)}}
    status, headers, data = raw(ns_server, "POST", path, json.dumps(body).encode())
    err = json_error(status, headers, data)
    assert status == 400 and err["field"] == "script.text", err
    assert str(MAX_SCRIPT_BYTES) in err["message"] and "ConfigMap" in err["message"], err
    assert _job_names(throwaway_namespace) == before


@pytest.mark.cluster
@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"name": "tëst"}, "name"),
        ({"name": "a\u0000b"}, "name"),
        ({"name": "\u202eabc"}, "name"),
        ({"name": "\uff41\uff42\uff43"}, "name"),
        ({"labels": {"team": "a\nb"}}, "labels.team"),
        ({"labels": {"tëam": "a"}}, "labels.tëam.[key]"),
        ({"env": {"A\u0000B": "x"}}, "env.A\u0000B.[key]"),
        ({"env": {"😀": "x"}}, "env.😀.[key]"),
        ({"queue": "../default"}, "queue"),
        ({"image": "busybox\n:latest"}, "image"),
    ],
)
def test_unicode_and_control_characters_in_names_are_refused_naming_the_field(
    ns_server, throwaway_namespace, patch, field
):
    before = _job_names(throwaway_namespace)
    for path in ("/accel/v1/fit", "/accel/v1/jobs"):
        body = {"kind": "pytorch", "command": ["true"], **patch}
        status, headers, data = raw(ns_server, "POST", path, json.dumps(body).encode())
        err = json_error(status, headers, data)
        assert status == 400, (path, err)
        assert field in [e["field"] for e in err["errors"]], (path, err)
    assert _job_names(throwaway_namespace) == before


@pytest.mark.cluster
def test_unicode_and_control_characters_in_free_text_are_carried_or_refused_never_5xx(ns_server, throwaway_namespace):
    """Commands, env values and script text are free text: kept as given (the API server stores them), or refused
    by the API server with its field; never a 5xx, and a refused one leaves nothing."""
    odd = "tab\there nul\u0000 bell\u0007 rtl\u202e emoji😀 ünï ﷽ \U0010fffd"
    name = f"odd-{uuid.uuid4().hex[:5]}"
    body = {
        "kind": "pytorch",
        "name": name,
        "command": ["sh", "-c", f"echo '{odd}'"],
        "env": {"ODD": odd},
        "labels": {"note": "x"},
        "queue": throwaway_namespace.QUEUE,
    }
    status, headers, data = raw(ns_server, "POST", "/accel/v1/fit", json.dumps(body).encode())
    assert status == 200, data[:500]
    status, headers, data = raw(ns_server, "POST", "/accel/v1/jobs", json.dumps(body).encode())
    assert status in (201, 400), data[:500]
    jobs = throwaway_namespace.names("/apis/kubeflow.org/v1/namespaces/{ns}/pytorchjobs")
    if status == 201:
        obj = throwaway_namespace.admin.get(
            f"/apis/kubeflow.org/v1/namespaces/{throwaway_namespace.name}/pytorchjobs/{name}"
        )
        container = obj["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]
        assert odd in container["command"][-1]
        assert {"name": "ODD", "value": odd} in container["env"]
    else:
        json_error(status, headers, data)
        assert name not in jobs


KIND_NAME_TRICKS = [
    "/accel/v1/jobs/%2E%2E/x",
    "/accel/v1/jobs/..%2F..%2Finfo/x",
    "/accel/v1/jobs/pytorch/..%2F..%2Finfo",
    "/accel/v1/jobs/pytorch/a%2Fb",
    "/accel/v1/jobs/pytorch/..",
    "/accel/v1/jobs/pytorch/%2e%2e/logs",
    "/accel/v1/jobs/http:%2F%2Fevil/x",
    "/accel/v1/jobs/pytorch/x/../../info",
    "/accel/v1/jobs/pytorch//evil.example",
    "/accel/v1/jobs/pytorch/%00",
    "/accel/v1/jobs/pytorch/%ff",
    "/accel/v1/jobs/ray-cluster/x%3Fa%3Db/dashboard/",
]


@pytest.mark.cluster
@pytest.mark.parametrize("target", KIND_NAME_TRICKS)
@pytest.mark.parametrize("method", ["GET", "DELETE", "POST"])
def test_path_tricks_in_kind_and_name_are_json_4xx(ns_server, target, method):
    status, headers, data = raw(ns_server, method, target, b"" if method == "POST" else None)
    json_error(status, headers, data)
    assert status in (400, 404, 405), (status, data[:300])


@pytest.fixture(scope="module")
def ray_cluster(ns_server, throwaway_namespace):
    """A RayCluster of the throwaway namespace (suspended by Kueue: no head pod, so its dashboard cannot answer)."""
    name = f"dash-{uuid.uuid4().hex[:5]}"
    body = {"kind": "ray-cluster", "name": name, "workers": 0, "queue": throwaway_namespace.QUEUE}
    status, _, data = raw(ns_server, "POST", "/accel/v1/jobs", json.dumps(body).encode())
    assert status == 201, data[:500]
    deadline = time.monotonic() + 30
    while raw(ns_server, "GET", f"/accel/v1/jobs/ray-cluster/{name}")[0] != 200:
        assert time.monotonic() < deadline, "the RayCluster never showed in the cache"
        time.sleep(0.2)
    return name


DASHBOARD_TRICKS = [
    "..%2F..%2F..%2Fconfigmaps",  # without the check: the client resolves it to the namespace's ConfigMap list
    "%2E%2E/%2E%2E/%2E%2E/configmaps",
    "..%2F..%2F..%2F..%2Fconfigmaps",
    "%2E%2E/%2E%2E/%2E%2E/%2E%2E/configmaps",
    "../../../../configmaps",
    "x/..%2F..%2F..%2F..%2F..%2Fsecrets",
    "%2F%2Fevil.example/",
    "//evil.example/",
    "http://evil.example/",
    "http:%2F%2Fevil.example%2F",
    "%5C%5Cevil%5Cx",
    "a%00b",
]


@pytest.mark.cluster
@pytest.mark.parametrize("trick", DASHBOARD_TRICKS)
def test_dashboard_proxy_never_leaves_the_head_service(ns_server, ray_cluster, trick):
    status, headers, data = raw(ns_server, "GET", f"/accel/v1/jobs/ray-cluster/{ray_cluster}/dashboard/{trick}")
    err = json_error(status, headers, data)
    assert status == 400 and err["field"] == "subpath", (status, data[:300])
    assert b"ConfigMapList" not in data and b"SecretList" not in data


@pytest.mark.cluster
@pytest.mark.parametrize("subpath", ["", "index.html", "api/version", "a%3Fb", "a%23b"])
def test_dashboard_proxy_inside_the_dashboard_goes_to_the_head_service(ns_server, ray_cluster, subpath):
    """No head pod runs (Kueue holds the cluster): the head service's proxy answers 503 and we say so as a 502."""
    status, headers, data = raw(ns_server, "GET", f"/accel/v1/jobs/ray-cluster/{ray_cluster}/dashboard/{subpath}")
    err = json_error(status, headers, data)
    assert status == 502 and "Ray dashboard" in err["message"], (status, data[:300])


@pytest.mark.cluster
@pytest.mark.parametrize("tail", ["-1", "100001", "abc", "1e3", "", "9" * 40, "0x10", "1_000"])
def test_log_tail_out_of_bounds_is_a_400_naming_tail(ns_server, ray_cluster, tail):
    from urllib.parse import quote

    status, headers, data = raw(
        ns_server, "GET", f"/accel/v1/jobs/ray-cluster/{ray_cluster}/logs?tail={quote(tail)}&follow=true"
    )
    err = json_error(status, headers, data)
    assert status == 400 and err["field"] == "tail", err


@pytest.fixture
def team_a_server(devcluster, tmp_path):
    accel = {"identity": "kubeconfig", "kubeconfig": str(devcluster.kubeconfig("notebook-user")), "namespace": "team-a"}
    server = JupyterProcess(tmp_path, accel).start()
    server.wait_connected()
    yield server
    server.stop()


@pytest.mark.cluster
def test_followed_logs_are_bounded_per_user_and_freed_on_disconnect(devcluster, team_a_server):
    """The live-log job's master log is followed by kwok (it stays open while the pod runs)."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    custom = client.CustomObjectsApi(devcluster.api_client("admin"))
    name = LIVE_LOG_JOB
    try:
        custom.delete_namespaced_custom_object("kubeflow.org", "v1", "team-a", "pytorchjobs", name)
    except ApiException as exc:
        assert exc.status == 404
    deadline = time.monotonic() + 60
    while raw(team_a_server, "GET", f"/accel/v1/jobs/pytorch/{name}")[0] != 404:
        assert time.monotonic() < deadline, "an old live-log job is still there"
        time.sleep(0.3)
    devcluster.live_log.write_text("2026-01-01T00:00:00.000000000Z stdout F starting\n")
    master = {
        "replicas": 1,
        "restartPolicy": "Never",
        "template": {
            "metadata": {"annotations": {"devcluster.jupyter-accel.io/run-for": "120s"}},
            "spec": {"containers": [{"name": "pytorch", "image": "busybox", "command": ["sleep", "120"]}]},
        },
    }
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
    streams = Streams(team_a_server)
    try:
        deadline = time.monotonic() + 90
        while True:
            code, body = team_a_server.get_json(f"/accel/v1/jobs/pytorch/{name}")
            if code == 200 and body["job"]["status"] == "Running":
                break
            assert time.monotonic() < deadline, f"live-log job not running: {body}"
            time.sleep(0.5)
        _bound_and_release(streams, f"/accel/v1/jobs/pytorch/{name}/logs?follow=true&tail=5", "followed log streams")
        # non-followed reads are not counted: they end by themselves
        held = [streams.open(f"/accel/v1/jobs/pytorch/{name}/logs?follow=true")[1] for _ in range(MAX_STREAMS_PER_USER)]
        assert raw(team_a_server, "GET", f"/accel/v1/jobs/pytorch/{name}/logs?tail=5")[0] == 200
        for s in held:
            streams.close(s)
    finally:
        streams.close_all()
        custom.delete_namespaced_custom_object("kubeflow.org", "v1", "team-a", "pytorchjobs", name)
