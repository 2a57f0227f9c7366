"""The Jupyter server alone on the machine's cores: everything else the benchmark runs at the lowest CPU priority.

On the benchmark's 2-core machine the server's event loop shares the cores with the API server, etcd, kwok, the
controllers, the burst's writer and the load clients. A callback then waits for a core, or for the GIL held by one
of the server's own threads that itself waits for a core. In a deployment those neighbours are other machines.
The windows run inside `aside` measure the same thing (the wall time of the loop's callbacks) with the neighbours at
nice 19, so that what is left of a hold is the server's own doing. Linux keeps a nice value per thread: every
thread is set, and threads started meanwhile inherit it from the thread that started them. With the scheduler's
autogroups (kernel.sched_autogroup_enabled, on here) a thread's nice weighs only against the threads of its own
session, and each session's group shares the cores by the group's nice: devcluster starts every component, and the
Jupyter server, in a session of its own, so each neighbour's group is set to nice 19 as well (/proc/PID/autogroup).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

LOWEST = 19


def tasks(pid: int) -> list[int]:
    """The threads of process `pid` (none when it is gone)."""
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def can_restore() -> bool:
    """Whether priorities lowered here can be raised again afterwards (root; a user's RLIMIT_NICE is usually 0),
    so that a cluster shared with later tests is not left slowed."""
    return os.geteuid() == 0


def _set(pid: int, nice: int) -> None:
    for tid in tasks(pid):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile, or one not ours
            os.setpriority(os.PRIO_PROCESS, tid, nice)


def group_nice(pid: int) -> int | None:
    """The nice of the autogroup (session) of process `pid`; None without autogroups or access."""
    try:
        return int(Path(f"/proc/{pid}/autogroup").read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def _set_group(pid: int, nice: int | None) -> None:
    if nice is not None:
        with contextlib.suppress(OSError):
            Path(f"/proc/{pid}/autogroup").write_text(str(nice))


@contextlib.contextmanager
def aside(pids: Iterable[int], keep: set[int]) -> Iterator[list[int]]:
    """Every thread of `pids` at nice LOWEST, except the processes in `keep`, and their sessions' autogroups where
    none is a session of `keep`; on the way out, each process's threads, those started meanwhile too, and its
    group back at the values they had, where permitted. Yields the processes set aside."""
    aside_ = set(pids) - keep
    groups = bool(keep) and all(group_nice(p) is not None for p in keep) and not (_sessions(aside_) & _sessions(keep))
    before: dict[int, tuple[int, int | None]] = {}
    for pid in aside_:
        try:
            before[pid] = (os.getpriority(os.PRIO_PROCESS, pid), group_nice(pid) if groups else None)
        except OSError:
            continue
        _set(pid, LOWEST)
        _set_group(pid, LOWEST if groups else None)
    try:
        yield sorted(before)
    finally:
        for pid, (nice, group) in before.items():
            _set(pid, nice)
            _set_group(pid, group)


def _sessions(pids: Iterable[int]) -> set[int]:
    out: set[int] = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            out.add(os.getsid(pid))
    return out
