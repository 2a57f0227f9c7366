"""The read side at cluster scale, the product and a list-per-request baseline side by side in one run.

One command builds the scale on devcluster (kwok GPU nodes and pods bound to them, ClusterQueues in cohorts,
namespaces with LocalQueues, Workloads, jobs of every kind in the working namespace), starts a Jupyter server with
the extension as the cluster admin in its own process, and measures:

- every read endpoint under `--clients` concurrent clients, back to back (the server's capacity) and paced (each
  client every 0.5 s, more than open sidebars ask), and the Jupyter server's own GET /api/status polled 10 times a
  second meanwhile (what every kernel message and file save of the user waits behind), and how long its event
  loop was held (benchmarks/loop_lag.py);
- the same during a burst of 1,000 pod changes, with the readers paced and back to back; at the end, the burst
  again with the server alone on the cores (the cluster and the load at nice 19, and in an idle cpu cgroup where
  one can be made: benchmarks/scale_aside.py), where the lowered priorities can be raised again afterwards (as
  root) or the cluster is the run's own;
- the baseline: per request, list nodes and pods from the API server and sum (what list-per-call tools do);
- the Jupyter server's own gets and lists of the API server (its audit log, by the product's user agent) from its
  start to the end of the load, less those its caches' background loops counted making: reads made for a refresh;
  beside it, every client's LIST/GET during the product's load against an idle window of the same length;
- the server's RSS; a change in the cluster until the push event, and until the answer shows it;
- the time from server start to a complete first view.

With `--read-service` the server is a cluster reader (devcluster's cluster-reader, by token) whose nodes, per-node
allocations and Kueue cluster objects come from the shared read service (`python -m jupyter_accel.readservice`,
a process of its own): the cluster's pod churn then never reaches the Jupyter server.

It prints one table, saves JSON, removes what it made and stops by itself. All traffic stays on loopback.

    python benchmarks/scale.py                      # the issue's scale, on a devcluster of its own
    python benchmarks/scale.py --scale smoke        # seconds; `make test` runs this on its session cluster
    python benchmarks/scale.py --run-dir DIR        # reuse a running devcluster (devcluster up)
    python benchmarks/scale.py --read-service       # the server reads cluster-wide objects through the read service
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.client
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import scale_objects as objs  # noqa: E402
from scale_aside import aside, can_idle, can_restore  # noqa: E402
from scale_build import build, remove, settle  # noqa: E402
from scale_load import (  # noqa: E402
    ENDPOINTS,
    PACE,
    Http,
    StatusProbe,
    apiserver_reads,
    load,
    load_in_processes,
    loop_held,
    product_reads,
    rss_mib,
    save_result,
    unscheduled_reads,
)
from scale_table import ALONE, BASELINE, BASELINE_ONE, BASELINE_PACED, table  # noqa: E402

from devcluster import pki  # noqa: E402
from devcluster.cluster import Cluster  # noqa: E402
from devcluster.jupyter_server import JupyterProcess, ReadServiceProcess  # noqa: E402
from devcluster.rest import ApiError, Rest  # noqa: E402


# -- the baseline ---------------------------------------------------------------------------------------------
def baseline_inventory(api_client: Any) -> Callable[[], bool]:
    """List nodes and pods from the API server and sum them, per request (what list-per-call tools do). The pods
    are summed page by page, so 50 clients listing 20,000 pods each hold a page each, not the whole list."""
    from jupyter_accel.cluster import rest
    from jupyter_accel.domain.accelerators import AcceleratorRegistry
    from jupyter_accel.domain.inventory import allocated_by_node, inventory_of

    registry = AcceleratorRegistry.from_config([])

    def pages(path: str) -> Iterable[list[dict[str, Any]]]:
        cont = None
        while True:
            page = rest.request(api_client, "GET", path, query={"limit": 500, "continue": cont}, timeout=120)
            yield page.get("items") or []
            cont = (page.get("metadata") or {}).get("continue")
            if not cont:
                return

    def request() -> bool:
        nodes = [node for page in pages("/api/v1/nodes") for node in page]
        allocated: dict[str, dict[str, Any]] = {}
        for page in pages("/api/v1/pods"):
            for node, held in allocated_by_node(page).items():
                totals = allocated.setdefault(node, {})
                for name, qty in held.items():
                    totals[name] = totals.get(name, 0) + qty
        inventory = inventory_of(nodes, allocated, registry)
        return bool(inventory.summary.model_dump_json())

    return request


def baseline_from_kubeconfig(kubeconfig: str) -> Callable[[], bool]:
    """A baseline client in a process of its own (scale_load.load_in_processes): its own API client."""
    from kubernetes import config as kconfig

    return baseline_inventory(kconfig.new_client_from_config(kubeconfig))


# -- the run --------------------------------------------------------------------------------------------------
def run(
    cluster: Cluster,
    scale: objs.Scale,
    *,
    seconds: float,
    clients: int,
    burst: int,
    keep: bool = False,
    read_service: bool = False,
    alone: bool = False,
    audit: Callable[[list[int]], None] | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Build, measure, remove. `alone`: the burst once more at the end, the cluster and the load at the lowest CPU
    priority (scale_aside). `audit`: called with the Jupyter server's PID while it is under load (the smoke test
    runs net-audit there)."""
    rest = cluster.admin
    result: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {_mem_gib()} GiB, {platform.python_version()}",
        "scale": scale.as_dict(),
        "clients": clients,
        "seconds_per_endpoint": seconds,
        "burst": burst,
        "read_service": read_service,
    }
    if rest.get(f"/api/v1/namespaces?labelSelector={objs.BENCH}%3Dtrue")["items"]:
        remove(rest, log)  # an earlier run's leftovers (a run that was stopped before it cleaned up)
    log(f"building {scale}")
    result["build_s"] = build(rest, scale, log)
    result["settle_s"] = round(settle(rest, log), 1)
    log(f"  the cluster settled in {result['settle_s']} s")
    expected_nodes = len(rest.get("/api/v1/nodes")["items"])
    server: JupyterProcess | None = None
    service: ReadServiceProcess | None = None
    try:
        workdir = Path(tempfile.mkdtemp(prefix="ja-scale."))
        accel = {"identity": "kubeconfig", "kubeconfig": str(cluster.kubeconfig("admin")), "namespace": objs.WORK_NS}
        if read_service:
            (workdir / "read-service").mkdir()
            service = ReadServiceProcess(workdir / "read-service", cluster.kubeconfig("admin")).start()
            accel["kubeconfig"] = str(cluster.kubeconfig("cluster-reader", token=True))
            accel["read_service_url"] = service.url
        t0, started = time.monotonic(), time.time()
        server = JupyterProcess(
            workdir,
            accel,
            extensions={"loop_lag": True},
            env={"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "benchmarks"), os.environ.get("PYTHONPATH")]))},
        ).start()
        http_ = Http(server)
        result["first_view_s"] = round(first_view(http_, scale, t0), 2)
        log(f"  first complete view {result['first_view_s']} s after the server was started")
        inv = json.loads(http_.get("/accel/v1/inventory")[1])
        result["inventory_bytes"] = len(http_.get("/accel/v1/inventory")[1])
        result["node_page_bytes"] = len(http_.get("/accel/v1/inventory/nodes?limit=100")[1])
        result["nodes_seen"] = inv["node_count"]
        result["jobs_seen"] = len(json.loads(http_.get("/accel/v1/jobs")[1])["jobs"])
        result["cluster_nodes"] = expected_nodes

        rows: dict[str, Any] = {}
        loop: dict[str, Any] = {}  # window -> how long the server's event loop was held
        result["loop"] = loop
        with StatusProbe(http_) as probe:
            # an idle window first: the API-server reads that happen anyway (controllers, the visibility poll)
            result["product_at_start"] = loop_held(http_, 0, 0)["product"]
            before = apiserver_reads(rest)
            a = time.monotonic()
            time.sleep(seconds)
            idle_reads = apiserver_reads(rest) - before
            rows["/api/status, idle"] = probe.window(a, time.monotonic())
            loop["idle"] = loop_held(http_, a, time.monotonic())
            before = apiserver_reads(rest)
            for path in ENDPOINTS:
                for every in (None, PACE):
                    name = f"GET {path}" + (f", each client every {every} s" if every else "")
                    a = time.monotonic()
                    rows[name] = load(lambda p=path: http_.get(f"/accel/v1/{p}")[0] == 200, clients, seconds, every)
                    rows[f"/api/status during {name}"] = probe.window(a, time.monotonic())
                    loop[name] = loop_held(http_, a, time.monotonic())
                    log(f"  {name}: {rows[name]}")
            load_reads = apiserver_reads(rest) - before
            own = own_reads(cluster, http_, "cluster-reader" if read_service else "admin", started)
            if audit is not None:
                audit([server.proc.pid] + ([service.proc.pid] if service else []))
            result["apiserver_reads"] = {
                "idle_window": idle_reads,
                "product_load": load_reads,
                "windows": 2 * len(ENDPOINTS),
                "idle_estimate": load_reads - idle_reads * 2 * len(ENDPOINTS),
                **own,
            }
            bursts(http_, rest, scale, burst, clients, seconds, probe, result, rows, loop, log)

        result["rss_mib"] = rss_mib(server.proc.pid)
        if service is not None:
            result["read_service_rss_mib"] = rss_mib(service.proc.pid)
        result["push"] = change_to_event(http_, server, rest)
        log(f"  change to push event: {result['push']}")

        # the baseline, each client in a process of its own (as the soak run's): one client alone (what one
        # request costs), the same number of clients paced as the sidebars were, and back to back (saturated)
        make = functools.partial(baseline_from_kubeconfig, str(cluster.kubeconfig("admin")))
        rows["GET inventory, 1 client"] = load(lambda: http_.get("/accel/v1/inventory")[0] == 200, 1, seconds)
        before = apiserver_reads(rest)
        for name, n, every in (
            (BASELINE_ONE, 1, None),
            (BASELINE_PACED.format(clients=clients, every=PACE), clients, PACE),
            (BASELINE, clients, None),
        ):
            rows[name] = load_in_processes(make, n, seconds, every)
            log(f"  {name}: {rows[name]}")
        result["apiserver_reads"]["baseline_load"] = apiserver_reads(rest) - before
        if alone:
            # last: the cluster and this process are slowed until the context ends (and for good without root)
            product_pids = {server.proc.pid, *([service.proc.pid] if service else [])}
            result["alone_idle_cgroup"] = can_idle()
            with aside([*cluster.all_pids(), os.getpid()], product_pids), StatusProbe(http_) as probe:
                bursts(http_, rest, scale, burst, clients, seconds, probe, result, rows, loop, log, ALONE)
        result["rows"] = rows
        product, base = rows["GET inventory"], rows[BASELINE]
        result["ratio_p50"] = _ratio(base["p50_ms"], product["p50_ms"])
        result["ratio_p99"] = _ratio(base["p99_ms"], product["p99_ms"])
        # per request, nothing queued: one client each
        one, base_one = rows["GET inventory, 1 client"], rows[BASELINE_ONE]
        result["ratio_one_p50"] = _ratio(base_one["p50_ms"], one["p50_ms"])
        paced, base_paced = (
            rows[f"GET inventory, each client every {PACE} s"],
            rows[BASELINE_PACED.format(clients=clients, every=PACE)],
        )
        result["ratio_paced_p99"] = _ratio(base_paced["p99_ms"], paced["p99_ms"])
    finally:
        if server is not None:
            server.stop()
        if service is not None:
            service.stop()
        if not keep:
            remove(rest, log)
    return result


def bursts(
    http_: Http,
    rest: Rest,
    scale: objs.Scale,
    burst: int,
    clients: int,
    seconds: float,
    probe: StatusProbe,
    result: dict[str, Any],
    rows: dict[str, Any],
    loop: dict[str, Any],
    log: Callable[[str], None],
    suffix: str = "",
) -> None:
    """The burst: pod changes while clients keep reading the inventory, paced (what open sidebars do: the burst's
    own cost to the loop) and back to back (the server's cores saturated by readers as well)."""
    for every in (PACE, None):
        name = (f", readers each every {every} s" if every else ", readers back to back") + suffix
        a = time.monotonic()
        burst_load: dict[str, Any] = {}
        reader = threading.Thread(
            target=lambda e=every, out=burst_load: out.update(
                load(lambda: http_.get("/accel/v1/inventory")[0] == 200, clients, seconds, e)
            ),
            daemon=True,
        )
        reader.start()
        took = result.setdefault("burst_s", {})[("paced" if every else "back_to_back") + suffix] = round(
            pod_burst(rest, scale, burst), 1
        )
        reader.join()
        rows["GET inventory during the burst" + name] = burst_load
        rows[f"/api/status during {burst} pod changes" + name] = probe.window(a, time.monotonic())
        loop[f"{burst} pod changes" + name] = loop_held(http_, a, time.monotonic())
        log(f"  burst of {burst} pod changes in {took} s{name}")


def own_reads(cluster: Cluster, http_: Http, identity: str, started: float) -> dict[str, Any]:
    """The Jupyter server's own gets and lists from its start until now, from the API server's audit log (by its
    user agent and account), less those its background loops counted making (watch caches' lists, the visibility
    poll, discovery): what is left was read for a request, which must read the caches only."""
    until = time.time()  # before the count is taken: a read the server received by then was counted by then
    scheduled = loop_held(http_, 0, 0)["product"]["scheduled_reads"]
    time.sleep(2)  # the audit event of a read answered just before `until` is written after the answer
    audited = product_reads(cluster.audit_events(), pki.IDENTITIES[identity].user, started, until)
    left = unscheduled_reads(audited, scheduled)
    total, beyond = sum(audited.values()), sum(left.values())
    return {
        "own_audited": total,
        "own_scheduled": total - beyond,
        "own_unscheduled": left,
        "caused_by_refreshes": beyond,
    }


def _mem_gib() -> int:
    with contextlib.suppress(OSError, ValueError):
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
    return 0


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 1) if a and b else None


