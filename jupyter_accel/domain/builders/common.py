"""What every job builder shares: the build context, names, labels, resources, placement and the script mount."""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ...models.jobs import JobRequest, ScriptInterpreter
from .. import labels as L
from ..resources import parse_quantity

DEFAULT_CPU = "1"
DEFAULT_MEMORY = "4Gi"
DEFAULT_RAY_JOB_TTL = 600  # keep a finished RayJob's cluster (and its logs) for 10 minutes
DEFAULT_TRAINING_RUNTIME = "torch-distributed"
SCRIPT_DIR = "/opt/jupyter-accel/script"
SCRIPT_VOLUME = "jupyter-accel-script"
# The working directory (services/workdir.py): packed into the script ConfigMap, unpacked into an emptyDir here in
# every pod before the program starts there, which then runs in it.
WORKDIR = "/opt/jupyter-accel/workdir"
WORKDIR_VOLUME = "jupyter-accel-workdir"
WORKDIR_ARCHIVE = "workdir.tar.gz"
# Resources every pod has that are not accelerators (used when the caller passes no accelerator list).
_NOT_ACCELERATORS = ("cpu", "memory", "ephemeral-storage", "pods", "hugepages-")


@dataclass(frozen=True)
class BuildContext:
    """Everything besides the request that shapes the objects; all of it resolved by the caller.

    profile: an already-translated hardware profile as a plain dict, used only when the request names
    hardware_profile. `dataclasses.asdict(hardware_profiles.apply_profile(...))` fits as is; keys (all optional):
      requests, limits                     per worker container (or resources: {"requests", "limits"})
      node_selector | nodeSelector, tolerations   copied into each worker pod template
      queue_name | queue, priority_class | priorityClass   Kueue LocalQueue / WorkloadPriorityClass
      annotations                          added to the job (e.g. opendatahub.io/hardware-profile-name)
      name, namespace                      alternative way to get the hardware-profile-* annotations
    """

    namespace: str
    image: str | None = None  # default image of this kind (server config); the request's image wins
    queue: str | None = None  # the server's default LocalQueue; the request's, then the profile's, win
    workbench: str | None = None  # NB_PREFIX of the workbench we run in
    known_accelerators: Sequence[str] | None = None  # None: anything besides cpu/memory/... counts
    profile: Mapping[str, Any] | None = None
    name_suffix: str = ""  # random suffix for generated names (when the request has no client_request_id)
    training_runtime: str = DEFAULT_TRAINING_RUNTIME
    # what the kind's spec decided from the cluster's copy of its API (KindSpec.build_options); {}: its defaults
    kind_options: Mapping[str, Any] = field(default_factory=dict)
    ray_version: str | None = None  # default: from the image tag
    workdir_archive: bytes | None = None  # the request's working dir, packed (services/workdir.py)
    max_run_seconds: int | None = None  # the server's default maximum run time for this kind; the request's wins


def profile(request: JobRequest, ctx: BuildContext) -> dict[str, Any]:
    """The translated profile in one spelling (see BuildContext), {} when the request names none."""
    raw = dict(ctx.profile or {}) if request.hardware_profile else {}
    res = dict(raw.get("resources") or {})
    if res and "requests" not in res and "limits" not in res:  # a flat map: requests == limits
        res = {"requests": res, "limits": dict(res)}
    annotations = dict(raw.get("annotations") or {})
    if raw.get("name"):
        annotations.setdefault(L.HARDWARE_PROFILE_NAME, raw["name"])
        if raw.get("namespace"):
            annotations.setdefault(L.HARDWARE_PROFILE_NAMESPACE, raw["namespace"])
    return {
        "requests": {k: str(v) for k, v in (raw.get("requests") or res.get("requests") or {}).items()},
        "limits": {k: str(v) for k, v in (raw.get("limits") or res.get("limits") or {}).items()},
        "nodeSelector": dict(raw.get("node_selector") or raw.get("nodeSelector") or {}),
        "tolerations": list(raw.get("tolerations") or []),
        "queue": raw.get("queue_name") or raw.get("queue"),
        "priorityClass": raw.get("priority_class") or raw.get("priorityClass"),
        "annotations": annotations,
    }


def job_name(request: JobRequest, ctx: BuildContext) -> str:
    """The request's name, else `<prefix>-<suffix>`; a client_request_id yields a stable suffix, so a retried
    request gets the same name and the API server answers AlreadyExists instead of creating a twin."""
    if request.name:
        return request.name
    if request.client_request_id:
        suffix = hashlib.sha1(request.client_request_id.encode()).hexdigest()[:5]
    elif ctx.name_suffix:
        suffix = ctx.name_suffix
    else:
        raise ValueError("job_name: the request has no name, no client_request_id and the context no name_suffix")
    from ..kinds import spec_of_kind  # the registry imports the builders

    return f"{spec_of_kind(request.kind).name_prefix}-{suffix.lower()}"


def script_configmap_name(job: str) -> str:
    return f"{job}-script"


