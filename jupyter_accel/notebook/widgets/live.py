"""What the live widgets share: rendering a wire model as HTML, and a box that owns a Follower."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import ipywidgets as w

from .. import kinds as job_kinds
from ..client import AccelClient
from ..display import Para, blocks, to_html
from .streams import Follower


def model_html(model: Any, kinds: Sequence[Any] = ()) -> str:
    """`kinds`: the server's job kinds (AccelClient.kinds()), so kinds show as the server calls them."""
    with job_kinds.shown_with(kinds):
        return to_html(blocks(model))


def error_html(exc: Exception) -> str:
    return to_html([Para(f"⚠ {exc}")])


class LiveBox(w.VBox):
    """A VBox that owns a Follower and stops it on close()."""

    _follower: Follower | None = None
    updates = 0  # refreshes so far (construction, pushes, polls): lets callers see that it is live

    def _follow(self, client: AccelClient, topics: Iterable[str], poll: float) -> None:
        self._follower = Follower(client, topics, self.refresh, poll).start()

    def refresh(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        if self._follower is not None:
            self._follower.stop()
        super().close()

    def _text(self) -> str:
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        # where no widget can render (a terminal, a notebook saved without widget state) the text shows what
        # the widget showed when it was displayed, not the widget's trait dump
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = self._text()
        return data
