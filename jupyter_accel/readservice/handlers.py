"""The read service's HTTP API (docs/rest-api.md, "Read service"): JSON answers, a Server-Sent-Events change
stream, and a health check. Every answer but the health check needs the caller's own bearer token; each key is
answered only to a caller who may read it directly. Errors are JSON {"message", "reason", "field"}; no answer and
no log line holds a token (tornado's access log has the method, path and status only)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any

from tornado import web
from tornado.iostream import StreamClosedError

from ..api.sse import HEARTBEAT, EventStream
from .auth import Caller, ReviewFailed
from .keys import BY_KEY, KEYS

if TYPE_CHECKING:
    from .server import Service

RECHECK = 120.0  # seconds after which an open stream's token and rights are looked at again (cached reviews)
MAX_QUEUED = 100  # changes waiting for a stalled stream; past that it is closed (its client reconnects and refetches)
NOT_VISIBLE = "not visible to your account"
ALL_KEYS = tuple(k.key for k in KEYS)


class Refusal(web.HTTPError):
    def __init__(self, status: int, message: str, reason: str, field: str | None = None, **headers: str) -> None:
        super().__init__(status, reason=reason)
        self.message, self.reason, self.field, self.extra_headers = message, reason, field, headers


class BaseHandler(web.RequestHandler):
    @property
    def service(self) -> Service:
        return self.settings["service"]

    def set_default_headers(self) -> None:
        self.set_header("Cache-Control", "no-store")

    def write_json(self, body: bytes | dict[str, Any], status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(body if isinstance(body, bytes) else json.dumps(body).encode())

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None))[1]
        if isinstance(exc, Refusal):
            for name, value in exc.extra_headers.items():
                self.set_header(name.replace("_", "-"), value)
            body = {"message": exc.message, "reason": exc.reason, "field": exc.field}
        else:  # tornado's own (405, 404 of an unknown path) or an unexpected failure: a sentence, never a trace
            body = {"message": self._reason or "error", "reason": self._reason, "field": None}
        self.write_json(body, status_code)

    def bearer(self) -> str:
        """The caller's token from `Authorization: Bearer <token>`; 401 without one."""
        scheme, _, token = self.request.headers.get("Authorization", "").strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > 16384 or any(c.isspace() for c in token):
            raise Refusal(401, "Send your Kubernetes bearer token: `Authorization: Bearer <token>`.",
                               "Unauthorized", WWW_Authenticate="Bearer")  # fmt: skip
        return token

    async def decide(self, token: str, keys: tuple[str, ...]) -> tuple[Caller, dict[str, bool]]:
        """The caller and its rights for `keys`: cached answers at once, else reviews in the pool; 401 when the
        token is not accepted, 503 when the API server cannot be asked."""
        auth = self.service.auth
        answer = auth.cached(token, keys)
        if answer is None:
            try:
                answer = await asyncio.get_running_loop().run_in_executor(auth.pool, auth.decide, token, keys)
            except ReviewFailed as exc:
                raise Refusal(503, f"Your token cannot be checked now: {exc}.", "Review failed",
                                   Retry_After="5") from None  # fmt: skip
        caller, decisions = answer
        if caller is None:
            raise Refusal(401, "The token was not accepted by the Kubernetes API server (TokenReview).",
                               "Unauthorized", WWW_Authenticate="Bearer")  # fmt: skip
        return caller, decisions


class HealthHandler(BaseHandler):
    """GET /healthz: 200 once every key has been computed from caches that listed, else 503 (readiness); with each
    key's state and revision, the open streams and the reviews sent so far (figures, no names)."""

    def get(self) -> None:
        snaps = self.service.publisher.snapshots
        ready = self.service.publisher.ready()
        body = {
            "ready": ready,
            "keys": {k: {"state": s.state, "revision": s.revision} for k, s in snaps.items()},
            "streams": len(self.service.streams),
            "reviews": self.service.auth.reviews,
        }
        self.write_json(body, 200 if ready else 503)


