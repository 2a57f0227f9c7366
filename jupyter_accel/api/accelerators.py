"""GET /accel/v1/inventory and /accel/v1/profiles: accelerators per node and model, hardware profiles."""

from __future__ import annotations

from tornado import web

from .. import models
from .base import AccelHandler, Endpoint


class InventoryHandler(AccelHandler):
    path = "inventory"
    endpoints = {"get": Endpoint("Accelerators per node and per model", response="InventoryResponse", errors=(503,))}
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        hub = await self.synced_hub()
        nodes = self.readable_items(hub, "nodes")
        # allocated figures need every pod of the cluster; without that right they are left empty, not guessed
        pods = self.readable_items(hub, "allpods") if "allpods" in hub.informers else None
        from ..domain.inventory import build_inventory

        self.send(build_inventory(nodes, pods, self.accel.registry))


class ProfilesHandler(AccelHandler):
    path = "profiles"
    endpoints = {"get": Endpoint("Hardware profiles on offer", response="HardwareProfilesResponse", errors=(503,))}
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        hub = await self.synced_hub()
        hw = self.readable_items(hub, "hardwareprofiles")
        legacy = self.readable_items(hub, "acceleratorprofiles")
        served = "hardwareprofiles" in hub.informers or "acceleratorprofiles" in hub.informers
        if not served:
            vis = models.Visibility(visible=False, message="This cluster serves no hardware profiles.")
        elif hw is None and legacy is None:
            vis = models.Visibility(visible=False, message="not visible to your account")
        else:
            vis = models.Visibility()
        from ..domain.hardware_profiles import list_profiles

        profiles = list_profiles(hw or [], legacy or [], registry=self.accel.registry)
        self.send(models.HardwareProfilesResponse(profiles=profiles, visibility=vis))
