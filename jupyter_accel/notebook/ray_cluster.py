"""The user's running Ray cluster from the notebook: `%accel connect NAME` and `%%accel_job --cluster NAME`.

Both go through Ray's Jobs API on the cluster's head, proxied by the Jupyter server (AccelClient.ray_*): the kernel
needs neither the cluster's network nor Ray.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .client import AccelClient, AccelError

CELL_ENV = "JUPYTER_ACCEL_CELL"  # the cell's source reaches the driver in its runtime_env, not in a shell line
# Linux limits one environment string (name=value) to 32 pages (MAX_ARG_STRLEN)
MAX_CELL_BYTES = 32 * 4096 - len(CELL_ENV) - 2
RUN_CELL = f"python -c \"import os; exec(compile(os.environ['{CELL_ENV}'], '<cell>', 'exec'))\""
TERMINAL = ("SUCCEEDED", "FAILED", "STOPPED")


SA_TOKEN = Path("/var/run/secrets/kubernetes.io/serviceaccount/token")  # a pod's: the kernel runs in the cluster
RAY_CLIENT_PORT = 10001  # the head service's `client` port (KubeRay)


@dataclass(frozen=True)
class RayConnection:
    """Ray's Jobs API of one cluster, through the server: pass `address` and `headers` to Ray's own
    `JobSubmissionClient`, or call `client()` where Ray is installed. `ray_address`: the cluster's Ray client
    address, where this kernel runs in the cluster (None elsewhere); `notes`: what stands in the way of it."""

    name: str
    address: str
    headers: dict[str, str]
    ray_address: str | None = None
    notes: list[str] = field(default_factory=list)

    def client(self) -> Any:
        from ray.job_submission import JobSubmissionClient  # optional: only where the kernel has Ray

        return JobSubmissionClient(self.address, headers=self.headers)

    def __repr__(self) -> str:  # never the token
        direct = f"Ray client: ray.init({self.ray_address!r})\n" if self.ray_address else ""
        notes = "".join(f"Note: {n}\n" for n in self.notes)
        return (
            direct + notes + f"Ray cluster {self.name}: Jobs API at {self.address}\n"
            "  from ray.job_submission import JobSubmissionClient\n"
            f"  client = JobSubmissionClient(conn.address, headers=conn.headers)   # or conn.client()\n"
            "  `ray job submit` in this kernel's shell (!ray job ...) uses it too (RAY_API_SERVER_ADDRESS, "
            "RAY_JOB_HEADERS)"
        )


def require_running(c: AccelClient, name: str, kind: str = "ray-cluster") -> Any:
    """The cluster's job view; a 409 naming its state unless it runs (a queued or suspended one has no head)."""
    job = c.job(kind, name).job
    if str(job.status) != "Running":
        raise AccelError(f"{name} is not running ({job.display.label}: {job.display.sentence})", 409, field="cluster")
    return job


def connect(c: AccelClient, name: str, kind: str = "ray-cluster") -> RayConnection:
    """Check that the cluster runs and its dashboard answers, then point Ray's tools in this kernel at its Jobs API;
    in a pod of the cluster, also give its Ray client address, and say what differs between the kernel's Ray and
    Python and the cluster's."""
    job = require_running(c, name, kind)
    version = c.ray_dashboard(name, "api/version", kind=kind)  # a 404/502 here says why, as the server words it
    if not isinstance(version, dict) or "ray_version" not in version:
        raise AccelError(f"{name} answered, but not as a Ray dashboard does", 502)
    address, headers = c.ray_jobs_address(name, kind=kind)
    os.environ["RAY_API_SERVER_ADDRESS"] = address
    os.environ["RAY_JOB_HEADERS"] = json.dumps(headers)
    notes = []
    in_cluster = bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and SA_TOKEN.is_file()
    ray_address = f"ray://{name}-head-svc.{job.namespace}.svc:{RAY_CLIENT_PORT}" if in_cluster else None
    if not in_cluster:
        notes.append(
            "this kernel runs outside the cluster, whose pod network it cannot reach: no ray:// connection from "
            "here; the Jobs API below goes through the Jupyter server instead"
        )
    try:
        mine = importlib.metadata.version("ray")
    except importlib.metadata.PackageNotFoundError:
        mine = None
    theirs = str(version["ray_version"])
    if mine is None:
        notes.append(f"Ray is not installed in this kernel (the cluster runs Ray {theirs}); the Jobs API needs none")
    elif mine != theirs:
        notes.append(f"Ray differs: {theirs} on the cluster, {mine} in this kernel; a Ray client needs the same")
    if ray_address and mine:
        notes.append(
            f"a Ray client also needs the cluster's Python minor version; this kernel runs {platform.python_version()}"
            " (the dashboard does not report the cluster's)"
        )
    return RayConnection(name, address, headers, ray_address, notes)


def submit_cell(
    c: AccelClient, name: str, cell: str, env: dict[str, str] | None = None, workdir: str | None = None
) -> str:
    """Run a cell's source as a Ray job's driver on the cluster (which must run); its submission id. `workdir`: a
    folder the driver runs in (and Ray's workers import from), packed by the server as Ray's own package."""
    if len(cell.encode()) > MAX_CELL_BYTES:
        raise AccelError(
            f"the cell is {len(cell.encode())} bytes; at most {MAX_CELL_BYTES} go to a Ray cluster this way: put "
            "the code in a file of a working directory (--workdir) and run that file",
            400,
            field="cell",
        )
    require_running(c, name)
    return c.ray_submit(name, RUN_CELL, runtime_env={"env_vars": {**(env or {}), CELL_ENV: cell}}, workdir=workdir)


def follow(c: AccelClient, name: str, submission_id: str, *, poll: float = 1.0, timeout: float | None = None) -> dict:
    """Print the driver's log as it grows until the Ray job ends; Ray's final record. Raises AccelError when it
    failed or was stopped, with Ray's own message."""
    deadline = None if timeout is None else time.monotonic() + timeout
    shown = 0
    while True:
        record = c.ray_job(name, submission_id)
        logs = c.ray_job_logs(name, submission_id)
        if len(logs) > shown:
            print(logs[shown:], end="" if logs.endswith("\n") else "\n", flush=True)
            shown = len(logs)
        status = record.get("status")
        if status in TERMINAL:
            if status != "SUCCEEDED":
                raise AccelError(f"Ray job {submission_id} on {name}: {status}: {record.get('message') or ''}")
            return record
        if deadline is not None and time.monotonic() > deadline:
            print(f"(stopped waiting; Ray job {submission_id} is {status} on {name})")
            return record
        time.sleep(poll)
