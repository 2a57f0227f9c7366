"""Wire models of jobs: the launch request (JobRequest) and the unified view of a job (JobView).

Pydantic checks syntax field by field (so errors carry field paths); semantic checks that need the cluster's
accelerators, hardware profiles or the kind (entrypoint only for ray-job, ...) live in domain/job_request.py.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

from .base import Tone, Visibility, Wire
from .fit import PendingAhead
from .kinds import JobKind

# Job names end up in Service and pod host names (`<job>-head-svc`, `<rayjob>-xxxxx-head-svc`, `<job>-worker-63`),
# which are DNS-1035 labels of <= 63 characters; 47 leaves room for the longest suffix an operator appends.
MAX_JOB_NAME = 47
NAME_PATTERN = r"^[a-z]([-a-z0-9]*[a-z0-9])?$"
MAX_WORKERS = 64
# the exponent is bounded (a Kubernetes quantity never needs more): 1e999999999 would overflow the arithmetic
QUANTITY_PATTERN = r"^([0-9]+(\.[0-9]+)?|\.[0-9]+)([eE][0-9]{1,2}|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$"
# Extended resource names: <DNS subdomain>/<name>, e.g. nvidia.com/gpu, nvidia.com/mig-1g.5gb, habana.ai/gaudi.
RESOURCE_NAME_PATTERN = r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
LABEL_VALUE_PATTERN = r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$"
DNS_SUBDOMAIN_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
ENV_NAME_PATTERN = r"^[-._a-zA-Z][-._a-zA-Z0-9]*$"
SCRIPT_FILENAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"

_LABEL_NAME = re.compile(LABEL_VALUE_PATTERN)
_SUBDOMAIN = re.compile(DNS_SUBDOMAIN_PATTERN)


def _label_key(key: str) -> str:
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not _SUBDOMAIN.match(prefix)):
        raise ValueError(f"label key prefix {prefix!r} must be a lower-case DNS subdomain (<= 253 characters)")
    if not name or len(name) > 63 or not _LABEL_NAME.match(name):
        raise ValueError(
            f"label key name {name!r} must be 1-63 letters, digits, '-', '_' or '.', "
            "beginning and ending with a letter or digit"
        )
    return key


def _numbers_as_text(value: Any) -> Any:
    # JSON clients send `"cpu": 2`; Kubernetes quantities are strings.
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _matching(pattern: str, allowed: str, max_length: int) -> tuple[AfterValidator, Any]:
    """A readable error (`allowed`) instead of pydantic's "should match pattern"; the pattern still documents it."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if len(value) > max_length or not compiled.match(value):
            raise ValueError(f"{value!r} is not allowed: {allowed}")
        return value

    return AfterValidator(check), Field(json_schema_extra={"pattern": pattern, "maxLength": max_length})


Quantity = Annotated[
    str,
    BeforeValidator(_numbers_as_text),
    *_matching(QUANTITY_PATTERN, "a Kubernetes quantity such as 500m, 2, 1.5 or 16Gi", 32),
    # the document says what is accepted: a quantity string, or a plain JSON number (taken as its text)
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "pattern": QUANTITY_PATTERN, "maxLength": 32},
                {"type": "number", "minimum": 0},
            ],
            "description": "A Kubernetes quantity such as 500m, 2, 1.5 or 16Gi; a JSON number is taken as its text.",
        }
    ),
]
LabelKey = Annotated[str, AfterValidator(_label_key)]
LabelValue = Annotated[
    str,
    *_matching(
        LABEL_VALUE_PATTERN,
        "a label value: at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit",
        63,
    ),
]
QueueName = Annotated[
    str,
    Field(min_length=1),
    *_matching(LABEL_VALUE_PATTERN, "a Kueue object name: at most 63 letters, digits, '-', '_' or '.'", 63),
]
EnvName = Annotated[
    str,
    *_matching(
        ENV_NAME_PATTERN,
        "an environment variable name: letters, digits, '_', '-' or '.', not starting with a digit",
        256,
    ),
]
JobName = Annotated[
    str,
    *_matching(
        NAME_PATTERN,
        f"a job name: at most {MAX_JOB_NAME} lower-case letters, digits or '-', beginning with a letter "
        "and ending with a letter or digit",
        MAX_JOB_NAME,
    ),
]
ResourceName = Annotated[
    str, *_matching(RESOURCE_NAME_PATTERN, "an extended resource name such as nvidia.com/gpu or amd.com/gpu", 253)
]
ObjectName = Annotated[
    str, *_matching(DNS_SUBDOMAIN_PATTERN, "a Kubernetes object name: lower-case letters, digits, '-' and '.'", 253)
]


