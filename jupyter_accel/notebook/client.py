"""AccelClient: the kernel's client of the server extension's REST API (docs/rest-api.md).

Stdlib HTTP only (http.client, urllib.parse) so the kernel stays light; answers are parsed into the same pydantic
models the server validates with, imported on first use (not when `%load_ext` runs).
"""

from __future__ import annotations

import contextlib
import http.client
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode, urlsplit

from ..models.kinds import JobKind
from . import kinds
from .discovery import DiscoveryError, ServerEndpoint, find_server
from .streamed import EventStream, LogStream

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..models import Connection, InfoResponse, JobDetail, JobRequest, JobView, SubmitResponse

API_PATH = "accel/v1/"
FEW_NODES = 20  # up to this many accelerator nodes, `%accel gpus` and AcceleratorView list them under the totals
JOB_KINDS = tuple(k.value for k in JobKind)


class AccelError(Exception):
    """An error answer of the server (its ErrorResponse), or the server could not be reached (status None)."""

    def __init__(
        self,
        message: str,
        status: int | None = None,
        field: str | None = None,
        reason: str | None = None,
        errors: list[dict] | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field
        self.reason = reason
        self.errors = errors or []

    def __str__(self) -> str:
        head = f"{self.message}"
        if self.status is not None:
            head = f"[{self.status}{' ' + self.reason if self.reason else ''}] {head}"
        extra = [f"  {e.get('field')}: {e.get('message')}" for e in self.errors[1:]]
        return "\n".join([head, *extra])

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: the message is what the user needs
        return [f"AccelError: {self}"]

    @classmethod
    def from_response(cls, status: int, body: bytes, reason: str) -> AccelError:
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("message"), str):
            return cls(
                data["message"], status, data.get("field"), data.get("reason") or reason, data.get("errors") or []
            )
        if status == 404:
            return cls(
                "Not found. Is the jupyter-accel server extension enabled on this Jupyter server "
                "(jupyter server extension list)?",
                status,
                reason=reason,
            )
        if status in (401, 403):
            return cls(
                "The Jupyter server refused the token (set JUPYTER_ACCEL_TOKEN to a valid one).", status, reason=reason
            )
        text = body.decode("utf-8", "replace").strip()[:200]
        return cls(text or reason or "error", status, reason=reason)


def _models() -> Any:
    from .. import models

    return models


def validate_request(data: dict) -> JobRequest:
    """A JobRequest from a dict, field errors raised as AccelError (status None: found before any round trip)."""
    from pydantic import ValidationError

    try:
        return _models().JobRequest.model_validate(data)
    except ValidationError as exc:
        errors = [
            {"field": ".".join(str(p) for p in e["loc"]) or "(body)", "message": e["msg"]}
            for e in exc.errors(include_url=False)
        ]
        first = errors[0]
        raise AccelError(
            f"{first['field']}: {first['message']}", None, first["field"], "Invalid request", errors
        ) from None


