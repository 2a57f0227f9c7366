"""Rich display of API answers: HTML in notebooks (`_repr_html_`), aligned plain text in terminals.

Each renderer turns one model into a few neutral blocks (headings, sentences, tables); one HTML writer and one
text writer render every block, so a model's layout is written once for both outputs.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

DASH = "—"
# Tones of the states the server sends without one (connection, workload, pod phase); job statuses and fit
# verdicts carry the server's own tone (display.tone, tone), one of the first five keys.
_TONES = {
    "ok": "good",
    "info": "info",
    "warn": "warn",
    "error": "bad",
    "neutral": "",
    "Running": "good",
    "Succeeded": "good",
    "connected": "good",
    "running": "good",
    "admitted": "good",
    "succeeded": "good",
    "not_configured": "warn",
    "pending": "warn",
    "quota_reserved": "warn",
    "inactive": "warn",
    "evicted": "warn",
    "Failed": "bad",
    "failed": "bad",
}
_COLOURS = {
    "good": "var(--jp-success-color1, #388e3c)",
    "info": "var(--jp-info-color1, #0288d1)",
    "warn": "var(--jp-warn-color1, #f57c00)",
    "bad": "var(--jp-error-color1, #d32f2f)",
}


# -- blocks ---------------------------------------------------------------------------------------------------


@dataclass
class Heading:
    text: str
    tone_of: str | None = None  # a status value whose colour the heading takes


@dataclass
class Para:
    text: str
    muted: bool = False


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Any]]
    caption: str | None = None
    empty: str = "none"


@dataclass
class Pre:
    text: str


Block = Heading | Para | Table | Pre


@dataclass
class Status:
    """A status value in a table cell: coloured in HTML, plain in text."""

    value: str
    label: str | None = None

    def __str__(self) -> str:
        return self.label or self.value


# -- formatting -----------------------------------------------------------------------------------------------


def _enum(value: Any) -> str:
    return str(getattr(value, "value", value))


def amount(resource: str, value: float | None) -> str:
    """A base-unit figure as a person reads it: 2.5 (cores), 64Gi (bytes), 8 (devices)."""
    if value is None:
        return DASH
    if resource == "memory" or resource.endswith("memory") or resource == "ephemeral-storage":
        for unit, size in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if abs(value) >= size:
                return f"{_number(value / size)}{unit}"
        return _number(value)
    return _number(value)


def _number(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _requests(requests: dict[str, float]) -> str:
    return ", ".join(f"{k}={amount(k, v)}" for k, v in requests.items()) or DASH


def _opt(value: Any) -> str:
    return DASH if value is None or value == "" else _enum(value)


def _visibility(vis: Any, what: str) -> list[Block]:
    if vis is not None and not vis.visible:
        return [Para(f"{what}: {vis.message or 'not visible to your account'}", muted=True)]
    return []


# -- renderers ------------------------------------------------------------------------------------------------


def _info(m: Any) -> list[Block]:
    c = m.connection
    out: list[Block] = [
        Heading(f"jupyter-accel {m.version} (API {m.api_version})"),
        Heading(f"Kubernetes: {_enum(c.state).replace('_', ' ')}", tone_of=_enum(c.state)),
        Para(c.message),
    ]
    out += _connection_table(c)
    apis = m.capabilities.apis.model_dump()
    out.append(Table(["API", "served version"], [[k, v or "not served"] for k, v in apis.items()]))
    denied = [p for p in m.capabilities.permissions if not p.allowed]
    if denied:
        out.append(
            Table(
                ["verb", "resource", "why"],
                [[p.verb, f"{p.resource}.{p.group}" if p.group else p.resource, _opt(p.reason)] for p in denied],
                caption="Not allowed for this identity",
            )
        )
    if m.capabilities.read_only:
        out.append(Para("Read-only: the administrator disabled launching and controlling jobs.", muted=True))
    return out


def _connection_table(c: Any) -> list[Block]:
    return [
        Table(
            ["identity", "namespace", "user", "Kubernetes"],
            [[_enum(c.identity), _opt(c.namespace), _opt(c.user), _opt(c.kubernetes_version)]],
        )
    ]


def _connection(c: Any) -> list[Block]:
    return [
        Heading(f"Kubernetes: {_enum(c.state).replace('_', ' ')}", tone_of=_enum(c.state)),
        Para(c.message),
        *_connection_table(c),
    ]


def _inventory(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Accelerators")]
    out += _visibility(m.visibility, "Nodes")
    out += _visibility(m.pods_visibility, "Pods (allocated and free figures need them)")
    out.append(
        Table(
            [
                "model",
                "resource",
                "memory",
                "nodes",
                "allocatable",
                "allocated",
                "free",
                "free on usable nodes",
                "most free on one node",
            ],
            [
                [
                    s.model,
                    s.resource,
                    f"{round(s.memory_mib / 1024)} GiB" if s.memory_mib else DASH,
                    s.node_count,
                    s.allocatable,
                    _opt(s.allocated),
                    _opt(s.free),
                    _opt(s.free_on_usable_nodes),
                    _opt(s.largest_free_per_node),
                ]
                for s in m.models
            ],
            empty="No accelerators found on the visible nodes.",
        )
    )
    rows = []
    for n in m.nodes:
        accel = (
            "; ".join(
                f"{a.model}: {a.free if a.free is not None else '?'}/{a.allocatable} free" for a in n.accelerators
            )
            or DASH
        )
        state = "Ready" if n.ready else "NotReady"
        if n.unschedulable:
            state += ", cordoned"
        cpu = f"{amount('cpu', n.cpu.free)}/{amount('cpu', n.cpu.allocatable)}" if n.cpu else DASH
        mem = f"{amount('memory', n.memory.free)}/{amount('memory', n.memory.allocatable)}" if n.memory else DASH
        rows.append([n.name, Status("Running" if n.usable else "Failed", state), accel, cpu, mem])
    out.append(
        Table(
            ["node", "state", "accelerators (free/allocatable)", "cpu free", "memory free"],
            rows,
            caption="Nodes",
            empty="No nodes visible.",
        )
    )
    return out


def _profiles(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Hardware profiles"), *_visibility(m.visibility, "Hardware profiles")]
    rows = []
    for p in m.profiles:
        ids = ", ".join(f"{i.identifier} {i.default_count} ({i.min_count}-{i.max_count or '∞'})" for i in p.identifiers)
        rows.append(
            [
                p.name,
                p.display_name,
                _opt(p.accelerator),
                _opt(p.scheduling_type),
                _opt(p.local_queue_name),
                ids or DASH,
                "yes" if p.enabled else "no",
            ]
        )
    out.append(
        Table(
            ["name", "display name", "accelerator", "scheduling", "queue", "resources: default (range)", "enabled"],
            rows,
            empty="No hardware profiles.",
        )
    )
    return out


def _queues(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Queues"), *_visibility(m.visibility, "LocalQueues")]
    if not m.queues and m.visibility.visible:
        out.append(Para("No Kueue LocalQueues in this namespace.", muted=True))
    for q in m.queues:
        title = f"{q.name} → {q.cluster_queue}" + (" (default)" if q.is_default else "")
        if q.cohort:
            title += f", cohort {q.cohort}"
        out.append(Heading(title, tone_of=None if q.active is not False else "error"))
        facts = f"{q.pending_workloads} pending, {q.reserving_workloads} reserving, {q.admitted_workloads} admitted"
        if q.status_message and q.active is False:
            facts += f" — {q.status_message}"
        out.append(Para(facts))
        out += _visibility(q.cluster_queue_visibility, "ClusterQueue quota")
        rows = [
            [
                f.name + (f" ({f.accelerator_model})" if f.accelerator_model else ""),
                r.resource,
                amount(r.resource, r.nominal),
                amount(r.resource, r.reserved),
                amount(r.resource, r.free),
                amount(r.resource, r.borrowable),
                amount(r.resource, r.available),
                amount(r.resource, r.max_capacity),
            ]
            for f in q.flavors
            for r in f.resources
        ]
        out.append(
            Table(
                ["flavor", "resource", "nominal", "reserved", "free", "borrowable", "available now", "max"],
                rows,
                empty="No quota visible.",
            )
        )
        if q.borrowing_approximate:
            out.append(Para("Borrowing figures are estimates.", muted=True))
    return out


def _workloads(m: Any) -> list[Block]:
    out: list[Block] = [
        Heading("Workloads"),
        *_visibility(m.visibility, "Workloads"),
        *_visibility(m.positions_visibility, "Queue positions"),
    ]
    rows = [
        [
            w.name,
            f"{w.owner_kind}/{w.owner_name}" if w.owner_kind else DASH,
            _opt(w.queue_name),
            Status(_enum(w.state)),
            _opt(w.position_in_local_queue),
            _opt(w.priority),
            w.message,
        ]
        for w in m.workloads
    ]
    out.append(
        Table(["workload", "owner", "queue", "state", "position", "priority", "why"], rows, empty="No workloads.")
    )
    return out


def _fit(m: Any) -> list[Block]:
    out: list[Block] = [Heading(m.label, tone_of=_enum(m.tone)), Para(m.message)]
    if m.local_queue or m.cluster_queue:
        out.append(Para(f"Queue {_opt(m.local_queue)} → {_opt(m.cluster_queue)}", muted=True))
    if m.quota:
        out.append(
            Table(
                ["role", "flavor", "resource", "needed", "free", "borrowable", "available", "max", "fits now"],
                [
                    [
                        q.role,
                        q.flavor,
                        q.resource,
                        amount(q.resource, q.needed_in_flavor),
                        amount(q.resource, q.free),
                        amount(q.resource, q.borrowable),
                        amount(q.resource, q.available),
                        amount(q.resource, q.max_capacity),
                        Status(
                            "fits_now" if q.fits_now else ("must_queue" if q.ever_fits else "never_fits"),
                            "yes" if q.fits_now else "no",
                        ),
                    ]
                    for q in m.quota
                ],
                caption="Quota",
            )
        )
    if m.roles:
        out.append(
            Table(
                ["role", "pods", "per pod", "eligible nodes", "placeable now", "problems"],
                [
                    [
                        r.role,
                        r.count,
                        _requests(r.requests),
                        _opt(r.eligible_nodes),
                        _opt(r.placeable_now),
                        "; ".join(r.problems) or DASH,
                    ]
                    for r in m.roles
                ],
                caption="Placement",
            )
        )
    if m.ahead:
        out.append(
            Table(
                ["workload", "owner", "priority", "position", "asks for"],
                [
                    [
                        a.name,
                        f"{a.owner_kind}/{a.owner_name}" if a.owner_kind else DASH,
                        _opt(a.priority),
                        _opt(a.position_in_local_queue),
                        _requests(a.requests),
                    ]
                    for a in m.ahead
                ],
                caption="Queued ahead",
            )
        )
    out += _visibility(m.quota_visibility, "Quota")
    out += _visibility(m.nodes_visibility, "Nodes")
    out += [Para(n, muted=True) for n in m.notes]
    if m.approximate:
        out.append(Para("Borrowing or bin-packing figures are estimates.", muted=True))
    return out


def _gpus(job: Any) -> str:
    req = job.accelerators_requested or {}
    held = job.accelerators or {}
    if not req and not held:
        return DASH
    return ", ".join(f"{held.get(k, 0)}/{v} {k}" for k, v in (req or held).items())


def _jobs(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Jobs" if m.scope == "namespace" else "Jobs launched from this workbench")]
    for kind, vis in m.visibility.items():
        out += _visibility(vis, _enum(kind))
    rows = [
        [
            _enum(j.kind),
            j.name,
            Status(_enum(j.display.tone), j.display.label),
            j.display.sentence,
            _opt(j.queue),
            _opt(j.display.place),
            _gpus(j),
            _opt(j.created),
        ]
        for j in m.jobs
    ]
    out.append(
        Table(
            ["kind", "name", "status", "reason", "queue", "in line", "accelerators held/asked", "created"],
            rows,
            empty="No jobs.",
        )
    )
    return out


def _job(j: Any) -> list[Block]:
    out: list[Block] = [
        Heading(f"{_enum(j.kind)} {j.name}: {j.display.label}", tone_of=_enum(j.display.tone)),
        Para(j.display.sentence),
    ]
    facts = [f"namespace {j.namespace}", f"queue {_opt(j.queue)}"]
    if j.display.place:
        facts.append(j.display.place)
    if j.accelerators_requested or j.accelerators:
        facts.append(f"accelerators {_gpus(j)}")
    out.append(Para(", ".join(facts), muted=True))
    if j.pods:
        out.append(
            Table(
                ["pod", "role", "node", "phase", "ready", "restarts", "reason"],
                [
                    [
                        p.name,
                        _opt(p.role),
                        _opt(p.node),
                        Status(_opt(p.phase)),
                        "yes" if p.ready else "no",
                        p.restarts,
                        _opt(p.reason),
                    ]
                    for p in j.pods
                ],
                caption="Pods",
            )
        )
    return out


def _job_detail(d: Any) -> list[Block]:
    out = _job(d.job)
    if d.dashboard_path:
        out.append(Para(f"Ray dashboard: <server>/{d.dashboard_path.lstrip('/')}", muted=True))
    if d.events:
        out.append(
            Table(
                ["last seen", "type", "reason", "object", "count", "message"],
                [
                    [_opt(e.last_seen), _opt(e.type), _opt(e.reason), e.object, e.count, _opt(e.message)]
                    for e in d.events[-10:]
                ],
                caption="Events (latest 10)",
            )
        )
    return out


def _submitted(r: Any) -> list[Block]:
    verb = "Submitted" if r.created else "Already submitted (same client_request_id)"
    return [Para(f"{verb}: {', '.join(r.objects) or r.job.name}", muted=True), *_job(r.job)]


def _cleanup(r: Any) -> list[Block]:
    verb = "Would delete" if r.dry_run else "Deleted"
    return [Heading(f"{verb} {len(r.deleted)} finished job(s)"), *[Para(n) for n in r.deleted]]


def _generic(m: Any) -> list[Block]:
    data = m.model_dump(mode="json") if hasattr(m, "model_dump") else dict(m)
    rows = [[k, v if isinstance(v, str | int | float | bool) or v is None else _compact(v)] for k, v in data.items()]
    return [Heading(type(m).__name__), Table(["field", "value"], rows)]


def _compact(value: Any) -> str:
    import json

    text = json.dumps(value)
    return text if len(text) <= 200 else text[:197] + "..."


RENDERERS: dict[str, Callable[[Any], list[Block]]] = {
    "InfoResponse": _info,
    "Connection": _connection,
    "InventoryResponse": _inventory,
    "HardwareProfilesResponse": _profiles,
    "QueuesResponse": _queues,
    "WorkloadsResponse": _workloads,
    "FitResponse": _fit,
    "JobsResponse": _jobs,
    "JobView": _job,
    "JobDetail": _job_detail,
    "SubmitResponse": _submitted,
    "CleanupResponse": _cleanup,
}


def blocks(model: Any) -> list[Block]:
    for cls in type(model).__mro__:
        if cls.__name__ in RENDERERS:
            return RENDERERS[cls.__name__](model)
    return _generic(model)


# -- writers --------------------------------------------------------------------------------------------------


def _cell_html(value: Any) -> str:
    if isinstance(value, Status):
        colour = _COLOURS.get(_TONES.get(value.value, ""), "inherit")
        return f'<span style="color:{colour};font-weight:600">{html.escape(str(value))}</span>'
    return html.escape(DASH if value is None else str(value))


def to_html(items: Iterable[Block]) -> str:
    parts = ['<div class="jp-accel-view" style="font-size:var(--jp-content-font-size1, 13px)">']
    for b in items:
        if isinstance(b, Heading):
            colour = _COLOURS.get(_TONES.get(b.tone_of or "", ""), "inherit")
            parts.append(
                f'<div style="font-weight:600;margin:0.6em 0 0.2em;color:{colour}">{html.escape(b.text)}</div>'
            )
        elif isinstance(b, Para):
            style = "opacity:0.7;" if b.muted else ""
            parts.append(f'<div style="{style}margin:0.1em 0">{html.escape(b.text)}</div>')
        elif isinstance(b, Pre):
            parts.append(f'<pre style="max-height:20em;overflow:auto">{html.escape(b.text)}</pre>')
        elif isinstance(b, Table):
            if b.caption:
                parts.append(f'<div style="font-weight:600;margin-top:0.4em">{html.escape(b.caption)}</div>')
            if not b.rows:
                parts.append(f'<div style="opacity:0.7">{html.escape(b.empty)}</div>')
                continue
            head = "".join(f'<th style="text-align:left">{html.escape(h)}</th>' for h in b.headers)
            body = "".join(
                "<tr>" + "".join(f'<td style="text-align:left">{_cell_html(c)}</td>' for c in row) + "</tr>"
                for row in b.rows
            )
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    parts.append("</div>")
    return "".join(parts)


def to_text(items: Iterable[Block]) -> str:
    lines: list[str] = []
    for b in items:
        if isinstance(b, Heading):
            if lines:
                lines.append("")
            lines.append(b.text)
        elif isinstance(b, Para | Pre):
            lines.append(b.text)
        elif isinstance(b, Table):
            if b.caption:
                lines.append(f"{b.caption}:")
            if not b.rows:
                lines.append(f"  ({b.empty})")
                continue
            cells = [[DASH if c is None else str(c) for c in row] for row in b.rows]
            widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(b.headers)]
            fmt = "  ".join(f"{{:<{w}}}" for w in widths)
            lines.append(fmt.format(*b.headers).rstrip())
            lines.append("  ".join("-" * w for w in widths))
            lines += [fmt.format(*r).rstrip() for r in cells]
    return "\n".join(lines)


@dataclass
class View:
    """Wraps an API answer (a model instance) for display; `.model` is the answer itself."""

    model: Any
    extra: list[Block] = field(default_factory=list)

    def blocks(self) -> list[Block]:
        return blocks(self.model) + self.extra

    def _repr_html_(self) -> str:
        return to_html(self.blocks())

    def __repr__(self) -> str:
        return to_text(self.blocks())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


def view(model: Any) -> View:
    return View(model)
