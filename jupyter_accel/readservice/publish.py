"""From the service's caches to the served snapshots: a thread that, when caches change, computes each changed key
again and gives it a new revision only if what is served differs (a label patched on a pod changes no allocation: no
revision, no event, no refetch by a thousand workbenches).

A change after a quiet spell is published within GATHER_S; under churn, at most one revision per `interval` seconds,
so a thousand workbenches refetch at that rate, not at the rate pods change. (A plain debounce would add its whole
delay to every change: the workbench's own push debounce follows, and the two together passed 1 s.)

Allocations are summed from the cached pods here, once for every workbench (domain/inventory.allocated_by_node,
with its memo: a few pod changes parse those pods only).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..cluster.informer import CacheState
from ..domain.inventory import InventoryMemo, allocated_by_node, allocations_to_wire
from ..push import wait_to_send
from .keys import BY_KEY, KEYS, ServedKey
from .store import Snapshot

if TYPE_CHECKING:
    from ..cluster.identity_caches import IdentityCaches

log = logging.getLogger(__name__)

NOT_VISIBLE_TO_SERVICE = "not visible to the read service's own account"
NOT_SERVED = "not served by this cluster"


def served_object(obj: dict[str, Any]) -> dict[str, Any]:
    """A cached object as served: without its resourceVersion, which the informer updates on changes the trim drops
    (a node's heartbeat) and which would make every object differ from the last answer."""
    meta = obj.get("metadata") or {}
    if "resourceVersion" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "resourceVersion"}}


class Publisher:
    GATHER_S = 0.05  # changes that arrive together (a job's pods starting) make one revision

    def __init__(self, hub: IdentityCaches, instance: str, interval: float, notify: Callable[[set[str]], None]) -> None:
        self.hub = hub
        self.interval = interval
        self.notify = notify  # called from this thread with the keys that got a new revision
        self.snapshots = {k.key: Snapshot(k.key, instance) for k in KEYS}
        self._memo = InventoryMemo()  # used by this thread only
        self._dirty: set[str] = {k.key for k in KEYS}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="readservice-publish", daemon=True)

    def on_change(self, cache_key: str) -> None:
        """The hub's callback (from its threads): a cache changed, or ("info") the set of caches did."""
        keys = {k.key for k in KEYS} if cache_key == "info" else {k.key for k in KEYS if k.cache == cache_key}
        if not keys:
            return
        with self._lock:
            self._dirty |= keys
        self._wake.set()

    def start(self) -> None:
        self._wake.set()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=5)

    def ready(self) -> bool:
        """Every key computed from caches that have listed once (or settled as forbidden / absent)."""
        return all(s.state != CacheState.starting for s in self.snapshots.values())

    def _run(self) -> None:
        last = -float("inf")
        while not self._stop.is_set():
            self._wake.wait()
            if self._stop.wait(wait_to_send(last, self.interval, self.GATHER_S, time.monotonic())):
                return
            last = time.monotonic()
            with self._lock:
                keys, self._dirty = self._dirty, set()
                self._wake.clear()
            changed = set()
            for key in sorted(keys):
                try:
                    if self.refresh(BY_KEY[key]):
                        changed.add(key)
                except Exception:  # one key's failure must not stop the others; it is computed again on its next change
                    log.exception("read service: computing %s failed", key)
            if changed:
                self.notify(changed)

    def refresh(self, served: ServedKey) -> bool:
        state, message = self._state(served)
        items: dict[str, dict[str, Any]] = {}
        if state in (CacheState.synced, CacheState.reconnecting):  # reconnecting: the last known objects stand
            if served.key == "allocations":  # the pods' changes since the last sums, not a copy of them all
                items = allocations_to_wire(allocated_by_node(self.hub.informers[served.cache], self._memo))
            else:
                objects = self.hub.items(served.cache)
                items = {(o.get("metadata") or {}).get("name", ""): served_object(o) for o in objects}
        return self.snapshots[served.key].update(items, state.value, message)

    def _state(self, served: ServedKey) -> tuple[CacheState, str | None]:
        hub = self.hub
        if not hub.is_started():
            return CacheState.starting, None
        inf = hub.informers.get(served.cache)
        if inf is None:
            # the pods cache is opened only when the service's account may list pods everywhere (hub._wanted)
            if served.cache == "allpods":
                return CacheState.forbidden, NOT_VISIBLE_TO_SERVICE
            return CacheState.absent, NOT_SERVED
        if inf.state == CacheState.forbidden:
            return CacheState.forbidden, NOT_VISIBLE_TO_SERVICE
        return inf.state, inf.message
