"""The stream readers behind the live widgets: one daemon thread per reader, reopening its stream after a pause
whenever it breaks or ends, until stop(). Follower reacts to the push stream's topics; LogFollower tails a log."""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Self

from ..client import AccelClient

POLL_SECONDS = 5.0  # fallback poll interval when the push stream is unavailable


class _StreamReader:
    """A daemon thread that reads one of the server's streams and opens it again `pause` seconds after it breaks
    or ends, until stop(); stop() closes the stream, which also ends a read that is blocked waiting for data.
    Subclasses say how to open the stream and what to do with it."""

    def __init__(self, name: str, pause: float):
        self.pause = pause
        self._stop = threading.Event()
        self._stream: Any = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        stream = self._stream
        if stream is not None:
            stream.close()

    def join(self, timeout: float | None = None) -> None:
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._stream = self._open()
                self._consume(self._stream)
            except Exception:
                pass  # refused, not there yet, gone, or a broken chunk: the thread must live on and try again
            finally:
                stream, self._stream = self._stream, None
                if stream is not None:
                    stream.close()
            if self._stop.wait(self.pause):
                break
            self._between()
        self._stopped()

    def _open(self) -> Any:
        raise NotImplementedError

    def _consume(self, stream: Any) -> None:
        raise NotImplementedError

    def _between(self) -> None:
        """After a broken stream's pause, before it is opened again."""

    def _stopped(self) -> None:
        """Once, when the thread ends."""


class Follower(_StreamReader):
    """Calls `callback()` whenever /stream reports one of `topics` (or `*`), in a daemon thread, until stop().

    Without a stream (older server, proxy that buffers) it calls the callback every `poll` seconds instead."""

    def __init__(
        self, client: AccelClient, topics: Iterable[str], callback: Callable[[], None], poll: float = POLL_SECONDS
    ):
        super().__init__("jupyter-accel-follower", poll)
        self.client = client
        self.topics = set(topics)
        self.callback = callback

    def _open(self) -> Any:
        return self.client.events()

    def _consume(self, stream: Any) -> None:
        for msg in stream:
            if self._stop.is_set():
                return
            topics = set(msg.get("topics") or ())
            # the first event after (re)connecting is "*": refetch, changes may have been missed
            if "*" in topics or topics & self.topics:
                self._fire()

    def _between(self) -> None:
        self._fire()  # the stream ended or is unavailable: poll once, then try the stream again

    def _fire(self) -> None:
        # a failed refresh must not kill the follower; the widget shows its own errors
        with contextlib.suppress(Exception):
            self.callback()


class LogFollower(_StreamReader):
    """Follows a job's log in a daemon thread and hands the last `tail` lines to `show` as they come, at most
    every `interval` seconds (a chatty job must not flood the notebook with widget updates). A stream that breaks
    or ends (pod not started yet, pod restarted) is opened again after `retry` seconds until stop()."""

    def __init__(
        self,
        client: AccelClient,
        kind: str,
        name: str,
        tail: int,
        show: Callable[[list[str]], None],
        *,
        interval: float = 0.3,
        retry: float = 3.0,
    ):
        super().__init__("jupyter-accel-logs", retry)
        self.client, self.kind, self.name, self.tail = client, kind, name, tail
        self.show, self.interval = show, interval
        self.lines: deque[str] = deque(maxlen=max(tail, 1))
        self.connections = 0  # streams opened so far
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def _open(self) -> Any:
        stream = self.client.logs(self.kind, self.name, tail=self.tail, follow=True)
        self.connections += 1
        return stream

    def _consume(self, stream: Any) -> None:
        first = True
        for line in stream:
            with self._lock:
                if first:  # a (re)connection starts with the tail again: it replaces what was shown
                    self.lines.clear()
                    first = False
                self.lines.append(line)
                if self._timer is None:
                    self._timer = threading.Timer(self.interval, self._flush)
                    self._timer.daemon = True
                    self._timer.start()

    def _stopped(self) -> None:
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def _flush(self) -> None:
        with self._lock:
            self._timer = None
            lines = list(self.lines)
        if not self._stop.is_set():
            with contextlib.suppress(Exception):  # a closed widget must not kill the thread
                self.show(lines)
