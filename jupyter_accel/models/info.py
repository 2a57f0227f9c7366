"""Wire models of /info: versions, connection state, discovery and permissions."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from . import API_VERSION
from .base import Tone, Wire
from .jobs import JobKind


class ConnectionState(StrEnum):
    not_configured = "not_configured"
    connected = "connected"
    error = "error"


class IdentityMode(StrEnum):
    """How the server authenticates to Kubernetes: in-cluster service account, kubeconfig, a bearer token
    (configured or given at runtime), or the user's token forwarded by the workbench's auth proxy."""

    none = "none"
    in_cluster = "in-cluster"
    kubeconfig = "kubeconfig"
    token = "token"
    forwarded = "forwarded"


class DegradedReason(StrEnum):
    slow = "slow"
    throttled = "throttled"
    failing = "failing"
    reconnecting = "reconnecting"


class Degraded(Wire):
    """The API server answers, but not well (slow, throttling, errors) or the watches are reconnecting: shown as is
    until it recovers; the push stream announces the topic "info" when this appears, changes or clears."""

    reason: DegradedReason
    message: str = Field(description="A readable sentence, shown to the user as is.")
    tone: Tone = Tone.warn


class ClusterReadsSource(StrEnum):
    api_server = "api-server"
    read_service = "read-service"


class ClusterReads(Wire):
    """Where nodes, accelerator allocations and Kueue's cluster-scoped objects come from: this server's own watches of
    the API server, or the shared read service (AccelConfig.read_service_url), which checks this account's rights."""

    source: ClusterReadsSource
    url: str | None = Field(None, description="The read service's URL, when one is configured.")
    message: str = Field(description="A readable sentence, shown to the user as is.")


class Connection(Wire):
    state: ConnectionState
    message: str = Field(description="A readable sentence about the connection, shown to the user as is.")
    label: str = Field("", description="The state as people read it, e.g. 'Connected'; shown as given.")
    tone: Tone = Field(Tone.neutral, description="The state's tone; shown as given.")
    identity: IdentityMode = Field(
        IdentityMode.none, description="The kind of identity in use (never the credential itself)."
    )
    namespace: str | None = Field(None, description="The namespace this server works in.")
    user: str | None = Field(None, description="The user name the API server knows this identity by.")
    kubernetes_version: str | None = None
    degraded: Degraded | None = Field(
        None, description="Set while the API server is slow, throttling or failing, or the watches reconnect."
    )
    cluster_reads: ClusterReads | None = Field(
        None, description="Where cluster-wide reads come from; set once the caches are made."
    )


_KINDS_NOW = "Job kinds' versions are in capabilities.kinds (served, version)."


def _group(group: str) -> dict[str, str]:
    return {"x-api-group": group}


class ApiAvailability(Wire):
    """Which API groups / versions the cluster serves (discovery), each field naming its group. The job kinds'
    APIs are in Capabilities.kinds; the three fields here that name some of them stay for scripts that read them."""

    kueue: str | None = Field(
        None,
        description="Served Kueue version (v1beta2 preferred, v1beta1 fallback).",
        json_schema_extra=_group("kueue.x-k8s.io"),
    )
    kueue_visibility: str | None = Field(None, json_schema_extra=_group("visibility.kueue.x-k8s.io"))
    ray: str | None = Field(None, deprecated=_KINDS_NOW, json_schema_extra=_group("ray.io"))
    pytorchjob: str | None = Field(None, deprecated=_KINDS_NOW, json_schema_extra=_group("kubeflow.org"))
    trainjob: str | None = Field(None, deprecated=_KINDS_NOW, json_schema_extra=_group("trainer.kubeflow.org"))
    hardware_profiles: str | None = Field(None, json_schema_extra=_group("infrastructure.opendatahub.io"))
    accelerator_profiles: str | None = Field(None, json_schema_extra=_group("dashboard.opendatahub.io"))

    @classmethod
    def groups(cls) -> dict[str, str]:
        """Field name -> the API group whose served version it reports."""
        return {name: f.json_schema_extra["x-api-group"] for name, f in cls.model_fields.items()}  # type: ignore[index]


