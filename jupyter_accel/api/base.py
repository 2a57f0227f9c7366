"""The base of every handler: authentication, JSON bodies validated by the wire models, errors mapped to JSON."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import urllib3
from jupyter_server.base.handlers import APIHandler
from tornado import web

from .. import models

# models and pydantic load on first use (see models/__init__.py): handler modules are imported while the Jupyter
# server starts, so they name wire models by attribute at call time, never at import.
if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from ..app import AccelApp
    from ..cluster.hub import Hub

M = TypeVar("M", bound="BaseModel")


@dataclass(frozen=True)
class Endpoint:
    """What one verb of a handler takes and returns; the OpenAPI document is generated from these."""

    summary: str
    response: str | None = None  # names of classes in jupyter_accel.models
    request: str | None = None
    query: dict[str, str] = field(default_factory=dict)
    status: int = 200
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
    ):
        super().__init__(status, log_message=None)
        self.body = models.ErrorResponse(message=message, reason=reason, field=field, errors=errors or [])


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

    def hub(self) -> Hub:
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

    async def synced_hub(self, timeout: float = 10.0) -> Hub:
        """The hub once its first discovery and every cache's first list are done (bounded), so that a first
        answer after start-up is never a misleading empty one; 503 while the API server cannot be reached."""
        hub = self.hub()
        deadline = time.monotonic() + timeout
        while not hub.is_synced() and hub.discovery_error is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if not hub.informers:
            why = hub.discovery_error or "it did not answer in time"
            raise ApiError(503, f"The Kubernetes API server cannot be reached: {why}", reason="Not connected")
        return hub

    def readable_items(self, hub: Hub, key: str) -> list[dict[str, Any]] | None:
        """A cache's objects, or None when this identity may not read them (domain/ shows "not visible")."""
        return hub.items(key) if hub.readable(key) else None

    def parse_body(self, model: type[M]) -> M:
        from pydantic import ValidationError

        try:
            raw = json.loads(self.request.body or b"{}")
        except json.JSONDecodeError as exc:
            raise ApiError(400, f"The request body is not valid JSON: {exc.msg} at position {exc.pos}.") from None
        try:
            return model.model_validate(raw)
        except ValidationError as exc:
            raise validation_error(exc) from None

    def send(self, model: BaseModel, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(model.model_dump_json())

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Every error is JSON with a readable message; tracebacks go to the log only."""
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, ApiError):
            body = exc.body
        elif isinstance(exc, web.HTTPError):
            body = models.ErrorResponse(message=exc.log_message or self._reason, reason=exc.reason or self._reason)
        elif isinstance(exc, urllib3.exceptions.HTTPError | OSError):
            # a write or log stream that met a vanished API server: a state to show, not an internal error
            self.set_status(503)
            first = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
            body = models.ErrorResponse(
                message=f"The Kubernetes API server cannot be reached: {first}", reason="Not connected"
            )
        else:
            body = models.ErrorResponse(
                message="The server extension hit an unexpected error; see the server log.", reason="Internal error"
            )
        self.set_header("Content-Type", "application/json")
        self.finish(body.model_dump_json())


def invalid(errors: list[models.FieldError]) -> ApiError:
    """One 400 naming every offending field; the message leads with the first."""
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return ApiError(
        400, f"{first.field}: {first.message}{more}", reason="Invalid request", field=first.field, errors=errors
    )


def validation_error(exc: ValidationError) -> ApiError:
    """pydantic's errors as field paths."""
    return invalid(
        [
            models.FieldError(field=".".join(str(p) for p in err["loc"]) or "(body)", message=err["msg"])
            for err in exc.errors(include_url=False)
        ]
    )