class KeyHandler(BaseHandler):
    """GET /v1/keys/{key}[?since=R&instance=I]: a key's objects, whole or changed since revision R."""

    async def get(self, key: str) -> None:
        token = self.bearer()
        if key not in BY_KEY:
            raise Refusal(404, f"key: {key!r} is not served here; allowed: {', '.join(ALL_KEYS)}", "Not found",
                               "key")  # fmt: skip
        since = self._since()
        _, decisions = await self.decide(token, (key,))
        if not decisions[key]:
            raise Refusal(403, NOT_VISIBLE, "Forbidden", "key")
        snapshot = self.service.publisher.snapshots[key]
        if self.get_query_argument("instance", None) != snapshot.instance:
            since = None  # revisions of another run of the service mean nothing here
        body = snapshot.cached(since)
        if body is None:  # serializing 1,000 nodes takes milliseconds: not on the event loop
            body = await asyncio.get_running_loop().run_in_executor(self.service.auth.pool, snapshot.body, since)
        self.write_json(body)

    def _since(self) -> int | None:
        text = self.get_query_argument("since", None)
        if text is None:
            return None
        if not text.isdigit() or len(text) > 18:
            raise Refusal(400, f"since: {text[:40]!r} is not allowed; allowed: an integer of at least 0",
                               "Bad request", "since")  # fmt: skip
        return int(text)


class StreamHandler(EventStream, BaseHandler):
    """GET /v1/stream: `event: change` with {"instance", "revisions": {key: revision}} for the keys the caller may
    read: all of them first, then those that changed. A client fetches the keys whose revision it does not hold."""

    async def get(self) -> None:
        token = self.bearer()
        _, decisions = await self.decide(token, ALL_KEYS)
        self.start_events()
        streams = self.service.streams
        queue = self._queue = streams.subscribe()
        checked = time.monotonic()
        try:
            await self._send(set(ALL_KEYS), decisions)
            while True:
                try:
                    changed = await asyncio.wait_for(queue.get(), HEARTBEAT)
                except TimeoutError:
                    changed = set()
                if changed is None:  # the client went away, or fell too far behind
                    break
                if changed or time.monotonic() - checked > RECHECK:
                    try:
                        _, now = await self.decide(token, ALL_KEYS)  # cached; a revoked token ends the stream
                    except Refusal:
                        break
                    checked = time.monotonic()
                    granted = {k for k, ok in now.items() if ok and not decisions.get(k)}
                    decisions = now
                    changed = set(changed) | granted
                if changed:
                    await self._send(changed, decisions)
                else:
                    await self.keep_alive()
        except StreamClosedError:
            pass
        finally:
            streams.unsubscribe(queue)

    async def _send(self, keys: set[str], decisions: dict[str, bool]) -> None:
        snaps = self.service.publisher.snapshots
        revisions = {k: snaps[k].revision for k in ALL_KEYS if k in keys and decisions.get(k)}
        if not revisions and keys != set(ALL_KEYS):
            return  # nothing this caller may read changed
        await self.send_event("change", {"instance": self.service.instance, "revisions": revisions})


class Streams:
    """The open change streams of the service (event loop side)."""

    def __init__(self) -> None:
        self._queues: set[asyncio.Queue[set[str] | None]] = set()

    def subscribe(self) -> asyncio.Queue[set[str] | None]:
        q: asyncio.Queue[set[str] | None] = asyncio.Queue()
        self._queues.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[set[str] | None]) -> None:
        self._queues.discard(q)

    def publish(self, changed: set[str]) -> None:
        for q in list(self._queues):
            if q.qsize() >= MAX_QUEUED:
                q.put_nowait(None)
                self._queues.discard(q)
            else:
                q.put_nowait(set(changed))

    def __len__(self) -> int:
        return len(self._queues)


def routes() -> list[tuple[str, type[BaseHandler]]]:
    return [
        (r"/healthz", HealthHandler),
        (r"/v1/keys/([^/]+)", KeyHandler),
        (r"/v1/stream", StreamHandler),
    ]
