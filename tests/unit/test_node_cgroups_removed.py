"""The real node's cgroups are removed when the node stops, also when its last process is still being taken down
as the removal starts (rmdir then fails with EBUSY for a moment)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from devcluster.node import cgroup_root, remove_cgroups

CGROUPS = Path("/sys/fs/cgroup")


def _writable(h: str) -> bool:
    return (CGROUPS / h / "cgroup.procs").exists() and os.access(CGROUPS / h, os.W_OK) and os.geteuid() == 0


def test_a_node_whose_process_is_still_ending_leaves_no_cgroup(tmp_path: Path) -> None:
    run = tmp_path / f"cgroups-test-{os.getpid()}"  # the cgroup root is named after the run directory alone
    hierarchies = [h for h in ("cpu", "pids", "memory") if _writable(h)]
    if not hierarchies:  # no cgroup v1 to write (a user): nothing to make, and removing nothing must not fail
        remove_cgroups(run, wait=0.2)
        assert not any((CGROUPS / h / cgroup_root(run).lstrip("/")).exists() for h in ("cpu", "pids", "memory"))
        return
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        leaves = [CGROUPS / h / cgroup_root(run).lstrip("/") / "kubepods" / "pod1" for h in hierarchies]
        for leaf in leaves:
            leaf.mkdir(parents=True)
            (leaf / "cgroup.procs").write_text(str(proc.pid))
        # the process still holds its cgroups when the removal starts, and ends a moment later
        threading.Timer(0.5, lambda: (proc.kill(), proc.wait())).start()
        remove_cgroups(run, wait=10)
        assert [leaf.parents[1] for leaf in leaves if leaf.parents[1].exists()] == []
    finally:
        proc.kill()
        proc.wait()
