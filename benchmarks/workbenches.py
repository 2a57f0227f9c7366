"""What each additional workbench costs the API server: watches, watch bytes at a given churn, requests, memory.

Each workbench runs its own Jupyter server with its own watches. This starts `--servers` of them for each of three
kinds of account, side by side with none, while pods across the cluster change at `--churn` per second, and reads
the API server's own metrics (apiserver_longrunning_requests for watches, apiserver_watch_events_sizes for the
bytes it sends to watchers, apiserver_request_total for requests):

- a namespace user (devcluster's notebook-user in team-a: no cluster-wide pods or nodes, as in a default
  OpenShift AI project),
- a cluster reader (admin: may list every pod and node, so it watches them all), and
- a cluster reader via the read service (devcluster's cluster-reader, by token: the same reads, but nodes, the
  allocations summed from the pods and Kueue's cluster objects come from one shared read service,
  `python -m jupyter_accel.readservice`; that row is measured against a window with the service alone, whose own
  cost, once per cluster, is printed below the table).

    python benchmarks/workbenches.py --run-dir DIR [--servers 3] [--seconds 30] [--churn 20] [--churn-kind replace]

docs/scale.md extrapolates the per-workbench figures to 200 and 1,000 workbenches.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import scale_build  # noqa: E402
import scale_load  # noqa: E402
import scale_objects as objs  # noqa: E402
from scale_load import save_result  # noqa: E402

from devcluster.cluster import Cluster  # noqa: E402
from devcluster.jupyter_server import JupyterProcess, ReadServiceProcess  # noqa: E402
from devcluster.rest import ApiError, Rest  # noqa: E402

# the cluster this measures on: what the churn changes
CHURN_SCALE = objs.Scale(nodes=100, pods=2000, cluster_queues=10, cohorts=2, namespaces=20, workloads=200, jobs=30)


@dataclass(frozen=True)
class Account:
    identity: str
    namespace: str
    via_service: bool = False  # reads cluster-wide objects through the shared read service (with its own token)


VIA_SERVICE = "cluster reader via the read service"
ACCOUNTS = {
    "namespace user": Account("notebook-user", "team-a"),
    "cluster reader": Account("admin", objs.WORK_NS),
    VIA_SERVICE: Account("cluster-reader", objs.WORK_NS, via_service=True),
}
SERVICE_ALONE = "read service alone"


def metrics(rest: Rest) -> dict[str, float]:
    """Watches open, bytes sent in watch events, and requests answered, from the API server's /metrics."""
    out = {"watches": 0.0, "watch_bytes": 0.0, "watch_events": 0.0, "requests": 0.0}
    for line in rest.request("GET", "/metrics", timeout=30).splitlines():
        name = line.split("{", 1)[0]
        if name not in (
            "apiserver_longrunning_requests",
            "apiserver_watch_events_sizes_sum",
            "apiserver_watch_events_total",
            "apiserver_request_total",
        ):
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', line))
        value = float(line.rsplit(" ", 1)[1])
        if name == "apiserver_longrunning_requests" and labels.get("verb") == "WATCH":
            out["watches"] += value
        elif name == "apiserver_watch_events_sizes_sum":
            out["watch_bytes"] += value
        elif name == "apiserver_watch_events_total":
            out["watch_events"] += value
        elif name == "apiserver_request_total" and labels.get("verb") not in ("WATCH", "CONNECT"):
            out["requests"] += value
    return out


