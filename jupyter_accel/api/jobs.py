"""Jobs: list, fit check, submit, detail, delete, suspend / resume, logs, clean-up and the Ray dashboard proxy."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from tornado import web

from .. import models
from ..services.workdir import RAY_PACKAGE_LIMIT
from .base import MAX_STREAMS_PER_USER, AccelHandler, ApiError, Endpoint

if TYPE_CHECKING:
    from ..services.jobs import JobsService

# cluster/, domain/ and services.jobs are imported inside the handlers: they pull in the kubernetes client, which would
# add ~0.15 s to every Jupyter server start for users who never open the panel.

T = TypeVar("T")
# Followed logs hold a thread each for as long as a browser watches: they get their own pool, so they can never
# starve the pool that submits, deletes and suspends jobs; the stream slots bound them (MAX_STREAMS_PER_USER).
# Log tails hold one for one read, in a small pool of their own: a pool keeps every thread it ever started, so each
# burst of tails while the API server was slow left the server bigger for good (benchmarks/soak.py: 34 more threads
# and 50 MiB more RSS after 5 minutes, with a pool of 64); past 4, tails wait their turn.
FOLLOW_THREADS = ThreadPoolExecutor(max_workers=MAX_STREAMS_PER_USER, thread_name_prefix="accel-log-follows")
TAIL_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="accel-log-tails")
JOBS_MAX_AGE = 15.0  # seconds
NAME = r"(?P<name>[a-z0-9][-a-z0-9.]*)"
KIND = r"(?P<kind>[a-z-]+)"


class JobsBase(AccelHandler):
    async def ops(self) -> JobsService:
        return self.accel.jobs_service(await self.synced_hub())

    async def blocking(self, fn: Callable[..., T], *args: Any) -> T:
        """Kubernetes calls never run on the event loop."""
        try:
            return await asyncio.get_running_loop().run_in_executor(None, fn, *args)
        except Exception as exc:
            from ..cluster.writes import WriteError
            from ..services.refusals import refusal

            if isinstance(exc, WriteError):
                raise refusal(exc, {"kind": "object"}) from None
            raise


class JobsHandler(JobsBase):
    path = "jobs"
    endpoints = {
        "get": Endpoint(
            "All jobs of the namespace, every kind, with unified status",
            response="JobsResponse",
            query={"scope": "mine | namespace (default namespace)"},
            errors=(400, 503),
        ),
        "post": Endpoint(
            "Submit a job (server-side dry run first)",
            request="JobRequest",
            response="SubmitResponse",
            status=201,
            also=(200,),  # a retry with the same client_request_id: the job it made, created false
            errors=(400, 409, 503),
        ),
    }
    _track_activity = False  # GET is polled; POST marks activity itself below

    @web.authenticated
    async def get(self) -> None:
        from ..services.jobs import check_scope

        scope = check_scope(self.get_argument("scope", "namespace"))
        ops = await self.ops()
        hub = ops.hub
        # jobs name times relative to now (time left, started ago): computed again at least this often
        await self.send_answer(hub, "jobs", (scope,), lambda: ops.list_jobs(scope), max_age=JOBS_MAX_AGE)

    @web.authenticated
    async def post(self) -> None:
        self._track_activity = True
        request = self.parse_body(models.JobRequest)
        ops = await self.ops()
        response, status = await self.blocking(ops.submit, request)
        self.send(response, status)


class FitHandler(JobsBase):
    path = "fit"
    endpoints = {
        "post": Endpoint(
            "Would this job fit now, queue, or never fit? No side effects.",
            request="JobRequest",
            response="FitResponse",
            errors=(400, 503),
        )
    }

    @web.authenticated
    async def post(self) -> None:
        request = self.parse_body(models.JobRequest)  # a bad body is a 400 even while not connected
        await self.send_computed((await self.ops()).fit, request)


class JobHandler(JobsBase):
    path = f"jobs/{KIND}/{NAME}"
    endpoints = {
        "get": Endpoint("One job: status, pods, events", response="JobDetail", errors=(400, 404, 503)),
        "delete": Endpoint("Delete the job with its pods", status=204, errors=(400, 404, 503)),
    }
    _track_activity = False

    @web.authenticated
    async def get(self, kind: str, name: str) -> None:
        ops, job_kind = await self.ops(), parse_kind(kind)
        # blocking: a job the caches have not seen yet is read from the API server
        self.send_body(await self.blocking(lambda: ops.detail(job_kind, name).model_dump_json()))

    @web.authenticated
    async def delete(self, kind: str, name: str) -> None:
        self._track_activity = True
        await self.blocking((await self.ops()).delete, parse_kind(kind), name)
        self.set_status(204)
        self.finish()


class JobActionHandler(JobsBase):
    path = f"jobs/{KIND}/{NAME}/(?P<action>suspend|resume)"
    endpoints = {
        "post": Endpoint("Suspend or resume (Kueue stop / resume)", response="JobView", errors=(400, 404, 503))
    }

    @web.authenticated
    async def post(self, kind: str, name: str, action: str) -> None:
        view = await self.blocking((await self.ops()).set_suspended, parse_kind(kind), name, action == "suspend")
        self.send(view)


class JobLimitHandler(JobsBase):
    path = f"jobs/{KIND}/{NAME}/limit"
    endpoints = {
        "post": Endpoint(
            "Set or extend the job's time limit (Kueue's maximum execution time) within the admin's ceiling",
            request="TimeLimitRequest",
            response="JobView",
            errors=(400, 403, 404, 409, 503),
        )
    }

    @web.authenticated
    async def post(self, kind: str, name: str) -> None:
        job_kind = parse_kind(kind)
        body = self.parse_body(models.TimeLimitRequest)
        ops = await self.ops()
        view = await self.blocking(
            lambda: ops.set_time_limit(
                job_kind, name, max_run_seconds=body.max_run_seconds, extend_seconds=body.extend_seconds
            )
        )
        self.send(view)


class RayPackageHandler(JobsBase):
    path = f"jobs/{KIND}/{NAME}/ray-package"
    endpoints = {
        "post": Endpoint(
            "Pack a folder of the server's files as Ray's working-dir package and upload it to the running Ray "
            "cluster; give the answer's uri as a Ray job's runtime_env working_dir",
            request="RayPackageRequest",
            response="RayPackage",
            status=201,
            errors=(400, 403, 404, 409, 502, 503),
        )
    }

    @web.authenticated
    async def post(self, kind: str, name: str) -> None:
        job_kind = parse_kind(kind)
        body = self.parse_body(models.RayPackageRequest)
        ops = await self.ops()
        self.send(await self.blocking(ops.ray_package, job_kind, name, body), status=201)


class CleanupHandler(JobsBase):
    path = "jobs/cleanup"
    endpoints = {
        "post": Endpoint(
            "Delete finished jobs older than an age",
            request="CleanupRequest",
            response="CleanupResponse",
            errors=(400, 503),
        )
    }

    @web.authenticated
    async def post(self) -> None:
        body = self.parse_body(models.CleanupRequest)
        self.send(await self.blocking((await self.ops()).cleanup, body.older_than_seconds, body.scope, body.dry_run))


class RayDashboardHandler(JobsBase):
    """The Ray dashboard through the API server's service proxy: no in-cluster URL ever reaches the browser."""

    path = f"jobs/{KIND}/{NAME}/dashboard/(?P<subpath>.*)"
    endpoints = {
        "get": Endpoint(
            "Ray dashboard of a RayCluster / RayJob, proxied", streaming="text/html", errors=(400, 403, 404, 502, 503)
        ),
        **{
            verb: Endpoint(
                "Ray's Jobs API on the cluster's head, proxied (api/jobs/..., api/packages/...): submit, stop, "
                "delete, package upload; what Ray's own JobSubmissionClient sends",
                streaming="application/json",
                errors=(400, 403, 404, 413, 502, 503),
            )
            for verb in ("post", "put", "delete")
        },
    }
    # writes go to Ray's Jobs API only: submitting, stopping and deleting jobs, and uploading their packages
    WRITABLE = ("api/jobs", "api/packages/")
    MAX_PACKAGE_BYTES = RAY_PACKAGE_LIMIT  # a working dir Ray uploads; larger data belongs on a PVC

    @property
    def content_security_policy(self) -> str:
        """The dashboard is a single-page app: its own scripts, styles (inline too, as its UI kit writes them),
        images and API calls, all from this origin. APIHandler's `default-src 'none'` would block every one."""
        admin_set = self.settings.get("headers", {}).get("Content-Security-Policy")
        return admin_set or "; ".join(
            [
                "frame-ancestors 'self'",
                "default-src 'self'",
                "script-src 'self'",
                "style-src 'self' 'unsafe-inline'",
                "img-src 'self' data: blob:",
                "font-src 'self' data:",
                "connect-src 'self'",
            ]
        )

    @web.authenticated
    async def post(self, kind: str, name: str, subpath: str = "") -> None:
        await self._jobs_api("POST", kind, name, subpath)

    @web.authenticated
    async def put(self, kind: str, name: str, subpath: str = "") -> None:
        await self._jobs_api("PUT", kind, name, subpath)

    @web.authenticated
    async def delete(self, kind: str, name: str, subpath: str = "") -> None:
        await self._jobs_api("DELETE", kind, name, subpath)

    async def _jobs_api(self, method: str, kind: str, name: str, subpath: str) -> None:
        """A call of Ray's Jobs API, handed on to the head through the API server's service proxy: the body as it
        came (JSON re-serialized, a package as bytes), and Ray's answer as it is, its 404s included (Ray's client
        asks whether a package exists that way). Answers of the API server itself (no endpoint, no right) say why."""
        from ..cluster import rest
        from ..services.errors import ReadOnly
        from ..services.refusals import dashboard_refusal

        job_kind = parse_kind(kind)
        safe = dashboard_subpath(subpath)
        if method != "GET" and self.accel.accel_config.read_only:
            raise ReadOnly("Running Ray jobs is switched off on this server (read-only).")
        if not safe.startswith(self.WRITABLE):
            allowed = ", ".join(self.WRITABLE)
            raise ApiError(400, f"subpath: only Ray's Jobs API ({allowed}) takes {method}", field="subpath")
        body: Any = self.request.body or None
        if body is not None and len(body) > self.MAX_PACKAGE_BYTES:
            raise ApiError(413, f"(body): {len(body)} bytes; at most {self.MAX_PACKAGE_BYTES} through this proxy")
        ctype = (self.request.headers.get("Content-Type") or "").split(";")[0].strip()
        if body is not None and (ctype == "application/json" or (not ctype and body[:1] in (b"{", b"["))):
            try:
                body, ctype = json.loads(body), "application/json"
            except ValueError:
                raise ApiError(400, "(body): not JSON", field="(body)") from None
        elif body is not None:
            ctype = ctype or "application/octet-stream"
        hub = await self.synced_hub()
        cluster, path = self.accel.jobs_service(hub).dashboard_target(job_kind, name, safe)
        query = dashboard_query({k: self.get_query_argument(k) for k in self.request.query_arguments})
        timeout = self.accel.accel_config.request_timeout

        def call() -> tuple[int, str, bytes]:
            try:
                return rest.forward(hub.api, method, path, query=query, body=body, content_type=ctype, timeout=timeout)
            except rest.ApiException as exc:
                return exc.status or 502, "application/json", b""

        status, answer_type, answer = await asyncio.get_running_loop().run_in_executor(None, call)
        if status >= 400 and _kubernetes_status(answer_type, answer):
            raise dashboard_refusal(status, cluster, method) or ApiError(502, f"{cluster}: HTTP {status}")
        self.set_status(status)
        self.finish(answer, set_content_type=answer_type)

    @web.authenticated
    async def get(self, kind: str, name: str, subpath: str = "") -> None:
        from ..cluster import rest
        from ..services.refusals import dashboard_refusal

        if dashboard_subpath(subpath).startswith(self.WRITABLE):  # Ray's Jobs API: its answers as they are
            await self._jobs_api("GET", kind, name, subpath)
            return
        job_kind = parse_kind(kind)
        safe = dashboard_subpath(subpath)  # refused before anything is looked up
        hub = await self.synced_hub()
        cluster, path = self.accel.jobs_service(hub).dashboard_target(job_kind, name, safe)
        query = dashboard_query({k: self.get_query_argument(k) for k in self.request.query_arguments})

        def fetch() -> tuple[int, str, bytes]:
            try:
                resp = rest.stream(
                    hub.api, path, query=query, accept="*/*", timeout=self.accel.accel_config.request_timeout
                )
            except rest.ApiException as exc:
                return exc.status or 502, "application/json", b""
            body = resp.read()
            return resp.status, resp.getheader("Content-Type") or "application/octet-stream", body

        status, ctype, body = await asyncio.get_running_loop().run_in_executor(None, fetch)
        refused = dashboard_refusal(status, cluster)
        if refused is not None:
            raise refused
        # APIHandler.finish would label everything application/json: the dashboard's pages are HTML, JS, CSS
        self.finish(body, set_content_type=ctype)


