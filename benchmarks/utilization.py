"""What utilization from the metrics API costs: queries per minute per open sidebar, and the latency it adds to a
job list of 50 running jobs that hold accelerators.

One command starts a Jupyter server with the extension in its own process (metrics_url: devcluster's Prometheus,
the loop probe of benchmarks/loop_lag.py loaded) and 50 PyTorchJobs of one pod each on devcluster's kwok nodes,
one device each (NVIDIA GPUs, two MIG sizes, AMD and Gaudi: all 50 devices the kwok nodes have, so three
exporter families are asked), created without a queue in team-b (whose LocalQueue is not Kueue's default), so they
all run. Then:

- a sidebar's polling, as the front-end does it (GET /utilization every 30 s, GET /queues/usage every 2 min, the
  job list on each change): the metrics API's own count of range queries (prometheus_http_requests_total) over
  the window, for one sidebar and for three at once (their answers share the server's cache);
- the latency of GET /jobs and GET /utilization with the 50 jobs (the first /utilization asks the metrics API;
  the next ones within a step are answered from the cache), and how long the server's event loop was held.

    python benchmarks/utilization.py                  # on a devcluster of its own
    python benchmarks/utilization.py --run-dir DIR    # a running devcluster (python -m devcluster up)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from scale_load import Http, loop_held, save_result  # noqa: E402

from devcluster.cluster import Cluster  # noqa: E402
from devcluster.jupyter_server import JupyterProcess  # noqa: E402
from jupyter_accel.domain.builders import build_objects  # noqa: E402
from jupyter_accel.domain.builders.common import BuildContext  # noqa: E402
from jupyter_accel.models import JobRequest  # noqa: E402

# team-b: its LocalQueue is not Kueue's default-named one, so jobs without a queue stay unmanaged and all run
# (in team-a Kueue would queue them in `default`, whose GPU quota is smaller than the 50 devices)
NAMESPACE = "team-b"
DEVICES = {  # all the kwok nodes have (devcluster/data/nodes.yaml)
    "nvidia.com/gpu": 16,
    "nvidia.com/mig-1g.10gb": 14,
    "nvidia.com/mig-3g.40gb": 4,
    "amd.com/gpu": 8,
    "habana.ai/gaudi": 8,
}
UTILIZATION_S, QUEUES_S = 30.0, 120.0  # labextension/src/cluster.ts UTILIZATION_MS, QUEUE_USAGE_MS


def range_queries(metrics_url: str) -> int:
    """The metrics API's own count of the range queries it answered."""
    text = urllib.request.urlopen(f"{metrics_url}/metrics", timeout=10).read().decode()
    return sum(
        int(float(line.rsplit(" ", 1)[1]))
        for line in text.splitlines()
        if line.startswith("prometheus_http_requests_total{") and 'handler="/api/v1/query_range"' in line
    )


def create_jobs(cluster: Cluster, run: str) -> list[str]:
    """50 one-pod PyTorchJobs, one device each, without a queue (Kueue leaves them alone): they all run on kwok."""
    rest = cluster.rest("admin")
    ctx = BuildContext(namespace=NAMESPACE, image="busybox", known_accelerators=list(DEVICES))
    names = []
    for resource, count in DEVICES.items():
        for _ in range(count):
            name = f"ut-{run}-{len(names)}-{re.sub('[^a-z0-9]', '', resource.split('/')[0])[:6]}"
            request = JobRequest.model_validate(
                {
                    "kind": "pytorch",
                    "name": name,
                    "workers": 1,
                    "command": ["sleep", "3600"],
                    "accelerators": {"resource": resource, "count": 1},
                    "cpu": "100m",
                    "memory": "128Mi",
                }
            )
            [job] = build_objects(request, ctx)
            # the kwok nodes taint their devices (as the GPU operators do); a queue's flavor would add this
            template = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]
            template["spec"]["tolerations"] = [{"operator": "Exists", "effect": "NoSchedule"}]
            # kwok ends a PyTorchJob's pods after 5 s unless told how long they run
            template["metadata"].setdefault("annotations", {})["devcluster.jupyter-accel.io/run-for"] = "3600s"
            rest.request("POST", f"/apis/kubeflow.org/v1/namespaces/{NAMESPACE}/pytorchjobs", job)
            names.append(name)
    return names


