"""The agent tools: what the sidebar and the magics offer, as MCP tools with the user's own rights.

jupyter-server-mcp finds them through the entry point group `jupyter_server_mcp.tools` (pyproject.toml) and serves
them from the Jupyter server's process. Each tool calls this server's own REST API over loopback with the server's
token, so an agent gets the same answers, the same checks and the same refusals as the sidebar and `%accel`: no
second path to the cluster. The blocking calls run in threads; the server's event loop, which answers them, stays
free.

Every answer is a dict: `text`, the words `%accel` prints for it (notebook/display), and `data`, the REST answer
itself (docs/rest-api.md). Writes are two steps: `submit_job` without `confirmation` previews (the fit check and the
request as the server read it) and gives a code; the same request with that code launches it. A read-only server
(AccelConfig.read_only) offers no write tools at all, and its REST API refuses writes anyway.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from ..domain.presentation import WAITING
from ..notebook.client import AccelClient, AccelError
from ..notebook.display import View

T = TypeVar("T")

LOG_LINES_MAX = 2000  # an agent's context is small: the last lines of a log, never all of it
_KEY = secrets.token_bytes(32)  # signs previews: a confirmation code is only valid for the request it previewed

READ_TOOLS = [
    "list_accelerators",
    "list_queues",
    "list_jobs",
    "job_status",
    "why_pending",
    "check_fit",
    "job_logs",
]
WRITE_TOOLS = ["submit_job", "suspend_job", "resume_job", "delete_job"]


try:  # the MCP server's own error type: it reaches the agent as a tool error, logged without a traceback
    from fastmcp.exceptions import ToolError as _ToolError
except ImportError:  # the tools are only loaded by jupyter-server-mcp, which brings fastmcp; tests may lack it
    _ToolError = Exception  # type: ignore[assignment,misc]


class ToolRefused(_ToolError):
    """A refusal the agent should read: the server's message, with its HTTP status and the field it names."""


def _server_endpoint() -> tuple[str, str]:
    """This Jupyter server's own local URL and a token it accepts (the tools run inside it)."""
    from jupyter_server.serverapp import ServerApp

    if not ServerApp.initialized():
        raise ToolRefused("jupyter-accel's agent tools run inside a Jupyter server; none is running in this process.")
    app = ServerApp.instance()
    token = getattr(app.identity_provider, "token", "") or os.environ.get("JUPYTERHUB_API_TOKEN", "")
    return app.connection_url, token


def _client() -> AccelClient:
    url, token = _server_endpoint()
    return AccelClient(url, token)


async def _call(fn: Callable[[AccelClient], T]) -> T:
    """Run one client call in a thread; the server's refusals become ToolRefused with its own words."""

    def run() -> T:
        return fn(_client())

    try:
        return await asyncio.to_thread(run)
    except AccelError as e:
        raise ToolRefused(str(e)) from None


def _answer(model: Any, text: str | None = None, **extra: Any) -> dict[str, Any]:
    data = model.model_dump(mode="json", exclude_none=True) if hasattr(model, "model_dump") else model
    return {"text": text if text is not None else repr(View(model)), "data": data, **extra}


def _read_only() -> bool:
    """The admin's AccelConfig.read_only, read from the server's configuration (the tools load before any
    request)."""
    from jupyter_server.serverapp import ServerApp

    from ..config import AccelConfig

    if not ServerApp.initialized():
        return False
    return bool(AccelConfig(config=ServerApp.instance().config).read_only)


def get_tools() -> list[str]:
    """The entry point: every tool, less the writes on a read-only server."""
    names = READ_TOOLS + ([] if _read_only() else WRITE_TOOLS)
    return [f"{__name__}:{n}" for n in names]


def _confirmation(request: dict[str, Any]) -> str:
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"))
    return hmac.new(_KEY, canonical.encode(), hashlib.sha256).hexdigest()[:16]


# -- reads ----------------------------------------------------------------------------------------------------


async def list_accelerators() -> dict[str, Any]:
    """Accelerators in the cluster per model (e.g. NVIDIA H100): nodes, allocatable, in use and free, where this
    account may see them. Use it to answer "is an H100 free now?"."""
    return _answer(await _call(lambda c: c.inventory()))


async def list_queues() -> dict[str, Any]:
    """The Kueue queues this account may submit to: quota per accelerator, what is in use, and the default queue."""
    return _answer(await _call(lambda c: c.queues()))


async def list_jobs(scope: str = "mine") -> dict[str, Any]:
    """The jobs (Ray clusters, Ray jobs, PyTorchJobs, TrainJobs) with their state and one sentence on why.
    scope: "mine" (launched from this workbench) or "namespace" (every job of the project)."""
    return _answer(await _call(lambda c: c.jobs(scope)))