class AcceleratorRequest(Wire):
    resource: ResourceName = Field(description="Extended resource name, e.g. nvidia.com/gpu, nvidia.com/mig-1g.5gb.")
    count: int = Field(1, ge=1, le=64, description="Accelerators per worker pod.")


class ScriptInterpreter(StrEnum):
    python = "python"
    torchrun = "torchrun"  # pytorch / trainjob only; reads the PET_* variables the operators inject
    bash = "bash"


class JobScript(Wire):
    """A script body (e.g. a notebook cell) shipped in a ConfigMap, mounted into the pods and run there."""

    text: str = Field(min_length=1, description="The script itself; at most ~1 MiB (it travels in a ConfigMap).")
    interpreter: ScriptInterpreter | None = Field(
        None, description="Default: python for ray-job, torchrun for pytorch and trainjob."
    )
    filename: str = Field("main.py", pattern=SCRIPT_FILENAME_PATTERN)
    args: list[str] = Field(default_factory=list, description="Arguments after the script path.")


class HeadResources(Wire):
    cpu: Quantity = "1"
    memory: Quantity = "4Gi"


GroupName = Annotated[
    str,
    *_matching(
        r"^[a-z]([-a-z0-9]*[a-z0-9])?$",
        "a worker group name: at most 40 lower-case letters, digits or '-', beginning with a letter",
        40,
    ),
]


class WorkerGroupRequest(Wire):
    """Ray kinds: a worker group beside the first one, e.g. CPU workers beside the GPU workers."""

    name: GroupName = Field(description="Unique in the job; not 'head' nor 'workers' (the first group's name).")
    workers: int = Field(1, ge=0, le=MAX_WORKERS, description="Worker pods of this group (its minimum when it scales).")
    max_workers: int | None = Field(
        default=None, ge=0, le=MAX_WORKERS, description="ray-cluster only: autoscale this group up to this many."
    )
    accelerators: AcceleratorRequest | None = Field(default=None, description="Per worker pod of this group.")
    cpu: Quantity | None = Field(default=None, description="Per worker pod; default 1.")
    memory: Quantity | None = Field(default=None, description="Per worker pod; default 4Gi.")


class VolumeRequest(Wire):
    """A PersistentVolumeClaim of the namespace, mounted into every pod of the job (data in, checkpoints out)."""

    claim: ObjectName = Field(description="The claim's name; it must exist in the namespace.")
    mount_path: str = Field(
        min_length=2, max_length=1024, pattern=r"^/", description="Absolute path in the containers, e.g. /data."
    )
    sub_path: str | None = Field(None, min_length=1, max_length=1024, description="A folder of the volume instead.")
    read_only: bool = False


class SecretRequest(Wire):
    """A Secret of the namespace (an OpenShift AI connection is one), given to every pod of the job by reference:
    its values never pass through jupyter-accel."""

    name: ObjectName = Field(description="The Secret's name; it must exist in the namespace.")
    mount_path: str | None = Field(
        None,
        min_length=2,
        max_length=1024,
        pattern=r"^/",
        description="As files (one per key) under this folder; without it, as environment variables (one per key).",
    )


