"""The REST API's streamed answers as the client reads them, line by line: the push stream and a job's log. Stdlib
only, like the client."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
from collections.abc import Iterator


class _Stream:
    """A streamed answer read line by line; close() (from any thread) ends the reading."""

    def __init__(self, conn: http.client.HTTPConnection, response: http.client.HTTPResponse):
        self._conn = conn
        self._response = response
        self._closed = threading.Event()

    def lines(self) -> Iterator[str]:
        try:
            while not self._closed.is_set():
                raw = self._response.readline()
                if not raw:
                    return
                yield raw.decode("utf-8", "replace").rstrip("\r\n")
        except (OSError, http.client.HTTPException, ValueError, AttributeError):
            # close() from another thread makes http.client fail in odd ways (fp None): that is the normal end
            if not self._closed.is_set():
                raise
        finally:
            self.close()

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        sock = self._conn.sock
        if sock is not None:
            # shutdown wakes a thread blocked in recv(); close alone does not
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._conn.close()


class EventStream(_Stream):
    """The server's /stream: iterate to get {"revision": n, "topics": [...]} dicts."""

    def __iter__(self) -> Iterator[dict]:
        data: list[str] = []
        for line in self.lines():
            if line.startswith(":"):
                continue  # keep-alive comment
            if line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif not line and data:
                text, data = "\n".join(data), []
                try:
                    msg = json.loads(text)
                except ValueError:
                    continue  # not ours; the next event tells what changed
                yield msg


class LogStream(_Stream):
    """Lines of a job's log; iterate it, close() to stop following. `source` is where the server read it ('live'
    from the pods, 'kept': its copy, the pods being gone or every pod asked for); `label()` is its sentence."""

    @property
    def source(self) -> str:
        return self._response.getheader("X-Accel-Log-Source") or "live"

    def label(self) -> str | None:
        """The server's sentence above a kept log (since when, whether truncated); None for a live one."""
        if self.source != "kept":
            return None
        return self._response.getheader("X-Accel-Log-Label") or "Kept by the server."

    def __iter__(self) -> Iterator[str]:
        return self.lines()


__all__ = ["EventStream", "LogStream"]
