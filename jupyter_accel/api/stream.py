"""GET /accel/v1/stream: Server-Sent Events telling the browser which topics changed, debounced."""

from __future__ import annotations

import asyncio

from tornado import web
from tornado.iostream import StreamClosedError

from .base import AccelHandler, Endpoint
from .sse import HEARTBEAT, EventStream


class StreamHandler(EventStream, AccelHandler):
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
        self.start_events()
        broadcaster = self.accel.broadcaster
        queue = self._queue = broadcaster.subscribe()
        try:
            # the first event tells a (re)connected client to refetch everything
            await self.send_event("change", {"revision": broadcaster.revision, "topics": ["*"]})
            while True:
                try:
                    msg = await asyncio.wait_for(queue.get(), HEARTBEAT)
                    if msg is None:  # the client went away (on_connection_close)
                        break
                    await self.send_event("change", msg)
                except TimeoutError:
                    await self.keep_alive()
        except StreamClosedError:
            pass
        finally:
            broadcaster.unsubscribe(queue)
