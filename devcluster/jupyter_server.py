"""A Jupyter server with the extension in its own process, on 127.0.0.1, its log (stderr) kept in a file; and the
shared read service (`ReadServiceProcess`) the same way.

The reliability tests and the benchmarks drive it with synchronous clients (schemathesis' requests session, raw
sockets, threads, load generators) and read its whole log afterwards, which a server inside the test's own event
loop (pytest-jupyter) would not allow. It starts `python -m jupyter_server`: it imports nothing of the product.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any


def process_figures(pid: int) -> dict[str, float]:
    """A process's threads, open file descriptors (and how many are sockets) and resident memory, from /proc."""
    fds = os.listdir(f"/proc/{pid}/fd")
    sockets = 0
    for fd in fds:
        with contextlib.suppress(OSError):
            sockets += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
    rss = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = round(int(line.split()[1]) / 1024, 1)
    return {"threads": len(os.listdir(f"/proc/{pid}/task")), "fds": len(fds), "sockets": sockets, "rss_mib": rss}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LoggedProcess:
    """A child process in its own session (`proc`), its output in `log_path`; stopped with its whole group."""

    proc: subprocess.Popen | None
    log_path: Path

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _spawn(
        self, argv: list[str], env: dict[str, str], ready: Callable[[], bool], what: str, timeout: float
    ) -> None:
        """Start `argv` in a session of its own, output to the log, and wait until `ready()` (connection errors: not
        yet); the log's end in the error when it exits first or is not ready in time."""
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{what} exited {self.proc.returncode}:\n{self.log_text()[-3000:]}")
            with contextlib.suppress(OSError, ValueError):
                if ready():
                    return
            time.sleep(0.2)
        raise TimeoutError(f"{what} not up after {timeout}s:\n{self.log_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)


class JupyterProcess(LoggedProcess):
    def __init__(
        self,
        workdir: Path,
        accel: dict[str, Any],
        *,
        debug: bool = False,
        extra: dict | None = None,
        extensions: dict[str, bool] | None = None,
        env: dict[str, str] | None = None,
    ):
        """`extensions`: more server extensions to load (the benchmarks' loop probe); `env`: more environment."""
        self.workdir = workdir
        self._env = env or {}
        self._debug = debug  # --debug: every logger of the server at DEBUG
        self.port = free_port()
        self.token = secrets.token_hex(24)
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "jupyter-server.log"
        for d in ("config", "data", "runtime", "root"):
            (workdir / d).mkdir(parents=True, exist_ok=True)
        config = {
            "ServerApp": {
                "jpserver_extensions": {
                    "jupyter_accel": True,
                    "jupyterlab": False,
                    "notebook_shim": False,
                    "jupyter_lsp": False,
                    "jupyter_server_terminals": False,
                    **(extensions or {}),
                },
                "allow_root": True,
                "ip": "127.0.0.1",
                "port": self.port,
                "port_retries": 0,
                "open_browser": False,
                "root_dir": str(workdir / "root"),
                "allow_unauthenticated_access": False,
            },
            "IdentityProvider": {"token": self.token},
            "AccelConfig": accel,
        }
        for section, values in (extra or {}).items():
            config.setdefault(section, {}).update(values)
        self.config_file = workdir / "jupyter_server_config.json"
        self.config_file.write_text(json.dumps(config))
        self.proc: subprocess.Popen | None = None

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"}

    def start(self, timeout: float = 60) -> JupyterProcess:
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(self.workdir / "config"),
            "JUPYTER_DATA_DIR": str(self.workdir / "data"),
            "JUPYTER_RUNTIME_DIR": str(self.workdir / "runtime"),
            "PYTHONUNBUFFERED": "1",
            **self._env,
        }
        env.pop("JUPYTER_ACCEL_NAMESPACE", None)
        argv = [sys.executable, "-m", "jupyter_server", f"--config={self.config_file}"]
        if self._debug:
            argv.append("--debug")
        self._spawn(argv, env, lambda: self.get_json("/api/status")[0] == 200, "jupyter server", timeout)
        return self

    def get_json(self, path: str, method: str = "GET", body: Any = None, timeout: float = 30) -> tuple[int, Any]:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=self.headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                raw, code = resp.read(), resp.status
        except urllib.error.HTTPError as exc:
            raw, code = exc.read(), exc.code
        try:
            return code, json.loads(raw) if raw else None
        except ValueError:
            return code, raw.decode(errors="replace")

    def wait_connected(self, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        body = None
        while time.monotonic() < deadline:
            code, body = self.get_json("/accel/v1/info")
            if code == 200 and body["connection"]["state"] == "connected" and body["capabilities"]["apis"]["kueue"]:
                return body
            time.sleep(0.3)
        raise TimeoutError(f"extension not connected after {timeout}s: {body}")


class ReadServiceProcess(LoggedProcess):
    """The shared read service (`python -m jupyter_accel.readservice`) in its own process on 127.0.0.1, its log in a
    file; ready once /healthz answers 200 (every key computed)."""

    def __init__(
        self,
        workdir: Path,
        kubeconfig: Path | str,
        *,
        port: int | None = None,
        interval: float = 1.0,
        args: tuple[str, ...] = (),
    ):
        """`args`: more of the service's options (e.g. the admin's --allocations-for)."""
        self.args = args
        self.workdir = workdir
        self.kubeconfig = str(kubeconfig)
        self.port = port or free_port()
        self.interval = interval
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "read-service.log"
        self.proc: subprocess.Popen | None = None
        workdir.mkdir(parents=True, exist_ok=True)

    def start(self, timeout: float = 60) -> ReadServiceProcess:
        argv = [sys.executable, "-m", "jupyter_accel.readservice", "--address", "127.0.0.1", "--port", str(self.port),
                "--kubeconfig", self.kubeconfig, "--interval", str(self.interval), "--log-level", "DEBUG",
                *self.args]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._spawn(argv, env, lambda: self.health()[0] == 200, "read service", timeout)
        return self

    def health(self) -> tuple[int, Any]:
        return self.get("/healthz")

    def get(self, path: str, token: str | None = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """GET a path with `Authorization: Bearer <token>` (or the given headers); (status, JSON body)."""
        head = {"Authorization": f"Bearer {token}"} if token is not None else {}
        req = urllib.request.Request(self.url + path, headers={**head, **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                raw, code = resp.read(), resp.status
        except urllib.error.HTTPError as exc:
            raw, code = exc.read(), exc.code
        return code, json.loads(raw) if raw else None
