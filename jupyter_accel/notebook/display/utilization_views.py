"""Utilization answers as blocks: a running job per row (now, a text sparkline of the last half hour, idle), or
one job's devices. Text sparklines only: the sidebar and the detail tab draw the charts."""

from __future__ import annotations

from typing import Any

from .blocks import DASH, Block, Heading, Para, Table
from .format import kind_text, sparkline

SIMULATED = Para("Simulated devices: the figures are each container's CPU and memory use.", muted=True)


def _pct(value: float | None) -> str:
    return DASH if value is None else f"{value:.0f} %"


def utilization_blocks(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Accelerator use of running jobs"), Para(m.source.message, muted=True)]
    if m.source.available and not m.jobs:
        out.append(Para("No running job holds accelerators."))
    if m.jobs:
        minutes = round(m.window_seconds / 60)
        out.append(
            Table(
                ["job", "kind", "devices", "now", f"last {minutes} min", "memory", "idle"],
                [
                    [
                        j.name,
                        kind_text(j.kind),
                        j.devices,
                        _pct(j.percent),
                        sparkline([v for _t, v in j.points]) or DASH,
                        DASH if j.memory_used_mib is None else f"{j.memory_used_mib:.0f} MiB",
                        j.idle or DASH,
                    ]
                    for j in m.jobs
                ],
            )
        )
    if any(j.simulated for j in m.jobs):
        out.append(SIMULATED)
    return out


def job_utilization_blocks(m: Any) -> list[Block]:
    out: list[Block] = [Heading(f"Accelerator use of {m.name}"), Para(m.source.message, muted=True)]
    if m.note:
        out.append(Para(m.note))
    if m.idle:
        out.append(Para(m.idle))
    if m.devices:
        rows = []
        for d in m.devices:
            values = [v for _t, v in d.utilization]
            used = d.memory_used_mib[-1][1] if d.memory_used_mib else None
            memory = (
                DASH if used is None else f"{used:.0f}" + (f" / {d.memory_total_mib:.0f}" if d.memory_total_mib else "")
            )
            rows.append(
                [
                    d.pod,
                    d.device,
                    _pct(values[-1] if values else None),
                    _pct(sum(values) / len(values) if values else None),
                    _pct(max(values) if values else None),
                    sparkline(values[-40:]) or DASH,
                    f"{memory} MiB" if used is not None else DASH,
                ]
            )
        out.append(Table(["pod", "device", "now", "mean", "max", "recent", "memory"], rows))
        if any(d.simulated for d in m.devices):
            out.append(SIMULATED)
    return out
