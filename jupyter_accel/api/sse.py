"""What the two Server-Sent-Events streams share (the push stream here, the read service's change stream): the
headers, one event's framing, the keep-alive line, and waking the handler's wait when the client goes away."""

from __future__ import annotations

import asyncio
import json
from typing import Any

# seconds between keep-alive comments on a quiet stream: a proxy does not cut it, and clients read with a longer timeout
HEARTBEAT = 15.0


class EventStream:
    """Mixed into a tornado RequestHandler before its base class."""

    _queue: asyncio.Queue | None = None

    def start_events(self) -> None:
        self.set_header("Content-Type", "text/event-stream")  # type: ignore[attr-defined]
        self.set_header("Cache-Control", "no-cache")  # type: ignore[attr-defined]
        self.set_header("X-Accel-Buffering", "no")  # type: ignore[attr-defined]  # nginx: do not buffer

    async def send_event(self, name: str, msg: dict[str, Any]) -> None:
        self.write(f"event: {name}\ndata: {json.dumps(msg)}\n\n")  # type: ignore[attr-defined]
        await self.flush()  # type: ignore[attr-defined]

    async def keep_alive(self) -> None:
        self.write(": keep-alive\n\n")  # type: ignore[attr-defined]
        await self.flush()  # type: ignore[attr-defined]

    def on_connection_close(self) -> None:
        # wake the handler's wait at once, so its subscription and stream slot go with the client
        if self._queue is not None:
            self._queue.put_nowait(None)
        super().on_connection_close()  # type: ignore[misc]
