"""The workbench's side of the shared read service (jupyter_accel/readservice): caches of the cluster-scoped keys
fed by the service instead of this server's own watches.

`RemoteCache` reads like an Informer (items, get, state, message, revision, readable, wait_synced, stop), so the
hub, the views and the push stream treat both alike. `ReadServiceFeed` is one thread: it opens the service's change
stream with this workbench's own bearer token, fetches every key once (only the changes since the revision it holds,
after that), and then the keys each event names; each change is reported with `on_change(key)` as informers do. A
service that cannot be reached, or that refuses the token, leaves the caches `reconnecting` with what they held,
and is tried again with retry.RECONNECT's backoff; `trouble()` says why, for /info's degraded sentence.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import threading
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import urllib3
from kubernetes.watch.watch import iter_resp_lines

from ..readservice.keys import KEYS
from ..readservice.store import apply
from . import retry
from .gcfreeze import untracked
from .informer import CachedObjects, CacheState

log = logging.getLogger(__name__)

STREAM_READ_TIMEOUT = 45.0  # the service sends a keep-alive every 15 s: three missed is a dead connection
NOT_VISIBLE = "not visible to your account"


@dataclass(frozen=True)
class ReadServiceSettings:
    url: str
    ca_file: str = ""


def plain_http_refusal(url: str, allow_http: bool) -> str | None:
    """Why this server will not send its users' tokens to the read service at `url`, or None. Plain HTTP would carry
    each token unencrypted across the pod network; on loopback it never leaves the machine, and an admin may allow it
    elsewhere explicitly (AccelConfig.read_service_allow_http)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or allow_http:
        return None
    host = (parts.hostname or "").lower()
    with contextlib.suppress(ValueError):  # a name, not an address
        if ipaddress.ip_address(host).is_loopback:
            return None
    if host == "localhost":
        return None
    return (
        f"The read service URL {url} is plain HTTP, which would send every user's token unencrypted; this server "
        "watches the cluster itself instead. Use https://, or allow plain HTTP explicitly with "
        "c.AccelConfig.read_service_allow_http = True (JUPYTER_ACCEL_READ_SERVICE_ALLOW_HTTP=true)."
    )


def bearer_token(api: Any) -> str | None:
    """The bearer token this ApiClient sends (kubeconfig token, service-account token, runtime or forwarded token;
    refreshed by the client where it refreshes them); None for a client certificate or an exec plugin without one."""
    conf = api.configuration
    value = conf.get_api_key_with_prefix("BearerToken", alias="authorization")
    scheme, _, token = (value or "").strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class ReadServiceError(Exception):
    def __init__(self, status: int | None, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}  # retry.pause reads Retry-After from here


