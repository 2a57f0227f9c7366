"""List+watch caches: one background thread per resource kind keeps a trimmed copy of every object.

Read handlers answer from these caches only. A watch that ends is resumed from its resourceVersion; 410 Gone
relists; a vanished or failing API server is retried with retry.RECONNECT's capped exponential backoff and jitter
(a longer Retry-After wins); 403 and 404 are states to show
("not visible to your account", "not served by this cluster"), retried slowly so granted rights show up.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import logging
import random
import threading
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from . import rest, retry
from .gcfreeze import untracked
from .trim import share_values, shared_strings, trim_generic

log = logging.getLogger(__name__)

Key = tuple[str, str]  # (namespace or "", name)


class CacheState(StrEnum):
    starting = "starting"
    synced = "synced"
    forbidden = "forbidden"
    absent = "absent"
    reconnecting = "reconnecting"


@dataclass(frozen=True)
class Resource:
    """One kind to cache: where it lives, and how to trim it."""

    key: str  # short name used by callers, e.g. "pods", "clusterqueues"
    group: str
    version: str
    plural: str
    namespaced: bool
    trim: Callable[[dict[str, Any]], dict[str, Any]] = trim_generic
    # the API server sends only matching objects (and a DELETED event when one stops matching): less to cache and
    # fewer events where a reader needs only some of them
    field_selector: str | None = None
    # a cache that would otherwise grow with the cluster's history keeps the newest `keep_newest` objects by `age`
    # (a sortable string): the oldest tenth goes when it is full
    keep_newest: int | None = None
    age: Callable[[dict[str, Any]], str] | None = None


@dataclass(frozen=True)
class Changes:
    """What a cache's objects became since a revision (CachedObjects.changes_since)."""

    revision: int  # the cache's revision now: ask again from here
    # by key, each object changed since then as it is now (None: deleted); where `whole`, every object instead
    objects: Mapping[Hashable, dict[str, Any] | None]
    whole: bool  # the changes reach no further back (a relist, or too many since): start again from these


