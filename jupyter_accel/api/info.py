"""GET /accel/v1/info: versions, the Kubernetes connection state and the capabilities of this identity."""

from __future__ import annotations

from tornado import web

from .. import __version__, models
from .base import AccelHandler, Endpoint


class InfoHandler(AccelHandler):
    path = "info"
    endpoints = {"get": Endpoint("Server version, connection state and capabilities", response="InfoResponse")}
    _track_activity = False  # the panel polls this; it must not keep an idle server alive

    @web.authenticated
    async def get(self) -> None:
        conn, caps = await self.accel.current_state()
        self.send(models.InfoResponse(version=__version__, connection=conn, capabilities=caps))