def _kubernetes_status(content_type: str, body: bytes) -> bool:
    """The answer is the API server's own (a Status: no endpoint, no right), not the Ray head's."""
    if "json" not in content_type:
        return not body  # an empty error answer: the proxy failed before the head said anything
    try:
        doc = json.loads(body)
    except ValueError:
        return False
    return isinstance(doc, dict) and doc.get("kind") == "Status" and doc.get("apiVersion") == "v1"


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# Jupyter's own credentials, which a URL may carry (`?token=` from a login link, `_xsrf` of a form): never sent on
JUPYTER_CREDENTIALS = frozenset({"token", "_xsrf"})


def dashboard_query(arguments: dict[str, str]) -> dict[str, str]:
    """The query to send the Ray head: the browser's, less the arguments that are Jupyter's credentials."""
    return {k: v for k, v in arguments.items() if k.lower() not in JUPYTER_CREDENTIALS}


def dashboard_subpath(subpath: str) -> str:
    """The (already percent-decoded) sub-path below a head service's dashboard proxy, made safe to append: no dot
    segments, no absolute URL or `//host`, no backslash or control character; every segment re-encoded, so an
    encoded `/`, `?` or `#` can neither climb out of `.../services/<head>:dashboard/proxy/` nor add a query. (The
    HTTP client resolves `..` before sending, which would otherwise reach any path of the API server.)"""

    def refuse(why: str) -> ApiError:
        return ApiError(400, f"subpath: {why}; only paths inside the job's own Ray dashboard", field="subpath")

    if subpath.startswith(("/", "\\")):
        raise refuse("a path starting with / or \\ (such as //host) is not allowed")
    if _SCHEME.match(subpath):
        raise refuse("an absolute URL is not allowed")
    if any(ord(c) < 0x20 or c in "\\\x7f" for c in subpath):
        raise refuse("backslashes and control characters are not allowed")
    segments = subpath.split("/")
    if any(seg in (".", "..") for seg in segments):
        raise refuse("'.' and '..' segments are not allowed")
    return "/".join(quote(seg, safe="-._~!$&'()*+,;=:@") for seg in segments if seg) + (
        "/" if subpath.endswith("/") and subpath.strip("/") else ""
    )


def _int_arg(text: str, name: str, low: int, high: int) -> int:
    if not re.fullmatch(r"-?[0-9]{1,12}", text):  # int() would also take "1_000", " 5" and non-ASCII digits
        raise ApiError(400, f"{name}: {text[:40]!r} is not a whole number", field=name)
    value = int(text)
    if not low <= value <= high:
        raise ApiError(400, f"{name}: must be between {low} and {high}", field=name)
    return value


def parse_kind(text: str) -> models.JobKind:
    try:
        return models.JobKind(text)
    except ValueError:
        allowed = ", ".join(k.value for k in models.JobKind)
        raise ApiError(400, f"kind: {text!r} is not a job kind; allowed: {allowed}", field="kind") from None


class DataSourcesHandler(JobsBase):
    path = "data"
    endpoints = {
        "get": Endpoint(
            "What a job can mount: the namespace's PVCs (access modes, size, a note) and its OpenShift AI "
            "connections (metadata only: their values are never read)",
            response="DataSourcesResponse",
            errors=(503,),
        )
    }
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        ops = await self.ops()
        self.send(await self.blocking(ops.data_sources))
