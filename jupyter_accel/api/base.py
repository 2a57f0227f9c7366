"""The base of every handler: authentication, JSON bodies validated by the wire models, errors mapped to JSON."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import urllib3
from jupyter_server.base.handlers import APIHandler
from tornado import web

from .. import models
from ..services import errors as service_errors

# models and pydantic load on first use (see models/__init__.py): handler modules are imported while the Jupyter
# server starts, so they name wire models by attribute at call time, never at import.
if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from ..app import AccelApp
    from ..cluster.identity_caches import IdentityCaches

M = TypeVar("M", bound="BaseModel")

# A script travels in a ConfigMap (at most 1 MiB, checked as `script.text` with its own message); the whole body
# may carry that plus the rest of a JobRequest. Anything larger is refused before it is parsed.
MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_BODY_DEPTH = 32  # no wire model nests deeper than a few levels; runtime_env gets room to spare
# Long-lived answers (the push stream, followed logs) hold a socket, and a followed log a thread, for as long as the
# client stays: the user of a server may hold this many of each kind at once; past it a 429 says so.
MAX_STREAMS_PER_USER = 16
STREAM_RETRY_AFTER = 5  # seconds, in the 429's Retry-After


@dataclass(frozen=True)
class Endpoint:
    """What one verb of a handler takes and returns; the OpenAPI document is generated from these."""

    summary: str
    response: str | None = None  # names of classes in jupyter_accel.models
    request: str | None = None
    query: dict[str, str] = field(default_factory=dict)
    status: int = 200
    also: tuple[int, ...] = ()  # further success statuses with the same body (e.g. 200 for an idempotent retry)
    errors: tuple[int, ...] = ()
    streaming: str | None = None  # media type of a streamed answer (text/event-stream, text/plain)


class ApiError(web.HTTPError):
    """An error whose JSON body is an ErrorResponse."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        reason: str | None = None,
        field: str | None = None,
        errors: list[models.FieldError] | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(status, log_message=None)
        self.body = models.ErrorResponse(message=message, reason=reason, field=field, errors=errors or [])
        self.headers = headers or {}  # sent with the error (send_error clears what was set before)


# The one place a service's refusal becomes HTTP.
SERVICE_STATUS: dict[type[service_errors.ServiceError], int] = {
    service_errors.Invalid: 400,
    service_errors.NotVisible: 403,
    service_errors.ReadOnly: 403,
    service_errors.NotFound: 404,
    service_errors.Conflict: 409,
    service_errors.Upstream: 502,
    service_errors.Unavailable: 503,
}


def http_error(exc: service_errors.ServiceError) -> ApiError:
    status = next((code for cls, code in SERVICE_STATUS.items() if isinstance(exc, cls)), 500)
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return ApiError(status, exc.message, reason=exc.reason, field=exc.field, errors=list(exc.errors), headers=headers)


