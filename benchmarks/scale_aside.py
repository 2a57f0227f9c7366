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

Nice weighs, it does not rank: a group's weight is spread over the cores by where its threads ran, so on the core
the loop thread wakes on the server's group can weigh little, and the loop thread then waited up to 19 ms for a
core while the server's other threads used none (stop 42's runs). Where the cgroup v1 cpu controller offers
`cpu.idle` (Linux 5.15+) and may be written (root), the neighbours' processes are also moved into a cgroup of their
own marked idle: the scheduler then runs them only on a core that nothing else wants, places a waking thread on a
core that runs only idle ones, and lets it preempt them at once. Each is moved back to the cgroup it came from.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from devcluster.process import stat_fields

LOWEST = 19
CPU_HIERARCHY = Path("/sys/fs/cgroup/cpu")  # the cgroup v1 cpu controller's mount (cgroup v2 is not handled here)


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


def cpu_cgroup(pid: int) -> str | None:
    """The path of process `pid`'s cgroup in the v1 cpu hierarchy ("/" the root); None when it has none."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            return path
    return None


def can_idle() -> bool:
    """Whether neighbours can be moved into an idle cpu cgroup here: the v1 cpu controller with `cpu.idle`,
    writable (root; a user may not move others' processes)."""
    return (CPU_HIERARCHY / "cpu.idle").exists() and os.access(CPU_HIERARCHY, os.W_OK) and os.geteuid() == 0


def _move(pid: int, path: str) -> bool:
    """Process `pid`, all its threads (cgroup.procs moves a thread group), into the cpu cgroup at `path`."""
    try:
        (CPU_HIERARCHY / path.lstrip("/") / "cgroup.procs").write_text(str(pid))
        return True
    except OSError:  # gone meanwhile
        return False


@contextlib.contextmanager
def idle_group(pids: Iterable[int]) -> Iterator[Path | None]:
    """`pids` in a fresh idle cpu cgroup until the context ends, then each back where it was; processes started in
    it meanwhile go to their parent's cgroup (or the hierarchy's root), and the group is removed. Yields the group's
    directory, or None where `can_idle()` is false (nothing is moved)."""
    if not can_idle():
        yield None
        return
    group = CPU_HIERARCHY / f"ja-bench-aside-{os.getpid()}"
    group.mkdir(exist_ok=True)
    (group / "cpu.idle").write_text("1")
    came_from = {pid: path for pid in pids if (path := cpu_cgroup(pid)) is not None and _move(pid, "/" + group.name)}
    try:
        yield group
    finally:
        for pid, path in came_from.items():
            _move(pid, path)
        for left in (group / "cgroup.procs").read_text().split():
            parent = int(fields[1]) if (fields := stat_fields(int(left))) else 0
            _move(int(left), came_from.get(parent, "/"))
        with contextlib.suppress(OSError):
            group.rmdir()


@contextlib.contextmanager
def aside(pids: Iterable[int], keep: set[int]) -> Iterator[list[int]]:
    """Every thread of `pids` at nice LOWEST, except the processes in `keep`, and their sessions' autogroups where
    none is a session of `keep`, and those processes in an idle cpu cgroup where one can be made (`idle_group`); on
    the way out, each process's threads, those started meanwhile too, its group and its cgroup back at the values
    they had, where permitted. Yields the processes set aside."""
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
        with idle_group(sorted(before)):
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
