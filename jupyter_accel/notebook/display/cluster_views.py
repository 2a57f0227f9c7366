"""Renderers of the cluster answers: info, connection, inventory, hardware profiles, queues, workloads."""

from __future__ import annotations

from typing import Any

from .blocks import DASH, Block, Heading, Para, Status, Table
from .format import enum_text, opt, visibility_blocks


def _apis_rows(caps: Any) -> list[list[Any]]:
    """The APIs the server reports, then the job kinds of its registry (the apis fields that name kinds too are
    kept for scripts, marked deprecated, and not shown twice)."""
    fields = type(caps.apis).model_fields
    rows: list[list[Any]] = [
        [name, version or "not served"]
        for name, version in caps.apis.model_dump().items()
        if not fields[name].deprecated
    ]
    rows += [
        [f"{k.label} ({k.kubernetes_kind})" + (", the default" if k.default else ""), k.version or "not served"]
        for k in caps.kinds
    ]
    return rows


def info_blocks(m: Any) -> list[Block]:
    c = m.connection
    out: list[Block] = [
        Heading(f"jupyter-accel {m.version} (API {m.api_version})"),
        *_connection_head(c),
    ]
    out += _connection_table(c)
    out.append(Table(["API", "served version"], _apis_rows(m.capabilities)))
    denied = [p for p in m.capabilities.permissions if not p.allowed]
    if denied:
        out.append(
            Table(
                ["verb", "resource", "why"],
                [[p.verb, f"{p.resource}.{p.group}" if p.group else p.resource, opt(p.reason)] for p in denied],
                caption="Not allowed for this identity",
            )
        )
    if m.capabilities.read_only:
        out.append(Para("Read-only: the administrator disabled launching and controlling jobs.", muted=True))
    return out


def data_blocks(m: Any) -> list[Block]:
    """`%accel data`: what a job can mount, and how (the magics' --volume / --secret)."""
    out: list[Block] = [Heading("Data for jobs")]
    for key, what in (("claims", "PVCs"), ("connections", "Connections")):
        if key in m.visibility:
            out += visibility_blocks(m.visibility[key], what)
    out.append(
        Table(
            ["PVC", "access", "size", "class", "phase", "note"],
            [
                [c.name, ", ".join(c.access_modes), opt(c.capacity), opt(c.storage_class), opt(c.phase), opt(c.note)]
                for c in m.claims
            ],
            caption="Mount one with --volume CLAIM:PATH[:ro]",
            empty="No PVCs.",
        )
    )
    out.append(
        Table(
            ["connection", "name shown", "type"],
            [[c.name, opt(c.display_name), c.connection_type] for c in m.connections],
            caption="Give one with --secret NAME (environment) or --secret NAME:PATH (files)",
            empty="No connections.",
        )
    )
    return out


def doctor_blocks(m: Any) -> list[Block]:
    """`%accel doctor`: the connection, then the compatibility report of the served stack (InfoResponse)."""
    out: list[Block] = [Heading("jupyter-accel doctor"), *_connection_head(m.connection)]
    report = m.capabilities.compatibility
    if report is None:
        return [*out, Para("Not connected: nothing is known of the cluster's stack.", muted=True)]
    for caption, items, tone in (
        ("What will not work here", report.missing, "warn"),
        ("Deprecated APIs in use", report.deprecated, "warn"),
        ("Available", report.features, None),
        ("Served APIs", report.served, None),
    ):
        if items:
            out.append(Heading(caption, tone=tone))
            out += [Para(f"• {item}") for item in items]
    return out


def _connection_table(c: Any) -> list[Block]:
    return [
        Table(
            ["identity", "namespace", "user", "Kubernetes"],
            [[enum_text(c.identity), opt(c.namespace), opt(c.user), opt(c.kubernetes_version)]],
        )
    ]


def _connection_head(c: Any) -> list[Block]:
    label = c.label or enum_text(c.state)
    mid_sentence = label[:1].lower() + label[1:]
    out: list[Block] = [Heading(f"Kubernetes: {mid_sentence}", tone=enum_text(c.tone)), Para(c.message)]
    if c.degraded is not None:  # the API server slow, throttling, failing, or the watches reconnecting
        out.append(Para(c.degraded.message, tone=enum_text(c.degraded.tone)))
    reads = c.cluster_reads
    if reads is not None and reads.url:  # a read service is configured: say whether this server uses it
        out.append(Para(reads.message, muted=True))
    return out


def connection_blocks(c: Any) -> list[Block]:
    return [*_connection_head(c), *_connection_table(c)]


def inventory_blocks(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Accelerators")]
    out += visibility_blocks(m.visibility, "Nodes")
    out += visibility_blocks(m.pods_visibility, "Pods (allocated and free figures need them)")
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
                    opt(s.memory_text),
                    s.node_count,
                    s.allocatable,
                    opt(s.allocated),
                    opt(s.free),
                    opt(s.free_on_usable_nodes),
                    opt(s.largest_free_per_node),
                ]
                for s in m.models
            ],
            empty="No accelerators found on the visible nodes.",
        )
    )
    if m.free_source:
        out.append(Para(m.free_source, muted=True))
    if m.node_count:
        nodes = "1 node has" if m.node_count == 1 else f"{m.node_count} nodes have"
        out.append(Para(f"{nodes} accelerators: `%accel nodes` lists them.", muted=True))
    return out


