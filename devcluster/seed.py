"""What devcluster puts in the cluster once Kueue answers (its webhooks, queues and visibility API; the real node's
queue), and when each counts as ready. `wait(what, check, procs, timeout)` is the cluster's: it fails early when one
of `procs` has exited."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import manifests
from .rest import Rest

Wait = Callable[[str, Callable[[], object], tuple[str, ...], float], None]

# a dry-run create of this goes through Kueue's mutating and validating ClusterQueue hooks: it proves the
# apiserver -> 127.0.0.1 webhook TLS path
WEBHOOK_PROBE = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "ClusterQueue",
    "metadata": {"name": "devcluster-webhook-probe"},
    "spec": {"resourceGroups": []},
}


def conditions(obj: dict[str, Any]) -> dict[str, str]:
    return {c["type"]: c["status"] for c in obj.get("status", {}).get("conditions", [])}


def queues_active(rest: Rest, objs: list[dict[str, Any]]) -> bool:
    """Every ClusterQueue and LocalQueue among `objs` reports Active."""
    for obj in objs:
        if obj["kind"] in ("ClusterQueue", "LocalQueue"):
            m = obj["metadata"]
            got = rest.get(rest.path(obj["apiVersion"], obj["kind"], m.get("namespace"), m["name"]))
            if conditions(got).get("Active") != "True":
                return False
    return True


def visibility_available(rest: Rest) -> bool:
    for v in manifests.VISIBILITY_API_VERSIONS:
        got = rest.get(f"/apis/apiregistration.k8s.io/v1/apiservices/{v}.visibility.kueue.x-k8s.io")
        if conditions(got).get("Available") != "True":
            return False
    return True


def seed_kueue(rest: Rest, ports: dict[str, int], ca_file: Path, wait: Wait, timeout: float) -> None:
    """Kueue's webhooks (once they answer), the seeded queues and the visibility API, until all are ready."""
    for hook in manifests.kueue_webhooks(ports["kueue-webhook"], ca_file.read_bytes()):
        rest.apply(hook)
    wait(
        "Kueue webhooks answering (dry-run ClusterQueue create)",
        lambda: rest.request("POST", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues?dryRun=All", WEBHOOK_PROBE),
        ("kueue",),
        timeout,
    )
    queues = manifests.data("kueue-queues.yaml")
    for obj in queues + manifests.kueue_visibility(ports["kueue-visibility"]):
        rest.apply(obj)
    wait(
        "ClusterQueues/LocalQueues Active and visibility APIService Available",
        lambda: queues_active(rest, queues) and visibility_available(rest),
        ("kueue",),
        timeout,
    )


def seed_real_node_queues(rest: Rest, wait: Wait, timeout: float) -> None:
    objs = manifests.data("kueue-real-node.yaml")
    for obj in objs:
        rest.apply(obj)
    wait("real-node ClusterQueue and LocalQueue Active", lambda: queues_active(rest, objs), ("kueue",), timeout)
