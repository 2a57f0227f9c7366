"""KubeRay RayJob: a batch entrypoint on a RayCluster made for it; its submitter pod's log is the job's output."""

from __future__ import annotations

from ...models.jobs import JobKind, JobStatus, ScriptInterpreter
from ..builders import rayjob as builder
from ..objects import field, sentence
from .raycluster import RAY_IMAGE, RAY_VENDOR_IMAGES, RAY_VERSIONS, ray_node_type
from .spec import KindSpec, Labels, Obj, Terminal


def pod_selectors(obj: Obj) -> list[dict[str, str]]:
    selectors = [{"job-name": field(obj, "metadata", "name")}]  # the K8sJobMode submitter Job has its name
    cluster = field(obj, "status", "rayClusterName")
    return [{"ray.io/cluster": cluster}, *selectors] if cluster else selectors


def pod_role(labels: Labels) -> str | None:
    return ray_node_type(labels) or ("submitter" if "job-name" in labels else None)


def terminal(obj: Obj) -> Terminal | None:
    # jobDeploymentStatus decides terminal-ness, jobStatus decides success (kuberay #2314).
    status = obj.get("status") or {}
    deployment, job = status.get("jobDeploymentStatus"), status.get("jobStatus")
    if deployment == "Complete":
        if job == "SUCCEEDED":
            return JobStatus.succeeded, sentence(status.get("message"))
        return JobStatus.failed, sentence(f"The Ray job ended {job or 'without a result'}", status.get("message"))
    if deployment in ("Failed", "ValidationFailed"):
        return JobStatus.failed, sentence(status.get("reason") or deployment, status.get("message"))
    if job in ("FAILED", "STOPPED"):
        return JobStatus.failed, sentence(f"The Ray job ended {job}", status.get("message"))
    return None


def suspended(obj: Obj) -> bool:
    return bool(field(obj, "spec", "suspend")) or field(obj, "status", "jobDeploymentStatus") in (
        "Suspending",
        "Suspended",
    )


def running(obj: Obj) -> bool:
    status = obj.get("status") or {}
    return status.get("jobDeploymentStatus") == "Running" or status.get("jobStatus") == "RUNNING"


def starting_reason(obj: Obj) -> str | None:
    status = obj.get("status") or {}
    if status.get("message"):
        return sentence(status["message"])
    return (
        "Creating the Ray cluster." if status.get("jobDeploymentStatus") in (None, "", "New", "Initializing") else None
    )


def running_note(obj: Obj) -> str | None:
    if field(obj, "status", "jobStatus") == "SUCCEEDED":
        return "The Ray job succeeded; the operator is wrapping up."
    return None


SPEC = KindSpec(
    kind=JobKind.ray_job,
    group="ray.io",
    versions=RAY_VERSIONS,
    cr_kind="RayJob",
    plural="rayjobs",
    label="Ray job",
    badge="R",
    name_prefix="rayjob",
    build=builder.build_rayjob,
    pod_sets=builder.pod_sets,
    pod_selectors=pod_selectors,
    pod_role=pod_role,
    roles=("submitter", "head", "worker"),
    terminal=terminal,
    suspended=suspended,
    running=running,
    starting_reason=starting_reason,
    running_note=running_note,
    ray_cluster=lambda obj: field(obj, "status", "rayClusterName"),
    request_fields=frozenset(
        {
            "head",
            "entrypoint",
            "runtime_env",
            "script",
            "ttl_seconds_after_finished",
            "workdir",
            "volumes",
            "secrets",
            "worker_groups",
        }
    ),
    interpreter=ScriptInterpreter.python,
    program=("entrypoint", "script"),
    default_image=RAY_IMAGE,
    vendor_images=RAY_VENDOR_IMAGES,
)
