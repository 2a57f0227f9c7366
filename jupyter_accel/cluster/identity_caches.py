"""The set of caches for one identity and namespace: discovery, permissions, informers, visibility polling.

Everything here runs in background threads; callers read snapshots. Changes are reported through `on_change`
with the cache key that changed (called from worker threads: the server hops onto its event loop itself). How well
the API server answers (health.py) and which watches reconnect are published as `degraded()`, and "info" is pushed
when that changes.

With a read service (remote.py), the cluster-scoped caches (readservice/keys.py) come from it instead of watches of
this server's own; the read service itself runs an IdentityCaches limited to those caches (`only`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from ..domain.kinds import KINDS
from ..models import ClusterReads, Degraded, JobKind, Permission
from ..readservice.keys import REPLACED_CACHES
from . import gcfreeze, rest, retry
from .discovery import Discovery, discover
from .health import degraded, health_of
from .informer import CacheState, Informer, Resource
from .permissions import review_all
from .remote import ReadServiceFeed, ReadServiceSettings, bearer_token
from .trim import event_age, trim_event, trim_node, trim_pod
from .written import WriteLog

log = logging.getLogger(__name__)

EVENTS_KEPT = 5000  # the namespace's newest events cached (a few KiB each in memory, trimmed)

CORE: list[Resource] = [
    Resource("nodes", "", "v1", "nodes", False, trim_node),
    Resource("pods", "", "v1", "pods", True, trim_pod),
    # Kubernetes keeps events an hour: a namespace whose jobs churn makes hundreds a minute, and the cache held every
    # one (the soak's RSS grew 2.8 MiB a minute with them); a job's detail shows the newest of its own
    Resource("events", "", "v1", "events", True, trim_event, keep_newest=EVENTS_KEPT, age=event_age),
]
# group -> [(key, plural, namespaced)]; the version comes from discovery
CUSTOM: dict[str, list[tuple[str, str, bool]]] = {
    "kueue.x-k8s.io": [
        ("localqueues", "localqueues", True),
        ("workloads", "workloads", True),
        ("clusterqueues", "clusterqueues", False),
        ("resourceflavors", "resourceflavors", False),
        ("cohorts", "cohorts", False),
        ("workloadpriorityclasses", "workloadpriorityclasses", False),
    ],
    "infrastructure.opendatahub.io": [("hardwareprofiles", "hardwareprofiles", True)],
    "dashboard.opendatahub.io": [("acceleratorprofiles", "acceleratorprofiles", True)],
}
# the job kinds (domain/kinds): one namespaced cache each
for _spec in KINDS:
    CUSTOM.setdefault(_spec.group, []).append((_spec.cache_key, _spec.plural, True))
# every pod of the cluster that holds resources (bound to a node, not finished), for allocated-accelerator figures;
# only when the identity may list them. The selector keeps finished pods out of the cache and their churn off the wire.
ALL_PODS = Resource(
    "allpods", "", "v1", "pods", False, trim_pod, "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"
)
PROFILE_KEYS = {"hardwareprofiles", "acceleratorprofiles"}
# (group, plural) -> the namespaced cache of that kind, for the writes the reads after them wait for
WRITTEN_KEYS: dict[tuple[str, str], str] = {
    **{(r.group, r.plural): r.key for r in CORE if r.namespaced},
    **{(g, plural): key for g, kinds in CUSTOM.items() for key, plural, namespaced in kinds if namespaced},
}


class IdentityCaches:
    VISIBILITY_PERIOD = 3.0
    MAINTENANCE_PERIOD = 60.0
    IDLE_MAINTENANCE_PERIOD = 600.0  # nobody reads: a workbench left open costs the API server next to nothing
    HEALTH_PERIOD = 1.0  # how often the degraded state is looked at, to push "info" when it changes

    def __init__(
        self,
        api: ApiClient,
        namespace: str,
        on_change: Callable[[str], None],
        *,
        profiles_namespace: str | None = None,
        request_timeout: float = 10.0,
        active: Callable[[], bool] = lambda: True,
        only: frozenset[str] | None = None,
        read_service: ReadServiceSettings | None = None,
        read_service_refused: str | None = None,
    ):
        self.api = api
        self.active = active  # someone reads the answers now (an open panel, a recent request): the polls run
        self.namespace = namespace
        self.profiles_namespace = profiles_namespace or namespace
        self.on_change = on_change
        self.request_timeout = request_timeout
        self.only = only  # the cache keys to open (the read service opens the cluster-scoped ones); None: all
        self.read_service = read_service
        self.read_service_refused = read_service_refused  # why a configured read service is not used (remote.py)
        self.remote: ReadServiceFeed | None = None  # set when the read service is used (a bearer token to send it)
        self.discovery = Discovery()
        self.discovery_error: str | None = None
        self.permissions: list[Permission] = []
        self.informers: dict[str, Informer] = {}
        self.pending: dict[str, list[dict[str, Any]]] = {}  # LocalQueue name -> visibility items
        self.pending_state: CacheState = CacheState.starting
        self.pending_revision = 0
        self.info_revision = 0  # discovery, permissions and the set of informers
        self._stop = threading.Event()
        self._started = threading.Event()  # every informer of the first discovery is running
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self.writes = WriteLog(self.informers.get)  # this server's writes the caches may not have seen yet

    def note_write(self, ref: Any, answer: dict[str, Any] | None, deleted: bool) -> None:
        """A write through this hub's identity (writes.ClusterWriter's on_written): the reads after it wait for it."""
        key = WRITTEN_KEYS.get((ref.group, ref.plural))
        if key is not None:
            self.writes.record(key, answer, ref.namespace, ref.name, deleted=deleted)

    # -- reading -------------------------------------------------------------------------------------------
    def items(self, key: str) -> list[dict[str, Any]]:
        inf = self.informers.get(key)
        return inf.items() if inf else []

    def get(self, key: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        inf = self.informers.get(key)
        return inf.get(name, namespace) if inf else None

    def state(self, key: str) -> CacheState:
        inf = self.informers.get(key)
        return inf.state if inf else CacheState.absent

    def readable(self, key: str) -> bool:
        inf = self.informers.get(key)
        return bool(inf and inf.readable)

    def version(self, group: str) -> str | None:
        return self.discovery.version(group)

    def build_options(self, kind: JobKind) -> Mapping[str, Any]:
        """What the kind's spec learnt from the cluster's copy of its API (KindSpec.build_options); {}: not known."""
        return self.discovery.build_options(kind)

    def degraded(self) -> Degraded | None:
        """The API server slow, throttling or failing, or watches reconnecting: the sentence /info shows."""
        reconnecting = sorted(
            k
            for k, inf in list(self.informers.items())
            if inf.state == CacheState.reconnecting and not getattr(inf, "remote", False)
        )
        remote = self.remote
        service = (remote.url, remote.trouble()) if remote is not None and remote.trouble() else None
        return degraded(health_of(self.api).trouble(), reconnecting, service)

    def cluster_reads(self) -> ClusterReads:
        """Where nodes, allocations and Kueue's cluster objects come from, for /info."""
        from ..domain.presentation import cluster_reads

        url = self.read_service.url if self.read_service is not None else None
        return cluster_reads(url, used=self.remote is not None, refused=self.read_service_refused)

    def revision(self, keys: tuple[str, ...]) -> tuple[object, ...]:
        """A value that changes whenever any of these caches changes (objects, state, or the informer itself):
        answers computed from them are memoized by it. "pending" is the visibility poll, "info" the discovery."""
        out: list[object] = [self.info_revision]
        for key in keys:
            if key == "pending":
                out.append((self.pending_revision, self.pending_state))
                continue
            inf = self.informers.get(key)
            out.append(None if inf is None else (id(inf), inf.revision, inf.state))
        return tuple(out)

    # -- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> None:
        t = threading.Thread(target=self._bootstrap, name="accel-hub", daemon=True)
        t.start()
        self._threads.append(t)

    def wait_synced(self, timeout: float = 30.0) -> bool:
        """For tests and the CLI: block until every informer has listed once (or settled as forbidden/absent)."""
        deadline = time.monotonic() + timeout
        if not self._started.wait(timeout):
            return False
        return all(inf.wait_synced(max(0.0, deadline - time.monotonic())) for inf in list(self.informers.values()))

    def is_started(self) -> bool:
        """Discovery is done and the caches of its answer are made (they may not have listed yet)."""
        return self._started.is_set()

    def is_synced(self) -> bool:
        """Non-blocking: discovery done and every informer listed once (or settled as forbidden / absent)."""
        return self._started.is_set() and all(inf.state != CacheState.starting for inf in self.informers.values())

    def stop(self) -> None:
        self._stop.set()
        for inf in list(self.informers.values()):
            inf.stop()
        gcfreeze.release()  # the dropped caches become collectable (gcfreeze.py)

    def _bootstrap(self) -> None:
        rest.on_schedule()
        failures = 0
        while not self._stop.is_set():
            try:
                discovery = self._discover()
                permissions = review_all(self.api, self.namespace, self.request_timeout)
                # published together: a reader never sees the APIs without the permissions that go with them
                self.discovery, self.permissions, self.discovery_error = discovery, permissions, None
                self.info_revision += 1
                break
            except Exception as exc:
                self.discovery_error = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
                self.on_change("info")
                self._stop.wait(retry.pause(exc, failures, retry.RECONNECT))
                failures += 1
        if self._stop.is_set():
            return
        if self.read_service is not None and bearer_token(self.api):
            remote = ReadServiceFeed(self.read_service, lambda: bearer_token(self.api), self.on_change,
                                     self.request_timeout)  # fmt: skip
            with self._lock:
                self.informers.update(remote.caches)
            self.remote = remote
            remote.start()
        for res in self._wanted():
            self._start_informer(res)
        self.info_revision += 1
        self._started.set()
        self.on_change("info")
        for target in (self._poll_visibility, self._maintain):
            t = threading.Thread(target=target, name=f"accel-{target.__name__}", daemon=True)
            t.start()
            self._threads.append(t)

    def _discover(self) -> Discovery:
        # a read service's hub (`only`) builds no jobs: it skips the kinds' OpenAPI schemas
        return discover(self.api, self.request_timeout, self.discovery, build_options=self.only is None)

    def _wanted(self) -> list[Resource]:
        wanted = list(CORE)
        if any(p.allowed for p in self.permissions if p.resource == "pods" and not p.namespaced):
            wanted.append(ALL_PODS)
        for group, kinds in CUSTOM.items():
            version = self.discovery.version(group)
            if not version:
                continue
            for key, plural, namespaced in kinds:
                if self.discovery.serves(group, plural):
                    wanted.append(Resource(key, group, version, plural, namespaced))
        if self.only is not None:
            wanted = [r for r in wanted if r.key in self.only]
        if self.remote is not None:  # these come from the read service
            wanted = [r for r in wanted if r.key not in REPLACED_CACHES]
        return wanted

    def _start_informer(self, res: Resource) -> None:
        ns = self.profiles_namespace if res.key in PROFILE_KEYS else self.namespace
        inf = Informer(self.api, res, ns, self.on_change, self.request_timeout)
        with self._lock:
            self.informers[res.key] = inf
        inf.start()

    def _maintain(self) -> None:
        """Pick up CRDs installed later and changed permissions without a server restart: every minute while
        someone reads, every ten while nobody does (hundreds of idle workbenches must not poll the API server)."""
        rest.on_schedule()
        last = time.monotonic()
        shown = self.degraded()
        frozen_for: object = None
        while not self._stop.wait(self.HEALTH_PERIOD):
            lists = tuple(sorted((key, id(inf), inf.relists) for key, inf in list(self.informers.items())))
            if lists != frozen_for and self.is_synced():
                frozen_for = lists  # every cache has listed (again): its objects are long-lived
                took = gcfreeze.freeze_long_lived()
                log.debug("jupyter_accel: caches frozen for the cycle collector in %.3f s", took)
            now_shown = self.degraded()
            if now_shown != shown:
                shown = now_shown
                self.on_change("info")
            period = self.MAINTENANCE_PERIOD if self.active() else self.IDLE_MAINTENANCE_PERIOD
            if time.monotonic() - last < period:
                continue
            last = time.monotonic()
            try:
                discovery = self._discover()
                permissions = review_all(self.api, self.namespace, self.request_timeout)
                if (discovery, permissions) != (self.discovery, self.permissions):
                    self.discovery, self.permissions = discovery, permissions
                    self.info_revision += 1
            except Exception:
                continue
            for res in self._wanted():
                current = self.informers.get(res.key)
                if current is None or current.resource.version != res.version:
                    if current:
                        current.stop()
                    self._start_informer(res)
                    self.info_revision += 1
            self.on_change("info")

    def _poll_visibility(self) -> None:
        """Kueue's visibility API has no watch: poll pending workloads of LocalQueues that have some, while someone
        reads (a workbench nobody looks at polls nothing; after a pause, the positions are polled within a second of the
        first read and pushed)."""
        rest.on_schedule()
        group = "visibility.kueue.x-k8s.io"
        while not self._stop.is_set():
            if not self.active():
                self._stop.wait(0.5)
                continue
            version = self.discovery.version(group)
            if version is None:
                self._set_pending({}, CacheState.absent)
            else:
                result: dict[str, list[dict[str, Any]]] = {}
                state = CacheState.synced
                for lq in self.items("localqueues"):
                    name = lq["metadata"]["name"]
                    if not (lq.get("status") or {}).get("pendingWorkloads"):
                        result[name] = []
                        continue
                    path = rest.resource_path(group, version, "localqueues", self.namespace, name, "pendingworkloads")
                    try:
                        # attempts=1: the next poll is the retry
                        answer = rest.request(self.api, "GET", path, timeout=self.request_timeout, attempts=1)
                        result[name] = answer.get("items") or []
                    except ApiException as exc:
                        state = CacheState.forbidden if exc.status == 403 else CacheState.reconnecting
                    except Exception:
                        state = CacheState.reconnecting
                self._set_pending(result, state)
            self._stop.wait(self.VISIBILITY_PERIOD)

    def _set_pending(self, result: dict[str, list[dict[str, Any]]], state: CacheState) -> None:
        if result != self.pending or state != self.pending_state:
            self.pending, self.pending_state = result, state
            self.pending_revision += 1
            self.on_change("pending")
