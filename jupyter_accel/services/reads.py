"""The read answers other than jobs: the inventory and its node pages, hardware profiles, queues and workloads,
each computed from the caches alone (in an answer thread, see api/answers.py). Against the IdentityCaches in the server and
plain dicts in tests; refusals are services.errors."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..cluster.gcfreeze import untracked
from ..cluster.informer import CacheState
from ..domain.hardware_profiles import list_profiles
from ..domain.inventory import ChangeSource, InventoryMemo, allocations_from_wire, build_inventory, inventory_of
from ..domain.queues import build_queues
from ..domain.workloads import build_workloads
from ..models import (
    HardwareProfilesResponse,
    InventoryNodesResponse,
    InventoryResponse,
    QueuesResponse,
    Visibility,
    WorkloadsResponse,
)
from ..push import depends
from .errors import Invalid
from .ports import Caches
from .snapshot import Snapshot

if TYPE_CHECKING:
    from ..domain.accelerators import AcceleratorRegistry

NODE_PAGE_MAX = 500


def readable_items(hub: Caches, key: str) -> list[dict[str, Any]] | None:
    """A cache's objects, or None when this identity may not read them (domain/ then says "not visible")."""
    return hub.items(key) if hub.readable(key) else None


class Inventory:
    """The inventory of one server, built once per change of nodes or pods and shared by the summary and every
    node page; per-object results are reused between builds (domain/inventory.InventoryMemo), out of the cycle
    collector's walk like the caches' objects (cluster/gcfreeze)."""

    def __init__(self, registry: AcceleratorRegistry) -> None:
        self.registry = registry
        self._memo = self._fresh_memo()
        self._lock = threading.Lock()
        self._last: tuple[Caches, object, InventoryResponse, list[Any]] | None = None

    def _full(self, hub: Caches) -> tuple[InventoryResponse, list[Any]]:
        # the IdentityCaches' revision of nodes and pods (api/answers); plain-dict caches in tests have none: built every time
        revision = hub.revision(depends("inventory")) if hasattr(hub, "revision") else object()
        with self._lock:
            if self._last is not None and self._last[0] is hub and self._last[1] == revision:
                return self._last[2], self._last[3]
            if self._last is not None and self._last[0] is not hub:
                self._memo = self._fresh_memo()  # another identity: nothing of the old caches is reused
            nodes = readable_items(hub, "nodes")
            if "allocations" in hub.informers:  # summed by the read service
                allocated = allocations_from_wire(readable_items(hub, "allocations"))
                summary, node_views = inventory_of(nodes, allocated, self.registry, memo=self._memo)
            else:
                summary, node_views = build_inventory(nodes, self._pods(hub), self.registry, memo=self._memo)
            self._last = (hub, revision, summary, node_views)
            return summary, node_views

    @staticmethod
    def _fresh_memo() -> InventoryMemo:
        return InventoryMemo(keep=untracked)  # every view out of the collector's walk as it is built

    @staticmethod
    def _pods(hub: Caches) -> list[dict[str, Any]] | ChangeSource | None:
        """Every pod of the cluster, which allocated figures need: without that right they are left empty, not
        guessed. The IdentityCaches' pods cache itself, followed by its changes; plain-dict caches' list in tests."""
        if "allpods" not in hub.informers or not hub.readable("allpods"):
            return None
        cache = hub.informers["allpods"]
        return cache if isinstance(cache, ChangeSource) else hub.items("allpods")

    def summary(self, hub: Caches) -> InventoryResponse:
        return self._full(hub)[0]

    def nodes(self, hub: Caches, model: str | None, offset: int, limit: int) -> InventoryNodesResponse:
        summary, nodes = self._full(hub)
        if model is not None:
            keys = [m.key for m in summary.models]
            if model not in keys:
                allowed = ", ".join(keys) or "none (no accelerators are visible)"
                raise Invalid(f"model: {model!r} is not an accelerator model of this cluster; allowed: {allowed}",
                              field="model")  # fmt: skip
            resource, name = model.split("|", 1)
            nodes = [n for n in nodes if any(a.resource == resource and a.model == name for a in n.accelerators)]
        return InventoryNodesResponse(
            model=model,
            nodes=nodes[offset : offset + limit],
            total=len(nodes),
            offset=offset,
            limit=limit,
            visibility=summary.visibility,
            pods_visibility=summary.pods_visibility,
        )


def page_arguments(offset: str | None, limit: str | None) -> tuple[int, int]:
    """offset and limit of a node page, checked: 400 naming the field and what is allowed."""
    out = []
    for field, text, default, low, high in (("offset", offset, 0, 0, None), ("limit", limit, 100, 1, NODE_PAGE_MAX)):
        if text is None:
            out.append(default)
            continue
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            allowed = f"an integer from {low} to {high}" if high is not None else f"an integer of at least {low}"
            raise Invalid(f"{field}: {text!r} is not allowed; allowed: {allowed}", field=field)
        out.append(value)
    return out[0], out[1]


def profiles(hub: Caches, registry: AcceleratorRegistry) -> HardwareProfilesResponse:
    hw = readable_items(hub, "hardwareprofiles")
    legacy = readable_items(hub, "acceleratorprofiles")
    served = "hardwareprofiles" in hub.informers or "acceleratorprofiles" in hub.informers
    if not served:
        vis = Visibility(visible=False, message="This cluster serves no hardware profiles.")
    elif hw is None and legacy is None:
        vis = Visibility(visible=False, message="not visible to your account")
    else:
        vis = Visibility()
    return HardwareProfilesResponse(profiles=list_profiles(hw or [], legacy or [], registry=registry), visibility=vis)


def queues(hub: Caches, configured_default: str) -> QueuesResponse:
    return build_queues(
        readable_items(hub, "localqueues"),
        readable_items(hub, "clusterqueues"),
        readable_items(hub, "cohorts"),
        readable_items(hub, "resourceflavors"),
        configured_default=configured_default,
    )


def pending_state(hub: Caches) -> CacheState:
    return getattr(hub, "pending_state", CacheState.synced)


def workloads(hub: Caches) -> WorkloadsResponse:
    """Each Workload read through the snapshot's WorkloadContext: the one /jobs reads it through (services/snapshot.py)."""
    snap = Snapshot.of(hub)
    answer = build_workloads(
        list(snap.workloads) if snap.workloads is not None else None,
        reading=snap.reading,
        positions_visible=snap.pending is not None,
    )
    if pending_state(hub) == CacheState.absent:
        vis = Visibility(visible=False, message="Kueue's visibility API is not served by this cluster")
        answer = answer.model_copy(update={"positions_visibility": vis})
    return answer