class JobRequest(Wire):
    """What a user asks to launch. Semantic checks: domain/job_request.py validate_job_request()."""

    kind: JobKind
    name: JobName | None = Field(None, description="Lower-case DNS-1035 label; generated when omitted.")
    image: str | None = Field(
        None,
        min_length=1,
        max_length=512,
        pattern=r"^\S+$",
        description="Container image; default: the server's configured image for the kind.",
    )
    entrypoint: str | None = Field(
        None, min_length=1, max_length=16384, description="ray-job only: shell command run by `ray job submit`."
    )
    command: list[str] | None = Field(None, min_length=1, description="pytorch / trainjob: container command.")
    script: JobScript | None = None
    workdir: str | None = Field(
        None,
        min_length=1,
        max_length=4096,
        description="pytorch / trainjob / ray-job: a folder of the Jupyter server's files (absolute, or relative to "
        "its root) that the program runs in: packed by the server (hidden files, caches, checkpoints and the "
        "folder's .gitignore / .accelignore rules left out), unpacked at /opt/jupyter-accel/workdir in every pod.",
    )
    workers: int = Field(
        1,
        ge=0,
        le=MAX_WORKERS,
        description=(
            "Ray: worker pods besides the head (0 = head only). pytorch / trainjob: nodes in total (>= 1; "
            "for pytorch one is the Master)."
        ),
    )
    max_workers: int | None = Field(
        default=None,
        ge=0,
        le=MAX_WORKERS,
        description="ray-cluster only: autoscale the workers between `workers` and this many (Ray's autoscaler; "
        "under Kueue an elastic job, each worker it adds admitted as a new slice of quota).",
    )
    worker_groups: list[WorkerGroupRequest] = Field(
        default_factory=list,
        max_length=6,
        description="Ray kinds: more worker groups beside the first (`workers`); Kueue admits a head and at most "
        "seven groups.",
    )
    accelerators: AcceleratorRequest | None = Field(None, description="Per worker; exclusive with hardware_profile.")
    hardware_profile: ObjectName | None = None
    cpu: Quantity | None = Field(None, description="Per worker pod; default from the profile, else 1.")
    memory: Quantity | None = Field(None, description="Per worker pod; default from the profile, else 4Gi.")
    head: HeadResources = Field(default_factory=HeadResources, description="Ray head pod (Ray kinds only).")
    queue: QueueName | None = Field(None, description="Kueue LocalQueue; default: resolved by the server.")
    priority_class: QueueName | None = Field(None, description="Kueue WorkloadPriorityClass.")
    env: dict[EnvName, str] = Field(default_factory=dict)
    volumes: list[VolumeRequest] = Field(
        default_factory=list, max_length=16, description="PVCs of the namespace to mount (pytorch and Ray kinds)."
    )
    secrets: list[SecretRequest] = Field(
        default_factory=list,
        max_length=16,
        description="Secrets / connections of the namespace, as environment or files (pytorch and Ray kinds).",
    )
    image_pull_secrets: list[ObjectName] = Field(
        default_factory=list,
        max_length=8,
        description="Secrets of the namespace (type kubernetes.io/dockerconfigjson) that pull a private image; each "
        "must exist. Every pod of the job gets them.",
    )
    runtime_env: dict[str, Any] | None = Field(None, description="ray-job only: Ray runtime_env (pip, env_vars, ...).")
    ttl_seconds_after_finished: int | None = Field(
        None, ge=0, le=2**31 - 1, description="ray-job and pytorch: delete this long after the end."
    )
    labels: dict[LabelKey, LabelValue] = Field(default_factory=dict)
    nproc_per_node: int | None = Field(
        None,
        ge=1,
        le=256,
        description=("pytorch / trainjob: processes per node; default: accelerators per pod, else 1."),
    )
    runtime: ObjectName | None = Field(
        None, description="trainjob only: ClusterTrainingRuntime name (default torch-distributed)."
    )
    client_request_id: QueueName | None = Field(
        None, description="Idempotency key: a retry with the same id returns the same job."
    )
    max_run_seconds: int | None = Field(
        None,
        ge=60,
        le=2**31 - 1,
        description="Maximum run time: Kueue stops the job (deactivates its Workload) after it has been admitted "
        "this long, and the time bounds when the jobs behind it start. Default: the server's for the kind.",
    )