def bytes_read(pid: int) -> int:
    """What a process has read, sockets included (/proc/PID/io rchar): a Jupyter server of a workbench reads little
    else, so this is what the API server sent it (TLS framing included), measured where it arrives."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0


def churn(rest: Rest, per_second: float, seconds: float, scale_: objs.Scale, stop: threading.Event,
          kind: str = "labels") -> int:  # fmt: skip
    """Changes of the bench pods at a steady rate, spread over the cluster's namespaces: label patches (`labels`:
    nothing a node's allocation is made of changes), or a pod deleted and created again on its node (`replace`:
    jobs ending and starting; each one changes what that node's pods hold twice)."""
    names = objs.namespace_names(scale_)
    done, t0 = 0, time.monotonic()
    round_ = time.monotonic_ns()  # each round sets new values: a patch to the value a pod has changes nothing

    def patch(i: int) -> None:
        j = i % scale_.pods
        path = rest.path("v1", "Pod", names[j % len(names)], f"bench-pod-{j:05d}")
        with contextlib.suppress(ApiError, OSError):
            rest.request(
                "PATCH", path, {"metadata": {"labels": {"churn": f"{round_}-{i}"}}}, "application/merge-patch+json"
            )

    def replace(i: int) -> None:
        j = i % scale_.pods
        ns = names[j % len(names)]
        with contextlib.suppress(ApiError, OSError):
            rest.request("DELETE", rest.path("v1", "Pod", ns, f"bench-pod-{j:05d}") + "?gracePeriodSeconds=0")
        with contextlib.suppress(ApiError, OSError):
            rest.request("POST", rest.path("v1", "Pod", ns), objs.pod(j, scale_))

    change = replace if kind == "replace" else patch
    with ThreadPoolExecutor(8) as pool:
        while not stop.is_set() and time.monotonic() - t0 < seconds:
            due = int((time.monotonic() - t0) * per_second)
            list(pool.map(change, range(done, due)))
            done = max(done, due)
            time.sleep(0.05)
    return done


def window(rest: Rest, seconds: float, per_second: float, scale_: objs.Scale, kind: str) -> dict[str, float]:
    """The metrics' change over `seconds` of churn."""
    before = metrics(rest)
    stop = threading.Event()
    changes = churn(rest, per_second, seconds, scale_, stop, kind)
    after = metrics(rest)
    delta = {k: after[k] - before[k] for k in before}
    delta["watches"] = after["watches"]  # a gauge: how many are open now
    delta["changes"] = changes
    return delta


def measure(cluster: Cluster, servers: int, seconds: float, per_second: float, kind: str) -> dict[str, Any]:
    rest = cluster.admin
    result: dict[str, Any] = {"servers": servers, "seconds": seconds, "churn_per_s": per_second, "churn": kind}
    # a first round of churn is not measured: the first change of each pod sets off more than the later ones
    # (kwok and the controllers react once), which would make the window without workbenches the dearest
    window(rest, seconds, per_second, CHURN_SCALE, kind)
    result["none"] = window(rest, seconds, per_second, CHURN_SCALE, kind)
    for label, account in ACCOUNTS.items():
        procs: list[Any] = []
        service = None
        try:
            accel = {"identity": "kubeconfig", "namespace": account.namespace,
                     "kubeconfig": str(cluster.kubeconfig(account.identity, token=account.via_service))}  # fmt: skip
            if account.via_service:
                service = ReadServiceProcess(
                    Path(tempfile.mkdtemp(prefix="ja-rs.")), cluster.kubeconfig("admin")
                ).start()
                accel["read_service_url"] = service.url
                time.sleep(5)  # its informers listed and watching
                result[SERVICE_ALONE] = measured_window([service], rest, seconds, per_second, kind)
                procs.append(service)  # its bytes in the row's window are the service's, not a workbench's
            for _ in range(servers):
                proc = JupyterProcess(Path(tempfile.mkdtemp(prefix="ja-wb.")), accel).start()
                proc.wait_connected()
                procs.append(proc)
            time.sleep(5)  # every informer listed and watching
            result[label] = measured_window(procs, rest, seconds, per_second, kind)
            if service is not None:  # the workbenches' figures only
                result[label]["received"] = result[label]["received"][1:]
                result[label]["rss_mib"] = result[label]["rss_mib"][1:]
        finally:
            for proc in procs:
                proc.stop()
    minutes = seconds / 60
    for label, account in ACCOUNTS.items():
        base = result[SERVICE_ALONE] if account.via_service else result["none"]
        result[label]["per_workbench"] = per_workbench(result[label], base, servers, minutes)
    alone = result[SERVICE_ALONE]
    result[SERVICE_ALONE]["service"] = {
        "watches": alone["watches"] - result["none"]["watches"],
        "received_kib_per_min": round(alone["received"][0] / 1024 / minutes, 1),
        "rss_mib": alone["rss_mib"][0],
    }
    return result