def effective_queue(request: JobRequest, ctx: BuildContext) -> str | None:
    """The user's choice, then the hardware profile's, then the server's default."""
    return request.queue or profile(request, ctx)["queue"] or ctx.queue


def effective_priority_class(request: JobRequest, ctx: BuildContext) -> str | None:
    return request.priority_class or profile(request, ctx)["priorityClass"]


def image(request: JobRequest, ctx: BuildContext) -> str:
    chosen = request.image or ctx.image
    if not chosen:
        raise ValueError(f"no image given and no default image configured for {request.kind.value}")
    return chosen


def metadata(name: str, request: JobRequest, ctx: BuildContext) -> dict[str, Any]:
    """metadata of a top-level object we create (the job CR and its ConfigMap alike, so both are found again)."""
    meta: dict[str, Any] = {
        "name": name,
        "namespace": ctx.namespace,
        "labels": L.job_labels(
            kind=request.kind.value,
            workbench=ctx.workbench,
            queue=effective_queue(request, ctx),
            priority_class=effective_priority_class(request, ctx),
            request_id=request.client_request_id,
            user=request.labels,
            max_run_seconds=request.max_run_seconds or ctx.max_run_seconds,
        ),
    }
    annotations = {
        **profile(request, ctx)["annotations"],
        **L.job_annotations(workbench=ctx.workbench, request_id=request.client_request_id),
    }
    if annotations:
        meta["annotations"] = annotations
    return meta


def pod_metadata(request: JobRequest, ctx: BuildContext, role: str) -> dict[str, Any]:
    # No queue label on pod templates: Kueue's pod integration would treat the pods as jobs of their own.
    return {"labels": {**L.ownership_labels(request.kind.value, ctx.workbench), L.ROLE: role}}


def is_accelerator(resource: str, known: Sequence[str] | None) -> bool:
    if known is not None:
        return resource in known
    return not resource.startswith(_NOT_ACCELERATORS)


def worker_resources(request: JobRequest, ctx: BuildContext) -> dict[str, dict[str, str]]:
    """ResourceRequirements of a worker container: profile, then the request's cpu/memory, then accelerators.

    cpu/memory from the request are set as request == limit (KubeRay derives num-cpus and memory from limits);
    accelerators always request == limit (extended resources may not be overcommitted).
    """
    translated = profile(request, ctx)
    requests, limits = translated["requests"], translated["limits"]
    for resource, value, default in (("cpu", request.cpu, DEFAULT_CPU), ("memory", request.memory, DEFAULT_MEMORY)):
        if value is not None:
            requests[resource] = limits[resource] = value
        elif resource not in requests and resource not in limits:
            requests[resource] = limits[resource] = default
    if request.accelerators:
        requests[request.accelerators.resource] = limits[request.accelerators.resource] = str(
            request.accelerators.count
        )
    for resource in list(requests) + list(limits):  # a profile's accelerator given on one side only
        if is_accelerator(resource, ctx.known_accelerators):
            value = limits.get(resource) or requests[resource]
            requests[resource] = limits[resource] = str(value)
    return {"requests": requests, "limits": limits}


def accelerators_of(resources: Mapping[str, Mapping[str, Any]], known: Sequence[str] | None) -> dict[str, int]:
    """Accelerators in a ResourceRequirements dict (limits win: that is what device plugins allocate)."""
    merged = {**(resources.get("requests") or {}), **(resources.get("limits") or {})}
    return {
        k: int(parse_quantity(v))
        for k, v in merged.items()
        if is_accelerator(k, known) and parse_quantity(v) > Decimal(0)
    }


def head_resources(request: JobRequest) -> dict[str, dict[str, str]]:
    values = {"cpu": request.head.cpu, "memory": request.head.memory}
    return {"requests": dict(values), "limits": dict(values)}


def apply_placement(pod_spec: dict[str, Any], ctx: BuildContext, request: JobRequest) -> dict[str, Any]:
    """Copy a hardware profile's nodeSelector / tolerations into a worker pod spec (ODH does not do it for us)."""
    translated = profile(request, ctx)
    if translated["nodeSelector"]:
        pod_spec["nodeSelector"] = {**pod_spec.get("nodeSelector", {}), **translated["nodeSelector"]}
    if translated["tolerations"]:
        pod_spec["tolerations"] = [*pod_spec.get("tolerations", []), *translated["tolerations"]]
    return pod_spec


def env_list(request: JobRequest) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in request.env.items()]


def script_path(request: JobRequest) -> str:
    assert request.script is not None
    return f"{SCRIPT_DIR}/{request.script.filename}"


def script_command(request: JobRequest) -> list[str]:
    """argv that runs the request's script from the mounted ConfigMap."""
    assert request.script is not None
    from ..kinds import spec_of_kind  # the registry imports the builders

    interpreter = request.script.interpreter or spec_of_kind(request.kind).interpreter or ScriptInterpreter.python
    return [interpreter.value, script_path(request), *request.script.args]


def script_shell_command(request: JobRequest) -> str:
    """The same as one shell line (a RayJob entrypoint is a shell command)."""
    return shlex.join(script_command(request))


