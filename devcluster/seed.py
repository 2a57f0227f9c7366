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


NODE_IS_REAL = {"key": "kubernetes.io/hostname", "operator": "In", "values": ["devcluster-node"]}
SHARED_CLAIM = "shared-data"  # a PVC of team-a on the real node: data in, checkpoints out (examples/05)
SHARED_CSV = "x,y\n" + "".join(f"{x},{2 * x + 1}\n" for x in range(1, 21))  # the example's training data: y = 2x + 1


def shared_volume(run: Path) -> list[dict[str, Any]]:
    """A hostPath PersistentVolume on the real node (a folder of the run directory, with a small data set in it) and
    the team-a claim bound to it: real objects, bound by the controller manager's volume controller."""
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "devcluster-shared-data", "labels": {"devcluster": "shared-data"}},
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": "Retain",
                "storageClassName": "",
                "hostPath": {"path": str(run / "volumes" / SHARED_CLAIM), "type": "Directory"},
                "claimRef": {"namespace": "team-a", "name": SHARED_CLAIM},
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [{"matchExpressions": [NODE_IS_REAL]}],
                    }
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": SHARED_CLAIM, "namespace": "team-a"},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "",
                "volumeName": "devcluster-shared-data",
                "resources": {"requests": {"storage": "1Gi"}},
            },
        },
    ]


def seed_real_node_storage(rest: Rest, run: Path, wait: Wait, timeout: float) -> None:
    folder = run / "volumes" / SHARED_CLAIM
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o777)  # the pods' user may not be root
    (folder / "train.csv").write_text(SHARED_CSV)
    for obj in shared_volume(run):
        rest.apply(obj)
    claim = rest.path("v1", "PersistentVolumeClaim", "team-a", SHARED_CLAIM)
    wait("the shared-data claim Bound", lambda: rest.get(claim).get("status", {}).get("phase") == "Bound",
         ("kube-controller-manager",), timeout)  # fmt: skip
