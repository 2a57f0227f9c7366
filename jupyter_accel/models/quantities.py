"""How a quantity reads, decided once: the text fields beside the wire's numbers (`text`, `*_text`) are made by
these functions when a model is built, so the server sends them and every front-end shows them as given. Pure
stdlib: the domain's sentences use the same functions (domain/resources.py)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal, localcontext

_BINARY = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))


def _memory_like(resource: str) -> bool:
    return (
        resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-") or resource.endswith("memory")
    )


def _trim(value: Decimal, places: int) -> str:
    text = f"{value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_quantity(resource: str, value: Decimal | float | int) -> str:
    """A base-unit figure as people read it: bytes in the largest binary unit it reaches (64Gi, 1.5Ti), cores and
    device counts as plain numbers (0.5, 8)."""
    v = Decimal(str(value))
    if not v.is_finite():
        return str(v)
    with localcontext() as ctx:  # digits for any magnitude a request may carry: the default 28 refuse 1e30 to 2 places
        ctx.prec = max(ctx.prec, v.adjusted() + 8)
        if _memory_like(resource):
            for suffix, size in _BINARY:
                if abs(v) >= size:
                    return _trim(v / size, 2) + suffix
            return _trim(v, 0)
        return _trim(v, 3)


def device_memory(mib: int | None) -> str | None:
    """An accelerator's own memory (node labels give MiB), rounded as its product name says it: 81559 -> 80 GiB,
    9728 -> 9.5 GiB, under a GiB in MiB."""
    if mib is None:
        return None
    if mib < 1024:
        return f"{mib} MiB"
    gib = Decimal(mib) / 1024
    return f"{_trim(gib, 0 if gib >= 10 else 1)} GiB"


def quantity_texts(resource: str, figures: Mapping[str, Decimal | float | int | None]) -> dict[str, str]:
    """The text of each known figure of one resource, by the figure's name."""
    return {name: format_quantity(resource, v) for name, v in figures.items() if v is not None}


def requests_texts(requests: Mapping[str, Decimal | float | int]) -> dict[str, str]:
    """The text of each resource's amount, by resource."""
    return {r: format_quantity(r, v) for r, v in requests.items()}