class AccelHandler(APIHandler):
    """Handlers declare `path` (below /accel/v1) and `endpoints` (one Endpoint per verb)."""

    path: ClassVar[str]
    endpoints: ClassVar[dict[str, Endpoint]] = {}

    @property
    def accel(self) -> AccelApp:
        return self.settings["jupyter_accel"]

    async def prepare(self) -> None:
        await super().prepare()
        await self.accel.started()
        header = self.accel.accel_config.forwarded_token_header
        # trusted only when the admin named the header, and only on an authenticated request
        if header and self.current_user and header in self.request.headers:
            await self.accel.use_forwarded_token(forwarded_token(header, self.request.headers[header]))

    def hub(self) -> IdentityCaches:
        """The caches of the current identity; 503 with the connection's own sentence when there are none."""
        hub = self.accel.hub
        if hub is None:
            conn = self.accel.session.connection
            raise ApiError(503, f"Kubernetes is not connected: {conn.message}", reason="Not connected")
        if hub.discovery_error is not None and not hub.informers:
            raise ApiError(
                503, f"The Kubernetes API server cannot be reached: {hub.discovery_error}", reason="Not connected"
            )
        return hub

    async def synced_hub(self, timeout: float = 10.0) -> IdentityCaches:
        """The hub once its first discovery and every cache's first list are done (bounded), so that a first
        answer after start-up is never a misleading empty one; 503 while the API server cannot be reached."""
        hub = self.hub()
        self.accel.last_read = time.monotonic()  # the hub's polls run while someone reads (AccelApp.is_read)
        deadline = time.monotonic() + timeout
        while not hub.is_synced() and hub.discovery_error is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if not hub.informers:
            why = hub.discovery_error or "it did not answer in time"
            raise ApiError(503, f"The Kubernetes API server cannot be reached: {why}", reason="Not connected")
        return hub

    def take_stream_slot(self, what: str, limit: int = MAX_STREAMS_PER_USER) -> None:
        """Count one long-lived stream of this user; 429 past `limit`. Given back when the answer ends or the
        client goes away, whichever is first (on_finish / on_connection_close)."""
        # Per server, which is per user: a Jupyter server belongs to one user (JupyterHub starts one per user), and
        # its token-authenticated clients get a fresh anonymous user name per request, so names cannot be the key.
        key = (what, "server")
        slots: dict[tuple[str, str], int] = self.settings.setdefault("jupyter_accel_stream_slots", {})
        if slots.get(key, 0) >= limit:
            raise ApiError(
                429,
                f"{what}: at most {limit} may be open at once per user; close one (another tab, widget or "
                "follower) and retry.",
                reason="Too many streams",
                headers={"Retry-After": str(STREAM_RETRY_AFTER)},
            )
        slots[key] = slots.get(key, 0) + 1
        self._stream_slot = key

    def release_stream_slot(self) -> None:
        key = getattr(self, "_stream_slot", None)
        if key is not None:
            self._stream_slot = None
            slots = self.settings["jupyter_accel_stream_slots"]
            slots[key] -= 1
            if slots[key] <= 0:
                del slots[key]

    def on_finish(self) -> None:
        self.release_stream_slot()
        super().on_finish()

    def on_connection_close(self) -> None:
        self.release_stream_slot()
        super().on_connection_close()

    def parse_body(self, model: type[M]) -> M:
        """The one place a JSON body is read: 413 past MAX_BODY_BYTES, else 400 naming the body when it is not UTF-8
        JSON, nests deeper than MAX_BODY_DEPTH or holds a lone surrogate; 400 naming each field the model refuses."""
        from pydantic import ValidationError

        load_json_body(self.request.body)  # every check of the text as JSON (raises a 400 naming the body)
        try:
            # strict, as the schema says: 1.5 is no integer and "true" no boolean (JSON strings still name enums)
            return model.model_validate_json(self.request.body or b"{}", strict=True)
        except ValidationError as exc:
            raise validation_error(exc) from None

    def send(self, model: BaseModel, status: int = 200) -> None:
        self.send_body(model.model_dump_json(), status)

    def send_body(self, body: bytes | str, status: int = 200) -> None:
        """A JSON answer already serialized."""
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(body)

    async def send_computed(self, fn: Callable[..., BaseModel], *args: Any) -> None:
        """An answer computed and serialized in an answer thread (api/answers): fit checks and job details read the
        caches of the whole namespace or cluster, which must not hold up the event loop."""
        from .answers import ANSWER_THREADS

        self.send_body(
            await asyncio.get_running_loop().run_in_executor(ANSWER_THREADS, lambda: fn(*args).model_dump_json())
        )

    async def send_answer(
        self, hub: IdentityCaches, topic: str, params: tuple[Any, ...], build: Callable[[], BaseModel], **kw: Any
    ) -> None:
        """A read answer from api/answers: computed off the event loop, once per change of the caches it reads.
        `build` must hold nothing of the request but what `params` names (it is kept to compute ahead)."""
        self.send_body(await self.accel.answers.get(hub, topic, params, build, **kw))

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        if isinstance(value, service_errors.ServiceError):
            return  # a refusal is an answer (sent as JSON), not a fault of the server
        super().log_exception(typ, value, tb)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Every error is JSON with a readable message; tracebacks go to the log only."""
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, service_errors.ServiceError):
            exc = http_error(exc)
            self.set_status(exc.status_code)
        if isinstance(exc, ApiError):
            body = exc.body
            for name, value in exc.headers.items():
                self.set_header(name, value)
        elif isinstance(exc, web.HTTPError):
            body = models.ErrorResponse(message=exc.log_message or self._reason, reason=exc.reason or self._reason)
        elif isinstance(exc, OSError | urllib3.exceptions.HTTPError):
            status, body = os_error_answer(exc)
            self.set_status(status)
        else:
            body = models.ErrorResponse(
                message="The server extension hit an unexpected error; see the server log.", reason="Internal error"
            )
        self.set_header("Content-Type", "application/json")
        self.finish(body.model_dump_json())


def os_error_answer(exc: BaseException) -> tuple[int, models.ErrorResponse]:
    """The answer for an error of the network or the machine, named for its true cause: a write or log stream that
    met a vanished API server is a 503 to show; a file of this server's own that it could not use is not that."""
    first = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
    network = (urllib3.exceptions.HTTPError, ConnectionError, TimeoutError, socket.gaierror, socket.herror)
    if isinstance(exc, network):
        return 503, models.ErrorResponse(
            message=f"The Kubernetes API server cannot be reached: {first}", reason="Not connected"
        )
    where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
    what = exc.strerror if isinstance(exc, OSError) and exc.strerror else first
    return 500, models.ErrorResponse(
        message=f"The server extension could not use a file of its own{where}: {what}.", reason="Internal error"
    )


