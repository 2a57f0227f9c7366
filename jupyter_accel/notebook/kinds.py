"""The job kinds as the server's /info describes them (its registry, domain/kinds/): what people call them and
which one a form or magic offers first. A client learns them from the /info answers it reads (AccelClient.kinds);
a display shows a kind's label while it renders with them (View(kinds=...)), else the kind's wire value."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_SHOWN: ContextVar[Sequence[Any]] = ContextVar("jupyter_accel_kinds", default=())


@contextmanager
def shown_with(kinds: Sequence[Any]) -> Iterator[None]:
    """Render with these kinds (JobKindInfo, as /info sent them)."""
    token = _SHOWN.set(tuple(kinds))
    try:
        yield
    finally:
        _SHOWN.reset(token)


def label(kind: Any) -> str:
    """What people call a kind ('Ray cluster'); its wire value when no /info answer is at hand."""
    value = str(getattr(kind, "value", kind))
    return next((k.label for k in _SHOWN.get() if str(k.kind) == value), value)


def default(kinds: Sequence[Any]) -> str | None:
    """The kind the server offers first; None when it names none."""
    return next((str(k.kind) for k in kinds if k.default), None)
