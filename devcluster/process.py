"""Child processes of the dev cluster: each in its own process group, addressed only by recorded ids."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


def start_ticks(pid: int) -> int | None:
    """The process start time from /proc (field 22): tells a recorded pid from a reused one."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


@dataclass
class Recorded:
    """What the state file keeps about a process: enough to stop it from another shell."""

    name: str
    pid: int
    ticks: int | None

    def alive(self) -> bool:
        return self.ticks is not None and start_ticks(self.pid) == self.ticks

    def signal_group(self, sig: int) -> None:
        if self.alive():
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, grace: float = 10) -> None:
        """SIGTERM to the process group, SIGKILL after `grace` seconds."""
        self.signal_group(signal.SIGTERM)
        deadline = time.monotonic() + grace
        while self.alive() and time.monotonic() < deadline:
            _reap(self.pid)
            time.sleep(0.1)
        if self.alive():
            self.signal_group(signal.SIGKILL)
            for _ in range(50):
                _reap(self.pid)
                if not self.alive():
                    break
                time.sleep(0.1)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


class Process:
    """One component process, leading its own process group, logging to <run>/logs/<name>.log."""

    def __init__(self, name: str, argv: list[str], log_dir: Path, env: dict[str, str] | None = None):
        self.name, self.argv, self.env = name, argv, env or {}
        self.log_path = log_dir / f"{name}.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> Recorded:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            log.write(f"+ {' '.join(self.argv)}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                self.argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **self.env},
                start_new_session=True,
            )
        return Recorded(self.name, self.proc.pid, start_ticks(self.proc.pid))

    def exited(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def tail(self, n: int = 30) -> str:
        try:
            return "".join(self.log_path.read_text(errors="replace").splitlines(True)[-n:])
        except OSError:
            return ""

    def check_alive(self) -> None:
        if (rc := self.exited()) is not None:
            raise RuntimeError(f"{self.name} exited with code {rc}; log {self.log_path}:\n{self.tail()}")