class JobStatus(StrEnum):
    queued = "Queued"  # Kueue has not reserved quota (reason + position)
    admitted = "Admitted"  # quota reserved and admission checks passed; no pod started yet
    starting = "Starting"  # pods pending (reason from pod conditions / container waiting reasons)
    running = "Running"
    succeeded = "Succeeded"
    failed = "Failed"
    suspended = "Suspended"  # stopped by a user (Workload deactivated or spec.suspend without Kueue)
    deleting = "Deleting"  # deletionTimestamp set


class JobAction(StrEnum):
    suspend = "suspend"
    resume = "resume"
    extend = "extend"  # give it a longer time limit (POST jobs/{kind}/{name}/limit)
    run = "run"  # send it a Ray job (a running Ray cluster: POST jobs/{kind}/{name}/dashboard/api/jobs/)
    delete = "delete"


class JobDisplay(Wire):
    """How every front-end shows a job's state, decided once on the server (domain/presentation.py)."""

    label: str = Field(description="The status as people read it, e.g. 'Queued'.")
    tone: Tone
    sentence: str = Field(description="One sentence on why it is in this state (the reason, or the state's own).")
    place: str | None = Field(
        None, description="Its place in line when queued, e.g. '1st in line'; none when it can never start as is."
    )
    detail: str | None = Field(None, description="Kueue's own message on why it waits, beside the sentence.")
    eta: str | None = Field(
        None, description="Queued: when it starts at the latest if the jobs ahead stop at their limits, or why unknown."
    )
    time_limit: str | None = Field(None, description="Admitted with a maximum run time: when Kueue stops it.")
    finished: bool = Field(description="It has ended (succeeded or failed); its logs no longer grow.")
    warning: str | None = Field(
        None, description="Something the user should act on, e.g. a Ray cluster holding accelerators that runs nothing."
    )
    stopped_at_limit: bool = Field(
        False, description="Kueue stopped it at its time limit (nothing deleted); extending the limit queues it again."
    )
    actions: list[JobAction] = Field(description="What a user may do to it now (a read-only server offers none).")


class PodSummary(Wire):
    name: str
    role: str | None = Field(None, description="head / worker / submitter / master / node (replicated job).")
    node: str | None = None
    phase: str | None = None
    ready: bool = False
    reason: str | None = Field(None, description="Why it is not running: Unschedulable, ImagePullBackOff, ...")
    restarts: int = 0
    tone: Tone = Field(Tone.neutral, description="The phase's tone, agreeing with the job statuses'; shown as given.")
    simulated: bool = Field(
        False,
        description="On a simulated node (kwok): no code of the job runs there, and its log is a fixture. Known only "
        "where nodes are readable.",
    )


class ClaimView(Wire):
    """A PersistentVolumeClaim of the namespace, as a request's `volumes` may name it."""

    name: str
    access_modes: list[str] = Field(default_factory=list)
    capacity: str | None = Field(None, description="Its bound size, else what it asks for.")
    storage_class: str | None = None
    phase: str | None = Field(None, description="Pending / Bound / Lost.")
    note: str | None = Field(None, description="What to know before mounting it, e.g. that it binds to one node.")


class ConnectionView(Wire):
    """An OpenShift AI connection of the namespace (a Secret with opendatahub.io/connection-type), by its metadata
    only: its values are never read."""

    name: str
    display_name: str | None = None
    connection_type: str = Field(description="e.g. s3, uri-v1, oci-v1.")


class DataSourcesResponse(Wire):
    """What a job of this namespace can mount: its PVCs and its connections."""

    claims: list[ClaimView] = Field(default_factory=list)
    connections: list[ConnectionView] = Field(default_factory=list)
    visibility: dict[str, Visibility] = Field(
        default_factory=dict, description="claims / connections: whether this identity may list them."
    )