def first_view(http_: Http, scale: objs.Scale, t0: float, timeout: float = 300) -> float:
    """Seconds from t0 until inventory, queues, workloads and jobs all answer with the built objects in them."""
    deadline, seen = t0 + timeout, "nothing"
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            inv = json.loads(http_.get("/accel/v1/inventory")[1])
            jobs = json.loads(http_.get("/accel/v1/jobs")[1])
            queues = http_.get("/accel/v1/queues")[0]
            workloads = http_.get("/accel/v1/workloads")[0]
            nodes, listed = inv.get("node_count", 0), len(jobs.get("jobs") or [])
            seen = f"{nodes} nodes, {listed} jobs, queues {queues}, workloads {workloads}"
            if nodes >= scale.nodes and listed >= scale.jobs and queues == workloads == 200:
                return time.monotonic() - t0
        time.sleep(0.2)
    raise TimeoutError(f"no complete view in {timeout} s: {seen}")


def pod_burst(rest: Rest, scale: objs.Scale, changes: int) -> float:
    """`changes` label patches of bench pods, 16 at a time."""
    names = objs.namespace_names(scale)
    round_ = time.monotonic_ns()  # new values each burst: a patch to the value a pod has changes nothing

    def patch(i: int) -> None:
        j = i % scale.pods
        path = rest.path("v1", "Pod", names[j % len(names)], f"bench-pod-{j:05d}")
        with contextlib.suppress(ApiError):
            rest.request(
                "PATCH",
                path,
                {"metadata": {"labels": {"bench-burst": f"{round_}-{i}"}}},
                "application/merge-patch+json",
            )

    t0 = time.monotonic()
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(patch, range(changes)))
    return time.monotonic() - t0