def measured_window(procs: list[Any], rest: Rest, seconds: float, per_second: float, kind: str) -> dict[str, Any]:
    """One window of churn, with what each process received meanwhile and its RSS at the end; with a read service
    among them, how many new revisions each of its keys got (what its clients were told to fetch)."""
    service = next((p for p in procs if isinstance(p, ReadServiceProcess)), None)
    revisions = service_revisions(service) if service else {}
    read_before = [bytes_read(p.proc.pid) for p in procs]
    measured: dict[str, Any] = window(rest, seconds, per_second, CHURN_SCALE, kind)
    measured["received"] = [bytes_read(p.proc.pid) - b for p, b in zip(procs, read_before, strict=True)]
    measured["rss_mib"] = [scale_load.rss_mib(p.proc.pid) for p in procs]
    if service:
        measured["service_revisions"] = {k: v - revisions[k] for k, v in service_revisions(service).items()}
    return measured


def service_revisions(service: ReadServiceProcess) -> dict[str, int]:
    return {k: v["revision"] for k, v in service.health()[1]["keys"].items()}


def per_workbench(m: dict[str, Any], base: dict[str, Any], servers: int, minutes: float) -> dict[str, float]:
    return {
        "watches": round((m["watches"] - base["watches"]) / servers, 1),
        "watch_kib_per_min": round((m["watch_bytes"] - base["watch_bytes"]) / servers / 1024 / minutes, 1),
        "received_kib_per_min": round(sum(m["received"]) / servers / 1024 / minutes, 1),
        "watch_events_per_min": round((m["watch_events"] - base["watch_events"]) / servers / minutes, 1),
        "requests_per_min": round((m["requests"] - base["requests"]) / servers / minutes, 1),
        "rss_mib": round(sum(m["rss_mib"]) / len(m["rss_mib"]), 1),
    }


def table(result: dict[str, Any]) -> str:
    out = [
        f"Per additional workbench, {result['servers']} servers per account, {result['churn_per_s']} pod changes/s "
        f"({result['churn']}) across the cluster, {result['seconds']} s windows",
        "",
        "| account | watches | received KiB/min | watch KiB/min (API server) | watch events/min | requests/min "
        "| RSS MiB |",
        "|---|---|---|---|---|---|---|",
    ]
    for label in ACCOUNTS:
        p = result[label]["per_workbench"]
        out.append(
            f"| {label} | {p['watches']} | {p['received_kib_per_min']} | {p['watch_kib_per_min']} | "
            f"{p['watch_events_per_min']} | "
            f"{p['requests_per_min']} | {p['rss_mib']} |"
        )
    svc = result[SERVICE_ALONE]["service"]
    changed = {k: v for k, v in result[VIA_SERVICE]["service_revisions"].items() if v} or "none"
    out += [
        "",
        f"The read service itself, once per cluster: {svc['watches']:g} watches, received "
        f"{svc['received_kib_per_min']} KiB/min, RSS {svc['rss_mib']} MiB; new revisions of its keys in the "
        f"workbenches' window: {changed}.",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run-dir", required=True, help="a running devcluster (python -m devcluster up)")
    ap.add_argument("--servers", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--churn", type=float, default=20.0, help="pod changes per second across the cluster")
    ap.add_argument("--churn-kind", choices=("labels", "replace"), default="labels",
                    help="labels: label patches; replace: a pod deleted and created again (allocations change)")  # fmt: skip
    ap.add_argument("--out", help="where the JSON goes (default benchmarks/results/workbenches-KIND.json)")
    args = ap.parse_args(argv)
    cluster = Cluster.attach(args.run_dir)
    rest = cluster.admin
    if rest.get(f"/api/v1/namespaces?labelSelector={objs.BENCH}%3Dtrue")["items"]:
        scale_build.remove(rest, print)
    scale_build.build(rest, CHURN_SCALE, print)
    scale_build.settle(rest, print)  # kwok starting the pods is not the churn being measured, nor is Kueue admitting
    try:
        result = measure(cluster, args.servers, args.seconds, args.churn, args.churn_kind)
    finally:
        scale_build.remove(rest, print)
    print(table(result))
    save_result(result, Path(args.out or REPO / "benchmarks" / "results" / f"workbenches-{args.churn_kind}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