# unpack the working dir, then run the program in it, its modules importable from a script run elsewhere (a cell);
# `sh -c SCRIPT DIR ARGV...` keeps the program's argv as given
_UNPACK = (
    f'mkdir -p "$0" && tar -xzf {SCRIPT_DIR}/{WORKDIR_ARCHIVE} -C "$0" && cd "$0" && '
    'export PYTHONPATH="$0${PYTHONPATH:+:$PYTHONPATH}" && exec "$@"'
)


def in_workdir(request: JobRequest, argv: list[str]) -> list[str]:
    """argv, run in the unpacked working dir when the request sends one."""
    return ["sh", "-c", _UNPACK, WORKDIR, *argv] if request.workdir else argv


def shell_in_workdir(request: JobRequest, line: str) -> str:
    """A shell command line, run in the unpacked working dir when the request sends one (a RayJob entrypoint)."""
    if not request.workdir:
        return line
    unpack = f"mkdir -p {WORKDIR} && tar -xzf {SCRIPT_DIR}/{WORKDIR_ARCHIVE} -C {WORKDIR} && cd {WORKDIR}"
    return f'{unpack} && export PYTHONPATH="{WORKDIR}${{PYTHONPATH:+:$PYTHONPATH}}" && {line}'


def ships_files(request: JobRequest) -> bool:
    """The job has a ConfigMap of files to mount: a script, a working dir, or both."""
    return bool(request.script or request.workdir)


def script_volume(job: str) -> dict[str, Any]:
    return {"name": SCRIPT_VOLUME, "configMap": {"name": script_configmap_name(job)}}


def script_mount() -> dict[str, Any]:
    return {"name": SCRIPT_VOLUME, "mountPath": SCRIPT_DIR, "readOnly": True}


def file_volumes(job: str, request: JobRequest) -> list[dict[str, Any]]:
    """The pod's volumes: the files the request ships, its PVCs and its Secrets mounted as files."""
    vols = [script_volume(job)] if ships_files(request) else []
    if request.workdir:
        vols.append({"name": WORKDIR_VOLUME, "emptyDir": {}})
    for i, v in enumerate(request.volumes):
        vols.append({"name": f"data-{i}", "persistentVolumeClaim": {"claimName": v.claim, "readOnly": v.read_only}})
    for i, sec in enumerate(request.secrets):
        if sec.mount_path:
            vols.append({"name": f"secret-{i}", "secret": {"secretName": sec.name}})
    return vols


def file_mounts(request: JobRequest) -> list[dict[str, Any]]:
    """The container's mounts, in the order of file_volumes."""
    mounts = [script_mount()] if ships_files(request) else []
    if request.workdir:
        mounts.append({"name": WORKDIR_VOLUME, "mountPath": WORKDIR})
    for i, v in enumerate(request.volumes):
        mount = {"name": f"data-{i}", "mountPath": v.mount_path, "readOnly": v.read_only}
        mounts.append({**mount, "subPath": v.sub_path} if v.sub_path else mount)
    for i, sec in enumerate(request.secrets):
        if sec.mount_path:
            mounts.append({"name": f"secret-{i}", "mountPath": sec.mount_path, "readOnly": True})
    return mounts


def secret_env(request: JobRequest) -> list[dict[str, Any]]:
    """envFrom for the Secrets given as environment: by reference, so their values never pass through us."""
    return [{"secretRef": {"name": sec.name}} for sec in request.secrets if not sec.mount_path]


def container(
    name: str, request: JobRequest, ctx: BuildContext, resources: dict[str, Any], *, command: list[str] | None = None
) -> dict[str, Any]:
    # On failure the kubelet copies the log's tail into the termination message: the job's reason can then
    # name the last line a failed process printed without a log read.
    c: dict[str, Any] = {
        "name": name,
        "image": image(request, ctx),
        "resources": resources,
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    if command:
        c["command"] = in_workdir(request, command)
    if request.env:
        c["env"] = env_list(request)
    if env_from := secret_env(request):
        c["envFrom"] = env_from
    if mounts := file_mounts(request):
        c["volumeMounts"] = mounts
    return c


def pod_spec(containers: list[dict[str, Any]], name: str, request: JobRequest, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": containers, **extra}
    if volumes := file_volumes(name, request):
        spec["volumes"] = volumes
    if pulls := pull_secrets(request):
        spec["imagePullSecrets"] = pulls
    return spec


def pull_secrets(request: JobRequest) -> list[dict[str, str]]:
    return [{"name": n} for n in request.image_pull_secrets]


def owner_reference(owner: Mapping[str, Any]) -> dict[str, Any]:
    """ownerReference to a created object (needs its uid): lets the ConfigMap go when the job goes."""
    meta = owner["metadata"]
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": False,
        "blockOwnerDeletion": False,
    }


def with_owner(child: dict[str, Any], owner: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `child` owned by `owner` (call after creating the main CR, before creating the child)."""
    meta = {**child["metadata"], "ownerReferences": [owner_reference(owner)]}
    return {**child, "metadata": meta}
