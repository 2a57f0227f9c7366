"""`%accel ...` and `%%accel_job ...`: the REST API from a notebook cell.

Bad arguments raise IPython's UsageError (usage + message, no traceback); server errors raise AccelError, which
IPython shows as one line (AccelError._render_traceback_). Results are returned as display Views, so the last
magic in a cell renders as HTML in a notebook and as text in a terminal, and `x = %accel jobs` keeps the model.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import threading
import time
from typing import Any, NoReturn

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

from .client import JOB_KINDS, AccelClient, AccelError
from .display import Para, View, blocks, to_text
from .display.cluster_views import doctor_blocks
from .requests import DEFAULT_GPU_TYPE, job_request, parse_data, parse_duration, parse_env, parse_worker_group

WAIT_POLL = 2.0  # seconds between status polls while --wait waits for pods


class _HelpShown(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports instead of exiting the kernel."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.format_usage().strip()}\n{self.prog}: error: {message}")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            print(message, file=sys.stderr)
        raise _HelpShown()


def _add_job_args(p: argparse.ArgumentParser, *, kind_required: bool) -> None:
    p.add_argument(
        "--kind",
        choices=JOB_KINDS,
        required=kind_required,
        default=None,
        help="job kind" + ("" if kind_required else " (default: the server's default kind, as %%accel info lists)"),
    )
    p.add_argument("--workers", type=int, default=None, help="Ray: workers besides the head; PyTorch: nodes")
    p.add_argument("--gpus", type=int, default=0, help="accelerators per worker pod")
    p.add_argument("--gpu-type", default=None, help=f"accelerator resource name (default {DEFAULT_GPU_TYPE})")
    p.add_argument("--profile", default=None, help="hardware profile (instead of --gpus/--gpu-type)")
    p.add_argument("--cpu", default=None, help="CPU per worker pod, e.g. 2 or 500m")
    p.add_argument("--memory", default=None, help="memory per worker pod, e.g. 16Gi")
    p.add_argument("--image", default=None, help="container image (default: the server's image for the kind)")
    p.add_argument("--queue", default=None, help="Kueue LocalQueue (default: resolved by the server)")
    p.add_argument("--name", default=None, help="job name (default: generated)")
    p.add_argument("--priority-class", default=None, help="Kueue WorkloadPriorityClass")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="environment variable")
    p.add_argument("--nproc-per-node", type=int, default=None, help="PyTorch: processes per node")
    p.add_argument("--max-workers", type=int, default=None, help="ray-cluster: autoscale the workers up to this many")
    p.add_argument(
        "--worker-group",
        action="append",
        default=[],
        metavar="NAME=WORKERS[-MAX][,cpu=C][,memory=M][,gpus=N][,gpu-type=R]",
        help="Ray: another worker group, e.g. cpu-workers=2-8,cpu=4 beside the GPU workers (repeatable)",
    )
    p.add_argument(
        "--volume",
        action="append",
        default=[],
        metavar="CLAIM:PATH[:ro]",
        help="mount a PVC of the namespace at PATH in every pod (repeatable; CLAIM/SUBDIR:PATH for a folder of it)",
    )
    p.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="NAME[:PATH]",
        help="a Secret or connection of the namespace: as environment variables, or as files under PATH",
    )
    p.add_argument(
        "--pull-secret",
        action="append",
        default=[],
        metavar="NAME",
        help="a Secret of the namespace that pulls a private image (repeatable)",
    )
    p.add_argument(
        "--max-run", default=None, metavar="DURATION", help="maximum run time, e.g. 90m or 2h: Kueue stops it then"
    )


def _request_from(args: argparse.Namespace, **more: Any) -> dict:
    if args.gpu_type and not args.gpus:
        raise UsageError("--gpu-type needs --gpus N")
    try:
        env = parse_env(args.env)
        if args.max_run:
            parse_duration(args.max_run)
        data = parse_data(args.volume, args.secret)
        if args.worker_group:
            data["worker_groups"] = [parse_worker_group(g) for g in args.worker_group]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.pull_secret:
        data["image_pull_secrets"] = list(args.pull_secret)
    if args.max_workers is not None:
        data["max_workers"] = args.max_workers
    more = {**data, **more}
    return job_request(
        args.kind,
        workers=args.workers,
        gpus=args.gpus,
        gpu_type=args.gpu_type,
        hardware_profile=args.profile,
        cpu=args.cpu,
        memory=args.memory,
        image=args.image,
        queue=args.queue,
        name=args.name,
        priority_class=args.priority_class,
        env=env,
        nproc_per_node=args.nproc_per_node,
        max_run=args.max_run,
        **more,
    )


def _accel_parser() -> _Parser:
    parser = _Parser(prog="%accel", description="Accelerators, Kueue queues and jobs of this workbench.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    sub.add_parser("info", help="server version, Kubernetes connection and capabilities")
    connect = sub.add_parser("connect", help="point Ray's job tools in this kernel at your running Ray cluster NAME")
    connect.add_argument("name")
    sub.add_parser("doctor", help="what the cluster's served stack supports, what is deprecated, what will not work")
    sub.add_parser("gpus", help="accelerators per model")
    nodes = sub.add_parser("nodes", help="nodes with accelerators, a page at a time")
    nodes.add_argument("--model", default=None, help="only nodes of this model (its name or key, as gpus lists)")
    nodes.add_argument("--offset", type=int, default=0, help="skip this many nodes")
    nodes.add_argument("--limit", type=int, default=50, help="nodes on the page (at most 500)")
    sub.add_parser("profiles", help="hardware profiles")
    sub.add_parser("queues", help="Kueue LocalQueues and their quota")
    sub.add_parser("data", help="PVCs and connections of the namespace that a job can mount")
    workbench = sub.add_parser(
        "workbench", help="this workbench: accelerators, hardware profile, queue; --profile NAME changes it"
    )
    workbench.add_argument("--profile", help="the hardware profile to change to (the workbench restarts)")
    workbench.add_argument("--profile-namespace", help="the profile's namespace, where names repeat")
    workbench.add_argument("--queue", help="the LocalQueue, in a Kueue-managed project")
    workbench.add_argument("--dry-run", action="store_true", help="check and show the patch; change nothing")
    workbench.add_argument("--yes", action="store_true", help="do not ask before changing it")
    sub.add_parser("workloads", help="Kueue workloads, why they wait, their position")
    util = sub.add_parser("util", help="accelerator use of your running jobs (NAME: one job's devices)")
    util.add_argument("name", nargs="?", default=None)
    util.add_argument("--kind", choices=JOB_KINDS, default=None)
    util.add_argument("--all", action="store_true", help="every running job of the namespace, not only yours")
    jobs = sub.add_parser("jobs", help="your jobs (--all: every job of the namespace)")
    jobs.add_argument("--all", action="store_true", help="every job of the namespace, not only yours")
    fit = sub.add_parser("fit", help="would this job fit now? (nothing is submitted)")
    _add_job_args(fit, kind_required=True)
    fit.add_argument("--entrypoint", default=None, help="ray-job: the command ray job submit runs")
    status = sub.add_parser("status", help="one job: status, pods, events")
    logs = sub.add_parser("logs", help="a job's logs")
    for p in (status, logs):
        p.add_argument("name")
        p.add_argument("--kind", choices=JOB_KINDS, default=None)
    logs.add_argument("--follow", "-f", action="store_true", help="keep printing until the pod ends")
    logs.add_argument("--tail", type=int, default=None, help="only the last N lines")
    logs.add_argument("--pod", default=None, help="one pod (default: every pod, each line prefixed with its pod)")
    for verb in ("delete", "suspend", "resume"):
        p = sub.add_parser(verb, help=f"{verb} a job")
        p.add_argument("name")
        p.add_argument("--kind", choices=JOB_KINDS, default=None)
    extend = sub.add_parser("extend", help="give a job a longer time limit, e.g. %%accel extend NAME 2h")
    extend.add_argument("name")
    extend.add_argument("duration", help="how much longer, e.g. 90m, 2h, 1h30m (with --to: the limit in all)")
    extend.add_argument("--to", action="store_true", help="set the limit to DURATION in all instead")
    extend.add_argument("--kind", choices=JOB_KINDS, default=None)
    cleanup = sub.add_parser("cleanup", help="delete your finished jobs")
    cleanup.add_argument(
        "--older-than",
        type=int,
        default=None,
        metavar="SECONDS",
        help="finished at least this long ago (server default: 3600)",
    )
    cleanup.add_argument("--all", action="store_true", help="every finished job of the namespace")
    cleanup.add_argument("--dry-run", action="store_true", help="only list what would be deleted")
    token = sub.add_parser("token", help="use a Kubernetes bearer token (asked for, never echoed)")
    token.add_argument("--clear", action="store_true", help="forget it; go back to the configured identity")
    return parser


def _job_parser() -> _Parser:
    parser = _Parser(prog="%%accel_job", description="Run this cell's body as a distributed job's script.")
    _add_job_args(parser, kind_required=False)
    parser.add_argument(
        "--interpreter",
        choices=("python", "torchrun", "bash"),
        default=None,
        help="how the script runs (default: python for Ray, torchrun for PyTorch)",
    )
    parser.add_argument(
        "--workdir",
        default=None,
        help="a folder (e.g. your project) to run the cell in: the server packs it, the pods unpack it and run there",
    )
    parser.add_argument(
        "--cluster",
        default=None,
        metavar="NAME",
        help="run the cell on your running Ray cluster NAME as a Ray job, in --workdir if given (the other job "
        "options do not apply)",
    )
    parser.add_argument("--wait", action="store_true", help="block, streaming the logs until the job ends")
    parser.add_argument("--timeout", type=float, default=None, help="with --wait: give up waiting after SECONDS")
    return parser


def _parse(parser: _Parser, line: str) -> argparse.Namespace | None:
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"{parser.format_usage().strip()}\n{parser.prog}: error: {exc}") from None
    try:
        return parser.parse_args(argv)
    except _HelpShown:
        return None


@magics_class
class AccelMagics(Magics):
    def __init__(self, shell: Any = None, client: AccelClient | None = None):
        super().__init__(shell)
        self._client = client

    @property
    def client(self) -> AccelClient:
        if self._client is None:
            self._client = AccelClient()
        return self._client

    def _resolve(self, name: str, kind: str | None) -> tuple[str, str]:
        return (kind, name) if kind else (str(self.client.find_job(name).kind), name)

    @line_magic
    def accel(self, line: str) -> Any:
        """%accel COMMAND [options]; `%accel --help` lists the commands."""
        args = _parse(_accel_parser(), line)
        if args is None:
            return None
        c = self.client
        cmd = args.command
        if cmd == "info":
            return View(c.info())
        if cmd == "connect":
            from .ray_cluster import connect

            return connect(c, args.name)
        if cmd == "doctor":
            return View(c.info(), renderer=doctor_blocks)
        if cmd == "gpus":
            inventory = c.inventory()
            few = c.few_inventory_nodes(inventory)
            return View(inventory, blocks(few) if few is not None else [])
        if cmd == "nodes":
            return View(c.inventory_nodes(args.model, args.offset, args.limit))
        if cmd == "profiles":
            return View(c.profiles())
        if cmd == "queues":
            return View(c.queues())
        if cmd == "data":
            return View(c.data())
        if cmd == "workbench":
            return self._workbench(c, args)
        if cmd == "workloads":
            return View(c.workloads())
        if cmd == "util":
            if args.name:
                return View(c.job_utilization(*self._resolve(args.name, args.kind)))
            return View(c.utilization("namespace" if args.all else "mine"), kinds=c.kinds())
        if cmd == "jobs":
            return View(c.jobs("namespace" if args.all else "mine"), kinds=c.kinds())
        if cmd == "fit":
            return View(c.fit(_request_from(args, entrypoint=args.entrypoint)))
        if cmd == "status":
            return View(c.job(*self._resolve(args.name, args.kind)), kinds=c.kinds())
        if cmd == "logs":
            kind, name = self._resolve(args.name, args.kind)
            _print_logs(c, kind, name, pod=args.pod, tail=args.tail, follow=args.follow)
            return None
        if cmd == "delete":
            kind, name = self._resolve(args.name, args.kind)
            c.delete(kind, name)
            print(f"Deleting {kind} {name}.")
            return None
        if cmd in ("suspend", "resume"):
            kind, name = self._resolve(args.name, args.kind)
            return View(getattr(c, cmd)(kind, name), kinds=c.kinds())
        if cmd == "extend":
            try:
                seconds = parse_duration(args.duration)
            except ValueError as exc:
                raise UsageError(str(exc).replace("max run time", "duration", 1)) from None
            kind, name = self._resolve(args.name, args.kind)
            field = "max_run_seconds" if args.to else "extend_seconds"
            return View(c.set_time_limit(kind, name, **{field: seconds}))
        if cmd == "cleanup":
            return View(c.cleanup(args.older_than, scope="namespace" if args.all else "mine", dry_run=args.dry_run))
        if cmd == "token":
            if args.clear:
                return View(c.set_token(None))
            import getpass

            token = getpass.getpass("Kubernetes bearer token: ").strip()
            if not token:
                raise UsageError("No token entered; nothing changed.")
            return View(c.set_token(token))
        raise UsageError(f"unknown command {cmd}")  # argparse's choices make this unreachable

    def _workbench(self, c: AccelClient, args: argparse.Namespace) -> Any:
        if not args.profile:
            return View(c.workbench())
        change = {"namespace": args.profile_namespace, "queue": args.queue}
        preview = c.change_workbench_profile(args.profile, dry_run=True, **change)
        if args.dry_run:
            return View(preview)
        print(to_text(blocks(preview)))
        if not args.yes and input("Change the workbench's profile now? [y/N] ").strip().lower() not in ("y", "yes"):
            print("Nothing changed.")
            return None
        return View(c.change_workbench_profile(args.profile, **change))

    @cell_magic
    def accel_job(self, line: str, cell: str) -> Any:
        """%%accel_job [--kind K] [--workers N] [--gpus N] ... [--wait]: submit the cell as a job's script."""
        args = _parse(_job_parser(), line)
        if args is None:
            return None
        if not cell.strip():
            raise UsageError("%%accel_job: the cell is empty; its body is the job's script")
        if args.cluster:
            return self._on_cluster(args, cell)
        args.kind = args.kind or self.client.default_kind()
        # the kernel and the server share the workbench's files: an absolute path, which the server checks
        workdir = os.path.abspath(os.path.expanduser(args.workdir)) if args.workdir else None
        request = _request_from(args, script=cell, interpreter=args.interpreter, workdir=workdir)
        job = self.client.submit(request).job
        if args.wait:
            wait_for_job(self.client, str(job.kind), job.name, timeout=args.timeout)
            return None  # the status display above already shows the final state
        return self._live_view(job)

    def _on_cluster(self, args: argparse.Namespace, cell: str) -> Any:
        """The cell as a Ray job's driver on a running Ray cluster (Ray's Jobs API through the server)."""
        from . import ray_cluster

        try:
            env = parse_env(args.env)
        except ValueError as exc:
            raise UsageError(f"%%accel_job: {exc}") from None
        # the kernel and the server share the workbench's files: an absolute path, which the server checks
        workdir = os.path.abspath(os.path.expanduser(args.workdir)) if args.workdir else None
        sid = ray_cluster.submit_cell(self.client, args.cluster, cell, env=env, workdir=workdir)
        print(f"Ray job {sid} submitted to {args.cluster}")
        if args.wait:
            ray_cluster.follow(self.client, args.cluster, sid, timeout=args.timeout)
            return None
        return Para(
            f"Follow it: client.ray_job({args.cluster!r}, {sid!r}) and client.ray_job_logs(...), or the cluster's "
            "dashboard from its detail in the sidebar.",
            muted=True,
        )

    def _live_view(self, job: Any) -> Any:
        """A self-updating monitor widget in a kernel with ipywidgets; else (a terminal, no ipywidgets) the job as
        submitted and how to follow it."""
        if getattr(self.shell, "kernel", None) is not None:
            try:
                from .widgets import JobMonitor
            except ImportError:
                pass
            else:
                return JobMonitor(str(job.kind), job.name, client=self.client)
        hint = f"Follow it with %accel status {job.name} or %accel logs {job.name} --follow."
        return View(job, extra=[Para(hint, muted=True)], kinds=self.client.kinds())