class JobMetric(Wire):
    name: str
    value: str = Field(description="As the training code reported it.")


class JobProgress(Wire):
    """How far a job's own code says it is (TrainJob: status.trainerStatus, written by Trainer's status server)."""

    percent: int | None = Field(None, ge=0, le=100)
    remaining_seconds: int | None = Field(None, ge=0, description="Its own estimate of the time left.")
    metrics: list[JobMetric] = Field(default_factory=list)
    updated: str | None = Field(None, description="RFC 3339: when the code last reported.")
    text: str = Field(description="The numbers in one line, e.g. '50 % · about 2 min left · loss 0.41'.")


class JobView(Wire):
    """One job of any kind, with its unified status."""

    kind: JobKind
    name: str
    namespace: str
    uid: str | None = None
    managed_by_us: bool = Field(description="Launched by jupyter-accel (label app.kubernetes.io/managed-by).")
    workbench: str | None = Field(None, description="The workbench it was launched from (NB_PREFIX).")
    status: JobStatus
    reason: str | None = Field(None, description="One sentence on why it is in this state.")
    display: JobDisplay = Field(description="Label, tone, sentence, place in line and actions, for every front-end.")
    queue: str | None = None
    cluster_queue: str | None = None
    workload: str | None = Field(None, description="Name of its Kueue Workload, when there is one.")
    position: int | None = Field(None, description="0-based position in the queue (visibility API), if queued.")
    priority: int | None = None
    priority_class: str | None = None
    created: str | None = Field(None, description="RFC 3339.")
    start_time: str | None = None
    end_time: str | None = None
    max_run_seconds: int | None = Field(None, description="Its maximum run time (Kueue's max-exec-time), if set.")
    stops_at: str | None = Field(None, description="RFC 3339: when Kueue stops it, if admitted with a limit.")
    starts_by: str | None = Field(
        None, description="RFC 3339: queued, the latest start if the jobs ahead stop in time."
    )
    ahead: list[PendingAhead] = Field(
        default_factory=list,
        description="Queued: the workloads before it in its LocalQueue that compete for the same accelerators and "
        "flavor (owner, size, priority, place), as far as this account sees them. In a job's detail "
        "(GET jobs/{kind}/{name}); lists leave it empty.",
    )
    accelerators: dict[str, int] = Field(
        default_factory=dict, description="Accelerators held now: requests of running pods."
    )
    accelerators_requested: dict[str, int] = Field(
        default_factory=dict, description="Accelerators the job asks for when all pods run."
    )
    pods: list[PodSummary] = Field(default_factory=list)
    labels: dict[str, str] = Field(default_factory=dict)
    progress: JobProgress | None = Field(None, description="What its code reports of its progress, where it does.")


class JobsResponse(Wire):
    jobs: list[JobView] = Field(default_factory=list)
    scope: str = Field("namespace", description="mine (launched from this workbench) or namespace.")
    kinds_served: list[JobKind] = Field(default_factory=list, description="Job kinds this cluster serves.")
    visibility: dict[str, Visibility] = Field(
        default_factory=dict, description="Per kind: whether this identity may read it."
    )


class EventView(Wire):
    type: str | None = None
    reason: str | None = None
    message: str | None = None
    object: str = Field(description="Kind/name of the object the event is about.")
    count: int = 1
    last_seen: str | None = None


class LogPod(Wire):
    """One pod's log as the server can give it: from the live pod, and/or the copy it kept."""

    pod: str
    label: str = Field(description="Short name for line prefixes and pickers, e.g. 'worker-1'.")
    role: str | None = None
    live: bool = Field(description="The pod exists now: its log is read through the API server.")
    kept: bool = Field(description="The server kept a copy of its log (it outlives the pod).")
    kept_since: str | None = Field(None, description="RFC 3339: when the server began keeping it.")
    kept_bytes: int = 0
    truncated: bool = Field(False, description="The kept copy lost its oldest lines to stay within its bound.")
    complete: bool = Field(False, description="The container ended and every line it wrote is kept.")
    lost: str | None = Field(None, description="Why no copy could be kept, when none was.")


