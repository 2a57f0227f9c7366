"""Building the scale on devcluster (objects from scale_objects.py) and removing it, and waiting until the cluster
is done reacting to what was built."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import scale_objects as objs  # noqa: E402
from scale_load import apiserver_writes  # noqa: E402

from devcluster.rest import ApiError, Rest  # noqa: E402


def settle(rest: Rest, log: Callable[[str], None], quiet_per_s: float = 5.0, timeout: float = 900) -> float:
    """Wait until the cluster is done reacting to what was built (Kueue admitting Workloads, kwok starting pods):
    a write rate over 10 s no higher than the background that lasts for as long as the objects exist (kwok renews
    each node's lease, about 0.12 writes a second per node) plus `quiet_per_s`. Measuring before that measures the
    machine's two cores busy with the API server, not the product."""
    nodes = len(rest.get("/api/v1/nodes")["items"])
    floor = quiet_per_s + 0.15 * nodes
    t0, rate = time.monotonic(), None
    while time.monotonic() - t0 < timeout:
        before = apiserver_writes(rest)
        time.sleep(10)
        rate = (apiserver_writes(rest) - before) / 10
        if rate <= floor:
            break
        log(f"  settling: {rate:.0f} writes/s (settled at {floor:.0f})")
    log(f"  settled at {rate:.0f} writes/s" if rate is not None else "  settled")
    return time.monotonic() - t0


def create_all(rest: Rest, manifests: Iterable[dict[str, Any]], workers: int = 16) -> int:
    def create(obj: dict[str, Any]) -> int:
        meta = obj["metadata"]
        path = rest.path(obj["apiVersion"], obj["kind"], meta.get("namespace"))
        for attempt in range(5):
            try:
                rest.request("POST", path, obj, timeout=60)
                return 1
            except ApiError as exc:
                if exc.status == 409:
                    return 0
                if exc.status in (429, 500, 503) or "not found" in str(exc).lower():
                    time.sleep(0.5 * (attempt + 1))  # a namespace or CRD that is just being set up
                    continue
                raise
        return 0

    with ThreadPoolExecutor(workers) as pool:
        return sum(pool.map(create, manifests))


def build(rest: Rest, scale: objs.Scale, log: Callable[[str], None]) -> dict[str, float]:
    took = {}
    for i, wave in enumerate(objs.everything(scale)):
        t0 = time.monotonic()
        made = create_all(rest, wave)
        took[f"wave {i + 1}"] = round(time.monotonic() - t0, 1)
        log(f"  wave {i + 1}: {made} of {len(wave)} objects created in {took[f'wave {i + 1}']} s")
    return took


def remove(rest: Rest, log: Callable[[str], None]) -> None:
    """Everything with the bench label: namespaces (and all in them) first, then the cluster-scoped objects."""
    selector = f"labelSelector={objs.BENCH}%3Dtrue"

    def retried(fn: Callable[[], Any]) -> None:  # a busy API server drops a connection now and then
        for attempt in range(5):
            try:
                fn()
                return
            except (ApiError, OSError):
                if attempt == 4:
                    raise
                time.sleep(1 + attempt)

    # namespaces have no delete-collection: one by one (each takes everything in it along)
    names = [ns["metadata"]["name"] for ns in rest.get(f"/api/v1/namespaces?{selector}")["items"]]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: retried(lambda: rest.delete("v1", "Namespace", n)), names))
    for api_version, kind in (
        ("kueue.x-k8s.io/v1beta2", "ClusterQueue"),
        ("kueue.x-k8s.io/v1beta2", "Cohort"),
        ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"),
        ("v1", "Node"),
    ):
        path = f"{rest.path(api_version, kind)}?{selector}"
        retried(lambda p=path: rest.request("DELETE", p, timeout=120))
    for what in ("namespaces", "nodes"):
        with contextlib.suppress(TimeoutError):
            rest.wait(
                f"the bench {what} to go",
                lambda w=what: not rest.get(f"/api/v1/{w}?{selector}")["items"],
                timeout=900,
                interval=1,
            )
    log("  removed the bench objects")