def _print_logs(
    c: AccelClient, kind: str, name: str, *, pod: str | None = None, tail: int | None = None, follow: bool = False
) -> None:
    """One pod's log, or every pod's interleaved with a prefix each (the default); a kept copy says so first."""
    stream = c.logs(kind, name, pod=pod, tail=tail, follow=follow, all_pods=pod is None)
    if (label := stream.label()) is not None:
        print(label)
    try:
        for line in stream:
            print(line, flush=follow)
    except KeyboardInterrupt:
        print("(stopped following)")
    finally:
        stream.close()


FINAL_LINES_S = 10.0  # after the job ended, how long a kept stream may take to deliver its last lines


def _follow_until_done(c: AccelClient, kind: str, name: str, poll: float, deadline: float | None) -> None:
    """Print the followed log until the job ends. A watcher closes the stream at the end: a log stream need not
    end with the job (the followed pod may outlive it, or a simulated kubelet keeps it open)."""
    stream = c.logs(kind, name, follow=True, all_pods=True)  # every rank's lines, each with its pod's prefix
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(poll):
            try:
                if c.job(kind, name).job.display.finished:
                    # a kept stream ends by itself once the last lines are in; a live one may not (give it a moment)
                    stop.wait(FINAL_LINES_S if stream.source == "kept" else 0)
                    break
            except AccelError:
                break
            if deadline is not None and time.monotonic() > deadline:
                break
        stream.close()

    watcher = threading.Thread(target=watch, name="jupyter-accel-wait", daemon=True)
    watcher.start()
    try:
        for line in stream:
            print(line, flush=True)
    finally:
        stop.set()
        stream.close()