def all_running(http_: Http, names: list[str], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs = json.loads(http_.get("/accel/v1/jobs?scope=namespace")[1])["jobs"]
        running = {j["name"] for j in jobs if j["status"] == "Running" and j["accelerators"]}
        if set(names) <= running:
            return
        time.sleep(2)
    raise TimeoutError(f"{len(set(names) - running)} of the jobs do not run")


def sidebar(http_: Http, seconds: float, stop: threading.Event) -> None:
    """What an open sidebar asks (labextension/src/cluster.ts): utilization every 30 s, queues' use every 2 min."""
    t0 = time.monotonic()
    next_util, next_queues = t0, t0
    while not stop.is_set() and time.monotonic() - t0 < seconds:
        now = time.monotonic()
        if now >= next_util:
            http_.get("/accel/v1/utilization?scope=namespace")
            next_util += UTILIZATION_S
        if now >= next_queues:
            http_.get("/accel/v1/queues/usage")
            next_queues += QUEUES_S
        stop.wait(0.5)


def per_minute(server: JupyterProcess, metrics_url: str, sidebars: int, seconds: float) -> float:
    before = range_queries(metrics_url)
    stop = threading.Event()
    threads = [threading.Thread(target=sidebar, args=(Http(server), seconds, stop)) for _ in range(sidebars)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return round((range_queries(metrics_url) - before) / (seconds / 60), 1)


def latency(http_: Http, path: str, n: int) -> dict[str, float]:
    took = []
    for _ in range(n):
        t0 = time.monotonic()
        code, _body = http_.get(path)
        assert code == 200, (path, code)
        took.append(time.monotonic() - t0)
    return {"p50_ms": round(statistics.median(took) * 1000, 1), "max_ms": round(max(took) * 1000, 1)}


def run(cluster: Cluster, seconds: float, log=print) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="ja-utilization."))
    accel = {
        "identity": "kubeconfig",
        "kubeconfig": str(cluster.kubeconfig("admin")),  # the notebook users have rights in team-a only
        "namespace": NAMESPACE,
        "metrics_url": cluster.metrics_url,
    }
    server = JupyterProcess(
        workdir,
        accel,
        extensions={"loop_lag": True},
        env={"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "benchmarks"), os.environ.get("PYTHONPATH")]))},
    ).start()
    result: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
    }
    run_id = uuid.uuid4().hex[:4]
    names: list[str] = []
    try:
        server.wait_connected()
        http_ = Http(server)
        names = create_jobs(cluster, run_id)
        log(f"{len(names)} jobs of one device each; waiting until they all run")
        all_running(http_, names)
        result["jobs_running"] = len(names)
        a = time.monotonic()
        result["jobs_latency"] = latency(http_, "/accel/v1/jobs?scope=namespace", 20)
        first = latency(http_, "/accel/v1/utilization?scope=namespace", 1)  # asks the metrics API
        result["utilization_first_ms"] = first["p50_ms"]
        result["utilization_cached"] = latency(http_, "/accel/v1/utilization?scope=namespace", 20)
        result["loop_during_requests"] = loop_held(http_, a, time.monotonic())
        answer = json.loads(http_.get("/accel/v1/utilization?scope=namespace")[1])
        result["utilization_rows"] = len(answer["jobs"])
        for sidebars in (1, 3):
            log(f"{sidebars} open sidebar(s) for {seconds:.0f} s")
            result[f"queries_per_minute_{sidebars}_sidebar"] = per_minute(
                server, cluster.metrics_url, sidebars, seconds
            )
        result["queries_per_minute_closed_sidebar"] = per_minute(server, cluster.metrics_url, 0, 60)
    finally:
        rest = cluster.rest("admin")
        for name in names:
            with contextlib.suppress(Exception):  # already gone
                rest.request("DELETE", f"/apis/kubeflow.org/v1/namespaces/{NAMESPACE}/pytorchjobs/{name}")
        server.stop()
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run-dir", default=None, help="a running devcluster to use (default: start one)")
    ap.add_argument("--seconds", type=float, default=240.0, help="how long each sidebar window lasts")
    ap.add_argument("--out", default=str(REPO / "benchmarks/results/utilization.json"))
    args = ap.parse_args(argv)
    cluster = Cluster.attach(args.run_dir) if args.run_dir else Cluster()
    if not args.run_dir:
        cluster.start(timeout=600)
        cluster.start_reaper()
    try:
        result = run(cluster, args.seconds)
    finally:
        if not args.run_dir:
            cluster.stop()
    print(json.dumps(result, indent=1))
    save_result(result, Path(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
