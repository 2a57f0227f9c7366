"""Rich display of API answers: HTML in notebooks (`_repr_html_`), aligned plain text in terminals.

Each renderer turns one model into a few neutral blocks (headings, sentences, tables); one HTML writer and one
text writer render every block, so a model's layout is written once for both outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import kinds as job_kinds
from .blocks import Block, Heading, Para, Pre, Status, Table, to_html, to_text
from .renderers import amount, blocks

__all__ = [
    "Block",
    "Heading",
    "Para",
    "Pre",
    "Status",
    "Table",
    "View",
    "amount",
    "blocks",
    "to_html",
    "to_text",
    "view",
]


@dataclass
class View:
    """Wraps an API answer (a model instance) for display; `.model` is the answer itself. `kinds`: the server's job
    kinds (AccelClient.kinds()), so kinds show as the server calls them."""

    model: Any
    extra: list[Block] = field(default_factory=list)
    kinds: Sequence[Any] = ()
    renderer: Callable[[Any], list[Block]] | None = None  # another view of the model than its class's

    def blocks(self) -> list[Block]:
        with job_kinds.shown_with(self.kinds):
            return (self.renderer or blocks)(self.model) + self.extra

    def _repr_html_(self) -> str:
        return to_html(self.blocks())

    def __repr__(self) -> str:
        return to_text(self.blocks())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


def view(model: Any) -> View:
    return View(model)