def inventory_nodes_blocks(m: Any) -> list[Block]:
    what = "Nodes" if m.model is None else f"Nodes with {m.model.split('|', 1)[1]}"
    out: list[Block] = [Heading(what)]
    out += visibility_blocks(m.visibility, "Nodes")
    out += visibility_blocks(m.pods_visibility, "Pods (allocated and free figures need them)")
    rows = []
    for n in m.nodes:
        accel = (
            "; ".join(
                f"{a.model}: {a.free if a.free is not None else '?'}/{a.allocatable} free" for a in n.accelerators
            )
            or DASH
        )
        cpu, mem = (
            f"{u.text.get('free', DASH)}/{u.text.get('allocatable', DASH)}" if u else DASH for u in (n.cpu, n.memory)
        )
        rows.append([n.name, Status(enum_text(n.tone), n.label), accel, cpu, mem])
    shown = f"{m.offset + 1}-{m.offset + len(m.nodes)} of {m.total}" if m.nodes else f"none of {m.total}"
    out.append(
        Table(
            ["node", "state", "accelerators (free/allocatable)", "cpu free", "memory free"],
            rows,
            caption=f"Nodes {shown}",
            empty="No nodes visible.",
        )
    )
    if m.offset + len(m.nodes) < m.total:
        out.append(Para(f"More: `%accel nodes --offset {m.offset + len(m.nodes)}`.", muted=True))
    return out


def profiles_blocks(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Hardware profiles"), *visibility_blocks(m.visibility, "Hardware profiles")]
    rows = []
    for p in m.profiles:
        ids = ", ".join(f"{i.identifier} {i.default_count} ({i.min_count}-{i.max_count or '∞'})" for i in p.identifiers)
        rows.append(
            [
                p.name,
                p.display_name,
                opt(p.accelerator),
                opt(p.scheduling_type),
                opt(p.local_queue_name),
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


def queues_blocks(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Queues"), *visibility_blocks(m.visibility, "LocalQueues")]
    if not m.queues and m.visibility.visible:
        out.append(Para("No Kueue LocalQueues in this namespace.", muted=True))
    for q in m.queues:
        title = f"{q.name} → {q.cluster_queue}" + (" (default)" if q.is_default else "")
        if q.cohort:
            title += f", cohort {q.cohort}"
        out.append(Heading(title, tone=None if q.active is not False else "error"))
        facts = f"{q.pending_workloads} pending, {q.reserving_workloads} reserving, {q.admitted_workloads} admitted"
        if q.status_message and q.active is False:
            facts += f" — {q.status_message}"
        out.append(Para(facts))
        out += visibility_blocks(q.cluster_queue_visibility, "ClusterQueue quota")
        rows = [
            [
                f.name + (f" ({f.accelerator_model})" if f.accelerator_model else ""),
                r.resource,
                *(
                    r.text.get(f, DASH)
                    for f in ("nominal", "reserved", "free", "borrowable", "available", "max_capacity")
                ),
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


def workloads_blocks(m: Any) -> list[Block]:
    out: list[Block] = [
        Heading("Workloads"),
        *visibility_blocks(m.visibility, "Workloads"),
        *visibility_blocks(m.positions_visibility, "Queue positions"),
    ]
    rows = [
        [
            w.name,
            f"{w.owner_kind}/{w.owner_name}" if w.owner_kind else DASH,
            opt(w.queue_name),
            Status(enum_text(w.tone), w.label),
            opt(w.place),
            opt(w.priority),
            w.message,
        ]
        for w in m.workloads
    ]
    out.append(
        Table(["workload", "owner", "queue", "state", "in line", "priority", "why"], rows, empty="No workloads.")
    )
    return out


def workbench_blocks(m: Any) -> list[Block]:
    """`%accel workbench`: this workbench's Notebook (WorkbenchView)."""
    out: list[Block] = [Heading("This workbench"), *visibility_blocks(m.visibility, "The workbench"), Para(m.message)]
    if not m.found:
        return out
    managed = {True: "yes", False: "no", None: "not visible to your account"}[m.kueue_managed]
    rows = [
        ["hardware profile", opt(m.profile_display_name or m.hardware_profile)],
        ["requests", ", ".join(f"{k} {v}" for k, v in sorted(m.requests.items())) or DASH],
        ["limits", ", ".join(f"{k} {v}" for k, v in sorted(m.limits.items())) or DASH],
        ["queue", opt(m.queue)],
        ["Kueue-managed project", managed],
    ]
    out.append(Table(["", ""], rows, caption="Change it with %accel workbench --profile NAME (see %accel profiles)"))
    return out


def workbench_change_blocks(m: Any) -> list[Block]:
    """A change of the workbench's profile (WorkbenchProfileResponse): the fit, the patch, the warning."""
    from .job_views import fit_blocks

    state = "Changed" if m.applied else "Not changed yet (preview)"
    out: list[Block] = [Heading(f"{state}: workbench {opt(m.workbench.name)}", tone="ok" if m.applied else None)]
    out.append(Para(m.warning, tone="warn"))
    out += fit_blocks(m.fit)
    out.append(
        Table(
            ["op", "path", "value"],
            [[op.get("op"), op.get("path"), opt(op.get("value"))] for op in m.patch],
            caption="The patch of the Notebook",
            empty="Nothing to change: it already has this profile.",
        )
    )
    if m.applied:
        out.append(Para("The platform applies it when it restarts the workbench.", muted=True))
    return out
