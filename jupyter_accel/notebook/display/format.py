"""Cell and value formatting shared by the renderers."""

from __future__ import annotations

from typing import Any

from .blocks import DASH, Block, Para


def enum_text(value: Any) -> str:
    return str(getattr(value, "value", value))


def amount(resource: str, value: float | None) -> str:
    """A base-unit figure as a person reads it: 2.5 (cores), 64Gi (bytes), 8 (devices)."""
    if value is None:
        return DASH
    if resource == "memory" or resource.endswith("memory") or resource == "ephemeral-storage":
        for unit, size in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if abs(value) >= size:
                return f"{number_text(value / size)}{unit}"
        return number_text(value)
    return number_text(value)


def number_text(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def requests_text(requests: dict[str, float]) -> str:
    return ", ".join(f"{k}={amount(k, v)}" for k, v in requests.items()) or DASH


def opt(value: Any) -> str:
    return DASH if value is None or value == "" else enum_text(value)


def visibility_blocks(vis: Any, what: str) -> list[Block]:
    if vis is not None and not vis.visible:
        return [Para(f"{what}: {vis.message or 'not visible to your account'}", muted=True)]
    return []


# -- renderers ------------------------------------------------------------------------------------------------