class JobLogs(Wire):
    """A job's logs: each pod's, live or kept (GET jobs/{kind}/{name}/logs?pod=... or all=true)."""

    pods: list[LogPod] = Field(default_factory=list)
    kept: bool = Field(description="This server keeps the logs of the jobs launched from this workbench.")
    sentence: str | None = Field(
        None, description="When the job has no pods: why (none yet, or ran and were removed, logs kept or not)."
    )


class RayPackageRequest(Wire):
    """A working dir for Ray jobs on a running cluster: packed by the server, uploaded to the cluster as Ray's own
    package, and named in a Ray job's runtime_env (`working_dir`)."""

    workdir: str = Field(
        min_length=1,
        max_length=4096,
        description="A folder of the Jupyter server's files (absolute, or relative to its root); the same rules as a "
        "job's working dir (hidden files, caches, checkpoints and .gitignore / .accelignore rules left out).",
    )


class RayPackage(Wire):
    uri: str = Field(description="Ray's URI of the package (gcs://_ray_pkg_<hash>.zip): a runtime_env's working_dir.")
    files: int = Field(description="Files in it.")
    size_bytes: int = Field(description="Its size, zipped.")


class RaySubmission(Wire):
    """A Ray job submitted to a RayCluster through Ray's Jobs API (%%accel_job --cluster, JobSubmissionClient): not
    a Kubernetes object, so only the cluster's own dashboard knows it."""

    submission_id: str
    status: str = Field(description="Ray's: PENDING, RUNNING, STOPPED, SUCCEEDED or FAILED.")
    entrypoint: str | None = None
    message: str | None = None
    start_time: str | None = Field(default=None, description="RFC 3339.")
    end_time: str | None = Field(default=None, description="RFC 3339.")


class JobDetail(Wire):
    job: JobView
    events: list[EventView] = Field(default_factory=list)
    dashboard_path: str | None = Field(
        None, description="Absolute path (base URL included) of the Ray dashboard proxy, for Ray kinds."
    )
    logs: JobLogs | None = Field(None, description="Its pods' logs, live and kept.")
    ray_jobs: list[RaySubmission] | None = Field(
        default=None,
        description="A running RayCluster: the Ray jobs submitted to it (its dashboard's list), newest first. None "
        "when not a running cluster or its dashboard did not answer (ray_jobs_note says which).",
    )
    ray_jobs_note: str | None = Field(default=None, description="Why ray_jobs is missing, for a running cluster.")


class SubmitResponse(Wire):
    job: JobView
    created: bool = Field(description="False when a retry with the same client_request_id found the job.")
    objects: list[str] = Field(default_factory=list, description="Kind/name of every object created.")


class TimeLimitRequest(Wire):
    """A new time limit for a job, within the admin's ceiling (/info: capabilities.max_run_seconds_limit). Exactly
    one of the two. While the job runs the limit can only grow."""

    max_run_seconds: int | None = Field(None, ge=60, le=2**31 - 1, description="The new limit in all, in seconds.")
    extend_seconds: int | None = Field(
        None,
        ge=60,
        le=2**31 - 1,
        description="Seconds more than its limit now; for a job Kueue stopped at its limit, what its next run may use.",
    )


class CleanupRequest(Wire):
    older_than_seconds: int = Field(3600, ge=0, le=365 * 86400, description="Finished at least this long ago.")
    scope: str = Field("mine", pattern="^(mine|namespace)$")
    dry_run: bool = False


class CleanupResponse(Wire):
    deleted: list[str] = Field(default_factory=list, description="kind/name of each job deleted (or that would be).")
    dry_run: bool = False
