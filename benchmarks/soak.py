"""Load with churn: many clients on the read endpoints and the push stream for minutes while jobs come and go.

One command starts a Jupyter server with the extension in its own process (the cluster admin's view of namespace
team-a, whose operators run the jobs; kwok's pods start, finish and go), and for `--seconds`:

- reader clients GET the read endpoints in turn (info, inventory, a node page, profiles, queues, workloads, jobs,
  one job's detail and log tail), each waiting `--think` seconds between requests;
- stream clients hold the push stream (/accel/v1/stream) and, as the sidebar does, fetch again what each event
  names; the Jupyter server allows MAX_STREAMS_PER_USER (16) push streams per user, and one server is one user, so
  at most 16 of the clients are stream clients and the rest are readers (`--streams`);
- a churner creates a job every `--churn-every` seconds through the server (PyTorchJobs whose pods finish after 5 s,
  RayClusters whose pods run) and deletes the oldest once more than `--live` are there.

Measured: errors of every kind (a non-200 read, a broken stream, a missed push, a failed write), the latency of each
read, the push latency (a job created or deleted -> the first push event naming "jobs" after which the stream
client's fetch shows it; and until that fetch answered), whether every stream client received every push (the
broadcaster numbers them), and the server's RSS, open file descriptors, sockets and threads sampled every second:
idle, once the clients are on (after a warm-up), their peak, at the end, and once the clients have gone.

The clients run in two processes of their own (readers; streams), so that their Python does not delay the stream
readers' clocks (soak_load.py: the clients and the churner; soak_figures.py: the sampling and the figures). It prints one table, saves JSON, removes its jobs and stops by itself. All traffic stays on
loopback.

    python benchmarks/soak.py                    # 50 clients (16 streams) for 5 minutes, on a devcluster of its own
    python benchmarks/soak.py --scale smoke      # ~1 minute; `make test` runs it (tests/benchmarks/test_soak_smoke.py)
    python benchmarks/soak.py --run-dir DIR      # reuse a running devcluster (python -m devcluster up)
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import platform
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from scale_load import percentile, save_result, summary  # noqa: E402
from soak_figures import Sampler, push_figures, resource_figures  # noqa: E402
from soak_load import NAMESPACE, WORKBENCH, Churner, reader_group, remove_jobs, stream_group  # noqa: E402

from devcluster.cluster import Cluster  # noqa: E402
from devcluster.jupyter_server import JupyterProcess, process_figures  # noqa: E402

MAX_STREAMS_PER_USER = 16  # jupyter_accel.api.base.MAX_STREAMS_PER_USER (checked against it in run())


@dataclass(frozen=True)
class Settings:
    clients: int = 50
    streams: int = MAX_STREAMS_PER_USER
    seconds: float = 300.0
    warmup: float = 20.0  # load before "start" is sampled: connections opened, executor threads made
    think: float = 0.2  # a reader's pause between two requests
    churn_every: float = 2.0
    live: int = 8  # jobs kept at once; the oldest goes when there are more
    identity: str = "admin"
    trace_memory: bool = False  # tracemalloc in the server: where memory that grew during the load lives (slower)

    @classmethod
    def smoke(cls) -> Settings:
        return cls(clients=10, streams=4, seconds=30.0, warmup=6.0, churn_every=1.0, live=4)


# -- the run -------------------------------------------------------------------------------------------------------
def _events(cluster: Cluster) -> int:
    """Events in the namespace: the server caches them all (a job's detail shows its own), and Kubernetes keeps
    each for an hour, so churn grows that cache for an hour before it is steady."""
    return len(cluster.admin.get(f"/api/v1/namespaces/{NAMESPACE}/events")["items"])


def _probe(server: JupyterProcess, mark: bool = False, trim: bool = False) -> dict[str, Any]:
    """The server's threads by pool, and (with tracemalloc) where memory grew since the mark; `trim`: garbage
    collected and the C heap's free memory handed back first (process_probe.py)."""
    code, body = server.get_json("/bench/process" + ("?mark=1" if mark else "?trim=1" if trim else ""))
    return body if code == 200 else {"error": f"{code} {str(body)[:200]}"}


def _anchor(server: JupyterProcess, log) -> str:
    """A RayCluster that stays for the whole run: its detail and log tail are among the reads."""
    name = f"soak-anchor-{uuid.uuid4().hex[:4]}"
    code, answer = server.get_json(
        "/accel/v1/jobs", method="POST", body={"kind": "ray-cluster", "workers": 1, "name": name}
    )
    if code != 201:
        raise RuntimeError(f"the anchor RayCluster was refused: {code} {answer}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        code, body = server.get_json(f"/accel/v1/jobs/ray-cluster/{name}")
        running = code == 200 and body["job"]["status"] == "Running"
        if running and server.get_json(f"/accel/v1/jobs/ray-cluster/{name}/logs?tail=5")[0] == 200:
            log(f"  anchor {name} running")
            return name
        time.sleep(1)
    raise TimeoutError(f"the anchor RayCluster {name} did not run: {body}")


def run(cluster: Cluster, settings: Settings, *, log=print) -> dict[str, Any]:
    from jupyter_accel.api.base import MAX_STREAMS_PER_USER as cap

    assert cap == MAX_STREAMS_PER_USER, "benchmarks/soak.py: MAX_STREAMS_PER_USER changed"
    streams = min(settings.streams, cap, settings.clients)
    readers = settings.clients - streams
    result: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "settings": {**asdict(settings), "streams": streams, "readers": readers},
    }
    log(f"soak: {settings.clients} clients ({streams} push streams, {readers} readers) for {settings.seconds:.0f} s")
    remove_jobs(cluster)  # an earlier run's leftovers
    workdir = Path(tempfile.mkdtemp(prefix="ja-soak."))
    accel = {
        "identity": "kubeconfig",
        "kubeconfig": str(cluster.kubeconfig(settings.identity)),
        "namespace": NAMESPACE,
    }
    env = {
        "NB_PREFIX": WORKBENCH,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "benchmarks"), os.environ.get("PYTHONPATH")])),
        **({"PYTHONTRACEMALLOC": "1"} if settings.trace_memory else {}),
    }
    server = JupyterProcess(workdir, accel, extensions={"process_probe": True}, env=env).start()
    try:
        server.wait_connected()
        anchor = _anchor(server, log)
        paths = [
            "/accel/v1/info",
            "/accel/v1/inventory",
            "/accel/v1/inventory/nodes?limit=100",
            "/accel/v1/profiles",
            "/accel/v1/queues",
            "/accel/v1/workloads",
            "/accel/v1/jobs?scope=mine",
            f"/accel/v1/jobs/ray-cluster/{anchor}",
            f"/accel/v1/jobs/ray-cluster/{anchor}/logs?tail=20",
        ]
        events_before = _events(cluster)
        with Sampler(server.proc.pid) as sampler:
            time.sleep(2.5)  # an idle sample or two first
            t_begin = time.monotonic()
            stop_at = t_begin + settings.seconds
            spawn = multiprocessing.get_context("spawn")
            with concurrent.futures.ProcessPoolExecutor(2, mp_context=spawn) as pool:
                stream_job = pool.submit(stream_group, server.port, server.token, streams, stop_at)
                read_job = pool.submit(reader_group, server.port, server.token, paths, readers, settings.think, stop_at)
                time.sleep(1.0)  # the streams are open before the first change
                with Churner(server, settings.churn_every, settings.live) as churner:
                    time.sleep(max(0.0, t_begin + settings.warmup - time.monotonic()))
                    inside = {"start": _probe(server, mark=True)}
                    while time.monotonic() < stop_at:
                        time.sleep(min(10.0, max(0.0, stop_at - time.monotonic())))
                        log(f"  {time.monotonic() - t_begin:4.0f} s: {sampler.samples[-1][1]}")
                    inside["end"] = _probe(server)
                stream_results = stream_job.result()
                read_results = read_job.result()
            t_end = time.monotonic()
            time.sleep(4)  # the clients have gone: their sockets close, the slots come back
            t_after = time.monotonic() - 1
            time.sleep(1.5)
        result["events"] = {"before": events_before, "after": _events(cluster)}
        inside["after"] = _probe(server)
        inside["trimmed"] = _probe(server, trim=True)
        inside["trimmed"]["figures"] = process_figures(server.proc.pid)
        result["inside"] = inside
        result["resources"] = resource_figures(sampler, t_begin, t_begin + settings.warmup, stop_at, t_after)
        seconds = t_end - t_begin
        reads = {p.removeprefix("/accel/v1/"): summary(v, seconds) for p, v in read_results["latencies"].items()}
        all_reads = [x for v in read_results["latencies"].values() for x in v]
        result["reads"] = {"all": summary(all_reads, seconds, read_results["errors"]), "by_path": reads}
        result["read_errors"] = read_results["first_errors"]
        result["push"] = push_figures(churner.changes, stream_results, stop_at)
        result["stream_errors"] = [e for s in stream_results for e in s["errors"]][:10]
        result["stream_fetches"] = sum(s["fetches"] for s in stream_results)
        result["churn"] = {
            "created": sum(1 for c in churner.changes if c[2] == "create"),
            "deleted": sum(1 for c in churner.changes if c[2] == "delete"),
            "errors": churner.errors[:10],
            "write_p50_ms": round(percentile(churner.write_ms, 50) or 0, 1),
            "write_p99_ms": round(percentile(churner.write_ms, 99) or 0, 1),
        }
        push = result["push"]
        result["errors"] = {
            "reads": read_results["errors"],
            "streams": sum(len(s["errors"]) for s in stream_results),
            "writes": len(churner.errors),
            "missed_pushes": push["missed"] + push["revision_gaps"],
        }
        result["errors_total"] = sum(result["errors"].values())
        log(f"  {result['errors_total']} errors; push {push['to_event_p99_ms']} ms p99")
    finally:
        server.stop()
        result["jobs_removed"] = remove_jobs(cluster)
    return result


