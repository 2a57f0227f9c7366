"""Who calls, and what they may read: the caller's own bearer token is authenticated with a TokenReview, and each key
is authorized with a SubjectAccessReview for what the caller would need to read it directly (list nodes for nodes,
list pods in every namespace for allocations, list clusterqueues for ClusterQueues, ...). The service never widens
anyone's rights.

Answers are cached per SHA-256 of the token, as the API server caches its webhook decisions: an authenticated token
for TOKEN_TTL, an allowed key for ALLOWED_TTL, a refusal for DENIED_TTL. So a thousand workbenches that refetch on
every change cost the API server a few reviews per workbench and minute, not one per request. Concurrent requests
with one token wait for one review. Tokens are never logged, kept only as their hash, and never put in an error.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from kubernetes.client import ApiClient

from ..cluster import rest
from .keys import BY_KEY

TOKEN_TTL = 120.0  # the API server's --authentication-token-webhook-cache-ttl default
ALLOWED_TTL = 300.0  # its --authorization-webhook-cache-authorized-ttl default
DENIED_TTL = 30.0  # its --authorization-webhook-cache-unauthorized-ttl default
MAX_ENTRIES = 20_000  # tokens and decisions kept; the least recently used go first


@dataclass(frozen=True)
class Caller:
    """An authenticated caller as the TokenReview named it (what a SubjectAccessReview is asked about)."""

    user: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, list[str]] = field(default_factory=dict, hash=False, compare=False)


class ReviewFailed(Exception):
    """The API server could not be asked (not: it said no). The message names no token."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Authorizer:
    def __init__(
        self,
        api: ApiClient,
        timeout: float = 10.0,
        clock=time.monotonic,
        policy: dict[str, tuple[str, str]] | None = None,
    ) -> None:
        """`policy`: per key, the (group, resource) a caller must be allowed to list instead of the key's own (the
        admin's allocations policy, keys.ALLOCATIONS_POLICIES)."""
        self.api = api
        self.policy = dict(policy or {})
        self.timeout = timeout
        self.clock = clock
        self.reviews = 0  # TokenReviews and SubjectAccessReviews sent (figures and tests)
        self._cache: OrderedDict[tuple[str, str], tuple[float, Any]] = OrderedDict()  # (hash, "" or key)
        self._lock = threading.Lock()
        self._inflight: dict[str, threading.Lock] = {}
        self.pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="readservice-review")

    # -- the event loop's side: answers at hand, or None ------------------------------------------------
    def cached(self, token: str, keys: tuple[str, ...]) -> tuple[Caller | None, dict[str, bool]] | None:
        h = token_hash(token)
        caller = self._get((h, ""))
        if caller is _MISSING:
            return None
        if caller is None:
            return None, {}
        decisions = {k: self._get((h, k)) for k in keys}
        if any(v is _MISSING for v in decisions.values()):
            return None
        return caller, decisions  # type: ignore[return-value]

    # -- blocking: in the pool ---------------------------------------------------------------------------
    def decide(self, token: str, keys: tuple[str, ...]) -> tuple[Caller | None, dict[str, bool]]:
        """The caller (None: the token is not accepted) and, when accepted, whether it may read each key."""
        h = token_hash(token)
        with self._lock:
            gate = self._inflight.setdefault(h, threading.Lock())
        with gate:
            try:
                caller = self._get((h, ""))
                if caller is _MISSING:
                    caller = self._authenticate(token)
                    self._put((h, ""), caller, TOKEN_TTL if caller else DENIED_TTL)
                if caller is None:
                    return None, {}
                decisions = {}
                for key in keys:
                    allowed = self._get((h, key))
                    if allowed is _MISSING:
                        allowed = self._authorize(caller, key)
                        self._put((h, key), allowed, ALLOWED_TTL if allowed else DENIED_TTL)
                    decisions[key] = allowed
                return caller, decisions
            finally:
                with self._lock:
                    self._inflight.pop(h, None)

    def _authenticate(self, token: str) -> Caller | None:
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}
        status = self._post("/apis/authentication.k8s.io/v1/tokenreviews", body, "TokenReview")
        user = status.get("user") or {}
        if not status.get("authenticated") or not user.get("username"):
            return None
        return Caller(
            user=user["username"],
            uid=user.get("uid") or "",
            groups=tuple(user.get("groups") or ()),
            extra={k: list(v) for k, v in (user.get("extra") or {}).items()},
        )

    def _authorize(self, caller: Caller, key: str) -> bool:
        served = BY_KEY[key]
        group, resource = self.policy.get(key, (served.group, served.resource))
        spec: dict[str, Any] = {
            "user": caller.user,
            "groups": list(caller.groups),
            # no namespace: in every namespace (pods), or cluster-scoped (the rest)
            "resourceAttributes": {"verb": "list", "group": group, "resource": resource},
        }
        if caller.uid:
            spec["uid"] = caller.uid
        if caller.extra:
            spec["extra"] = caller.extra
        body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}
        status = self._post("/apis/authorization.k8s.io/v1/subjectaccessreviews", body, "SubjectAccessReview")
        return bool(status.get("allowed")) and not status.get("denied")

    def _post(self, path: str, body: dict[str, Any], what: str) -> dict[str, Any]:
        self.reviews += 1
        try:
            out = rest.request(
                self.api, "POST", path, body=body, timeout=self.timeout, safe=True
            )  # reviews change nothing
        except Exception as exc:
            # the status only: the answer of a TokenReview may hold the token it was asked about
            status = getattr(exc, "status", None)
            raise ReviewFailed(f"the {what} failed ({status or type(exc).__name__})") from None
        return out.get("status") or {}

    # -- the cache -----------------------------------------------------------------------------------------
    def _get(self, key: tuple[str, str]) -> Any:
        with self._lock:
            hit = self._cache.get(key)
            if hit is None or hit[0] <= self.clock():
                return _MISSING
            self._cache.move_to_end(key)
            return hit[1]

    def _put(self, key: tuple[str, str], value: Any, ttl: float) -> None:
        with self._lock:
            self._cache[key] = (self.clock() + ttl, value)
            self._cache.move_to_end(key)
            while len(self._cache) > MAX_ENTRIES:
                self._cache.popitem(last=False)


_MISSING: Any = object()