def forwarded_token(header: str, value: str) -> str:
    """The bearer token in a forwarded-token header (`TOKEN` or `Bearer TOKEN`); 400 naming the header when it is
    not one. The value is never part of the message."""
    token = value.strip()
    if token[:7].lower() == "bearer ":
        token = token[7:].strip()
    field = f"header {header}"
    if not token or len(token) > 16384 or any(c.isspace() or not c.isprintable() for c in token):
        raise ApiError(
            400,
            f"{field}: must carry one bearer token",
            reason="Invalid request",
            field=field,
            errors=[models.FieldError(field=field, message="must carry one bearer token")],
        )
    return token


def load_json_body(body: bytes | None) -> Any:
    """A request body as JSON, or an ApiError naming `(body)`: never a 500, whatever the bytes are."""
    if body and len(body) > MAX_BODY_BYTES:
        raise ApiError(
            413,
            f"(body): the request body is {len(body)} bytes; at most {MAX_BODY_BYTES} are accepted.",
            reason="Request too large",
            field="(body)",
        )
    try:
        text = (body or b"{}").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(
            400,
            f"(body): the request body is not UTF-8 (byte {exc.start} is not valid); send JSON encoded as UTF-8.",
            reason="Invalid request",
            field="(body)",
        ) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ApiError(
            400,
            f"(body): the request body is not valid JSON: {exc.msg} at position {exc.pos}.",
            reason="Invalid request",
            field="(body)",
        ) from None
    except RecursionError:
        raise _too_deep() from None
    _check_depth_and_text(raw)
    return raw


def _too_deep() -> ApiError:
    return ApiError(
        400,
        f"(body): the request body nests deeper than {MAX_BODY_DEPTH} levels.",
        reason="Invalid request",
        field="(body)",
    )


def _check_depth_and_text(raw: Any) -> None:
    """Iteratively (no recursion to exhaust): bounded nesting, and no lone UTF-16 surrogate (`"\\ud800"` is valid
    JSON but no valid text: it could not be encoded for the API server or a ConfigMap)."""
    stack: list[tuple[Any, int]] = [(raw, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > MAX_BODY_DEPTH:
            raise _too_deep()
        for key in value if isinstance(value, dict) else ():
            _check_text(key)
        stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(
            400,
            "(body): the request body holds a lone UTF-16 surrogate (such as \\ud800), which is not text.",
            reason="Invalid request",
            field="(body)",
        ) from None


def invalid(errors: list[models.FieldError]) -> ApiError:
    """One 400 naming every offending field; the message leads with the first."""
    return http_error(service_errors.invalid(errors))


def validation_error(exc: ValidationError) -> ApiError:
    """pydantic's errors as field paths."""
    return invalid(
        [
            models.FieldError(field=".".join(str(p) for p in err["loc"]) or "(body)", message=err["msg"])
            for err in exc.errors(include_url=False)
        ]
    )


class NotFoundHandler(AccelHandler):
    """The last row of the handler table: any path below /accel/v1/ that no route matched gets a JSON 404 (not
    Jupyter's HTML page), for every verb, after the same authentication as every other route."""

    path = "?(?P<rest>.*)"  # /accel/v1 itself too (the table joins it as /accel/v1/?...)
    endpoints: ClassVar[dict[str, Endpoint]] = {}  # not part of the documented API
    _track_activity = False

    async def prepare(self) -> None:
        # authentication and XSRF as everywhere (APIHandler.prepare); no need to wait for the caches
        await APIHandler.prepare(self)

    def _not_found(self, rest: str) -> None:
        raise ApiError(
            404,
            f"No such endpoint: {self.request.method} {self.request.path}; see docs/rest-api.md.",
            reason="Not found",
        )

    @web.authenticated
    def get(self, rest: str) -> None:
        self._not_found(rest)

    head = post = put = delete = patch = get
