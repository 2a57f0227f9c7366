"""Child processes of the dev cluster: each in its own process group, addressed only by recorded ids."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


def stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses): [0] is the
    state (field 3), [1] the parent, [2] the process group, [3] the session, [19] the start time (field 22). None
    when the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def start_ticks(pid: int) -> int | None:
    """The process start time from /proc (field 22): tells a recorded pid from a reused one."""
    fields = stat_fields(pid)
    return None if fields is None else int(fields[19])


@dataclass
class Recorded:
    """What the state file keeps about a process: enough to stop it from another shell."""

    name: str
    pid: int
    ticks: int | None

    def alive(self) -> bool:
        return self.ticks is not None and start_ticks(self.pid) == self.ticks

    def members(self) -> list[int]:
        """Processes still in this component's session and group (e.g. a sandbox's socat after the
        operator died). Matching both ids keeps a reused pid in some other group from being addressed."""
        out = []
        for entry in os.listdir("/proc"):
            fields = stat_fields(int(entry)) if entry.isdigit() else None
            if fields is not None and int(fields[2]) == self.pid and int(fields[3]) == self.pid:
                out.append(int(entry))
        return out

    def running(self) -> bool:
        return self.alive() or bool(self.members())

    def signal_group(self, sig: int) -> None:
        if self.running():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, sig)

    def stop(self, grace: float = 10) -> None:
        """SIGTERM to the process group, SIGKILL after `grace` seconds."""
        self.signal_group(signal.SIGTERM)
        deadline = time.monotonic() + grace
        while self.running() and time.monotonic() < deadline:
            _reap(self.pid)
            time.sleep(0.1)
        if self.running():
            self.signal_group(signal.SIGKILL)
            for _ in range(50):
                _reap(self.pid)
                if not self.running():
                    break
                time.sleep(0.1)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


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


def stop_together(records: list[Recorded], grace: float = 10) -> None:
    """SIGTERM several process groups at once, then SIGKILL whatever is left after `grace` seconds."""
    for rec in records:
        rec.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(r.running() for r in records) and time.monotonic() < deadline:
        for rec in records:
            _reap(rec.pid)
        time.sleep(0.1)
    for rec in records:
        if rec.running():
            rec.stop(grace=0)
