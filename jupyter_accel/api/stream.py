"""GET /accel/v1/stream: Server-Sent Events telling the browser which topics changed, debounced."""

from __future__ import annotations

import asyncio
import json

from tornado import web
from tornado.iostream import StreamClosedError

from .base import AccelHandler, Endpoint

HEARTBEAT = 15.0


class StreamHandler(AccelHandler):
    path = "stream"
    endpoints = {"get": Endpoint("Push stream of changed topics (text/event-stream)", streaming="text/event-stream")}
    _track_activity = False  # an open panel must not keep an idle server from being culled

    @web.authenticated
    async def get(self) -> None:
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")
        broadcaster = self.accel.broadcaster
        queue = broadcaster.subscribe()
        try:
            # the first event tells a (re)connected client to refetch everything
            await self._send({"revision": broadcaster.revision, "topics": ["*"]})
            while True:
                try:
                    msg = await asyncio.wait_for(queue.get(), HEARTBEAT)
                    await self._send(msg)
                except TimeoutError:
                    self.write(": keep-alive\n\n")
                    await self.flush()
        except StreamClosedError:
            pass
        finally:
            broadcaster.unsubscribe(queue)

    async def _send(self, msg: dict) -> None:
        self.write(f"event: change\ndata: {json.dumps(msg)}\n\n")
        await self.flush()

    def on_connection_close(self) -> None:
        # wake the loop above; tornado raises StreamClosedError on the next write
        super().on_connection_close()
