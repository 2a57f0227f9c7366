"""The scale benchmark's "server alone on the cores" windows lower every thread of the neighbours' processes, not
only their main threads, leave the product's processes alone, and raise them again where that is permitted."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from scale_aside import LOWEST, aside, can_restore, group_nice, tasks  # noqa: E402

THREADS = (
    "import threading, time\nfor _ in range(3): threading.Thread(target=time.sleep, args=(30,)).start()\ntime.sleep(30)"
)


def _nices(pid: int) -> set[int]:
    return {os.getpriority(os.PRIO_PROCESS, t) for t in tasks(pid)}


def _started(n: int, own_session: bool = False) -> list[subprocess.Popen]:
    procs = [subprocess.Popen([sys.executable, "-c", THREADS], start_new_session=own_session) for _ in range(n)]
    deadline = time.monotonic() + 10
    for p in procs:  # its threads exist once /proc lists them
        while len(tasks(p.pid)) < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(tasks(p.pid)) == 4
    return procs


def test_every_thread_of_the_neighbours_is_set_aside_and_the_product_is_not():
    neighbour, product = _started(2)
    try:
        before = _nices(neighbour.pid)
        with aside([neighbour.pid, product.pid], keep={product.pid}) as set_aside:
            assert set_aside == [neighbour.pid]
            assert _nices(neighbour.pid) == {LOWEST}
            assert _nices(product.pid) == before
        assert _nices(neighbour.pid) == (before if can_restore() else {LOWEST})
    finally:
        for p in (neighbour, product):
            p.kill()
            p.wait()


def test_the_neighbours_sessions_are_set_aside_too_where_the_scheduler_groups_them():
    """With autogroups a thread's nice weighs only inside its session: a neighbour in a session of its own (as
    devcluster starts each component) has its group set aside, the product's group is left as it is."""
    neighbour, product = _started(2, own_session=True)
    try:
        if group_nice(product.pid) is None:  # a kernel without autogroups: the threads alone say it
            with aside([neighbour.pid, product.pid], keep={product.pid}):
                assert _nices(neighbour.pid) == {LOWEST}
            return
        before = group_nice(neighbour.pid)
        with aside([neighbour.pid, product.pid], keep={product.pid}):
            assert group_nice(neighbour.pid) == LOWEST and _nices(neighbour.pid) == {LOWEST}
            assert group_nice(product.pid) == before
        assert group_nice(neighbour.pid) == before
    finally:
        for p in (neighbour, product):
            p.kill()
            p.wait()
