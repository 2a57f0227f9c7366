"""GET /accel/v1/inventory, its node pages, and /accel/v1/profiles: accelerators per model and node, hardware
profiles. Answers come from api/answers (computed off the event loop, once per change of the caches)."""

from __future__ import annotations

from tornado import web

from .base import AccelHandler, Endpoint


class InventoryHandler(AccelHandler):
    path = "inventory"
    endpoints = {
        "get": Endpoint("Accelerators per model, with node counts", response="InventoryResponse", errors=(503,))
    }
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        hub = await self.synced_hub()
        inventory = self.accel.inventory
        await self.send_answer(hub, "inventory", (), lambda: inventory.summary(hub))


class InventoryNodesHandler(AccelHandler):
    path = "inventory/nodes"
    endpoints = {
        "get": Endpoint(
            "One page of the nodes with accelerators, by name",
            response="InventoryNodesResponse",
            query={
                "model": "a model key (AcceleratorModelSummary.key); default: every node with an accelerator",
                "offset": "nodes to skip (default 0)",
                "limit": "nodes on the page, 1 to 500 (default 100)",
            },
            errors=(400, 503),
        )
    }
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        from ..services.reads import page_arguments

        offset, limit = page_arguments(self.get_argument("offset", None), self.get_argument("limit", None))
        model = self.get_argument("model", None) or None
        hub = await self.synced_hub()
        inventory = self.accel.inventory
        await self.send_answer(
            hub, "inventory", ("nodes", model, offset, limit), lambda: inventory.nodes(hub, model, offset, limit)
        )


class ProfilesHandler(AccelHandler):
    path = "profiles"
    endpoints = {"get": Endpoint("Hardware profiles on offer", response="HardwareProfilesResponse", errors=(503,))}
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        from ..services.reads import profiles

        hub = await self.synced_hub()
        registry = self.accel.registry
        await self.send_answer(hub, "profiles", (), lambda: profiles(hub, registry))
