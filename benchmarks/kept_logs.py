"""What keeping every pod's log costs the Jupyter server, and how soon a working-dir job's output shows.

One command starts a Jupyter server with the extension in its own process (the notebook user, namespace team-a,
NB_PREFIX set: the jobs it launches are its own, so the server keeps their logs) and measures:

- 20 PyTorchJobs of 4 pods each (a Master and 3 Workers, CPU only) launched at once on devcluster's kwok nodes,
  whose pods run and end as kwok plays them and whose logs are kwok's fixture (labelled as one): the server's
  resident memory and threads sampled every 0.25 s (before, peak, after), and the kept logs' bytes on disk;
- on the real node, a PyTorchJob with a working directory (a package and a config file): the seconds from the
  POST to the first line of its own output in its log (GET jobs/pytorch/NAME/logs), twice (the second with the
  node's image cached).

    python benchmarks/kept_logs.py                  # on a devcluster of its own
    python benchmarks/kept_logs.py --run-dir DIR    # a running devcluster (python -m devcluster up)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from scale_load import save_result  # noqa: E402

from devcluster.cluster import Cluster  # noqa: E402
from devcluster.jupyter_server import JupyterProcess, process_figures  # noqa: E402

NAMESPACE = "team-a"
WORKBENCH = "/notebook/team-a/kept-logs-bench"


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


class Sampler(threading.Thread):
    def __init__(self, pid: int, every: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.samples = pid, every, []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.every):
            self.samples.append(process_figures(self.pid))

    def peak(self, key: str) -> float:
        return max((s[key] for s in self.samples), default=0.0)


def wait_jobs(server: JupyterProcess, names: set[str], timeout: float) -> dict[str, str]:
    deadline, states = time.monotonic() + timeout, {}
    while time.monotonic() < deadline:
        code, body = server.get_json("/accel/v1/jobs?scope=mine")
        states = {j["name"]: j["status"] for j in body.get("jobs", []) if j["name"] in names} if code == 200 else {}
        if len(states) == len(names) and all(s in ("Succeeded", "Failed") for s in states.values()):
            return states
        time.sleep(1)
    raise TimeoutError(f"jobs not ended after {timeout}s: {states}")


def kept_logs(server: JupyterProcess, jobs: int, pods: int) -> dict[str, Any]:
    figures = process_figures(server.proc.pid)  # type: ignore[union-attr]
    sampler = Sampler(server.proc.pid)  # type: ignore[union-attr]
    sampler.start()
    names, run = set(), uuid.uuid4().hex[:5]
    t0 = time.monotonic()
    for i in range(jobs):
        body = {"kind": "pytorch", "name": f"kl-{run}-{i}", "queue": "default", "workers": pods,
                "cpu": "250m", "memory": "256Mi", "command": ["python", "train.py"]}  # fmt: skip
        code, out = server.get_json("/accel/v1/jobs", "POST", body)
        assert code == 201, out
        names.add(body["name"])
    states = wait_jobs(server, names, 600)
    time.sleep(5)  # the last streams end and their files close
    sampler.done.set()
    sampler.join()
    kept_dir = server.workdir / "kept"
    logs = [p for p in kept_dir.rglob("*.log*")]
    result = {
        "jobs": jobs,
        "pods": jobs * pods,
        "seconds": round(time.monotonic() - t0, 1),
        "succeeded": sum(s == "Succeeded" for s in states.values()),
        "rss_mib_before": figures["rss_mib"],
        "rss_mib_peak": sampler.peak("rss_mib"),
        "rss_mib_after": process_figures(server.proc.pid)["rss_mib"],  # type: ignore[union-attr]
        "threads_before": figures["threads"],
        "threads_peak": sampler.peak("threads"),
        "kept_pod_logs": len(logs),
        "kept_bytes_on_disk": du(kept_dir),
    }
    for name in names:
        server.get_json(f"/accel/v1/jobs/pytorch/{name}", "DELETE")
    return result


PROJECT = {
    "trainer/__init__.py": "",
    "trainer/model.py": "def describe(cfg):\n    return f\"model {cfg['model']} lr {cfg['lr']}\"\n",
    "config.json": '{"model": "tiny", "lr": 0.1}\n',
    "main.py": (
        "import json, os\nfrom trainer.model import describe\n"
        "print('FIRST LINE', describe(json.load(open('config.json'))), 'rank', os.environ['RANK'], flush=True)\n"
    ),
}


def first_line(server: JupyterProcess, image: str, queue: str) -> float:
    project = server.workdir / "root" / f"proj-{uuid.uuid4().hex[:5]}"
    for rel, text in PROJECT.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    name = f"wd-{uuid.uuid4().hex[:5]}"
    body = {"kind": "pytorch", "name": name, "queue": queue, "image": image, "workers": 1, "cpu": "500m",
            "memory": "512Mi", "workdir": project.name, "command": ["python", "main.py"]}  # fmt: skip
    t0 = time.monotonic()
    code, out = server.get_json("/accel/v1/jobs", "POST", body)
    assert code == 201, out
    try:
        while time.monotonic() - t0 < 300:
            code, text = server.get_json(f"/accel/v1/jobs/pytorch/{name}/logs?all=true")
            if code == 200 and "FIRST LINE model tiny lr 0.1 rank 0" in str(text):
                return round(time.monotonic() - t0, 2)
            time.sleep(0.25)
        raise TimeoutError(f"no first line from {name}")
    finally:
        server.get_json(f"/accel/v1/jobs/pytorch/{name}", "DELETE")


def run(cluster: Cluster, jobs: int, pods: int, log=print) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="ja-kept-logs."))
    accel = {
        "identity": "kubeconfig",
        "kubeconfig": str(cluster.kubeconfig("notebook-user")),
        "namespace": NAMESPACE,
        "kept_logs_dir": str(workdir / "kept"),
    }
    server = JupyterProcess(workdir, accel, env={"NB_PREFIX": WORKBENCH}).start()
    result: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
    }
    try:
        server.wait_connected()
        log(f"kept logs: {jobs} jobs x {pods} pods on kwok's nodes")
        result["kept_logs"] = kept_logs(server, jobs, pods)
        image = cluster.node_image()
        if image:
            log("first output line of a working-dir job on the real node (twice)")
            result["workdir_first_line_s"] = [first_line(server, image, "real-node") for _ in range(2)]
        else:
            result["workdir_first_line_s"] = "not measured: no real node (it needs root)"
    finally:
        server.stop()
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run-dir", default=None, help="a running devcluster to use (default: start one)")
    ap.add_argument("--jobs", type=int, default=20)
    ap.add_argument("--pods", type=int, default=4, help="pods per job (a Master and pods-1 Workers)")
    ap.add_argument("--out", default=str(REPO / "benchmarks/results/kept-logs.json"))
    args = ap.parse_args(argv)
    cluster = Cluster.attach(args.run_dir) if args.run_dir else Cluster()
    if not args.run_dir:
        cluster.start(timeout=600)
        cluster.start_reaper()
    try:
        result = run(cluster, args.jobs, args.pods)
    finally:
        if not args.run_dir:
            cluster.stop()
    print(json.dumps(result, indent=1))
    save_result(result, Path(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
