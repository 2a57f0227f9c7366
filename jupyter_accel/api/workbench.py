"""GET /accel/v1/workbench: this workbench's Notebook, profile and queue; POST .../profile changes its profile."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tornado import web

from .. import models
from .base import Endpoint
from .jobs import JobsBase

if TYPE_CHECKING:
    from ..services.workbench import WorkbenchService


class WorkbenchBase(JobsBase):
    async def workbench(self) -> WorkbenchService:
        return self.accel.workbench_service(await self.synced_hub())


class WorkbenchHandler(WorkbenchBase):
    path = "workbench"
    endpoints = {
        "get": Endpoint(
            "This workbench: its Notebook's accelerators, hardware profile and queue (read when asked)",
            response="WorkbenchView",
            errors=(503,),
        )
    }
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        service = await self.workbench()
        self.send(await self.blocking(service.view))


class WorkbenchProfileHandler(WorkbenchBase):
    path = "workbench/profile"
    endpoints = {
        "post": Endpoint(
            "Change this workbench's hardware profile: the fit check, then a patch of its Notebook with this "
            "identity (dry_run: checked by the API server, nothing changed). The platform restarts it.",
            request="WorkbenchProfileRequest",
            response="WorkbenchProfileResponse",
            errors=(400, 403, 404, 503),
        )
    }

    @web.authenticated
    async def post(self) -> None:
        request = self.parse_body(models.WorkbenchProfileRequest)
        service = await self.workbench()
        self.send(await self.blocking(service.change_profile, request))