def wait_for_job(c: AccelClient, kind: str, name: str, *, timeout: float | None = None, poll: float = WAIT_POLL) -> Any:
    """Block until the job ends: its status in one display that updates, its logs printed as they come.
    Returns the final JobView; raises AccelError when the job failed. Ctrl-C or `timeout` stop waiting (the job
    keeps running)."""
    from IPython.display import display

    deadline = None if timeout is None else time.monotonic() + timeout
    job = c.job(kind, name).job
    kinds = c.kinds()
    handle = display(View(job, kinds=kinds), display_id=True)
    shown_logs = False

    def show(view: View) -> None:
        if handle is not None:
            handle.update(view)
        else:  # no display system (plain Python): print the text form
            print(repr(view))

    try:
        while True:
            status = str(job.status)
            if job.display.finished:
                break
            if status == "Running" and not shown_logs:
                shown_logs = True
                try:
                    _follow_until_done(c, kind, name, poll, deadline)
                except AccelError as exc:
                    print(f"(logs unavailable: {exc.message})")
            elif deadline is not None and time.monotonic() > deadline:
                show(
                    View(
                        job,
                        extra=[Para(f"Stopped waiting after {timeout:g} s; the job keeps running.", muted=True)],
                        kinds=kinds,
                    )
                )
                return job
            else:
                time.sleep(poll)
            job = c.job(kind, name).job
            show(View(job, kinds=kinds))
    except KeyboardInterrupt:
        show(View(job, extra=[Para("Stopped waiting; the job keeps running.", muted=True)], kinds=kinds))
        return job
    if not shown_logs:  # it ended before we saw it running: show what it printed
        try:
            _print_logs(c, kind, name, tail=200)
        except AccelError as exc:
            print(f"(logs unavailable: {exc.message})")
    show(View(job, kinds=kinds))
    if str(job.status) == "Failed":
        raise AccelError(f"{kind} {name} failed: {job.reason or 'no reason given'}")
    return job


def register(ipython: Any) -> None:
    ipython.register_magics(AccelMagics(ipython))