def change_to_event(http_: Http, server: JupyterProcess, rest: Rest, trials: int = 5) -> dict[str, Any]:
    """A GPU pod created on a bench node: seconds until the push stream names the inventory, and until the
    inventory's allocated count shows it."""
    events: list[tuple[float, list[str]]] = []
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    conn.request("GET", "/accel/v1/stream", headers=server.headers)
    resp = conn.getresponse()

    def read() -> None:
        with contextlib.suppress(Exception):
            for raw in resp:
                line = raw.decode().strip()
                if line.startswith("data: "):
                    events.append((time.monotonic(), json.loads(line[6:])["topics"]))

    threading.Thread(target=read, daemon=True).start()
    time.sleep(1.0)

    def allocated() -> int:
        inv = json.loads(http_.get("/accel/v1/inventory")[1])
        return sum(m.get("allocated") or 0 for m in inv["models"] if m["resource"] == "nvidia.com/gpu")

    to_event, to_answer = [], []
    for i in range(trials):
        pod = objs.pod(0, objs.SMOKE)
        pod["metadata"] = {"name": f"bench-probe-{i}", "namespace": objs.WORK_NS, "labels": dict(objs.LABELS)}
        gpu = {"nvidia.com/gpu": "1"}
        pod["spec"]["containers"][0]["resources"] = {"requests": gpu, "limits": gpu}
        start_alloc = allocated()
        quiet = time.monotonic() + 5  # the previous trial's events are over: a late one is not this one's
        while time.monotonic() < quiet and events and time.monotonic() - events[-1][0] < 1.0:
            time.sleep(0.05)
        seen = len(events)
        t0 = time.monotonic()
        rest.request("POST", rest.path("v1", "Pod", objs.WORK_NS), pod)
        while time.monotonic() - t0 < 30 and not any("inventory" in t for _, t in events[seen:]):
            time.sleep(0.01)
        hit = next((at for at, t in events[seen:] if "inventory" in t), None)
        if hit is not None:
            to_event.append(hit - t0)
        while time.monotonic() - t0 < 30 and allocated() == start_alloc:
            time.sleep(0.02)
        to_answer.append(time.monotonic() - t0)
        # gone before the next trial: a probe still terminating would cancel the next one's change in the sum
        rest.request("DELETE", rest.path("v1", "Pod", objs.WORK_NS, f"bench-probe-{i}") + "?gracePeriodSeconds=0")
        gone = time.monotonic()
        while time.monotonic() - gone < 30 and allocated() != start_alloc:
            time.sleep(0.05)
    conn.close()
    return {
        "trials": trials,
        "events": len(to_event),
        "to_event_p50_s": round(statistics.median(to_event), 3) if to_event else None,
        "to_event_max_s": round(max(to_event), 3) if to_event else None,
        "to_answer_p50_s": round(statistics.median(to_answer), 3),
        "to_answer_max_s": round(max(to_answer), 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", choices=("full", "smoke"), default="full")
    ap.add_argument("--seconds", type=float, default=None, help="load per endpoint (default: 15, smoke 2)")
    ap.add_argument("--clients", type=int, default=None, help="concurrent clients (default: 50, smoke 5)")
    ap.add_argument("--burst", type=int, default=None, help="pod changes in the burst (default: 1000, smoke 50)")
    ap.add_argument("--run-dir", default=None, help="a running devcluster to use (default: start one)")
    ap.add_argument("--keep", action="store_true", help="leave the built objects in a cluster given by --run-dir")
    ap.add_argument("--read-service", action="store_true", help="cluster-wide reads through the shared read service")
    ap.add_argument("--out", default=None, help="JSON result file (default: benchmarks/results/scale-<scale>.json)")
    args = ap.parse_args(argv)
    smoke = args.scale == "smoke"
    scale = objs.SMOKE if smoke else objs.FULL
    seconds = args.seconds or (2.0 if smoke else 15.0)
    clients = args.clients or (5 if smoke else 50)
    burst = args.burst or (50 if smoke else 1000)
    cluster = Cluster.attach(args.run_dir) if args.run_dir else Cluster()
    alone = can_restore() or not args.run_dir  # a cluster of its own is stopped at the end, slowed or not
    if not args.run_dir:
        cluster.start(timeout=600)
        cluster.start_reaper()
        cluster.stop_on_exit()  # SIGTERM too: the run's `finally` blocks stop its servers
    try:
        # a cluster of its own goes with everything in it: removing 20,000 pods first would take minutes
        keep = args.keep or not args.run_dir
        result = run(cluster, scale, seconds=seconds, clients=clients, burst=burst, keep=keep,
                     read_service=args.read_service, alone=alone)  # fmt: skip
    finally:
        if not args.run_dir:
            cluster.stop()
    # saved first: a table that cannot be printed must not lose a 17-minute run
    save_result(result, Path(args.out) if args.out else REPO / "benchmarks" / "results" / f"scale-{args.scale}.json")
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
