"""AcceleratorView: accelerators per model and node, and the namespace's queue quotas, updating itself."""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as w

from ..client import AccelClient, AccelError
from ..display import blocks, to_text
from .live import LiveBox, error_html, model_html
from .streams import POLL_SECONDS


class AcceleratorView(LiveBox):
    """Accelerators per model and node, and the quotas of the namespace's queues; updates itself."""

    def __init__(
        self, client: AccelClient | None = None, *, live: bool = True, poll: float = POLL_SECONDS, **kwargs: Any
    ):
        self.client = client or AccelClient()
        self.refresh_button = w.Button(description="Refresh", icon="refresh", layout=w.Layout(width="auto"))
        self.status = w.HTML()
        self.inventory_html = w.HTML()
        self.queues_html = w.HTML()
        self.inventory: Any = None
        self.inventory_nodes: Any = None  # a small cluster's nodes, shown under the totals
        self.queues: Any = None
        self.errors: list[AccelError] = []
        self._lock = threading.Lock()
        super().__init__([w.HBox([self.refresh_button, self.status]), self.inventory_html, self.queues_html], **kwargs)
        self.refresh_button.on_click(lambda _: self.refresh())
        self.refresh()
        if live:
            self._follow(self.client, ("inventory", "queues"), poll)

    def refresh(self) -> None:
        with self._lock:
            errors = []
            for attr, fetch, target in (
                ("inventory", self.client.inventory, self.inventory_html),
                ("queues", self.client.queues, self.queues_html),
            ):
                try:
                    model = fetch()
                except AccelError as exc:
                    errors.append(exc)
                    target.value = error_html(exc)
                    continue
                setattr(self, attr, model)
                target.value = model_html(model)
                if attr == "inventory":
                    self.inventory_nodes = self._few_nodes(model, errors)
                    target.value += model_html(self.inventory_nodes) if self.inventory_nodes is not None else ""
            self.status.value = error_html(errors[0]) if errors else ""
            self.errors = errors
            self.updates += 1

    def _few_nodes(self, inventory: Any, errors: list[AccelError]) -> Any:
        try:
            return self.client.few_inventory_nodes(inventory)
        except AccelError as exc:
            errors.append(exc)
            return None

    def _text(self) -> str:
        models = (self.inventory, self.inventory_nodes, self.queues)
        shown = [to_text(blocks(m)) for m in models if m is not None]
        return "\n\n".join(shown + [f"⚠ {e}" for e in self.errors[:1]])
