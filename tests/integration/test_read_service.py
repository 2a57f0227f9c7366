"""The shared read service against the devcluster: the service in its own process on 127.0.0.1 with a cluster-reading
kubeconfig (admin), and workbenches (Jupyter servers of their own processes) configured with `read_service_url`, each
sending its own bearer token (devcluster's token kubeconfigs):

- a workbench reading through the service answers /inventory and /queues as one reading directly does, and opens no
  watch on nodes, the cluster's pods or ClusterQueues (the API server's audit log of that account's watch requests);
- a GPU pod bound to a kwok node reaches a cluster reader's push stream through the service within seconds;
- what an account may not read is "not visible to your account" through the service too;
- a missing or bad token is a 401 JSON answer; no token is in the service's log (DEBUG), and reviews are cached;
- the service away: the workbench says so (connection.degraded) and recovers when it is back.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from polling import poll_until as _until

from devcluster.jupyter_server import JupyterProcess, ReadServiceProcess, free_port

pytestmark = pytest.mark.cluster

NAMESPACE = "team-a"


def _token(devcluster, identity: str) -> str:
    return yaml.safe_load(devcluster.kubeconfig(identity, token=True).read_text())["users"][0]["user"]["token"]


def _workbench(devcluster, identity: str, url: str | None) -> JupyterProcess:
    accel = {"identity": "kubeconfig", "kubeconfig": str(devcluster.kubeconfig(identity, token=True)),
             "namespace": NAMESPACE}  # fmt: skip
    if url:
        accel["read_service_url"] = url
    return JupyterProcess(Path(tempfile.mkdtemp(prefix="ja-rs-wb.")), accel).start()


CLUSTER_WIDE = ("nodes", "pods", "clusterqueues")


def _cluster_watches(devcluster, user: str, since: float) -> Counter[str]:
    """Cluster-wide watches on nodes, pods and ClusterQueues that `user` opened from `since` (epoch seconds) on,
    per resource, from the API server's audit log: attributed to the account, unlike the open-watch gauge, where a
    controller's watch reopening shows for a while as one more or one fewer."""
    opened: Counter[str] = Counter()
    for event in devcluster.audit_events():
        ref = event.get("objectRef", {})
        if (event.get("stage") == "ResponseStarted" and event.get("verb") == "watch"
                and event["user"]["username"] == user
                and ref.get("resource") in CLUSTER_WIDE and not ref.get("namespace")
                and datetime.fromisoformat(event["requestReceivedTimestamp"]).timestamp() >= since):  # fmt: skip
            opened[ref["resource"]] += 1
    return opened


@pytest.fixture(scope="module")
def read_service(devcluster) -> Iterator[ReadServiceProcess]:
    service = ReadServiceProcess(Path(tempfile.mkdtemp(prefix="ja-rs.")), devcluster.kubeconfig("admin")).start()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture
def workbenches(devcluster) -> Iterator[Callable[[str, str | None], JupyterProcess]]:
    started: list[JupyterProcess] = []

    def start(identity: str, url: str | None) -> JupyterProcess:
        started.append(_workbench(devcluster, identity, url))
        return started[-1]

    try:
        yield start
    finally:
        for proc in started:
            proc.stop()


def test_a_workbench_reads_through_the_service_what_it_reads_directly_and_watches_none_of_it(
    devcluster, read_service, workbenches
):
    t_served = time.time()
    served = workbenches("queue-viewer", read_service.url)
    info = served.wait_connected()
    assert info["connection"]["cluster_reads"]["source"] == "read-service"
    assert read_service.url in info["connection"]["cluster_reads"]["message"]
    _until(lambda: served.get_json("/accel/v1/inventory")[1].get("node_count"), 20, "nodes through the service")
    assert served.get_json("/accel/v1/queues")[1]["queues"]
    time.sleep(3)  # a watch the workbench opened with its first answers is in the log by now
    # the workbench using the read service opened no cluster-wide watch
    assert _cluster_watches(devcluster, "queue-viewer", t_served) == Counter()

    t_direct = time.time()
    direct = workbenches("queue-viewer", None)
    assert direct.wait_connected()["connection"]["cluster_reads"]["source"] == "api-server"
    _until(lambda: direct.get_json("/accel/v1/inventory")[1].get("node_count"), 20, "nodes read directly")
    # the same identity reading directly watches nodes and ClusterQueues itself (it may not list every pod)
    _until(lambda: _cluster_watches(devcluster, "queue-viewer", t_direct).keys() >= {"nodes", "clusterqueues"},
           20, "the direct workbench's own watches")  # fmt: skip
    assert "pods" not in _cluster_watches(devcluster, "queue-viewer", t_direct)

    paths = ("/accel/v1/inventory", "/accel/v1/inventory/nodes?limit=500", "/accel/v1/queues")

    def same() -> bool:
        return all(served.get_json(p) == direct.get_json(p) for p in paths)

    _until(same, 20, "equal answers")
    inventory = served.get_json("/accel/v1/inventory")[1]
    assert inventory["visibility"]["visible"] and not inventory["pods_visibility"]["visible"]  # no list of all pods
    queues = served.get_json("/accel/v1/queues")[1]
    assert queues["queues"] and queues["queues"][0]["cluster_queue"]