# -- the table -----------------------------------------------------------------------------------------------------
def table(result: dict[str, Any]) -> str:
    s, push, churn = result["settings"], result["push"], result["churn"]
    out = [
        f"Soak with churn, {result['date']}, {result['machine']}",
        f"{s['clients']} clients ({s['streams']} push streams: the per-user cap; {s['readers']} readers, "
        f"{s['think']} s between requests) for {s['seconds']:.0f} s, identity {s['identity']}; "
        f"churn through the server: {churn['created']} jobs created, {churn['deleted']} deleted (each write "
        f"{churn['write_p50_ms']} ms p50, {churn['write_p99_ms']} ms p99)",
        "",
        "| errors | reads | streams | writes | missed pushes | total |",
        "|---|---|---|---|---|---|",
        "| | {reads} | {streams} | {writes} | {missed_pushes} | ".format(**result["errors"])
        + f"{result['errors_total']} |",
        "",
        "| read | requests | errors | p50 ms | p99 ms | max ms | per s |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = {"all reads": result["reads"]["all"], **result["reads"]["by_path"]}
    for name, r in rows.items():
        out.append(
            f"| {name} | {r['requests']} | {r['errors']} | {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} | {r['per_s']} |"
        )
    out += [
        "",
        f"| push ({push['changes']} changes x {s['streams']} streams = {push['samples']} samples) | p50 ms | p99 ms "
        "| max ms |",
        "|---|---|---|---|",
        f"| change -> event naming jobs | {push['to_event_p50_ms']} | {push['to_event_p99_ms']} | "
        f"{push['to_event_max_ms']} |",
        f"| change -> the fetch after it shows it | {push['to_seen_p50_ms']} | {push['to_seen_p99_ms']} | "
        f"{push['to_seen_max_ms']} |",
        "",
        f"pushes: {min(push['events_per_client'], default=0)}-{max(push['events_per_client'], default=0)} per "
        f"client, {push['revision_gaps']} never received, {push['reconnects']} reconnects; "
        f"{result['stream_fetches']} fetches by the stream clients",
        "",
        "| Jupyter server | idle | start | peak | end | after | growth per min |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, label in (("rss_mib", "RSS MiB"), ("fds", "open fds"), ("sockets", "sockets"), ("threads", "threads")):
        r = result["resources"][key]
        out.append(
            f"| {label} | {r['idle']} | {r['start']} | {r['peak']} | {r['end']} | {r['after']} | {r['slope_per_min']} |"
        )
    inside = result["inside"]
    trimmed = inside["trimmed"].get("figures", {}).get("rss_mib")
    out.append(f"\nRSS after the load once garbage was collected and the C heap trimmed (malloc_trim): {trimmed} MiB")
    events = result["events"]
    out.append(
        f"events in {NAMESPACE} (cached by the server, kept an hour by Kubernetes): {events['before']} -> "
        f"{events['after']}"
    )
    start, end = inside["start"].get("threads", {}), inside["after"].get("threads", {})
    names = sorted({*start, *end})
    moved = [f"{n} {start.get(n, 0)} -> {end.get(n, 0)}" for n in names if start.get(n, 0) != end.get(n, 0)]
    same = sum(end.get(n, 0) for n in names if start.get(n, 0) == end.get(n, 0))
    out += ["", f"threads by name, start -> after: {', '.join(moved) or 'none changed'}; {same} others the same"]
    for g in inside["end"].get("grown", [])[:8]:
        out.append(f"  grown {g['grown_kib']} KiB ({g['blocks']} blocks) at {g['where']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", choices=("full", "smoke"), default="full")
    ap.add_argument("--seconds", type=float, default=None, help="load duration (default: 300, smoke 30)")
    ap.add_argument("--clients", type=int, default=None, help="concurrent clients (default: 50, smoke 10)")
    ap.add_argument("--streams", type=int, default=None, help=f"of them push streams (at most {MAX_STREAMS_PER_USER})")
    ap.add_argument("--think", type=float, default=None, help="seconds a reader waits between requests (0.2)")
    ap.add_argument("--churn-every", type=float, default=None, help="seconds between two job creates (2)")
    ap.add_argument("--live", type=int, default=None, help="jobs kept at once (8)")
    ap.add_argument("--identity", default=None, help="devcluster identity of the server (admin)")
    ap.add_argument("--trace-memory", action="store_true", help="tracemalloc in the server: where memory grew")
    ap.add_argument("--run-dir", default=None, help="a running devcluster to use (default: start one)")
    ap.add_argument("--out", default=None, help="JSON result file (default: benchmarks/results/soak-<scale>.json)")
    args = ap.parse_args(argv)
    settings = Settings.smoke() if args.scale == "smoke" else Settings()
    overrides = {
        k: v
        for k, v in {
            "seconds": args.seconds,
            "clients": args.clients,
            "streams": args.streams,
            "think": args.think,
            "churn_every": args.churn_every,
            "live": args.live,
            "identity": args.identity,
            "trace_memory": args.trace_memory or None,
        }.items()
        if v is not None
    }
    settings = replace(settings, **overrides)
    if settings.streams > MAX_STREAMS_PER_USER:
        ap.error(f"--streams: at most {MAX_STREAMS_PER_USER} push streams per user (one server is one user)")
    cluster = Cluster.attach(args.run_dir) if args.run_dir else Cluster()
    if not args.run_dir:
        cluster.start(timeout=600)
        cluster.start_reaper()
    try:
        result = run(cluster, settings)
    finally:
        if not args.run_dir:
            cluster.stop()
    print(table(result))
    save_result(result, Path(args.out) if args.out else REPO / "benchmarks" / "results" / f"soak-{args.scale}.json")
    return 0 if result["errors_total"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
