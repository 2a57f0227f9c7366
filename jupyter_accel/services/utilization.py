"""Utilization of the user's running jobs' accelerators, and their queues' use over time, from the cluster's metrics
API. Blocking (run off the event loop). One query per exporter metric for every job in a list (the pods batched in
one selector), answers cached for a step, and nothing asked unless a request comes: a sidebar nobody looks at asks
nothing."""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..cluster.metrics import MetricsClient, MetricsError
from ..domain import utilization as U
from ..domain.accelerators import vendor_of
from ..models import (
    DeviceSeries,
    JobStatus,
    JobUtilization,
    JobUtilizationDetail,
    JobView,
    MetricsSource,
    QueueUsageResponse,
    QueueUsageSeries,
    UtilizationResponse,
)

WINDOW_SECONDS = 1800  # a list's sparklines: the last half hour
LIST_STEP = 30.0
DETAIL_POINTS = 240  # a detail's charts: at most this many samples over the job's life
DETAIL_MAX_SECONDS = 86400
QUEUE_WINDOW_SECONDS = 6 * 3600
QUEUE_STEP = 120.0
CACHE_SECONDS = LIST_STEP  # an aligned window's answer holds until the next step
NOT_CONFIGURED = (
    "No metrics API is configured on this server, so there are no utilization charts: an admin sets "
    "c.AccelConfig.metrics_url (on OpenShift the Thanos querier, e.g. https://thanos-querier.openshift-monitoring"
    ".svc:9091, which takes your own token)."
)


@dataclass(frozen=True)
class UtilizationSettings:
    url: str = ""  # AccelConfig.metrics_url; empty: no metrics API
    idle_percent: float = 5.0
    idle_seconds: int = 1200  # 0: no idle warnings