def _stream_topics(server: JupyterProcess, topics: list[tuple[float, list[str]]], stop: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    conn.request("GET", "/accel/v1/stream", headers=server.headers)
    resp = conn.getresponse()
    try:
        while not stop.is_set():
            line = resp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                topics.append((time.monotonic(), json.loads(line[6:])["topics"]))
    finally:
        conn.close()


def _gpus_allocated(server: JupyterProcess, node: str) -> int | None:
    """nvidia.com/gpu allocated on one node, as the workbench's inventory shows it (None: not visible)."""
    page = server.get_json("/accel/v1/inventory/nodes?limit=500")[1]
    found = next(n for n in page["nodes"] if n["name"] == node)
    return next(a["allocated"] for a in found["accelerators"] if a["resource"] == "nvidia.com/gpu")


def test_a_gpu_pod_on_a_kwok_node_reaches_a_cluster_readers_stream_through_the_service(
    devcluster, read_service, workbenches
):
    node = "gpu-h100-0"
    reader = workbenches("cluster-reader", read_service.url)
    reader.wait_connected()
    _until(lambda: reader.get_json("/accel/v1/inventory")[1].get("node_count"), 20, "the inventory")
    before = _gpus_allocated(reader, node)
    assert before is not None  # the cluster reader sees allocations (summed by the service)
    topics: list[tuple[float, list[str]]] = []
    stop = threading.Event()
    listener = threading.Thread(target=_stream_topics, args=(reader, topics, stop), daemon=True)
    listener.start()
    _until(lambda: topics, 10, "the stream's first event")
    name = f"rs-gpu-{uuid.uuid4().hex[:6]}"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "nodeName": node,  # bound at once: kwok runs it
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [{"name": "main", "image": "busybox", "resources": {"requests": {"nvidia.com/gpu": "1"},
                                                                               "limits": {"nvidia.com/gpu": "1"}}}],
        },
    }  # fmt: skip
    path = f"/api/v1/namespaces/{NAMESPACE}/pods"
    try:
        created = time.monotonic()
        devcluster.admin.request("POST", path, pod)
        seen, at = len(topics) - 1, None  # the last event before may be one still to be fetched
        deadline = created + 10
        while at is None and time.monotonic() < deadline:  # other changes may be pushed first: the push that shows it
            pushed = [t for t, names in topics[seen + 1 :] if "inventory" in names]
            if pushed and _gpus_allocated(reader, node) == before + 1:
                at = pushed[-1]
            seen = len(topics) - 1 if pushed else seen
            time.sleep(0.05)
        assert at is not None, (
            f"no inventory push showing the pod within 10 s; allocated {_gpus_allocated(reader, node)}"
        )
        latency = at - created
        print(f"read service: GPU pod created -> inventory pushed to the workbench in {latency:.2f} s")
        assert latency < 5.0
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            devcluster.admin.request("DELETE", f"{path}/{name}?gracePeriodSeconds=0")


def test_what_an_account_may_not_read_is_not_visible_through_the_service(devcluster, read_service, workbenches):
    code, body = read_service.get("/v1/keys/nodes", _token(devcluster, "notebook-user"))
    assert code == 403 and body["message"] == "not visible to your account"
    code, body = read_service.get("/v1/keys/nodes", _token(devcluster, "queue-viewer"))
    assert code == 200 and body["items"]
    code, body = read_service.get("/v1/keys/allocations", _token(devcluster, "queue-viewer"))
    assert code == 403  # it may list nodes, not every pod: the service does not widen that

    user = workbenches("notebook-user", read_service.url)
    user.wait_connected()
    inventory = _until(lambda: user.get_json("/accel/v1/inventory")[1].get("visibility"), 20, "the inventory")
    assert inventory == {"visible": False, "message": "not visible to your account"}
    queues = user.get_json("/accel/v1/queues")[1]
    assert queues["queues"]  # its LocalQueues, from its own namespace
    assert all(q["cluster_queue_visibility"]["message"] == "not visible to your account" for q in queues["queues"])