async def job_status(kind: str, name: str) -> dict[str, Any]:
    """One job in full: state, pods, events and progress. kind: ray-cluster, ray-job, pytorch or trainjob."""
    return _answer(await _call(lambda c: c.job(kind, name)))


async def why_pending(kind: str, name: str) -> dict[str, Any]:
    """Why a job waits, in the words of the sidebar's job list: its state, the sentence, its place in line, Kueue's
    own message, when it starts at the latest, and the workloads ahead of it."""
    job = (await _call(lambda c: c.job(kind, name))).job
    d = job.display
    waiting = job.status in WAITING
    parts = [f"{job.kind.value} {job.name}: {d.label}. {d.sentence}"]
    parts += [p for p in (d.place, d.detail, d.eta) if p]
    if not waiting:
        parts.append("It is not waiting.")
    return {
        "text": "\n".join(parts),
        "data": {
            "waiting": waiting,
            "status": job.status.value,
            "reason": job.reason,
            "display": d.model_dump(mode="json", exclude_none=True),
            "position": job.position,
            "queue": job.queue,
            "cluster_queue": job.cluster_queue,
            "ahead": [a.model_dump(mode="json", exclude_none=True) for a in job.ahead],
        },
    }


async def check_fit(request: dict[str, Any]) -> dict[str, Any]:
    """Would this job start now, later, or never? The same check as the launch form, on a JobRequest
    (docs/rest-api.md), e.g. {"kind": "pytorch", "workers": 2, "accelerators": {"resource": "nvidia.com/gpu",
    "count": 1}, "script": {"text": "print('hi')"}}."""
    return _answer(await _call(lambda c: c.fit(request)))


async def job_logs(kind: str, name: str, tail_lines: int = 200) -> dict[str, Any]:
    """The last lines of every pod's log of a job, each line prefixed with its pod; kept logs once the pods are
    gone. tail_lines: at most 2000."""
    tail = max(1, min(int(tail_lines), LOG_LINES_MAX))

    def read(c: AccelClient) -> dict[str, Any]:
        stream = c.logs(kind, name, tail=tail, all_pods=True)
        try:
            lines = list(stream)[-tail:]
            return {"source": stream.source, "label": stream.label, "lines": lines}
        finally:
            stream.close()

    got = await _call(read)
    head = f"{kind} {name}: {len(got['lines'])} lines" + (f" ({got['label']})" if got["label"] else "")
    return {"text": "\n".join([head, *got["lines"]]), "data": got}


# -- writes ---------------------------------------------------------------------------------------------------


async def submit_job(request: dict[str, Any], confirmation: str = "") -> dict[str, Any]:
    """Launch a job, in two steps. Without `confirmation`: a preview (the fit check, and the request as the server
    read it) and a confirmation code; nothing is created. Show the preview to the user; with their consent, call
    again with the same request and that code. A retried confirmation finds the job it made, never a second one."""
    code = _confirmation(request)
    if not confirmation:
        fit = await _call(lambda c: c.fit(request))
        text = (
            repr(View(fit)) + f"\nNothing was created. To launch it, call submit_job again with confirmation={code!r}."
        )
        return _answer(fit, text, confirmation=code, request=request, created=False)
    if not hmac.compare_digest(confirmation, code):
        raise ToolRefused(
            "confirmation: it does not match this request (the request changed, or the code is from another "
            "preview). Call submit_job without confirmation to preview this request."
        )
    confirmed = {"client_request_id": f"mcp-{code}", **request}
    return _answer(await _call(lambda c: c.submit(confirmed)))


async def suspend_job(kind: str, name: str) -> dict[str, Any]:
    """Suspend a job through Kueue: its pods stop and its quota is freed; resume_job queues it again."""
    return _answer(await _call(lambda c: c.suspend(kind, name)))


async def resume_job(kind: str, name: str) -> dict[str, Any]:
    """Resume a suspended job: it queues for quota again."""
    return _answer(await _call(lambda c: c.resume(kind, name)))


async def delete_job(kind: str, name: str, confirm: bool = False) -> dict[str, Any]:
    """Delete a job and its pods (their logs stay kept). Without confirm=true it only says what would go."""
    if not confirm:
        detail = await _call(lambda c: c.job(kind, name))
        pods = len(detail.job.pods)
        text = (
            f"Would delete {kind} {name} ({detail.job.display.label}) and its {pods} pod(s). Nothing was deleted; "
            "call delete_job again with confirm=true, with the user's consent."
        )
        return _answer(detail.job, text, deleted=False)
    await _call(lambda c: c.delete(kind, name))
    return {"text": f"Deleted {kind} {name}.", "data": {"kind": kind, "name": name}, "deleted": True}


__all__ = ["ToolRefused", "get_tools", *READ_TOOLS, *WRITE_TOOLS]
