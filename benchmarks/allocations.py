"""What the inventory's per-node allocations cost per build, side by side: summed from a copy of every cached pod
(`InventoryMemo.allocated`, what the server did before 2026-12-07 and what plain-dict caches still get) and from
the pods cache's changes since the last build (`InventoryMemo.follow` over the informer's journal). Both memos are
fed the same churn and must agree after every build; no cluster: the informer is fed watch events directly.

    python benchmarks/allocations.py [--pods 20000] [--nodes 1000] [--changes 10] [--builds 50]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from jupyter_accel.cluster.informer import Informer, Resource
from jupyter_accel.cluster.trim import trim_pod
from jupyter_accel.domain.inventory import InventoryMemo

PODS = Resource("allpods", "", "v1", "pods", False, trim_pod)


def _pod(i: int, rv: int, node: str, cpu: str) -> dict[str, Any]:
    return {
        "metadata": {"name": f"pod-{i:05d}", "namespace": f"ns-{i % 50:02d}", "resourceVersion": str(rv)},
        "spec": {
            "nodeName": node,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "nvidia.com/gpu": "1"}}}],
        },
        "status": {"phase": "Running"},
    }


def measure(pods: int, nodes: int, changes: int, builds: int) -> dict[str, float]:
    informer = Informer(None, PODS, None, lambda _key: None)  # type: ignore[arg-type]  # never started
    for i in range(pods):
        informer._apply({"type": "ADDED", "object": _pod(i, i + 1, f"node-{i % nodes:04d}", "1")})
    copied, followed = InventoryMemo(), InventoryMemo()
    copied.allocated(informer.items())
    followed.follow(informer)
    rv, by_copy, by_changes = pods, [], []
    for b in range(builds):
        for c in range(changes):
            rv += 1
            i = (b * changes + c) * 7919 % pods
            informer._apply({"type": "MODIFIED", "object": _pod(i, rv, f"node-{rv % nodes:04d}", str(1 + rv % 3))})
        t0 = time.perf_counter()
        a = copied.allocated(informer.items())
        t1 = time.perf_counter()
        f = followed.follow(informer)
        t2 = time.perf_counter()
        if a != f:
            raise AssertionError(f"build {b}: the two memos disagree")
        by_copy.append(t1 - t0)
        by_changes.append(t2 - t1)
    copy_ms, follow_ms = statistics.median(by_copy) * 1000, statistics.median(by_changes) * 1000
    return {"copy_ms": copy_ms, "follow_ms": follow_ms, "ratio": copy_ms / follow_ms}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pods", type=int, default=20_000)
    p.add_argument("--nodes", type=int, default=1_000)
    p.add_argument("--changes", type=int, default=10, help="pod changes between two builds")
    p.add_argument("--builds", type=int, default=50)
    a = p.parse_args(argv)
    r = measure(a.pods, a.nodes, a.changes, a.builds)
    print(f"per-node allocations of {a.pods:,} pods on {a.nodes:,} nodes, {a.changes} changes between builds, "
          f"median of {a.builds} builds:")  # fmt: skip
    print(f"  from a copy of every pod:   {r['copy_ms']:.2f} ms")
    print(f"  from the changes since:     {r['follow_ms']:.2f} ms")
    print(f"  ratio: {r['ratio']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
