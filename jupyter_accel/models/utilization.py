"""Wire models of accelerator utilization (the cluster's metrics API) and of queue use over time (Kueue's metrics)."""

from __future__ import annotations

from pydantic import Field

from .base import Wire
from .kinds import JobKind

Point = tuple[float, float]


class MetricsSource(Wire):
    """Where the figures come from, or why there are none: no metrics API configured, one that cannot be reached,
    one that refuses this account."""

    available: bool
    message: str = Field(description="One sentence: the source, or why the charts are empty.")
    exporters: list[str] = Field(default_factory=list, description="The device exporters whose series answered.")


class JobUtilization(Wire):
    """A running job's accelerators, for its row in a list: their mean utilization now and over the window."""

    kind: JobKind
    name: str
    devices: int = Field(description="Devices with series (0: the exporter reports none for its pods).")
    percent: float | None = Field(default=None, description="Mean utilization of its devices at the newest sample.")
    memory_used_mib: float | None = Field(default=None, description="Their memory in use at the newest sample.")
    points: list[Point] = Field(default_factory=list, description="(unix seconds, mean percent) over the window.")
    idle: str | None = Field(
        default=None, description="Set once every device has sat at or below the idle threshold for the admin's time."
    )
    idle_seconds: int | None = Field(default=None, description="How long every device has been idle so far.")
    simulated: str | None = Field(default=None, description="What the series really measure, when not a device.")


class UtilizationResponse(Wire):
    source: MetricsSource
    window_seconds: int
    step_seconds: float
    jobs: list[JobUtilization] = Field(default_factory=list)


class DeviceSeries(Wire):
    pod: str
    container: str | None = None
    device: str = Field(description="The exporter's device id (GPU UUID, with the MIG instance where there is one).")
    vendor: str
    model: str | None = None
    simulated: str | None = Field(default=None, description="What the series really measure, when not a device.")
    utilization: list[Point] = Field(default_factory=list, description="(unix seconds, percent).")
    memory_used_mib: list[Point] = Field(default_factory=list)
    memory_total_mib: float | None = None


class JobUtilizationDetail(Wire):
    """One job's devices over its life (at most a day back)."""

    source: MetricsSource
    kind: JobKind
    name: str
    start: float | None = Field(default=None, description="Unix seconds of the first sample asked for.")
    step_seconds: float
    devices: list[DeviceSeries] = Field(default_factory=list)
    note: str | None = Field(default=None, description="Why there are no device series, when there are none.")
    idle: str | None = None


class QueueUsageSeries(Wire):
    cluster_queue: str
    flavor: str
    resource: str
    usage: list[Point] = Field(default_factory=list, description="(unix seconds, amount in use), Kueue's own figure.")
    nominal: float | None = Field(default=None, description="The flavor's nominal quota of the resource, newest.")


class QueueUsageResponse(Wire):
    """Use of the ClusterQueues behind this namespace's LocalQueues over the window, from Kueue's metrics."""

    source: MetricsSource
    window_seconds: int
    step_seconds: float
    series: list[QueueUsageSeries] = Field(default_factory=list)
