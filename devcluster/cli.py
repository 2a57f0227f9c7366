"""`python -m devcluster up|down|status|env|build` — the dev cluster from a shell (demo and development)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from .cluster import DEMO_RUN_DIR, STATE_FILE, Cluster, StartError
from .versions import HERE, built, declared


def _run_dir(args) -> Path:
    return Path(args.run_dir or os.environ.get("JA_DEVCLUSTER_RUNDIR") or DEMO_RUN_DIR)


def env_lines(cluster: Cluster) -> list[str]:
    kubectl_dir = built("kube-apiserver").bin_dir
    lines = [
        f"export JA_DEVCLUSTER_RUNDIR={shlex.quote(str(cluster.run))}",
        f"export KUBECONFIG_ADMIN={shlex.quote(str(cluster.kubeconfig('admin')))}",
        f"export KUBECONFIG_QUEUE_VIEWER={shlex.quote(str(cluster.kubeconfig('queue-viewer')))}",
        f"export KUBECONFIG_NOTEBOOK_USER={shlex.quote(str(cluster.kubeconfig('notebook-user')))}",
        "# the notebook user is the default identity (namespace team-a):",
        f"export KUBECONFIG={shlex.quote(str(cluster.kubeconfig('notebook-user')))}",
    ]
    if kubectl_dir:
        lines.append(f'export PATH={shlex.quote(str(kubectl_dir))}:"$PATH"   # kubectl')
    if (ref := cluster.node_image()) is not None:
        lines.append("# the real node's runtime image and LocalQueue (pods there really run):")
        lines.append(f"export JA_NODE_IMAGE={shlex.quote(ref)} JA_NODE_QUEUE=real-node")
    if cluster.components.get("prometheus", {}).get("state") == "running":
        lines.append(
            "# its metrics API (Prometheus: Kueue's metrics, the real node's devices), the product's metrics_url:"
        )
        lines.append(f"export JUPYTER_ACCEL_METRICS_URL={shlex.quote(cluster.metrics_url)}")
    return lines


def cmd_up(args) -> int:
    run = _run_dir(args)
    if (run / STATE_FILE).exists():
        old = Cluster.attach(run)
        if old.is_healthy():
            print(f"devcluster already running in {run}", file=sys.stderr)
            print("\n".join(env_lines(old)))
            return 0
        old.stop(remove=True)  # leftovers of a crashed run: stop them before reusing the directory
    cluster = Cluster(run, fixed_ports=args.fixed_ports)
    if args.foreground:
        cluster.stop_on_exit()
        signal.signal(signal.SIGINT, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    t0 = time.monotonic()
    try:
        cluster.start(timeout=args.timeout)
    except (StartError, RuntimeError, TimeoutError, OSError) as exc:
        print(f"devcluster: start failed ({time.monotonic() - t0:.1f}s): {exc}", file=sys.stderr)
        print(f"devcluster: logs kept in {run}/logs", file=sys.stderr)
        return 1
    print("\n".join(cluster.describe()), file=sys.stderr)
    print(
        f"devcluster: up in {time.monotonic() - t0:.1f}s, {cluster.rss_bytes() / 2**20:.0f} MiB resident",
        file=sys.stderr,
    )
    print("\n".join(env_lines(cluster)))
    if not args.foreground:
        print(f"# stop with: python -m devcluster down --run-dir {shlex.quote(str(run))}", file=sys.stderr)
        return 0
    print("devcluster: running; Ctrl-C stops it", file=sys.stderr)
    try:
        while all(r.alive() for r in cluster.recorded.values()):
            time.sleep(1)
        dead = [n for n, r in cluster.recorded.items() if not r.alive()]
        print(f"devcluster: component(s) exited: {dead}; stopping", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("devcluster: stopping", file=sys.stderr)
        return 0
    finally:
        cluster._stop_once()


def cmd_down(args) -> int:
    run = _run_dir(args)
    try:
        cluster = Cluster.attach(run)
    except FileNotFoundError as exc:
        print(f"devcluster: {exc}", file=sys.stderr)
        return 1
    alive = [n for n, r in cluster.recorded.items() if r.alive()]
    cluster.stop(remove=not args.keep)
    print(f"devcluster: stopped {len(alive)} process group(s) from {run}")
    return 0


def cmd_status(args) -> int:
    run = _run_dir(args)
    try:
        cluster = Cluster.attach(run)
    except FileNotFoundError as exc:
        print(f"devcluster: {exc}")
        return 1
    healthy = cluster.is_healthy()
    print(f"devcluster: phase={cluster.phase} healthy={healthy}")
    print("\n".join(cluster.describe()))
    for name, rec in cluster.recorded.items():
        print(f"  {name:24s} pid {rec.pid:<7d} {'alive' if rec.alive() else 'DEAD'}")
    print(f"  ports: {cluster.ports}")
    if healthy:
        print(f"  resident memory: {cluster.rss_bytes() / 2**20:.0f} MiB; start-up timings (s): {cluster.timings}")
    return 0 if healthy else 1


def cmd_env(args) -> int:
    try:
        cluster = Cluster.attach(_run_dir(args))
    except FileNotFoundError as exc:
        print(f"devcluster: {exc}", file=sys.stderr)
        return 1
    print("\n".join(env_lines(cluster)))
    return 0


def cmd_not_run(args) -> int:
    """What a test or demo run here does not run: every component declared absent (components.toml), or absent
    here (the real node's parts when not root), with the reason; the tests that need them are deselected."""
    absent = [d for d in declared().values() if not d.present]
    for d in absent:
        print(f"NOT RUN: {d.name}: {d.reason}")
    return 1 if absent else 0


def cmd_workbench(args) -> int:
    """Deploy the real workbench (devcluster/workbench.py) on a running cluster and forward it to loopback; the
    port-forward stays (its own session) until `down`. Prints export lines: its URL and timings."""
    from . import workbench

    cluster = Cluster.attach(_run_dir(args))
    if cluster.node_image() is None:
        print("devcluster: the real workbench needs the real node, which this cluster does not run", file=sys.stderr)
        return 1
    pid_file = cluster.run / "workbench-port-forward.pid"
    if pid_file.is_file():  # a second deploy: the old forward's pod is replaced, so is the forward
        with contextlib.suppress(OSError, ValueError):
            os.killpg(int(pid_file.read_text()), signal.SIGTERM)
    timings = workbench.deploy(cluster, Path(args.wheel), timeout=args.timeout)
    proc, url = workbench.port_forward(cluster)
    pid_file.write_text(str(proc.pid))
    print(f"# the real workbench: {json.dumps(timings)}")
    print(f"export JA_WORKBENCH_URL={shlex.quote(url)}")
    return 0


def cmd_build(args) -> int:
    return subprocess.call(["bash", str(HERE / "build.sh"), *args.components])


def cmd_reap(args) -> int:
    """Hidden: wait for the owner process to go away, then stop its cluster if it is still there."""
    owner, run = int(args.owner), Path(args.run_dir)
    while True:
        state = run / STATE_FILE
        if not state.exists():
            return 0
        try:
            cluster = Cluster.attach(run)
        except (FileNotFoundError, ValueError):
            return 0
        if cluster.phase == "stopped":
            return 0
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            cluster.stop()
            return 0
        time.sleep(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devcluster", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up", help="start, seed and wait for readiness (detached unless --foreground)")
    up.add_argument("--foreground", action="store_true", help="stay attached; Ctrl-C tears the cluster down")
    up.add_argument("--fixed-ports", action="store_true", help="apiserver on 127.0.0.1:6443 etc. (demo)")
    up.add_argument("--timeout", type=float, default=120, help="seconds to wait for each readiness step")
    for name, helptext in (
        ("down", "stop the cluster recorded in the run directory"),
        ("status", "show processes, ports, components"),
        ("env", "print export lines (KUBECONFIG for the notebook user, admin, queue-viewer)"),
    ):
        p = sub.add_parser(name, help=helptext)
        if name == "down":
            p.add_argument("--keep", action="store_true", help="keep the run directory (logs)")
    for p in sub.choices.values():
        p.add_argument("--run-dir", help=f"run directory (default $JA_DEVCLUSTER_RUNDIR or {DEMO_RUN_DIR})")
    sub.add_parser(
        "not-run", help="print what this machine's runs leave out (absent components, and why); exit 1 if any"
    )
    wb = sub.add_parser("workbench", help="deploy the real workbench (the wheel's image) and forward it to loopback")
    wb.add_argument("--wheel", required=True, help="the jupyter-accel wheel to install in the image")
    wb.add_argument("--timeout", type=float, default=300, help="seconds to wait for the pod to be Ready")
    wb.add_argument("--run-dir", help=f"run directory (default $JA_DEVCLUSTER_RUNDIR or {DEMO_RUN_DIR})")
    build = sub.add_parser("build", help="build the binaries into the cache (wraps devcluster/build.sh)")
    build.add_argument("components", nargs="*")
    reap = sub.add_parser("_reap")
    reap.add_argument("owner")
    reap.add_argument("run_dir")
    args = parser.parse_args(argv)
    handler = {
        "up": cmd_up,
        "down": cmd_down,
        "status": cmd_status,
        "env": cmd_env,
        "build": cmd_build,
        "workbench": cmd_workbench,
        "not-run": cmd_not_run,
        "_reap": cmd_reap,
    }[args.cmd]
    return handler(args)