class RemoteCache(CachedObjects):
    """One key of the read service, cached here; written by the feed's thread, read by any."""

    remote = True  # the hub tells these from its own informers (degraded sentences)

    def __init__(self, key: str, feed: ReadServiceFeed) -> None:
        super().__init__()  # revision: local, counts changes seen here; relists: whole answers applied
        self.key = key
        self.feed = feed
        self.instance: str | None = None  # the service run whose revision this holds
        self.remote_revision: int | None = None

    def get(self, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        with self._lock:
            return None if namespace else self._objects.get(name)  # cluster-scoped objects only

    def start(self) -> None:
        self.feed.start()

    def stop(self) -> None:
        self.feed.stop()

    # -- the feed's side -----------------------------------------------------------------------------------
    def apply(self, answer: dict[str, Any]) -> None:
        """An answer of GET /v1/keys/{key}: whole or changes since the revision held."""
        try:
            state = CacheState(answer.get("state"))
        except ValueError:
            state = CacheState.reconnecting
        message = answer.get("message")
        if state == CacheState.forbidden:
            message = "not visible to the read service's account"
        # held until changed: out of the cycle collector's walks, as the API server caches' objects are (gcfreeze.py)
        untracked(answer.get("items") or answer.get("changed") or [])
        with self._lock:
            objects = apply(self._objects, answer)
            changed = objects != self._objects
            self._objects = objects
            self.instance, self.remote_revision = answer.get("instance"), answer.get("revision")
            if "items" in answer:
                self.relists += 1
            if changed:
                self.revision += 1
        self._set(state, message, changed)

    def refuse(self, state: CacheState, message: str) -> None:
        with self._lock:
            changed = bool(self._objects)
            self._objects, self.remote_revision = {}, None
            if changed:
                self.revision += 1
        self._set(state, message, changed)

    def reconnecting(self, message: str) -> None:
        """The service went away: what is held stays readable, marked as possibly out of date."""
        if self.state not in (CacheState.forbidden, CacheState.absent):
            self._set(CacheState.reconnecting, f"reconnecting: {message}", False)

    def _set(self, state: CacheState, message: str | None, changed: bool) -> None:
        moved = (state, message) != (self.state, self.message)
        self.state, self.message = state, message
        if state in (CacheState.synced, CacheState.forbidden, CacheState.absent):
            self._synced.set()
        if changed or moved:
            self.feed.on_change(self.key)


class ReadServiceFeed:
    def __init__(
        self,
        settings: ReadServiceSettings,
        token: Callable[[], str | None],
        on_change: Callable[[str], None],
        request_timeout: float = 10.0,
    ) -> None:
        self.url = settings.url.rstrip("/")
        self.token = token  # asked before every request: in-cluster tokens are rotated
        self.on_change = on_change
        self.request_timeout = request_timeout
        self.caches = {k.key: RemoteCache(k.key, self) for k in KEYS}
        self.instance: str | None = None
        self._http = _pool(self.url, settings.ca_file)
        self._trouble: str | None = None
        self._stop = threading.Event()
        self._resp: Any = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def trouble(self) -> str | None:
        """Why the service is not answering now (a sentence's detail), or None."""
        return self._trouble

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="accel-readservice", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        resp = self._resp
        if resp is not None:  # unblock the stream's read
            with contextlib.suppress(Exception):  # closing a dead socket must not raise in stop()
                resp.shutdown() if hasattr(resp, "shutdown") else resp.close()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    # -- the loop ------------------------------------------------------------------------------------------
    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                for n, event in enumerate(self._events()):
                    self._follow(event, first=n == 0)
                    if n == 0:
                        failures, self._trouble = 0, None  # the hub sees the degraded sentence clear
                why: Exception = ReadServiceError(None, "the read service closed the change stream")
            except Exception as exc:
                why = exc
            if self._stop.is_set():
                break
            detail = describe(why)
            if detail != self._trouble:
                log.info("jupyter_accel: read service %s: %s", self.url, detail)
            self._trouble = detail
            for cache in self.caches.values():
                cache.reconnecting(detail)
            self._stop.wait(retry.pause(why, failures, retry.RECONNECT))
            failures += 1

    def _events(self) -> Iterator[dict[str, Any]]:
        resp = self._request("/v1/stream", stream=True)
        self._resp = resp
        try:
            yield from sse_events(iter_resp_lines(resp))
        finally:
            self._resp = None
            resp.release_conn()

    def _follow(self, event: dict[str, Any], first: bool) -> None:
        """Fetch what an event says changed: on a new stream, every key (a key the caller may not read is not in
        the event; fetching it says 403, "not visible to your account")."""
        revisions: dict[str, int] = event.get("revisions") or {}
        self.instance = event.get("instance")
        for key, cache in self.caches.items():
            if self._stop.is_set():
                return
            if first or (
                key in revisions and (revisions[key], self.instance) != (cache.remote_revision, cache.instance)
            ):
                self._fetch(cache)

    def _fetch(self, cache: RemoteCache) -> None:
        query = {}
        if cache.remote_revision is not None and cache.instance == self.instance:
            query = {"since": str(cache.remote_revision), "instance": cache.instance}
        resp = self._request(f"/v1/keys/{cache.key}", query)
        if resp.status == 403:
            cache.refuse(CacheState.forbidden, NOT_VISIBLE)
        elif resp.status == 404:
            cache.refuse(CacheState.absent, "not served by the read service")
        else:
            cache.apply(json.loads(resp.data))

    def _request(self, path: str, query: dict[str, str] | None = None, stream: bool = False):
        token = self.token()
        if not token:
            raise ReadServiceError(None, "this identity has no bearer token to send it")
        url = self.url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        read = STREAM_READ_TIMEOUT if stream else self.request_timeout
        resp = self._http.request(
            "GET",
            url,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "text/event-stream" if stream else "application/json",
            },
            preload_content=not stream,
            timeout=urllib3.Timeout(connect=self.request_timeout, read=read),
            retries=False,
        )
        if resp.status in (200, 403, 404) and not (stream and resp.status != 200):
            return resp
        body = resp.data if not stream else resp.read()
        resp.release_conn()
        raise ReadServiceError(resp.status, _message(resp.status, body), dict(resp.headers))


def sse_events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The JSON data of each Server-Sent Event (comments, the keep-alives, are skipped)."""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield json.loads("\n".join(data))
                data = []
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)


def describe(exc: BaseException) -> str:
    """A short sentence's detail for a failure to reach the service (no token: none is ever in these)."""
    if isinstance(exc, ReadServiceError):
        return str(exc)
    if isinstance(exc, urllib3.exceptions.NewConnectionError | urllib3.exceptions.ConnectTimeoutError):
        return "it cannot be reached (" + str(exc).split(": ", 1)[-1][:160] + ")"
    if isinstance(exc, urllib3.exceptions.ReadTimeoutError):
        return "it stopped answering (no keep-alive within the read timeout)"
    if isinstance(exc, urllib3.exceptions.SSLError):
        return "its TLS certificate was not accepted (read_service_ca_file)"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return "the connection broke (" + text[:160] + ")"


def _message(status: int, body: bytes) -> str:
    try:
        said = json.loads(body).get("message")
    except (ValueError, AttributeError):
        said = None
    if status == 401:
        return "it did not accept this workbench's token (401)" + (f": {said}" if said else "")
    return f"it answered {status}" + (f": {said}" if said else "")


def _pool(url: str, ca_file: str) -> urllib3.PoolManager:
    """Connections to the service, through HTTPS_PROXY / NO_PROXY as the environment says (as for the API server)."""
    tls = {"ca_certs": ca_file} if ca_file else {}
    host = urllib.parse.urlsplit(url).hostname or ""
    proxies = urllib.request.getproxies()
    proxy = proxies.get(urllib.parse.urlsplit(url).scheme)
    if proxy and not urllib.request.proxy_bypass(host):
        return urllib3.ProxyManager(proxy, num_pools=2, maxsize=2, **tls)
    return urllib3.PoolManager(num_pools=2, maxsize=2, **tls)
