"""Pod log streams: chunks are handed on as they arrive, so following a log costs bounded memory.

Opening one is retried like any read (retry.py). A followed stream that breaks (the API server went away) ends with
`broken` set, so the HTTP layer can show the break rather than a normal end; the client resumes by asking again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from . import rest
from .writes import WriteError

CHUNK = 16 * 1024


class LogStream:
    """An open `pods/log` response; iterate for byte chunks, close() to stop following."""

    def __init__(
        self,
        api: ApiClient,
        namespace: str,
        pod: str,
        *,
        container: str | None = None,
        tail_lines: int | None = None,
        follow: bool = False,
        limit_bytes: int | None = None,
        timestamps: bool = False,
        since_time: str | None = None,
        timeout: float = 10.0,
    ):
        path = rest.resource_path("", "v1", "pods", namespace, pod, "log")
        query = {
            "container": container,
            "tailLines": tail_lines,
            "follow": follow or None,
            "limitBytes": limit_bytes,
            "timestamps": timestamps or None,  # RFC 3339 with nanoseconds before each line: kept_logs.py
            "sinceTime": since_time,
        }
        try:
            self._resp = rest.stream(
                api, path, query=query, accept="*/*", timeout=(timeout, None) if follow else timeout
            )
        except ApiException as exc:
            raise WriteError.of(exc) from None
        self._closed = False
        self.broken: str | None = None  # why the stream ended before the log did

    def chunks(self) -> Iterator[bytes]:
        try:
            while not self._closed:
                try:
                    data = (
                        self._resp.response.read1(CHUNK)
                        if hasattr(self._resp.response, "read1")
                        else self._resp.response.read(CHUNK)
                    )
                except Exception as exc:
                    if not self._closed:  # not our own close()
                        self.broken = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
                    return
                if not data:
                    return
                yield data
        finally:
            self.close()

    def close(self) -> None:
        """Safe from any thread: shutting the socket down wakes a read blocked in chunks()."""
        if not self._closed:
            self._closed = True
            with contextlib.suppress(Exception):
                self._resp.response.shutdown()
            with contextlib.suppress(Exception):
                self._resp.response.release_conn()