def test_missing_or_bad_tokens_are_refused_and_no_token_is_logged(devcluster, read_service):
    for headers in ({}, {"Authorization": "Basic dXNlcjpwdw=="}, {"Authorization": "Bearer"},
                    {"Authorization": "Bearer not-a-token-" + uuid.uuid4().hex}):  # fmt: skip
        for path in ("/v1/keys/nodes", "/v1/stream"):
            code, body = read_service.get(path, headers=headers)
            assert code == 401 and body["reason"] == "Unauthorized" and body["message"], (headers, body)
    code, body = read_service.get("/v1/keys/pods", _token(devcluster, "queue-viewer"))
    assert code == 404 and body["field"] == "key" and "nodes" in body["message"]
    code, body = read_service.get("/v1/keys/nodes?since=soon", _token(devcluster, "queue-viewer"))
    assert code == 400 and body["field"] == "since"

    token = _token(devcluster, "queue-viewer")
    read_service.get("/v1/keys/clusterqueues", token)
    reviews = read_service.health()[1]["reviews"]
    for _ in range(5):
        assert read_service.get("/v1/keys/clusterqueues", token)[0] == 200
    assert read_service.health()[1]["reviews"] == reviews  # cached per token: no review per request

    log = read_service.log_text()
    assert "tokenreviews" in log  # the DEBUG log is what is searched
    for identity in ("notebook-user", "queue-viewer", "cluster-reader"):
        secret = _token(devcluster, identity)
        assert secret not in log and secret[:16] not in log and secret[-16:] not in log


def test_free_accelerators_for_a_tier_b_account_only_where_the_admin_allows(devcluster, read_service, workbenches):
    """queue-viewer may list nodes but not every pod (tier b). By default the service keeps the per-node sums from
    it ("not visible"); with --allocations-for nodes it serves them, and the inventory says where they come from."""
    strict = workbenches("queue-viewer", read_service.url)
    strict.wait_connected()
    inv = _until(lambda: (b := strict.get_json("/accel/v1/inventory")[1]).get("node_count") and b, 20, "nodes")
    assert inv["pods_visibility"]["visible"] is False and inv.get("free_source") is None
    assert all(m["free"] is None for m in inv["models"])

    policy = ReadServiceProcess(Path(tempfile.mkdtemp(prefix="ja-rs.")), devcluster.kubeconfig("admin"),
                                args=("--allocations-for", "nodes")).start()  # fmt: skip
    try:
        allowed = workbenches("queue-viewer", policy.url)
        allowed.wait_connected()

        def free() -> dict | None:
            body = allowed.get_json("/accel/v1/inventory")[1]
            return body if body.get("models") and body["pods_visibility"]["visible"] else None

        inv = _until(free, 30, "free figures through the service")
        h100 = next(m for m in inv["models"] if m["resource"] == "nvidia.com/gpu" and "H100" in m["model"])
        assert h100["free"] is not None and h100["free"] + h100["allocated"] == h100["allocatable"]
        assert "read service" in inv["free_source"] and "no pod names" in inv["free_source"]
        # the same figures a cluster reader computes from every pod itself
        reader = workbenches("cluster-reader", None)
        reader.wait_connected()
        _until(lambda: _models(reader) == _models(allowed), 30, "the same free figures as from every pod")
    finally:
        policy.stop()


def _models(wb: JupyterProcess) -> list[tuple]:
    body = wb.get_json("/accel/v1/inventory")[1]
    return sorted((m["key"], m["allocatable"], m["allocated"], m["free"]) for m in body.get("models") or [])


def test_the_service_away_is_said_and_the_workbench_recovers(devcluster, workbenches):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    wb = workbenches("queue-viewer", url)
    wb.wait_connected()

    def degraded() -> dict | None:
        return wb.get_json("/accel/v1/info")[1]["connection"].get("degraded")

    said = _until(degraded, 20, "the degraded sentence")
    assert said["reason"] == "reconnecting" and f"read service at {url}" in said["message"]
    assert wb.get_json("/accel/v1/inventory")[0] == 200  # answers, from what it holds (nothing yet)
    service = ReadServiceProcess(Path(tempfile.mkdtemp(prefix="ja-rs.")), devcluster.kubeconfig("admin"), port=port)
    service.start()
    try:
        _until(lambda: degraded() is None, 40, "the degraded sentence to clear")
        _until(lambda: wb.get_json("/accel/v1/inventory")[1].get("node_count"), 10, "nodes after the service came")
    finally:
        service.stop()
