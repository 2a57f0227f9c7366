"""What the fault tests watch on a Jupyter server process: /info's connection.degraded and the push stream, each
entry with its time (time.monotonic(), which is the machine's, so comparable with the fault proxy's log), and the
process's threads, file descriptors and sockets."""

from __future__ import annotations

import http.client
import json
import threading
import time

from devcluster.jupyter_server import JupyterProcess, process_figures


def resources(pid: int) -> dict[str, float]:
    return process_figures(pid)


class Watcher:
    """Polls /info's connection.degraded and reads the push stream in two threads, each entry with its time."""

    def __init__(self, server: JupyterProcess) -> None:
        self.server = server
        self.states: list[tuple[float, str | None, str | None]] = []  # (t, reason, message)
        self.pushes: list[tuple[float, list[str]]] = []
        self._stop = threading.Event()
        self._conn: http.client.HTTPConnection | None = None
        self._threads = [threading.Thread(target=f, daemon=True) for f in (self._poll, self._stream)]

    def __enter__(self) -> Watcher:
        for t in self._threads:
            t.start()
        time.sleep(0.5)  # the stream is open before the fault
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._conn is not None:
            self._conn.sock and self._conn.sock.shutdown(2)
        for t in self._threads:
            t.join(10)

    def _poll(self) -> None:
        while not self._stop.is_set():
            code, body = self.server.get_json("/accel/v1/info", timeout=10)
            d = (body or {}).get("connection", {}).get("degraded") if code == 200 else None
            self.states.append((time.monotonic(), d and d["reason"], d and d["message"]))
            self._stop.wait(0.2)

    def _stream(self) -> None:
        self._conn = conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        try:
            conn.request("GET", "/accel/v1/stream", headers=self.server.headers)
            resp = conn.getresponse()
            while not self._stop.is_set():
                line = resp.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    self.pushes.append((time.monotonic(), json.loads(line[6:])["topics"]))
        except OSError:
            return

    def first(self, reason: str) -> float:
        seen = [t for t, r, _ in self.states if r == reason]
        assert seen, f"/info never showed {reason!r}: {sorted({r for _, r, _ in self.states}, key=str)}"
        return seen[0]

    def clear_after(self, t0: float, timeout: float) -> float:
        """When /info showed no degraded state again after t0 (waits for it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            cleared = [t for t, r, _ in self.states if t > t0 and r is None]
            if cleared:
                return cleared[0]
            time.sleep(0.2)
        raise AssertionError(f"still degraded {timeout}s after {t0}: {self.states[-3:]}")

    def info_pushed(self, after: float, timeout: float = 5.0) -> float:
        """When the push stream announced "info" at or after `after` (waits for it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pushed = [t for t, topics in self.pushes if t >= after and "info" in topics]
            if pushed:
                return pushed[0]
            time.sleep(0.1)
        raise AssertionError(f"no 'info' push after {after}: {self.pushes[-5:]}")
