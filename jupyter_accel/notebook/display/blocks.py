"""The neutral blocks every renderer produces (headings, sentences, tables, preformatted text), and the two
writers that render any block list: HTML for notebooks, aligned plain text for terminals."""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

DASH = "—"
# The colour of each tone the server gives (models.Tone: job statuses, verdicts, workloads, pods, connection);
# which state has which tone is decided on the server (domain/presentation.py).
_COLOURS = {
    "ok": "var(--jp-success-color1, #388e3c)",
    "info": "var(--jp-info-color1, #0288d1)",
    "warn": "var(--jp-warn-color1, #f57c00)",
    "error": "var(--jp-error-color1, #d32f2f)",
}


# -- blocks ---------------------------------------------------------------------------------------------------


@dataclass
class Heading:
    text: str
    tone: str | None = None  # the server's tone, for the heading's colour


@dataclass
class Para:
    text: str
    muted: bool = False
    tone: str | None = None  # the server's tone, for the sentence's colour (a degraded connection)


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
    """A state in a table cell, in the server's words and tone: coloured in HTML, plain in text."""

    tone: str
    label: str

    def __str__(self) -> str:
        return self.label


# -- writers --------------------------------------------------------------------------------------------------


def _cell_html(value: Any) -> str:
    if isinstance(value, Status):
        colour = _COLOURS.get(value.tone, "inherit")
        return f'<span style="color:{colour};font-weight:600">{html.escape(str(value))}</span>'
    return html.escape(DASH if value is None else str(value))


def to_html(items: Iterable[Block]) -> str:
    parts = ['<div class="jp-accel-view" style="font-size:var(--jp-content-font-size1, 13px)">']
    for b in items:
        if isinstance(b, Heading):
            colour = _COLOURS.get(b.tone or "", "inherit")
            parts.append(
                f'<div style="font-weight:600;margin:0.6em 0 0.2em;color:{colour}">{html.escape(b.text)}</div>'
            )
        elif isinstance(b, Para):
            style = "opacity:0.7;" if b.muted else ""
            if b.tone in _COLOURS:
                style += f"color:{_COLOURS[b.tone]};"
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
