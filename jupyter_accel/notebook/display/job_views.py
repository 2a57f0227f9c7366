"""Renderers of the job answers: the fit check, job lists and details, submit and clean-up results."""

from __future__ import annotations

from typing import Any

from .blocks import DASH, Block, Heading, Para, Status, Table
from .format import enum_text, kind_text, opt, texts_text, visibility_blocks


def fit_blocks(m: Any) -> list[Block]:
    out: list[Block] = [Heading(m.label, tone=enum_text(m.tone)), Para(m.message)]
    if m.local_queue or m.cluster_queue:
        out.append(Para(f"Queue {opt(m.local_queue)} → {opt(m.cluster_queue)}", muted=True))
    if m.quota:
        out.append(
            Table(
                ["role", "flavor", "resource", "needed", "free", "borrowable", "available", "max", "fits now"],
                [
                    [
                        q.role,
                        q.flavor,
                        q.resource,
                        *(
                            q.text.get(f, DASH)
                            for f in ("needed_in_flavor", "free", "borrowable", "available", "max_capacity")
                        ),
                        "yes" if q.fits_now else "no",
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
                        texts_text(r.requests_text),
                        opt(r.eligible_nodes),
                        opt(r.placeable_now),
                        "; ".join(r.problems) or DASH,
                    ]
                    for r in m.roles
                ],
                caption="Placement",
            )
        )
    if m.ahead:
        out.append(ahead_table(m.ahead))
    out += visibility_blocks(m.quota_visibility, "Quota")
    out += visibility_blocks(m.nodes_visibility, "Nodes")
    out += [Para(n, muted=True) for n in m.notes]
    if m.image:
        out.append(Para(f"Image: {m.image}", muted=True))
    if m.approximate:
        out.append(Para("Borrowing or bin-packing figures are estimates.", muted=True))
    return out


def ahead_table(ahead: Any) -> Table:
    """Workloads queued ahead (PendingAhead): of a fit check, or of a queued job."""
    return Table(
        ["workload", "owner", "priority", "in line", "asks for"],
        [
            [
                a.name,
                f"{a.owner_kind}/{a.owner_name}" if a.owner_kind else DASH,
                opt(a.priority),
                opt(a.place),
                texts_text(a.requests_text),
            ]
            for a in ahead
        ],
        caption="Queued ahead",
    )


def _gpus(job: Any) -> str:
    req = job.accelerators_requested or {}
    held = job.accelerators or {}
    if not req and not held:
        return DASH
    return ", ".join(f"{held.get(k, 0)}/{v} {k}" for k, v in (req or held).items())


def jobs_blocks(m: Any) -> list[Block]:
    out: list[Block] = [Heading("Jobs" if m.scope == "namespace" else "Jobs launched from this workbench")]
    for kind, vis in m.visibility.items():
        out += visibility_blocks(vis, enum_text(kind))
    rows = [
        [
            kind_text(j.kind),
            j.name,
            Status(enum_text(j.display.tone), j.display.label),
            j.display.sentence,
            opt(j.queue),
            opt(j.display.place),
            opt(j.display.time_limit or j.display.eta),
            opt(j.progress.text if j.progress else None),
            _gpus(j),
            opt(j.created),
        ]
        for j in m.jobs
    ]
    out.append(
        Table(
            [
                *("kind", "name", "status", "reason", "queue", "in line", "time", "progress"),
                *("accelerators held/asked", "created"),
            ],
            rows,
            empty="No jobs.",
        )
    )
    return out


def job_blocks(j: Any) -> list[Block]:
    out: list[Block] = [
        Heading(f"{enum_text(j.kind)} {j.name}: {j.display.label}", tone=enum_text(j.display.tone)),
        Para(j.display.sentence),
        *([Para(t) for t in (j.display.warning, j.display.eta, j.display.time_limit) if t]),
        *([Para(f"Progress: {j.progress.text}")] if j.progress else []),
        *([Para(f"Kueue: {j.display.detail}", muted=True)] if j.display.detail else []),
    ]
    # the heading names the job as the magics take it (kind and name); the facts say what the kind is called
    facts = [kind_text(j.kind), f"namespace {j.namespace}", f"queue {opt(j.queue)}"]
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
                        opt(p.role),
                        opt(p.node) + (" (simulated: runs no code)" if getattr(p, "simulated", False) else ""),
                        Status(enum_text(p.tone), opt(p.phase)),
                        "yes" if p.ready else "no",
                        p.restarts,
                        opt(p.reason),
                    ]
                    for p in j.pods
                ],
                caption="Pods",
            )
        )
    return out


def job_detail_blocks(d: Any) -> list[Block]:
    out = job_blocks(d.job)
    if d.job.ahead:
        out.append(ahead_table(d.job.ahead))
    if d.dashboard_path:
        out.append(Para(f"Ray dashboard: <server>/{d.dashboard_path.lstrip('/')}", muted=True))
    if d.ray_jobs is not None:
        out.append(
            Table(
                ["submission", "status", "started", "ended", "entrypoint"],
                [
                    [r.submission_id, r.status, opt(r.start_time), opt(r.end_time), opt(r.entrypoint)]
                    for r in d.ray_jobs[:20]
                ],
                caption="Ray jobs on it (newest first; %accel connect NAME for Ray's own tools)",
                empty="No Ray job submitted to it yet.",
            )
        )
    if d.ray_jobs_note:
        out.append(Para(d.ray_jobs_note, muted=True))
    if d.events:
        out.append(
            Table(
                ["last seen", "type", "reason", "object", "count", "message"],
                [
                    [opt(e.last_seen), opt(e.type), opt(e.reason), e.object, e.count, opt(e.message)]
                    for e in d.events[-10:]
                ],
                caption="Events (latest 10)",
            )
        )
    return out


def submitted_blocks(r: Any) -> list[Block]:
    verb = "Submitted" if r.created else "Already submitted (same client_request_id)"
    return [Para(f"{verb}: {', '.join(r.objects) or r.job.name}", muted=True), *job_blocks(r.job)]


def cleanup_blocks(r: Any) -> list[Block]:
    verb = "Would delete" if r.dry_run else "Deleted"
    return [Heading(f"{verb} {len(r.deleted)} finished job(s)"), *[Para(n) for n in r.deleted]]
