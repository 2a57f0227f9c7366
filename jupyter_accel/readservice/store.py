"""One served key's objects by name, its revision, and what changed at each revision, so that a client that holds
revision R gets only the objects changed since R (a node or two of 1,000), or the whole key when R is unknown here.

Revisions count from 1 per key within one run of the service (`instance`): a client of an earlier run gets the
whole key. Answers are serialized once per (revision, since) and kept until the next revision: a thousand
workbenches asking for the same change cost one serialization. Pure apart from the lock; objects are replaced on
update, never changed in place, so a reader may serialize a snapshot outside the lock.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from typing import Any

HISTORY = 256  # revisions whose changed names are kept for answers "since R"
MAX_BODIES = 32  # answers kept per revision (one per `since` asked for)


class Snapshot:
    def __init__(self, key: str, instance: str, history: int = HISTORY) -> None:
        self.key = key
        self.instance = instance
        self.revision = 0
        self.state = "starting"
        self.message: str | None = None
        self._items: dict[str, dict[str, Any]] = {}
        self._history: deque[tuple[int, frozenset[str]]] = deque(maxlen=history)
        self._bodies: dict[int | None, bytes] = {}
        self._lock = threading.Lock()

    def update(self, items: dict[str, dict[str, Any]], state: str, message: str | None = None) -> bool:
        """Replace the objects (name -> object) and the state; a new revision only when something differs."""
        with self._lock:
            old = self._items
            touched = frozenset(n for n in old.keys() | items.keys() if old.get(n) != items.get(n))
            if not touched and state == self.state and message == self.message:
                return False
            self.revision += 1
            self._items, self.state, self.message = dict(items), state, message
            self._history.append((self.revision, touched))
            self._bodies = {}
            return True

    def cached(self, since: int | None) -> bytes | None:
        """The serialized answer if it is at hand (for the event loop: no work)."""
        with self._lock:
            return self._bodies.get(self._since_key(since))

    def body(self, since: int | None = None) -> bytes:
        """The answer: a delta since `since` when the changes since then are known and fewer than the objects, else
        every object. Serializes outside the lock (may take milliseconds at 1,000 nodes)."""
        with self._lock:
            key = self._since_key(since)
            if key in self._bodies:
                return self._bodies[key]
            revision, items, state, message = self.revision, self._items, self.state, self.message
            touched = self._touched_since(key) if key is not None else None
        answer: dict[str, Any] = {"key": self.key, "instance": self.instance, "revision": revision, "state": state,
                                  "message": message}  # fmt: skip
        if touched is None:
            answer["items"] = [items[n] for n in sorted(items)]
        else:
            answer["since"] = key
            answer["changed"] = [items[n] for n in sorted(touched) if n in items]
            answer["deleted"] = sorted(n for n in touched if n not in items)
        body = json.dumps(answer, separators=(",", ":")).encode()
        with self._lock:
            if self.revision == revision and len(self._bodies) < MAX_BODIES:
                self._bodies[key] = body
        return body

    def _since_key(self, since: int | None) -> int | None:
        """`since` if a delta can answer it, else None (the whole key). Under the lock."""
        if since is None or since > self.revision or since < 0:
            return None
        if since == self.revision:
            return since
        oldest = self._history[0][0] if self._history else self.revision + 1
        return since if since >= oldest - 1 else None

    def _touched_since(self, since: int) -> frozenset[str] | None:
        touched: set[str] = set()
        for revision, names in self._history:
            if revision > since:
                touched |= names
        # a delta touching most objects is no smaller than the whole key, and the whole key is shared by more clients
        return None if touched and len(touched) > max(1, len(self._items)) // 2 else frozenset(touched)


def apply(objects: dict[str, dict[str, Any]], answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The client's side: its objects (name -> object) after an answer of Snapshot.body, whole or delta."""
    if "items" in answer:
        return {_name(o): o for o in answer["items"]}
    out = dict(objects)
    for name in answer.get("deleted") or []:
        out.pop(name, None)
    for obj in answer.get("changed") or []:
        out[_name(obj)] = obj
    return out


def _name(obj: dict[str, Any]) -> str:
    return (obj.get("metadata") or {}).get("name", "")