class AccelClient:
    """Client of one Jupyter server's /accel/v1 API. Without arguments it finds the kernel's own server."""

    def __init__(self, url: str | None = None, token: str | None = None, *, timeout: float = 30.0):
        if url is None:
            try:
                endpoint = find_server()
            except DiscoveryError as exc:
                raise AccelError(str(exc)) from None
            if token is not None:
                endpoint = ServerEndpoint(endpoint.url, token, endpoint.source)
        else:
            endpoint = ServerEndpoint(url if url.endswith("/") else url + "/", token or "", "argument")
        self.endpoint = endpoint
        self.timeout = timeout
        self._kinds: list[Any] | None = None
        parts = urlsplit(endpoint.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AccelError(f"Server URL {endpoint.url!r} must be http(s)://host[:port]/[base_url/].")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._base_path = (parts.path or "/") + API_PATH

    def __repr__(self) -> str:
        return f"AccelClient(url={self.endpoint.url!r})"

    # -- transport ----------------------------------------------------------------------------------------

    def _connect(self, timeout: float | None) -> http.client.HTTPConnection:
        if self._https:
            import ssl  # only for https servers: ssl costs import time

            return http.client.HTTPSConnection(
                self._host, self._port, timeout=timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _open(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: Any = None,
        timeout: float | None = None,
        accept: str = "application/json",
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        target = self._base_path + path
        params = {k: v for k, v in (query or {}).items() if v is not None}
        if params:
            target += "?" + urlencode(params)
        headers = {"Accept": accept}
        if self.endpoint.token:
            headers["Authorization"] = f"token {self.endpoint.token}"
        payload = None
        if body is not None:
            payload = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn = self._connect(self.timeout if timeout is None else timeout)
        try:
            conn.request(method, target, body=payload, headers=headers)
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise AccelError(
                f"Cannot reach the Jupyter server at {self.endpoint.url} ({self.endpoint.source}): {exc}"
            ) from None
        if response.status >= 400:
            data = response.read()
            conn.close()
            raise AccelError.from_response(response.status, data, response.reason)
        return conn, response

    def _call(self, method: str, path: str, *, query: dict[str, Any] | None = None, body: Any = None) -> Any:
        conn, response = self._open(method, path, query=query, body=body)
        try:
            data = response.read()
        finally:
            conn.close()
        if not data:
            return None
        try:
            return json.loads(data)
        except ValueError:
            raise AccelError(
                f"The server answered {method} {path} with something that is not JSON.", response.status
            ) from None

    def _get(self, path: str, answer: str, **query: Any) -> Any:
        return self._parse(answer, self._call("GET", path, query=query))

    @staticmethod
    def _parse(model: str, data: Any) -> Any:
        return getattr(_models(), model).model_validate(data)

    @staticmethod
    def _request_body(request: JobRequest | dict) -> str:
        if isinstance(request, dict):
            request = validate_request(request)
        # only what the caller set: defaults (e.g. the Ray head) are the server's to apply, per kind
        return request.model_dump_json(exclude_unset=True)

    @staticmethod
    def _job_path(kind: str, name: str, suffix: str = "") -> str:
        if kind not in JOB_KINDS:
            raise AccelError(f"kind: {kind!r} is not allowed; use one of {', '.join(JOB_KINDS)}", field="kind")
        return f"jobs/{quote(kind, safe='')}/{quote(name, safe='')}{suffix}"

    # -- API ----------------------------------------------------------------------------------------------

    def info(self) -> InfoResponse:
        answer = self._get("info", "InfoResponse")
        self._kinds = list(answer.capabilities.kinds)  # the kinds' labels and default, for displays and magics
        return answer

    def kinds(self) -> list[Any]:
        """The server's job kinds (JobKindInfo: label, roles, default, ...), from the last /info this client read;
        read now if it read none. Empty when the server cannot be asked."""
        if self._kinds is None:
            with contextlib.suppress(AccelError):
                self.info()
        return self._kinds or []

    def default_kind(self) -> str:
        """The job kind the server offers first (its registry marks one)."""
        found = kinds.default(self.kinds())
        if found is None:
            raise AccelError("The server names no default job kind; pass --kind.", field="kind")
        return found

    def inventory(self) -> BaseModel:
        """Accelerators per model; the nodes behind them: inventory_nodes()."""
        return self._get("inventory", "InventoryResponse")

    def inventory_nodes(self, model: str | None = None, offset: int = 0, limit: int = 100) -> BaseModel:
        """One page of the nodes with accelerators; `model`: a model key or name (as inventory() lists them)."""
        if model is not None and "|" not in model:
            keys = [m.key for m in self.inventory().models if m.model == model or m.resource == model]
            if len(keys) != 1:
                raise AccelError(f"model: {model!r} names {len(keys)} accelerator models; give its key", field="model")
            model = keys[0]
        return self._get("inventory/nodes", "InventoryNodesResponse", model=model, offset=offset, limit=limit)

    def few_inventory_nodes(self, inventory: Any) -> BaseModel | None:
        """The nodes behind `inventory` when they fit on one short page (FEW_NODES), else None: a small cluster's
        nodes are shown under the totals; a large one's are paged through with inventory_nodes()."""
        if not inventory.visibility.visible or not 0 < inventory.node_count <= FEW_NODES:
            return None
        return self.inventory_nodes(limit=FEW_NODES)

    def profiles(self) -> BaseModel:
        return self._get("profiles", "HardwareProfilesResponse")

    def data(self) -> BaseModel:
        """The namespace's PVCs and connections a job can mount (DataSourcesResponse)."""
        return self._get("data", "DataSourcesResponse")

    def workbench(self) -> BaseModel:
        """This workbench's Notebook: accelerators, hardware profile, queue (WorkbenchView)."""
        return self._get("workbench", "WorkbenchView")

    def change_workbench_profile(
        self, profile: str, *, namespace: str | None = None, queue: str | None = None, dry_run: bool = False
    ) -> BaseModel:
        """Patch this workbench's Notebook to another hardware profile (the platform restarts it: the kernel is
        lost); `dry_run` checks and shows the patch (WorkbenchProfileResponse)."""
        body = {
            "hardware_profile": profile,
            "hardware_profile_namespace": namespace,
            "queue": queue,
            "dry_run": dry_run,
        }
        body = {k: v for k, v in body.items() if v is not None}
        return self._parse("WorkbenchProfileResponse", self._call("POST", "workbench/profile", body=body))

    def queues(self) -> BaseModel:
        return self._get("queues", "QueuesResponse")

    def workloads(self) -> BaseModel:
        return self._get("workloads", "WorkloadsResponse")

    def fit(self, request: JobRequest | dict) -> BaseModel:
        return self._parse("FitResponse", self._call("POST", "fit", body=self._request_body(request)))

    def jobs(self, scope: str = "mine") -> BaseModel:
        return self._get("jobs", "JobsResponse", scope=_scope(scope))

    def utilization(self, scope: str = "mine") -> Any:
        """The running jobs' accelerator use (the cluster's metrics API): now, the last half hour, idle warnings."""
        return self._get("utilization", "UtilizationResponse", scope=_scope(scope))

    def job_utilization(self, kind: str, name: str) -> Any:
        """One job's devices over its life: utilization and memory per device."""
        return self._get(self._job_path(kind, name, "/utilization"), "JobUtilizationDetail")

    def queue_usage(self) -> Any:
        """The queues' use over the last hours (Kueue's metrics)."""
        return self._get("queues/usage", "QueueUsageResponse")

    def submit(self, request: JobRequest | dict) -> SubmitResponse:
        """Launch it; `.job` is the new JobView (a retry with the same client_request_id finds the same job)."""
        return self._parse("SubmitResponse", self._call("POST", "jobs", body=self._request_body(request)))

    def job(self, kind: str, name: str) -> JobDetail:
        """`.job` (JobView with pods), `.events`, `.dashboard_path` (Ray)."""
        return self._get(self._job_path(kind, name), "JobDetail")

    def delete(self, kind: str, name: str) -> None:
        self._call("DELETE", self._job_path(kind, name))

    def suspend(self, kind: str, name: str) -> JobView:
        return self._parse("JobView", self._call("POST", self._job_path(kind, name, "/suspend"), body={}))

    def resume(self, kind: str, name: str) -> JobView:
        return self._parse("JobView", self._call("POST", self._job_path(kind, name, "/resume"), body={}))

    def set_time_limit(
        self, kind: str, name: str, *, extend_seconds: int | None = None, max_run_seconds: int | None = None
    ) -> JobView:
        """A longer (or, while it waits, any) time limit within the admin's ceiling: `extend_seconds` more, or
        `max_run_seconds` in all."""
        body = {"extend_seconds": extend_seconds, "max_run_seconds": max_run_seconds}
        return self._parse("JobView", self._call("POST", self._job_path(kind, name, "/limit"), body=body))

    def cleanup(
        self, older_than_seconds: int | None = None, *, scope: str = "mine", dry_run: bool = False
    ) -> BaseModel:
        """Delete finished jobs (default: finished an hour ago or more, launched from this workbench)."""
        body: dict[str, Any] = {"scope": scope, "dry_run": dry_run}
        if older_than_seconds is not None:
            body["older_than_seconds"] = older_than_seconds
        return self._parse("CleanupResponse", self._call("POST", "jobs/cleanup", body=body))

    def ray_dashboard(self, name: str, path: str = "api/version", kind: str = "ray-cluster") -> Any:
        """A JSON answer of a Ray cluster's own dashboard REST API (e.g. `api/version`), through the server's
        proxy: the kernel never needs the cluster's network."""
        return self._call("GET", self._job_path(kind, name, "/dashboard/" + path.lstrip("/")))

    def ray_jobs_address(self, name: str, kind: str = "ray-cluster") -> tuple[str, dict[str, str]]:
        """(address, headers) for Ray's own `JobSubmissionClient(address, headers=headers)`: Ray's Jobs API of this
        cluster through the server's proxy, with the Jupyter token. Works wherever the kernel reaches the server."""
        parts = urlsplit(self.endpoint.url)
        address = f"{parts.scheme}://{parts.netloc}{self._base_path}{self._job_path(kind, name, '/dashboard')}"
        return address, ({"Authorization": f"token {self.endpoint.token}"} if self.endpoint.token else {})

    def ray_submit(
        self,
        name: str,
        entrypoint: str,
        runtime_env: dict[str, Any] | None = None,
        kind: str = "ray-cluster",
        workdir: str | None = None,
    ) -> str:
        """Run `entrypoint` (a shell command) as a Ray job on this cluster, through Ray's Jobs API; its submission id
        (no Ray needed in the kernel). `runtime_env` as Ray takes it (env_vars, pip; a working_dir must be a URI);
        `workdir`: a folder of this workbench's files the job runs in (ray_package), instead of that URI."""
        body: dict[str, Any] = {"entrypoint": entrypoint}
        if workdir:
            runtime_env = {**(runtime_env or {}), "working_dir": self.ray_package(name, workdir, kind=kind).uri}
        if runtime_env:
            body["runtime_env"] = runtime_env
        answer = self._call("POST", self._job_path(kind, name, "/dashboard/api/jobs/"), body=body)
        return answer["submission_id"]

    def ray_package(self, name: str, workdir: str, kind: str = "ray-cluster") -> Any:
        """Have the server pack a folder of its files (this workbench's) as Ray's working-dir package and upload it
        to the running cluster; `.uri` goes in a Ray job's runtime_env as its working_dir."""
        body = {"workdir": workdir}
        return self._parse("RayPackage", self._call("POST", self._job_path(kind, name, "/ray-package"), body=body))

    def ray_job(self, name: str, submission_id: str, kind: str = "ray-cluster") -> dict[str, Any]:
        """Ray's own record of a Ray job on this cluster (status, message, times)."""
        return self._call("GET", self._job_path(kind, name, f"/dashboard/api/jobs/{submission_id}"))

    def ray_job_logs(self, name: str, submission_id: str, kind: str = "ray-cluster") -> str:
        """The Ray job's driver log so far."""
        return self._call("GET", self._job_path(kind, name, f"/dashboard/api/jobs/{submission_id}/logs"))["logs"]

    def set_token(self, token: str | None) -> Connection:
        """Use this Kubernetes bearer token on the server (memory only); None goes back to the configured one."""
        if token is None:
            return self._parse("Connection", self._call("DELETE", "identity/token"))
        return self._parse("Connection", self._call("PUT", "identity/token", body={"token": token}))

    def logs(
        self,
        kind: str,
        name: str,
        pod: str | None = None,
        tail: int | None = None,
        follow: bool = False,
        container: str | None = None,
        all_pods: bool = False,
    ) -> LogStream:
        """The job's log lines (iterate the result). With follow=True it runs until the pod ends (every pod: the job)
        or close(). `all_pods`: every pod's lines, each prefixed with its pod ([worker-1]), interleaved in time."""
        query = {
            "pod": pod,
            "container": container,
            "tail": tail,
            "follow": "true" if follow else None,
            "all": "true" if all_pods else None,
        }
        conn, response = self._open(
            "GET",
            self._job_path(kind, name, "/logs"),
            query=query,
            timeout=None if follow else self.timeout,
            accept="text/plain",
        )
        return LogStream(conn, response)

    def events(self, timeout: float = 60.0) -> EventStream:
        """The /stream push channel; the server sends a keep-alive every 15 s, so a read past `timeout` means
        the connection is dead."""
        conn, response = self._open("GET", "stream", timeout=timeout, accept="text/event-stream")
        return EventStream(conn, response)

    # -- conveniences -------------------------------------------------------------------------------------

    def find_job(self, name: str, kind: str | None = None) -> JobView:
        """The job named `name` among jobs(scope=namespace) (optionally of one kind); clear error if absent or
        ambiguous."""
        matches = [j for j in self.jobs("namespace").jobs if j.name == name and (kind is None or j.kind == kind)]
        if not matches:
            raise AccelError(
                f"No job named {name!r}{' of kind ' + kind if kind else ''} in this namespace.", 404, field="name"
            )
        if len(matches) > 1:
            kinds = ", ".join(sorted(str(j.kind) for j in matches))
            raise AccelError(f"Several jobs are named {name!r} ({kinds}); pass --kind.", 409, field="kind")
        return matches[0]


def _scope(scope: str) -> str:
    """`mine` or `namespace`; anything else is refused before a round trip, naming the field."""
    if scope not in ("mine", "namespace"):
        raise AccelError(f"scope: {scope!r} is not allowed; use mine or namespace", field="scope")
    return scope
