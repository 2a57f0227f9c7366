"""What the soak benchmark (soak.py) does to the Jupyter server: reader clients, push-stream clients that fetch again
what each event names, each group in a process of its own, and the churner that creates and deletes jobs through
the server."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import queue
import threading
import time
import uuid
from typing import Any

from scale_load import Http

from devcluster.cluster import Cluster
from devcluster.jupyter_server import JupyterProcess
from devcluster.rest import ApiError

NAMESPACE = "team-a"  # the operators (KubeRay, training-operator) reconcile team-a and team-b only
WORKBENCH = "/notebook/team-a/soak-bench"  # NB_PREFIX of the server: its jobs carry workbench=soak-bench
WORKBENCH_LABEL = "jupyter-accel.io/workbench=soak-bench"
JOB_APIS = (("kubeflow.org/v1", "pytorchjobs"), ("ray.io/v1", "rayclusters"))  # what the churner makes
FETCH = {  # what a push event's topic makes a stream client fetch again (the sidebar's keysForTopics)
    "inventory": "/accel/v1/inventory",
    "profiles": "/accel/v1/profiles",
    "queues": "/accel/v1/queues",
    "workloads": "/accel/v1/queues",
    "jobs": "/accel/v1/jobs?scope=namespace",
}


# -- clients (each group in a process of its own) ------------------------------------------------------------------
def reader_group(port: int, token: str, paths: list[str], n: int, think: float, stop_at: float) -> dict[str, Any]:
    """`n` threads GET `paths` in turn until stop_at; latencies per path, errors with the first few texts."""
    http_ = Http(_Target(port, token))
    lat: dict[str, list[float]] = {p: [] for p in paths}
    errors: list[str] = []
    lock = threading.Lock()

    def client(i: int) -> None:
        for path in itertools.islice(itertools.cycle(paths), i, None):
            if time.monotonic() >= stop_at:
                return
            t0 = time.perf_counter()
            try:
                code, body = http_.get(path, timeout=30)
                ok = code == 200
                why = f"{code} {body[:200]!r}"
            except Exception as exc:
                ok, why = False, f"{type(exc).__name__}: {exc}"
            took = time.perf_counter() - t0
            with lock:
                (lat[path].append(took) if ok else errors.append(f"GET {path}: {why}"))
            time.sleep(think)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, stop_at - time.monotonic() + 60))
    return {"latencies": lat, "errors": len(errors), "first_errors": errors[:5]}


class _Target:
    def __init__(self, port: int, token: str) -> None:
        self.port, self.headers = port, {"Authorization": f"token {token}"}


class _StreamClient:
    """One push stream, read in one thread (each event's arrival time), and a second thread that fetches again what
    the events name, as the sidebar does; a fetch of jobs keeps the names it showed."""

    def __init__(self, port: int, token: str, stop_at: float) -> None:
        self.port, self.token, self.stop_at = port, token, stop_at
        self.events: list[tuple[float, int, list[str]]] = []  # (arrival, revision, topics)
        self.job_fetches: list[tuple[float, float, list[str]]] = []  # (event arrival, answered, job names)
        self.errors: list[str] = []
        self.fetches = 0
        self._todo: queue.Queue[tuple[float, list[str]] | None] = queue.Queue()
        self._http = Http(_Target(port, token))

    def run(self) -> None:
        fetcher = threading.Thread(target=self._fetch_loop, daemon=True)
        fetcher.start()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", "/accel/v1/stream", headers={"Authorization": f"token {self.token}"})
            resp = conn.getresponse()
            if resp.status != 200:
                self.errors.append(f"stream: {resp.status} {resp.read()[:200]!r}")
                return
            while time.monotonic() < self.stop_at:
                line = resp.readline()  # a keep-alive comment comes every 15 s, so this never waits longer
                if not line:
                    self.errors.append("stream: the server closed it")
                    return
                if line.startswith(b"data: "):
                    now = time.monotonic()
                    msg = json.loads(line[6:])
                    self.events.append((now, msg["revision"], msg["topics"]))
                    self._todo.put((now, msg["topics"]))
        except Exception as exc:
            if time.monotonic() < self.stop_at:
                self.errors.append(f"stream: {type(exc).__name__}: {exc}")
        finally:
            conn.close()
            self._todo.put(None)
            fetcher.join(60)

    def _fetch_loop(self) -> None:
        while True:
            item = self._todo.get()
            if item is None:
                return
            arrival, topics = item
            while not self._todo.empty():  # events that came meanwhile: one fetch answers them all
                more = self._todo.get()
                if more is None:
                    self._todo.put(None)
                    break
                arrival, topics = more[0], sorted({*topics, *more[1]})
            wanted = set(FETCH) if "*" in topics else {t for t in topics if t in FETCH}
            for path in sorted({FETCH[t] for t in wanted}):
                try:
                    code, body = self._http.get(path, timeout=30)
                except Exception as exc:
                    self.errors.append(f"GET {path}: {type(exc).__name__}: {exc}")
                    continue
                self.fetches += 1
                if code != 200:
                    self.errors.append(f"GET {path}: {code} {body[:200]!r}")
                elif path == FETCH["jobs"]:
                    names = [j["name"] for j in json.loads(body)["jobs"]]
                    self.job_fetches.append((arrival, time.monotonic(), names))


def stream_group(port: int, token: str, n: int, stop_at: float) -> list[dict[str, Any]]:
    clients = [_StreamClient(port, token, stop_at) for _ in range(n)]
    threads = [threading.Thread(target=c.run, daemon=True) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, stop_at - time.monotonic() + 90))
    return [
        {"events": c.events, "job_fetches": c.job_fetches, "errors": c.errors, "fetches": c.fetches} for c in clients
    ]


# -- the churn -----------------------------------------------------------------------------------------------------
class Churner:
    """Creates a job every `every` seconds through the server and deletes the oldest past `live`; each change with
    the time its request was sent."""

    KINDS = (
        {"kind": "pytorch", "workers": 1, "command": ["sh", "-c", "echo soak"]},
        {"kind": "ray-cluster", "workers": 1},
    )

    def __init__(self, server: JupyterProcess, every: float, live: int) -> None:
        self.server, self.every, self.live = server, every, live
        # (write sent, its answer: the API server has made the change, "create" | "delete", name)
        self.changes: list[tuple[float, float, str, str]] = []
        self.alive: list[tuple[str, str]] = []  # (kind, name), oldest first
        self.write_ms: list[float] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._n = itertools.count()

    def __enter__(self) -> Churner:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(60)

    def _run(self) -> None:
        while not self._stop.is_set():
            t_next = time.monotonic() + self.every
            self._create()
            if len(self.alive) > self.live:
                self._delete(*self.alive.pop(0))
            self._stop.wait(max(0.0, t_next - time.monotonic()))

    def _create(self) -> None:
        i = next(self._n)
        body = {**self.KINDS[i % len(self.KINDS)], "name": f"soak-{uuid.uuid4().hex[:5]}-{i}"}
        body["client_request_id"] = body["name"]
        t0 = time.monotonic()
        code, answer = self.server.get_json("/accel/v1/jobs", method="POST", body=body, timeout=60)
        if code == 201:
            self.changes.append((t0, time.monotonic(), "create", body["name"]))
            self.write_ms.append(1000 * (time.monotonic() - t0))
            self.alive.append((body["kind"], body["name"]))
        else:
            self.errors.append(f"POST jobs {body['name']}: {code} {str(answer)[:200]}")

    def _delete(self, kind: str, name: str) -> None:
        t0 = time.monotonic()
        code, answer = self.server.get_json(f"/accel/v1/jobs/{kind}/{name}", method="DELETE", timeout=60)
        if code in (200, 202, 204):
            self.changes.append((t0, time.monotonic(), "delete", name))
            self.write_ms.append(1000 * (time.monotonic() - t0))
        else:
            self.errors.append(f"DELETE {kind}/{name}: {code} {str(answer)[:200]}")


def remove_jobs(cluster: Cluster, timeout: float = 90) -> int:
    """Every job of the soak's workbench in the namespace, gone (their pods follow them, collected by Kubernetes)."""
    admin, removed = cluster.admin, 0
    paths = [f"/apis/{api}/namespaces/{NAMESPACE}/{plural}" for api, plural in JOB_APIS]
    for path in paths:
        for item in admin.get(f"{path}?labelSelector={WORKBENCH_LABEL}")["items"]:
            with contextlib.suppress(ApiError):
                admin.request("DELETE", f"{path}/{item['metadata']['name']}")
                removed += 1
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(admin.get(f"{path}?labelSelector={WORKBENCH_LABEL}")["items"] for path in paths):
            break
        time.sleep(0.5)
    return removed