class JobKindInfo(Wire):
    """A job kind as the front-ends show it, from the server's registry of kinds."""

    kind: JobKind
    label: str = Field(description="What people call it, e.g. 'Ray cluster'.")
    badge: str = Field(description="One letter for compact lists.")
    kubernetes_kind: str = Field(description="The custom resource's kind, e.g. RayCluster.")
    served: bool = Field(description="The cluster serves its API (its operator's CRD is installed).")
    version: str | None = Field(None, description="The served API version.")
    roles: list[str] = Field(description="Its pods' roles; the first is the one whose log is the job's output.")
    dashboard: bool = Field(False, description="It has a Ray dashboard, proxied under jobs/{kind}/{name}/dashboard/.")
    program: list[str] = Field(
        default_factory=list,
        description="The request fields of which a job of this kind needs exactly one: `entrypoint` (a shell "
        "line), `command` (an argv) or `script`. Empty: it runs no program of its own.",
    )
    min_workers: int = Field(0, description="The fewest workers a request may ask for.")
    request_fields: list[str] = Field(
        default_factory=list,
        description="The optional JobRequest fields it takes (e.g. `workdir`, `max_workers`); a request that sets "
        "another is refused with a 400 naming the field.",
    )
    default_max_run_seconds: int | None = Field(
        None, description="The time limit a request of this kind gets when it sets none (None: no limit)."
    )
    default: bool = Field(False, description="The kind a launch form or magic offers first (exactly one is).")
    runtimes: list[str] | None = Field(
        None,
        description="The runtimes the cluster offers to name in a request's `runtime` (TrainJob: its "
        "ClusterTrainingRuntimes). None: the kind takes none, or this account may not list them.",
    )
    default_images: dict[str, str | None] = Field(
        default_factory=dict,
        description="The image a request gets when it names none, by the vendor of its accelerators (an "
        "AcceleratorModelSummary's `vendor`; '' for CPU only). None: there is no default, the request must name one.",
    )


class Permission(Wire):
    verb: str
    group: str = ""
    resource: str
    namespaced: bool = True
    allowed: bool
    reason: str | None = None


class Compatibility(Wire):
    """What this server can tell of the cluster's stack from what it serves, in plain words (domain/compat.py)."""

    served: list[str] = Field(default_factory=list, description="Each API this product reads, as served, e.g. "
                              "'Kueue: kueue.x-k8s.io/v1beta2'.")  # fmt: skip
    features: list[str] = Field(default_factory=list, description="What the served APIs show is available.")
    deprecated: list[str] = Field(default_factory=list, description="Deprecated APIs this product would use.")
    missing: list[str] = Field(default_factory=list, description="What will not work here, and why.")


class Capabilities(Wire):
    apis: ApiAvailability = Field(default_factory=ApiAvailability)
    permissions: list[Permission] = Field(default_factory=list)
    read_only: bool = Field(False, description="The admin disabled launching and controlling jobs.")
    max_run_seconds_limit: int | None = Field(
        None, description="The longest time limit a job may have, set or extended (None: no ceiling)."
    )
    kinds: list[JobKindInfo] = Field(
        default_factory=list, description="Every job kind this server knows, served by the cluster or not."
    )
    compatibility: Compatibility | None = Field(
        None, description="The served stack in plain words (`%accel doctor`); None until connected."
    )


class InfoResponse(Wire):
    version: str = Field(description="The server extension's version; the front-end refuses to run on a mismatch.")
    api_version: str = API_VERSION
    connection: Connection
    capabilities: Capabilities = Field(default_factory=Capabilities)


class TokenRequest(Wire):
    token: str = Field(min_length=1, max_length=16384, description="A Kubernetes bearer token; never echoed back.")
