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
    endpoints = {
        "get": Endpoint(
            "Push stream of changed topics (text/event-stream)", streaming="text/event-stream", errors=(429,)
        )
    }
    _track_activity = False  # an open panel must not keep an idle server from being culled

    @web.authenticated
    async def get(self) -> None:
        self.take_stream_slot("push streams")
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")
        broadcaster = self.accel.broadcaster
        queue = self._queue = broadcaster.subscribe()
        try:
            # the first event tells a (re)connected client to refetch everything
            await self._send({"revision": broadcaster.revision, "topics": ["*"]})
            while True:
                try:
                    msg = await asyncio.wait_for(queue.get(), HEARTBEAT)
                    if msg is None:  # the client went away (on_connection_close)
                        break
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
        # wake the loop above at once, so the subscription and the stream slot go with the client
        queue = getattr(self, "_queue", None)
        if queue is not None:
            queue.put_nowait(None)
        super().on_connection_close()
