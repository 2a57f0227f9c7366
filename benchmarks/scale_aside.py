"""The Jupyter server alone on the machine's cores: everything else the benchmark runs at the lowest CPU priority.

On the benchmark's 2-core machine the server's event loop shares the cores with the API server, etcd, kwok, the
controllers, the burst's writer and the load clients. A callback then waits for a core, or for the GIL held by one
of the server's own threads that itself waits for a core. In a deployment those neighbours are other machines.
The windows run inside `aside` measure the same thing (the wall time of the loop's callbacks) with the neighbours at
nice 19, so that what is left of a hold is the server's own doing. Linux keeps a nice value per thread: every
thread is set, and threads started meanwhile inherit it from the thread that started them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator

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


@contextlib.contextmanager
def aside(pids: Iterable[int], keep: set[int]) -> Iterator[list[int]]:
    """Every thread of `pids` at nice LOWEST, except the processes in `keep`; on the way out,
    each process's threads, those started meanwhile too, back at the value its main thread had, where permitted.
    Yields the processes set aside."""
    before: dict[int, int] = {}
    for pid in set(pids) - keep:
        try:
            before[pid] = os.getpriority(os.PRIO_PROCESS, pid)
        except OSError:
            continue
        _set(pid, LOWEST)
    try:
        yield sorted(before)
    finally:
        for pid, nice in before.items():
            _set(pid, nice)
