"""The server extension: configuration, wiring of handlers, start and stop of the background machinery."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join
from traitlets import Unicode

from . import models
from .config import AccelConfig
from .models import API_PREFIX

if TYPE_CHECKING:
    from .api.answers import Answers
    from .cluster.identity_caches import IdentityCaches
    from .cluster.kept_logs import KeptLogStore, LogKeeper
    from .cluster.session import ClusterSession
    from .cluster.writes import ClusterWriter
    from .push import Broadcaster
    from .services.jobs import JobsService
    from .services.ports import JobSettings
    from .services.reads import Inventory
    from .services.utilization import QueryCache, UtilizationService
    from .services.workbench import WorkbenchService

PROBE_TTL = 15.0  # seconds an answered connection probe stays fresh
READ_RECENTLY = 120.0  # seconds after a request that the server counts as read (see is_read)


class AccelApp(ExtensionApp):
    name = "jupyter_accel"
    load_other_extensions = True
    classes = [AccelConfig]

    workbench = Unicode("", help="Name of the workbench the server runs in (default: derived from $NB_PREFIX).").tag(
        config=True
    )

    def initialize_settings(self) -> None:
        from .domain.accelerators import AcceleratorRegistry

        self.accel_config = AccelConfig(parent=self)
        # the session (and with it the kubernetes client) is made in started(), after the server is up, so the
        # extension adds little to Jupyter's start-up
        self.session: ClusterSession
        self._starting: asyncio.Task[None] | None = None
        self._stopped = False
        self.registry = AcceleratorRegistry.from_config(list(self.accel_config.accelerators))
        self.hub: IdentityCaches | None = None
        self.broadcaster: Broadcaster | None = None
        self.answers: Answers  # made in _start, with the broadcaster
        self.inventory: Inventory
        self._probed_at = 0.0
        self.last_read = time.monotonic()  # requests set it (api/base.synced_hub)
        self._probe_lock = asyncio.Lock()
        self._identity_lock = asyncio.Lock()
        self.kept_store: KeptLogStore | None = None  # the jobs' kept logs (cluster/kept_logs.py), per identity
        self.keeper: LogKeeper | None = None
        self._followed_all: set[str] = set()  # uids of jobs whose every pod a user followed: kept too
        self._job_keys: frozenset[str] = frozenset()  # the job kinds' cache keys: a new job wakes the keeper too
        self._metrics_cache: QueryCache | None = None  # metrics API answers, shared by every request for a step
        self.settings["jupyter_accel"] = self

    def initialize_handlers(self) -> None:
        from .api.routes import HANDLERS

        for handler in HANDLERS:
            self.handlers.append((url_path_join("/", API_PREFIX, handler.path), handler))

    async def _start_jupyter_server_extension(self, serverapp) -> None:
        # not awaited: the server answers while the heavy modules load in a thread
        self._starting = asyncio.get_running_loop().create_task(self._start())

    async def started(self) -> None:
        """Start the push broadcaster and the caches once. Awaited by every request, so servers embedded without
        their start hooks (tests, some launchers) still get their caches, and no request runs half-started."""
        if self.broadcaster is not None:
            return
        if self._starting is None:
            self._starting = asyncio.get_running_loop().create_task(self._start())
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        # the kubernetes client, pydantic and the wire models take ~0.25 s to import: a thread does it, so the
        # event loop keeps answering; the objects are made on the loop afterwards
        await asyncio.get_running_loop().run_in_executor(None, _import_runtime)
        if self.broadcaster is not None or self._stopped:
            return
        from .api.answers import Answers
        from .cluster.gil import share_with_event_loop
        from .cluster.session import ClusterSession
        from .push import Broadcaster
        from .services.idle import IdleWatch
        from .services.reads import Inventory

        self.session = ClusterSession(self.accel_config)
        self.idle_watch = IdleWatch(self.accel_config.idle_warning_seconds)
        self.idle_watch.start(self._idle_round, self.is_read, self._ray_tasks_round)
        self.answers = Answers()
        self.inventory = Inventory(self.registry)
        self.broadcaster = Broadcaster(
            asyncio.get_running_loop(),
            self.accel_config.push_debounce,
            prepare=lambda topics: self.answers.refresh(self.hub, topics),
        )
        share_with_event_loop()  # the caches' threads start now (cluster/gil.py)
        self._start_hub()

    async def stop_extension(self) -> None:
        self._stopped = True
        if getattr(self, "idle_watch", None) is not None:
            self.idle_watch.stop()
        if self.keeper is not None:
            self.keeper.stop()
        if self.hub is not None:
            hub, self.hub = self.hub, None
            await asyncio.get_running_loop().run_in_executor(None, hub.stop)

    def _start_hub(self) -> None:
        from .cluster.identity_caches import IdentityCaches
        from .cluster.remote import ReadServiceSettings, plain_http_refusal

        if self.session.api_client is None or self.session.namespace is None:
            return
        cfg = self.accel_config
        refused = plain_http_refusal(cfg.read_service_url, cfg.read_service_allow_http)
        if refused:
            self.log.error("jupyter_accel: %s", refused)
        usable = cfg.read_service_url and not refused
        remote = ReadServiceSettings(cfg.read_service_url, cfg.read_service_ca_file) if usable else None
        self.hub = IdentityCaches(
            self.session.api_client,
            self.session.namespace,
            self._notify,
            profiles_namespace=self.accel_config.profiles_namespace or None,
            request_timeout=self.accel_config.request_timeout,
            active=self.is_read,
            read_service=remote,
            read_service_refused=refused,
        )
        self.hub.start()
        self._start_keeper(self.hub)

    def _start_keeper(self, hub: IdentityCaches) -> None:
        """Keep the logs of this workbench's jobs in its own storage (AccelConfig.kept_logs_*), for this identity."""
        from .cluster.kept_logs import KeptLogStore, LogKeeper
        from .domain.kinds import KINDS
        from .services import job_logs

        cfg = self.accel_config
        self._job_keys = frozenset(s.cache_key for s in KINDS)
        if self.keeper is not None:
            self.keeper.stop()
        self.keeper, self.kept_store = None, None
        if cfg.kept_logs_job_bytes <= 0:
            return
        self.kept_store = KeptLogStore(
            Path(cfg.kept_logs_dir), hub.namespace, cfg.kept_logs_job_bytes, cfg.kept_logs_total_bytes
        )
        self.keeper = LogKeeper(
            hub.api,
            hub.namespace,
            self.kept_store,
            tracked=lambda: job_logs.tracked(self.jobs_service(hub), self._followed_all),
            pod_now=lambda name: hub.get("pods", name, hub.namespace),
            request_timeout=cfg.request_timeout,
        )
        self.keeper.start()

    def follow_all(self, uid: str) -> None:
        """A user follows every pod of this job: the keeper keeps them from now on (whoever launched it)."""
        if uid and uid not in self._followed_all and self.keeper is not None:
            self._followed_all.add(uid)
            self.keeper.notify()

    def keeping(self, uid: str) -> bool:
        """The keeper is writing a pod of this job now."""
        return self.keeper is not None and self.keeper.following(uid)

    def is_read(self) -> bool:
        """Someone reads the answers: a push stream is open, or a request came in the last READ_RECENTLY seconds.
        Called from the hub's threads; the polls of a workbench nobody looks at wait for this."""
        streams = self.broadcaster is not None and self.broadcaster.subscribers > 0
        return streams or time.monotonic() - self.last_read < READ_RECENTLY

    def workbench_prefix(self) -> str | None:
        """The workbench this server belongs to: configured, else $NB_PREFIX (/notebook/<ns>/<name>)."""
        return self.workbench or os.environ.get("NB_PREFIX") or None

    def workbench_label(self) -> str | None:
        from .domain.labels import workbench_name

        return workbench_name(self.workbench_prefix())

    def _writer(self, hub: IdentityCaches) -> ClusterWriter:
        """Writes with the hub's identity; the hub hears of each, so the reads after it wait for it."""
        from .cluster.writes import ClusterWriter

        return ClusterWriter(hub.api, self.accel_config.request_timeout, on_written=hub.note_write)

    def jobs_service(self, hub: IdentityCaches) -> JobsService:
        """The jobs service over a hub, with this server's settings."""
        from .services.jobs import JobsService

        idle = getattr(self, "idle_watch", None)
        return JobsService(hub, self._writer(hub), self.registry, self.job_settings(), idle, self.kept_store)

    def workbench_service(self, hub: IdentityCaches) -> WorkbenchService:
        """This workbench's Notebook, read and patched with the server's identity (the user's, where forwarded)."""
        from .domain.labels import workbench_name
        from .services.workbench import WorkbenchService

        # the Notebook's own name: NB_PREFIX's last part (/notebook/<ns>/<name>)
        name = workbench_name(self.workbench_prefix())
        return WorkbenchService(hub, self._writer(hub), self.registry, name, read_only=self.accel_config.read_only)

    def _idle_round(self) -> None:
        """One round of the idle Ray cluster check (services/idle.py), in its thread: each interactive cluster
        holding accelerators is asked through the API server's service proxy what it runs."""
        from .services.idle import candidates

        self._dashboard_round(lambda hub, fetch: self.idle_watch.poll(candidates(self.jobs_service(hub)), fetch))

    def _ray_tasks_round(self) -> None:
        """One round of running RayJobs' task counts (services/idle.py), in the same thread."""
        from .services.idle import running_ray_jobs

        self._dashboard_round(
            lambda hub, fetch: self.idle_watch.poll_tasks(running_ray_jobs(self.jobs_service(hub)), fetch)
        )

    def _dashboard_round(self, poll: Callable[[Any, Callable[[str, Any], Any]], None]) -> None:
        from .cluster import rest

        hub = self.hub
        if hub is None:
            return
        timeout = self.accel_config.request_timeout
        poll(hub, lambda path, query: rest.request(hub.api, "GET", path, query=query, timeout=timeout))

    def utilization_service(self, hub: IdentityCaches) -> UtilizationService:
        """Utilization and queue history from the metrics API (AccelConfig.metrics_url), with the hub's identity:
        its bearer token, where it has one, is the user's own. Answers cached per step, shared by every request."""
        from .cluster.metrics import MetricsClient
        from .cluster.remote import bearer_token
        from .services.utilization import QueryCache, UtilizationService, UtilizationSettings

        cfg = self.accel_config
        if self._metrics_cache is None:
            self._metrics_cache = QueryCache()
        client = None
        if cfg.metrics_url:
            client = MetricsClient(
                cfg.metrics_url,
                token=(lambda: bearer_token(hub.api)) if cfg.metrics_send_token else (lambda: None),
                ca_file=cfg.metrics_ca_file or None,
                timeout=cfg.request_timeout,
            )
        settings = UtilizationSettings(cfg.metrics_url, cfg.idle_device_percent, cfg.idle_device_seconds)
        return UtilizationService(client, settings, hub.namespace, self._metrics_cache)

    def job_settings(self) -> JobSettings:
        from .services.ports import JobSettings

        cfg = self.accel_config
        return JobSettings(
            read_only=cfg.read_only,
            default_queue=cfg.default_queue,
            default_images=dict(cfg.default_images),
            workbench_prefix=self.workbench_prefix(),
            workbench_label=self.workbench_label(),
            api_base=self.api_base(),
            default_max_run_seconds=dict(cfg.default_max_run_seconds),
            max_run_seconds_limit=cfg.max_run_seconds_limit,
            files_root=self.serverapp.root_dir if self.serverapp is not None else None,
        )

    def api_base(self) -> str:
        return url_path_join(self.serverapp.base_url, API_PREFIX) + "/"

    def _notify(self, key: str) -> None:
        if self.keeper is not None and (key == "pods" or key in self._job_keys):
            self.keeper.notify()  # a pod started or a job came: the keeper looks (in its own thread)
        if self.broadcaster is not None:
            self.broadcaster.notify_threadsafe(key)

    async def set_token(self, token: str | None) -> models.Connection:
        """Switch identity at runtime (memory only) and rebuild the caches for it."""
        async with self._identity_lock:
            await self._switch_identity(lambda: self.session.set_token(token))
        conn, _ = await self.current_state()
        return conn

    async def use_forwarded_token(self, token: str) -> None:
        """The auth proxy forwarded the user's token: make it the identity when it is new (memory only; the
        token is neither logged nor echoed). Requests carrying the same token cost one comparison."""
        if not self.session.forwarded_differs(token):
            return
        async with self._identity_lock:
            if self.session.forwarded_differs(token):
                self.log.info(
                    "jupyter_accel: using the token forwarded in header %s", self.accel_config.forwarded_token_header
                )
                await self._switch_identity(lambda: self.session.set_forwarded_token(token))

    async def _switch_identity(self, change) -> None:
        loop = asyncio.get_running_loop()
        old, self.hub = self.hub, None
        if old is not None:
            await loop.run_in_executor(None, old.stop)
        change()
        self._probed_at = 0.0
        self._start_hub()
        self._notify("info")

    async def current_state(self) -> tuple[models.Connection, models.Capabilities]:
        """The connection, re-probed off the event loop at most every PROBE_TTL seconds."""
        async with self._probe_lock:
            if time.monotonic() - self._probed_at > PROBE_TTL and self.session.api_client is not None:
                await asyncio.get_running_loop().run_in_executor(None, self.session.probe)
                self._probed_at = time.monotonic()
        from .domain.accelerators import VENDORS
        from .domain.compat import compatibility
        from .domain.kinds import KINDS, kind_info
        from .domain.presentation import connection_look

        conn = self.session.connection
        label, tone = connection_look(conn.state)
        conn = conn.model_copy(update={"label": label, "tone": tone})
        limits = self.job_settings()
        caps = models.Capabilities(
            read_only=self.accel_config.read_only, max_run_seconds_limit=limits.max_run_seconds_limit or None
        )
        served: dict[models.JobKind, str | None] = {}
        runtimes: dict[models.JobKind, list[str]] = {}
        hub = self.hub
        if hub is not None:  # the API server slow, throttling, failing, or the watches reconnecting (cluster/health)
            conn = conn.model_copy(update={"degraded": hub.degraded(), "cluster_reads": hub.cluster_reads()})
        if hub is not None and conn.state == models.ConnectionState.connected:
            d = hub.discovery
            served = {s.kind: d.version(s.group) for s in KINDS if d.serves(s.group, s.plural)}
            runtimes = d.runtimes
            caps.apis = models.ApiAvailability(
                **{name: d.version(group) for name, group in models.ApiAvailability.groups().items()}
            )
            caps.permissions = list(hub.permissions)
            caps.compatibility = compatibility(d.versions, d.serves, d.options)
        caps.kinds = [
            kind_info(s, served.get(s.kind)).model_copy(
                update={
                    "default_max_run_seconds": limits.default_limit(s.kind),
                    "runtimes": runtimes.get(s.kind),
                    "default_images": {v: limits.image_for(s.kind, v or None) for v in ("", *VENDORS)},
                }
            )
            for s in KINDS
        ]
        return conn, caps


def _import_runtime() -> None:
    """What the first request would otherwise import on the event loop (module imports are thread-safe)."""
    import importlib

    from . import models

    for name in ("cluster.session", "cluster.identity_caches", "push", "services.jobs"):
        importlib.import_module(f".{name}", __package__)
    for name in models.__all__:
        getattr(models, name)
