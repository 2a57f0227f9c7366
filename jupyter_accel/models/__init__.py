"""The wire schema: every request and response body of the REST API, defined once.

Imported by the server (validation, responses, the OpenAPI document) and by the kernel-side client (parsing).
docs/openapi.json and labextension/src/generated/api.ts are generated from these (`python -m jupyter_accel.openapi`, npm run gen:types).
One module per resource family; this package re-exports them all.
"""

from .base import API_PREFIX, API_VERSION, ErrorResponse, FieldError, Visibility, Wire
from .info import (
    ApiAvailability,
    Capabilities,
    Connection,
    ConnectionState,
    IdentityMode,
    InfoResponse,
    Permission,
    TokenRequest,
)

__all__ = [
    "CleanupRequest",
    "CleanupResponse",
    "EventView",
    "JobDetail",
    "JobsResponse",
    "SubmitResponse",
    "API_PREFIX",
    "API_VERSION",
    "ApiAvailability",
    "Capabilities",
    "Connection",
    "ConnectionState",
    "ErrorResponse",
    "FieldError",
    "IdentityMode",
    "InfoResponse",
    "Permission",
    "TokenRequest",
    "Visibility",
    "Wire",
]

from .jobs import (
    CleanupRequest,
    CleanupResponse,
    EventView,
    JobDetail,
    JobsResponse,
    SubmitResponse,
    AcceleratorRequest,
    HeadResources,
    JobKind,
    JobRequest,
    JobScript,
    JobStatus,
    JobView,
    PodSummary,
    ScriptInterpreter,
)

__all__ += [
    "AcceleratorRequest",
    "HeadResources",
    "JobKind",
    "JobRequest",
    "JobScript",
    "JobStatus",
    "JobView",
    "PodSummary",
    "ScriptInterpreter",
]

from .fit import FitResponse, FitVerdict, PendingAhead, QuotaHeadroom, RoleFit  # noqa: E402
from .inventory import (  # noqa: E402
    AcceleratorModelSummary,
    AcceleratorOnNode,
    HardwareProfilesResponse,
    HardwareProfileView,
    InventoryResponse,
    NodeAccelerators,
    ProfileIdentifier,
    ResourceUse,
    Taint,
    Toleration,
)
from .queues import FlavorQuota, QueuesResponse, QueueView, ResourceQuota  # noqa: E402
from .workloads import (  # noqa: E402
    PodSetAssignment,
    PodSetRequest,
    WorkloadCondition,
    WorkloadsResponse,
    WorkloadState,
    WorkloadView,
)

__all__ += [
    "AcceleratorModelSummary",
    "AcceleratorOnNode",
    "FitResponse",
    "FitVerdict",
    "FlavorQuota",
    "HardwareProfileView",
    "HardwareProfilesResponse",
    "InventoryResponse",
    "NodeAccelerators",
    "PendingAhead",
    "PodSetAssignment",
    "PodSetRequest",
    "ProfileIdentifier",
    "QueueView",
    "QueuesResponse",
    "QuotaHeadroom",
    "ResourceQuota",
    "ResourceUse",
    "RoleFit",
    "Taint",
    "Toleration",
    "WorkloadCondition",
    "WorkloadState",
    "WorkloadView",
    "WorkloadsResponse",
]
