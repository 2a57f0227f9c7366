"""Accelerator utilization from the cluster's metrics API (Prometheus-compatible): the exporters' metric names, the
queries for a set of pods, their answers per device, per job, and when a job's devices sit idle. Pure functions.

The exporters (names read from their sources, not guessed):
- NVIDIA DCGM exporter: DCGM_FI_DEV_GPU_UTIL (%), DCGM_FI_PROF_GR_ENGINE_ACTIVE (0-1; the one MIG instances
  report), DCGM_FI_DEV_FB_USED / DCGM_FI_DEV_FB_FREE (MiB).
- AMD Device Metrics Exporter (ROCm/device-metrics-exporter): gpu_gfx_activity (%), gpu_used_vram / gpu_free_vram
  / gpu_total_vram ("MB", read as MiB), device label gpu_id.
- Intel Gaudi metric exporter (HabanaAI/gaudi-metric-exporter): habanalabs_utilization (%),
  habanalabs_memory_used_bytes / _free_bytes / _total_bytes, workload labels pod_name / pod_namespace (no container).

Workload labels: the exporter's own `pod`, `namespace`, `container` where Prometheus keeps them (honor_labels), and
`exported_pod`, `exported_namespace`, `exported_container` where Prometheus renamed them because the scrape target
has labels of those names (OpenShift's monitoring stack): there `pod` names the exporter itself, so the exported_
labels win.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Point = tuple[float, float]  # (unix seconds, value)
SIMULATED_LABEL = "devcluster_simulated"  # devcluster's exporter marks its series: the devices are not GPUs


@dataclass(frozen=True)
class Convention:
    namespace: str
    pod: str
    container: str | None


@dataclass(frozen=True)
class Family:
    """One vendor exporter's names for a device's utilization and memory."""

    vendor: str  # as accelerators.vendor_of names it
    exporter: str
    util: str  # percent, 0-100
    mem_used: str
    mem_free: str | None
    mem_to_mib: float  # the memory metrics' unit in MiB
    conventions: tuple[Convention, ...]  # the first whose labels a series has names its workload
    device_labels: tuple[str, ...]  # joined with ':' where present, e.g. a MIG instance's GPU UUID and GPU_I_ID
    util_ratio: str | None = None  # 0-1, where the percent is not reported (NVIDIA MIG instances)


_RENAMED = Convention("exported_namespace", "exported_pod", "exported_container")
_OWN = Convention("namespace", "pod", "container")
FAMILIES: tuple[Family, ...] = (
    Family(
        "nvidia",
        "NVIDIA DCGM exporter",
        "DCGM_FI_DEV_GPU_UTIL",
        "DCGM_FI_DEV_FB_USED",
        "DCGM_FI_DEV_FB_FREE",
        1.0,
        (_RENAMED, _OWN),
        ("UUID", "GPU_I_ID"),
        util_ratio="DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    ),
    Family(
        "amd",
        "AMD Device Metrics Exporter",
        "gpu_gfx_activity",
        "gpu_used_vram",
        "gpu_free_vram",
        1.0,
        (_RENAMED, _OWN),
        ("hostname", "gpu_id"),
    ),
    Family(
        "habana",
        "Intel Gaudi metric exporter",
        "habanalabs_utilization",
        "habanalabs_memory_used_bytes",
        "habanalabs_memory_free_bytes",
        1 / 2**20,
        (Convention("pod_namespace", "pod_name", None),),
        ("UUID",),
    ),
)
METRICS = ("util", "util_ratio", "mem_used", "mem_free")


def family_for(vendor: str) -> Family | None:
    return next((f for f in FAMILIES if f.vendor == vendor), None)


def regex(names: Iterable[str]) -> str:
    """An anchored PromQL regex of exact names (RE2; inside a double-quoted string, so backslashes doubled)."""
    return "|".join(re.escape(n).replace("\\", "\\\\") for n in sorted(set(names)))


def query(family: Family, metric: str, namespace: str, pods: Iterable[str]) -> str | None:
    """One PromQL instant-vector selector for `metric` ('util', 'util_ratio', 'mem_used', 'mem_free') of these pods,
    in every label convention of the exporter; None where the exporter has no such metric."""
    name = getattr(family, metric)
    if not name:
        return None
    wanted = regex(pods)
    return " or ".join(f'{name}{{{c.namespace}="{namespace}",{c.pod}=~"{wanted}"}}' for c in family.conventions)


@dataclass(frozen=True)
class DeviceKey:
    namespace: str
    pod: str
    container: str | None
    device: str
    vendor: str


@dataclass
class Device:
    key: DeviceKey
    model: str | None = None
    simulated: str | None = None  # what a devcluster series says it really measures
    util: list[Point] = field(default_factory=list)
    mem_used: list[Point] = field(default_factory=list)
    mem_free: list[Point] = field(default_factory=list)

    @property
    def memory_total_mib(self) -> float | None:
        if not self.mem_used or not self.mem_free:
            return None
        return self.mem_used[-1][1] + self.mem_free[-1][1]


def workload_of(family: Family, labels: Mapping[str, str]) -> tuple[str, str, str | None] | None:
    for c in family.conventions:
        if labels.get(c.pod) and labels.get(c.namespace):
            return labels[c.namespace], labels[c.pod], labels.get(c.container) if c.container else None
    return None


def _points(values: Sequence[Sequence[Any]], scale: float) -> list[Point]:
    out = []
    for ts, raw in values:
        try:
            v = float(raw) * scale
        except (TypeError, ValueError):
            continue
        if v == v:  # NaN: a gap
            out.append((float(ts), v))
    return out


def devices(family: Family, answers: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[Device]:
    """The devices in query_range answers (metric -> result matrix), each with its series. A device whose exporter
    reports a percent uses it; one that reports only the ratio (a MIG instance) uses that, times 100."""
    found: dict[DeviceKey, Device] = {}
    ratio: dict[DeviceKey, list[Point]] = {}
    for metric in METRICS:
        for series in answers.get(metric) or []:
            labels = series.get("metric") or {}
            owner = workload_of(family, labels)
            if owner is None:
                continue
            device = ":".join(labels[x] for x in family.device_labels if labels.get(x)) or labels.get("gpu", "?")
            key = DeviceKey(*owner, device=device, vendor=family.vendor)
            d = found.setdefault(key, Device(key))
            d.model = d.model or labels.get("modelName") or labels.get("card_model")
            d.simulated = d.simulated or labels.get(SIMULATED_LABEL)
            scale = family.mem_to_mib if metric.startswith("mem") else (100.0 if metric == "util_ratio" else 1.0)
            points = _points(series.get("values") or [], scale)
            if metric == "util_ratio":
                ratio[key] = points
            else:
                getattr(d, metric).extend(points)
    for key, points in ratio.items():
        if not found[key].util:
            found[key].util = points
    for d in found.values():
        for name in ("util", "mem_used", "mem_free"):
            getattr(d, name).sort()
    return sorted(found.values(), key=lambda d: (d.key.pod, d.key.container or "", d.key.device))


def mean_series(series: Sequence[Sequence[Point]]) -> list[Point]:
    """Per timestamp, the mean over the series that have a value then."""
    sums: dict[float, list[float]] = {}
    for points in series:
        for ts, v in points:
            sums.setdefault(ts, []).append(v)
    return [(ts, sum(vs) / len(vs)) for ts, vs in sorted(sums.items())]


def idle_seconds(series: Sequence[Sequence[Point]], threshold: float, step: float) -> int | None:
    """How long every device has been at or below `threshold` up to the newest sample (the trailing run); None
    without samples. A device that last reported before the others does not end the run."""
    merged = sorted({ts for points in series for ts, _ in points})
    if not merged:
        return None
    busy_at: set[float] = {ts for points in series for ts, v in points if v > threshold}
    start = None
    for ts in reversed(merged):
        if ts in busy_at:
            break
        start = ts
    if start is None:
        return 0
    return int(merged[-1] - start + step)


def elapsed(seconds: int) -> str:
    """How long something has lasted, never more than it has: 45 -> '45s', 150 -> '2m', 5400 -> '1h 30m'."""
    if seconds < 60:
        return f"{seconds}s"
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours}h {minutes}m" if hours and minutes else f"{hours}h" if hours else f"{minutes}m"


def idle_sentence(devices: int, percent: float, seconds: int) -> str:
    """'4 accelerators at 0 % for 20m': what a job holds and has not used."""
    what = "1 accelerator" if devices == 1 else f"{devices} accelerators"
    return f"{what} at {percent:.0f} % for {elapsed(seconds)}"