class CachedObjects:
    """What the hub reads of a cache, its own Informer's or a key of the read service (cluster/remote.py): the
    objects, a snapshot at a time, the state and its sentence, and a revision that counts changes."""

    # the keys changed by the newest revisions, kept once a reader asks for changes (changes_since): a reader that
    # keeps its own sums over the objects (the inventory's allocations over 20,000 pods) reads what changed, not a
    # copy of them all each time; one further behind gets every object
    JOURNAL = 5_000

    def __init__(self) -> None:
        self._objects: dict[Any, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._synced = threading.Event()
        self.state = CacheState.starting
        self.message: str | None = None
        self.revision = 0  # counts changes of the objects: views computed from them are memoized by it
        self.relists = 0  # whole lists applied (the hub freezes the caches for the collector after one)
        # the key of each change since the last whole replacement, oldest first: the newest is at `revision`, each
        # before it one less. Only an Informer keeps one, and only once changes_since has been asked.
        self._journal: collections.deque[Hashable] = collections.deque(maxlen=self.JOURNAL)
        self._journaling = False

    def items(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._objects.values())

    def changes_since(self, revision: int | None) -> Changes:
        """The objects changed after `revision` (None: never read), or every object when the journal does not reach
        back that far. A copy of the objects is made only then: a young container of 20,000 references makes each
        of Python's cycle collections that meets it walk them all, holding the GIL (docs/scale.md)."""
        with self._lock:
            self._journaling = True
            now, journal = self.revision, self._journal
            if revision == now:
                return Changes(now, {}, whole=False)
            if revision is None or revision > now or len(journal) < now - revision:
                return Changes(now, dict(self._objects), whole=True)
            changed: dict[Hashable, dict[str, Any] | None] = {}
            for key in itertools.islice(reversed(journal), now - revision):
                if key not in changed:
                    changed[key] = self._objects.get(key)
            return Changes(now, changed, whole=False)

    @property
    def readable(self) -> bool:
        return self.state not in (CacheState.forbidden, CacheState.absent)

    def wait_synced(self, timeout: float) -> bool:
        return self._synced.wait(timeout)


class Informer(CachedObjects):
    """Caches one Resource (in one namespace, or cluster-wide); thread-safe snapshot reads."""

    SLOW_RETRY = 60.0  # forbidden / absent: look again this often
    # A cache that listed before and now meets 403 / 404 retries like a broken watch this many times before it is
    # "not visible" / "not served": an API server that was just restarted answers both while its RBAC rules and
    # CRDs load, and would otherwise blank the caches for SLOW_RETRY.
    TRANSIENT_REFUSALS = 6
    WATCH_TIMEOUT = 300  # seconds; the server ends a watch after this and we resume

    def __init__(
        self,
        api: ApiClient,
        resource: Resource,
        namespace: str | None,
        on_change: Callable[[str], None],
        request_timeout: float = 10.0,
    ):
        super().__init__()
        self.api = api
        self.resource = resource
        self.namespace = namespace if resource.namespaced else None
        self.on_change = on_change
        self.request_timeout = request_timeout
        self._objects: dict[Key, dict[str, Any]] = {}
        self._stop = threading.Event()
        self._resp = None
        self.resource_version: str | None = None
        # the resourceVersion the cached objects are at: set once they are stored (resource_version is where the
        # next watch resumes, set first), so a read after this server's write waits for it (written.py)
        self.applied_version: str | None = None
        self._failures = 0  # in a row, since the last list or watch that opened: the pause grows with them
        self._refusals = 0  # 403 / 404 in a row, since then
        self._listed = False  # listed at least once: a later 403 / 404 may be an API server starting up
        self._thread = threading.Thread(target=self._run, name=f"informer-{resource.key}", daemon=True)

    # -- reading -------------------------------------------------------------------------------------------
    def get(self, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        with self._lock:
            return self._objects.get((namespace or "", name))

    # -- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        resp = self._resp
        if resp is not None:  # unblock a watch read
            with contextlib.suppress(Exception):  # closing a dead socket must not raise in stop()
                resp.response.shutdown() if hasattr(resp.response, "shutdown") else resp.response.close()
        self._thread.join(timeout=5)

    # -- the loop ------------------------------------------------------------------------------------------
    def _path(self) -> str:
        r = self.resource
        return rest.resource_path(r.group, r.version, r.plural, self.namespace)

    def _set_state(self, state: CacheState, message: str | None = None) -> None:
        changed = state != self.state or message != self.message
        self.state, self.message = state, message
        if state in (CacheState.synced, CacheState.forbidden, CacheState.absent):
            self._synced.set()
        if changed:
            self.on_change(self.resource.key)

    def _run(self) -> None:
        rest.on_schedule()
        while not self._stop.is_set():
            try:
                if self.resource_version is None:
                    self._list()
                self._watch()
            except _Gone:
                self.resource_version = None
                self.relists += 1
            except ApiException as exc:
                if exc.status in (403, 404) and self._listed and self._refusals < self.TRANSIENT_REFUSALS:
                    self._refusals += 1
                    self._retry_later(rest.error_message(exc), exc)
                elif exc.status == 403:
                    self._replace({})
                    self._set_state(CacheState.forbidden, "not visible to your account")
                    self.resource_version = None
                    self._stop.wait(self.SLOW_RETRY)
                elif exc.status == 404:
                    self._replace({})
                    self._set_state(CacheState.absent, "not served by this cluster")
                    self.resource_version = None
                    self._stop.wait(self.SLOW_RETRY)
                elif exc.status == 410:
                    self.resource_version = None
                    self.relists += 1
                else:
                    self._retry_later(rest.error_message(exc), exc)
            except Exception as exc:
                if self._stop.is_set():
                    break
                self._retry_later(str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__, exc)

    def _retry_later(self, message: str, exc: BaseException) -> None:
        wait = retry.pause(exc, self._failures, retry.RECONNECT)
        self._failures += 1
        log.debug("informer %s: %s; retrying in %.1fs", self.resource.key, message, wait)
        self._set_state(CacheState.reconnecting, f"reconnecting: {message}")
        # the next watch resumes from resource_version; the server answers 410 if that is too old
        self._stop.wait(wait)

    def _list(self) -> None:
        objects: dict[Key, dict[str, Any]] = {}
        cont = None
        while True:
            page = rest.request(
                self.api,
                "GET",
                self._path(),
                query={"limit": 500, "continue": cont, "fieldSelector": self.resource.field_selector},
                timeout=self.request_timeout,
                attempts=1,  # this loop is the retry
            )
            for obj in page.get("items") or []:
                objects[_key(obj)] = untracked(share_values(self.resource.trim(obj)))  # trim.py: why two
            cont = (page.get("metadata") or {}).get("continue")
            if not cont:
                break
        self.resource_version = (page.get("metadata") or {}).get("resourceVersion")
        self._listed, self._failures, self._refusals = True, 0, 0
        self._replace(objects)
        self.applied_version = self.resource_version
        self._set_state(CacheState.synced)
        self.on_change(self.resource.key)

    def _watch(self) -> None:
        query = {
            "watch": True,
            "fieldSelector": self.resource.field_selector,
            "resourceVersion": self.resource_version,
            "allowWatchBookmarks": True,
            "timeoutSeconds": self.WATCH_TIMEOUT + random.randint(0, 60),
        }
        self._resp = rest.stream(
            self.api, self._path(), query=query, timeout=(self.request_timeout, self.WATCH_TIMEOUT + 90), attempts=1
        )
        self._failures = self._refusals = 0
        try:
            if self.state != CacheState.synced:
                self._set_state(CacheState.synced)
            for event in rest.watch_events(self._resp):
                if self._stop.is_set():
                    return
                self._apply(event)
        finally:
            self._resp.release_conn() if hasattr(self._resp, "release_conn") else None
            self._resp = None

    def _apply(self, event: dict[str, Any]) -> None:
        kind, obj = event.get("type"), event.get("object") or {}
        if kind == "ERROR":
            if obj.get("code") == 410:
                raise _Gone()
            raise ApiException(status=obj.get("code") or 500, reason=obj.get("message"))
        rv = (obj.get("metadata") or {}).get("resourceVersion")
        if rv:
            self.resource_version = rv
        if kind == "BOOKMARK":
            self.applied_version = rv or self.applied_version
            return
        key = _key(obj)
        # out of the cycle collector's walks (gcfreeze.py): a churning cluster's changes are most of what it walks
        trimmed = None if kind == "DELETED" else untracked(shared_strings(self.resource.trim(obj)))
        with self._lock:
            whole = False
            if trimmed is None:
                changed = self._objects.pop(key, None) is not None
            else:
                changed = not same_object(self._objects.get(key), trimmed)
                self._objects[key] = trimmed  # the newest resourceVersion, even when nothing we read changed
                kept = self._bounded(self._objects)
                whole = kept is not self._objects  # the oldest tenth went at once: readers start again
                self._objects = kept
            if changed:  # (an object the bound dropped made room for a new one: `whole` only with `changed`)
                self.revision += 1
                if whole or not self._journaling:
                    self._journal.clear()  # changes_since answers every object from here
                else:
                    self._journal.append(key)
        self.applied_version = rv or self.applied_version
        # a node's heartbeat, or any update of fields the trim drops, changes no answer: no view is computed
        # again and no browser is told (1,000 nodes beat every few minutes each)
        if changed:
            self.on_change(self.resource.key)

    def _replace(self, objects: dict[Key, dict[str, Any]]) -> None:
        with self._lock:
            self._objects = self._bounded(objects)
            self.revision += 1
            self._journal.clear()

    def _bounded(self, objects: dict[Key, dict[str, Any]]) -> dict[Key, dict[str, Any]]:
        """`objects`, or its newest nine tenths of `keep_newest` when it holds more."""
        cap, age = self.resource.keep_newest, self.resource.age
        if cap is None or age is None or len(objects) <= cap:
            return objects
        newest = sorted(objects.items(), key=lambda kv: age(kv[1]), reverse=True)[: cap - cap // 10]
        return dict(newest)


def same_object(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    """Whether two trimmed copies of one object differ in nothing but their resourceVersion."""
    if old is None:
        return False
    meta_old, meta_new = old.get("metadata") or {}, new.get("metadata") or {}
    if {**meta_old, "resourceVersion": None} != {**meta_new, "resourceVersion": None}:
        return False
    return all(old.get(k) == new.get(k) for k in old.keys() | new.keys() if k != "metadata")


class _Gone(Exception):
    """The watch's resourceVersion is too old: relist."""


def _key(obj: dict[str, Any]) -> Key:
    m = obj.get("metadata") or {}
    return (m.get("namespace") or "", m.get("name") or "")