class QueryCache:
    """Answers by (query, aligned range, identity) for CACHE_SECONDS: sidebars and details asking in the same step
    share one query, those asking at the same moment too (the first asks, the others wait for its answer); the
    answers of one identity are never given to another."""

    def __init__(self, ttl: float = CACHE_SECONDS, size: int = 512) -> None:
        self.ttl, self.size = ttl, size
        self._lock = threading.Lock()
        self._items: dict[tuple[Any, ...], tuple[float, list[dict[str, Any]]]] = {}
        self._asking: dict[tuple[Any, ...], threading.Lock] = {}

    def get(self, key: tuple[Any, ...], fetch: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        with self._lock:
            hit = self._fresh(key)
            if hit is not None:
                return hit
            asking = self._asking.setdefault(key, threading.Lock())
        with asking:  # one fetch per key at a time: the others find its answer
            with self._lock:
                hit = self._fresh(key)
            if hit is not None:
                return hit
            try:
                value = fetch()
            finally:  # a failed fetch leaves no lock behind: the next caller asks again
                with self._lock:
                    self._asking.pop(key, None)
            now = time.monotonic()
            with self._lock:
                if len(self._items) >= self.size:
                    self._items = {k: v for k, v in self._items.items() if now - v[0] < self.ttl}
                self._items[key] = (now, value)
            return value

    def _fresh(self, key: tuple[Any, ...]) -> list[dict[str, Any]] | None:
        hit = self._items.get(key)
        return hit[1] if hit is not None and time.monotonic() - hit[0] < self.ttl else None


def refusal(url: str, exc: MetricsError) -> str:
    if exc.status == 0:
        return f"The metrics API at {url} cannot be reached ({exc.message}), so there are no utilization charts."
    if exc.status in (401, 403):
        return (
            f"The metrics API at {url} refused this account (HTTP {exc.status}): its figures are not visible to "
            "your account."
        )
    return f"The metrics API at {url} answered HTTP {exc.status} ({exc.message}), so there are no figures."


class UtilizationService:
    def __init__(
        self, client: MetricsClient | None, settings: UtilizationSettings, namespace: str, cache: QueryCache
    ) -> None:
        self.client, self.settings, self.namespace, self.cache = client, settings, namespace, cache

    # -- one list of jobs ---------------------------------------------------------------------------------
    def for_jobs(self, jobs: Sequence[JobView], now: float | None = None) -> UtilizationResponse:
        """The running jobs that hold accelerators: their mean utilization now and over the last half hour, and the
        idle warning where every device has been idle for the admin's time. One query per metric for all of them."""
        now = time.time() if now is None else now
        window = max(WINDOW_SECONDS, self.settings.idle_seconds + 2 * int(LIST_STEP))
        held = [j for j in jobs if j.status is JobStatus.running and j.accelerators and j.pods]
        empty = UtilizationResponse(source=self._unconfigured(), window_seconds=window, step_seconds=LIST_STEP)
        if self.client is None or not held:
            if self.client is not None:
                empty.source = MetricsSource(available=True, message=self._from())
            return empty
        try:
            found, exporters = self._devices(held, now - window, now, LIST_STEP)
        except MetricsError as exc:
            empty.source = MetricsSource(available=False, message=refusal(self.settings.url, exc))
            return empty
        out = []
        for job in held:
            mine = _of_job(found, job)
            points = U.mean_series([d.util for d in mine])
            used = [d.mem_used[-1][1] for d in mine if d.mem_used]
            idle_for, warn = self._idle(mine, LIST_STEP)
            out.append(
                JobUtilization(
                    kind=job.kind,
                    name=job.name,
                    devices=len(mine),
                    percent=round(points[-1][1], 1) if points else None,
                    memory_used_mib=round(sum(used), 1) if used else None,
                    points=[(t, round(v, 1)) for t, v in points],
                    idle=warn,
                    idle_seconds=idle_for,
                    simulated=next((d.simulated for d in mine if d.simulated), None),
                )
            )
        return UtilizationResponse(
            source=MetricsSource(available=True, message=self._from(exporters), exporters=exporters),
            window_seconds=window,
            step_seconds=LIST_STEP,
            jobs=out,
        )

    # -- one job over its life ----------------------------------------------------------------------------
    def for_job(self, job: JobView, started: float | None, now: float | None = None) -> JobUtilizationDetail:
        now = time.time() if now is None else now
        start = max(started or now - 3600, now - DETAIL_MAX_SECONDS)
        step = float(max(15, math.ceil((now - start) / DETAIL_POINTS)))
        detail = JobUtilizationDetail(
            source=self._unconfigured(), kind=job.kind, name=job.name, start=start, step_seconds=step
        )
        if self.client is None:
            return detail
        if not job.accelerators or not job.pods:
            detail.source = MetricsSource(available=True, message=self._from())
            detail.note = "It holds no accelerators now, so there are no device series to show."
            return detail
        try:
            found, exporters = self._devices([job], start, now, step)
        except MetricsError as exc:
            detail.source = MetricsSource(available=False, message=refusal(self.settings.url, exc))
            return detail
        mine = _of_job(found, job)
        detail.source = MetricsSource(available=True, message=self._from(exporters), exporters=exporters)
        detail.devices = [
            DeviceSeries(
                pod=d.key.pod,
                container=d.key.container,
                device=d.key.device,
                vendor=d.key.vendor,
                model=d.model,
                simulated=d.simulated,
                utilization=[(t, round(v, 1)) for t, v in d.util],
                memory_used_mib=[(t, round(v, 1)) for t, v in d.mem_used],
                memory_total_mib=d.memory_total_mib,
            )
            for d in mine
        ]
        if not mine:
            held = ", ".join(sorted(job.accelerators))
            detail.note = (
                f"The metrics API has no device series for its pods ({held}): the cluster's device exporter may not "
                "run on their nodes, or it does not label its series with the pods using the devices."
            )
        else:
            detail.idle = self._idle(mine, step)[1]
        return detail

    # -- the queues behind this namespace's LocalQueues --------------------------------------------------
    def for_queues(self, cluster_queues: Sequence[str], now: float | None = None) -> QueueUsageResponse:
        """Kueue's own figures of each ClusterQueue's use per flavor and resource (kueue_cluster_queue_resource_usage)
        and its nominal quota, over the last hours."""
        now = time.time() if now is None else now
        answer = QueueUsageResponse(
            source=self._unconfigured(), window_seconds=QUEUE_WINDOW_SECONDS, step_seconds=QUEUE_STEP
        )
        if self.client is None or not cluster_queues:
            if self.client is not None:
                answer.source = MetricsSource(available=True, message=self._from())
            return answer
        wanted = U.regex(cluster_queues)
        start = now - QUEUE_WINDOW_SECONDS
        try:
            usage = self._query(
                f'kueue_cluster_queue_resource_usage{{cluster_queue=~"{wanted}"}}', start, now, QUEUE_STEP
            )
            nominal = self._query(
                f'kueue_cluster_queue_nominal_quota{{cluster_queue=~"{wanted}"}}', start, now, QUEUE_STEP
            )
        except MetricsError as exc:
            answer.source = MetricsSource(available=False, message=refusal(self.settings.url, exc))
            return answer
        quota = {}
        for series in nominal:
            m = series.get("metric") or {}
            values = series.get("values") or []
            if values:
                quota[(m.get("cluster_queue"), m.get("flavor"), m.get("resource"))] = float(values[-1][1])
        for series in usage:
            m = series.get("metric") or {}
            key = (m.get("cluster_queue", ""), m.get("flavor", ""), m.get("resource", ""))
            answer.series.append(
                QueueUsageSeries(
                    cluster_queue=key[0],
                    flavor=key[1],
                    resource=key[2],
                    usage=[(float(t), float(v)) for t, v in series.get("values") or []],
                    nominal=quota.get(key),
                )
            )
        answer.series.sort(key=lambda s: (s.cluster_queue, s.resource, s.flavor))
        answer.source = MetricsSource(
            available=True, message=f"{self._from()} Kueue's own metrics of its ClusterQueues."
        )
        return answer

    def _idle(self, devices: Sequence[U.Device], step: float) -> tuple[int | None, str | None]:
        """How long every device has been idle (None: no samples), and the warning once that is the admin's time."""
        util = [d.util for d in devices]
        idle_for = U.idle_seconds(util, self.settings.idle_percent, step) if util else None
        if idle_for is None or not self.settings.idle_seconds or idle_for < self.settings.idle_seconds:
            return idle_for, None
        mean = U.mean_series(util)
        return idle_for, U.idle_sentence(len(devices), mean[-1][1] if mean else 0.0, idle_for)

    # -- the queries --------------------------------------------------------------------------------------
    def _devices(
        self, jobs: Sequence[JobView], start: float, end: float, step: float
    ) -> tuple[list[U.Device], list[str]]:
        """Every device series of these jobs' pods, one query per exporter metric (in parallel, cached)."""
        pods = sorted({p.name for j in jobs for p in j.pods})
        families = [f for f in U.FAMILIES if any(vendor_of(r) == f.vendor for j in jobs for r in j.accelerators)]
        asks = [
            (family, metric, q)
            for family in families
            for metric in U.METRICS
            if (q := U.query(family, metric, self.namespace, pods)) is not None
        ]
        with ThreadPoolExecutor(max_workers=min(4, len(asks) or 1), thread_name_prefix="accel-metrics") as pool:
            answers = list(pool.map(lambda a: self._query(a[2], start, end, step), asks))
        found: list[U.Device] = []
        exporters = []
        for family in families:
            by_metric = {m: a for (f, m, _q), a in zip(asks, answers, strict=True) if f is family}
            devices = U.devices(family, by_metric)
            if devices:
                exporters.append(family.exporter)
            found += devices
        return found, exporters

    def _query(self, promql: str, start: float, end: float, step: float) -> list[dict[str, Any]]:
        assert self.client is not None
        client = self.client
        end = math.floor(end / step) * step  # aligned, so the same step asks the same (and the cache answers)
        start = math.floor(start / step) * step
        token = client.token() or ""
        who = hashlib.sha256(token.encode()).hexdigest()[:16]
        key = (client.url, promql, start, end, step, who)
        return self.cache.get(key, lambda: client.query_range(promql, start, end, step))

    def _unconfigured(self) -> MetricsSource:
        return MetricsSource(available=False, message=NOT_CONFIGURED)

    def _from(self, exporters: Sequence[str] = ()) -> str:
        said = f" ({', '.join(exporters)})" if exporters else ""
        return f"From the cluster's metrics API at {self.settings.url}{said}."


def _of_job(found: Sequence[U.Device], job: JobView) -> list[U.Device]:
    pods = {p.name for p in job.pods}
    return [d for d in found if d.key.namespace == job.namespace and d.key.pod in pods]
