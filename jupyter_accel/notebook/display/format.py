"""Cell and value formatting shared by the renderers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...models.quantities import format_quantity
from .. import kinds
from .blocks import DASH, Block, Para


def enum_text(value: Any) -> str:
    return str(getattr(value, "value", value))


def amount(resource: str, value: float | None) -> str:
    """A base-unit figure as the server words it (models/quantities.py), for a notebook's own figures; the
    renderers show the text fields the server sends."""
    return DASH if value is None else format_quantity(resource, value)


def texts_text(texts: dict[str, str]) -> str:
    """The server's per-resource texts as one cell: nvidia.com/gpu=16, memory=64Gi."""
    return ", ".join(f"{k}={v}" for k, v in texts.items()) or DASH


def kind_text(kind: Any) -> str:
    """A job kind as the server's /info calls it."""
    return kinds.label(kind)


def opt(value: Any) -> str:
    return DASH if value is None or value == "" else enum_text(value)


def visibility_blocks(vis: Any, what: str) -> list[Block]:
    if vis is not None and not vis.visible:
        return [Para(f"{what}: {vis.message or 'not visible to your account'}", muted=True)]
    return []


# -- renderers ------------------------------------------------------------------------------------------------


def sparkline(values: Sequence[float], top: float = 100.0) -> str:
    """Eighths blocks for text views (a terminal, the JobMonitor's line): '▁▃▇█'. The sidebar draws real charts."""
    blocks = "▁▂▃▄▅▆▇█"
    return "".join(blocks[min(7, max(0, int(v / top * 8)))] if top > 0 else blocks[0] for v in values)
