"""The scale benchmark's "server alone on the cores" windows lower every thread of the neighbours' processes, not
only their main threads, move them into an idle cpu cgroup where one can be made, leave the product's processes
alone, and put everything back where that is permitted."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from scale_aside import CPU_HIERARCHY, LOWEST, aside, can_idle, can_restore, cpu_cgroup, group_nice, tasks  # noqa: E402

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


def test_the_neighbours_go_into_an_idle_cpu_group_and_back_where_one_can_be_made():
    """Where the cgroup v1 cpu controller offers cpu.idle to this user, the neighbour (every thread of it) runs in
    an idle group while aside, the product stays where it is, and afterwards the neighbour, and a process it started
    meanwhile, are back in the neighbour's cgroup and the group is gone. Elsewhere nothing is moved."""
    neighbour, product = _started(2)
    child = None
    try:
        home, product_home = cpu_cgroup(neighbour.pid), cpu_cgroup(product.pid)
        with aside([neighbour.pid, product.pid], keep={product.pid}):
            inside = cpu_cgroup(neighbour.pid)
            assert cpu_cgroup(product.pid) == product_home
            if not can_idle():
                assert inside == home
                return
            assert inside != home and inside is not None
            group = CPU_HIERARCHY / inside.lstrip("/")
            assert (group / "cpu.idle").read_text().strip() == "1"
            assert {int(t) for t in (group / "tasks").read_text().split()} == set(tasks(neighbour.pid))
            # a process started in the group meanwhile (as a neighbour's child would be)
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
            (group / "cgroup.procs").write_text(str(child.pid))
        assert cpu_cgroup(neighbour.pid) == home and cpu_cgroup(product.pid) == product_home
        assert cpu_cgroup(child.pid) == "/"  # its parent (this test) was not set aside: the hierarchy's root
        assert not group.exists()
    finally:
        for p in (neighbour, product, *([child] if child else [])):
            p.kill()
            p.wait()
