"""KubeRay RayCluster: a long-lived Ray head and workers, for interactive use. It never finishes by itself."""

from __future__ import annotations

from ...models.jobs import JobKind
from ..builders import raycluster as builder
from ..objects import condition, field, has_true, sentence
from .spec import KindSpec, Labels, Obj

RAY_IMAGE = "rayproject/ray:2.41.0"  # Ray's CPU image: its untagged platform
# Ray's images by platform tag: -gpu is its CUDA image; it publishes none for ROCm or Gaudi (vendors build their own)
RAY_VENDOR_IMAGES: dict[str, str | None] = {"nvidia": f"{RAY_IMAGE}-gpu", "amd": None, "habana": None, "intel": None}
RAY_VERSIONS = ("v1",)  # of ray.io, for RayCluster and RayJob alike


def suspended(obj: Obj) -> bool:
    return (
        bool(field(obj, "spec", "suspend"))
        or field(obj, "status", "state") == "suspended"
        or has_true(obj, "RayClusterSuspended")
        or has_true(obj, "RayClusterSuspending")
    )


def running(obj: Obj) -> bool:
    status = obj.get("status") or {}
    head_ready = has_true(obj, "HeadPodReady") or status.get("state") == "ready"
    desired = status.get("desiredWorkerReplicas")
    if desired is None:
        desired = sum(
            int(g.get("replicas", 0) or 0) * int(g.get("numOfHosts", 1) or 1)
            for g in field(obj, "spec", "workerGroupSpecs") or []
        )
    return head_ready and int(status.get("readyWorkerReplicas", 0) or 0) >= int(desired)


def starting_reason(obj: Obj) -> str | None:
    if has_true(obj, "ReplicaFailure"):
        failure = condition(obj, "ReplicaFailure") or {}
        return sentence(failure.get("reason") or "ReplicaFailure", failure.get("message"))
    if not has_true(obj, "HeadPodReady"):
        return "Waiting for the Ray head pod."
    return "Waiting for Ray workers to get ready."


def running_note(obj: Obj) -> str | None:
    if has_true(obj, "ReplicaFailure"):
        return sentence("Degraded", (condition(obj, "ReplicaFailure") or {}).get("message"))
    return None


def ray_node_type(labels: Labels) -> str | None:
    return labels.get("ray.io/node-type")


SPEC = KindSpec(
    kind=JobKind.ray_cluster,
    group="ray.io",
    versions=RAY_VERSIONS,
    cr_kind="RayCluster",
    plural="rayclusters",
    label="Ray cluster",
    badge="R",
    name_prefix="ray",
    build=builder.build_raycluster,
    pod_sets=builder.pod_sets,
    pod_selectors=lambda obj: [{"ray.io/cluster": field(obj, "metadata", "name")}],
    pod_role=ray_node_type,
    roles=("head", "worker"),
    terminal=lambda _obj: None,  # ReplicaFailure means degraded, not failed
    suspended=suspended,
    running=running,
    starting_reason=starting_reason,
    running_note=running_note,
    ray_cluster=lambda obj: field(obj, "metadata", "name"),
    takes_ray_jobs=True,
    request_fields=frozenset({"head", "volumes", "secrets", "max_workers", "worker_groups"}),
    default_image=RAY_IMAGE,
    vendor_images=RAY_VENDOR_IMAGES,
    # an interactive cluster holds its accelerators until someone stops it
    default_max_run_seconds=8 * 3600,
)
