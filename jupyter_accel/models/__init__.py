"""The wire schema: every request and response body of the REST API, defined once.

Imported by the server (validation, responses, the OpenAPI document) and by the kernel-side client (parsing).
docs/openapi.json and labextension/src/generated/api.ts are generated from these (`python -m jupyter_accel.openapi`,
`npm run gen:types`). One module per resource family; this package re-exports them all.

The classes are loaded on first use (PEP 562): the Jupyter server imports this package while it starts, and pydantic
with ~50 model classes would add ~0.1 s to every start for users who never call the API.
"""

from __future__ import annotations

import importlib
from typing import Any

API_VERSION = "v1"
API_PREFIX = f"accel/{API_VERSION}"

# submodule -> the names it exports through this package
_EXPORTS: dict[str, tuple[str, ...]] = {
    "base": (
        "ErrorResponse",
        "FieldError",
        "Tone",
        "Visibility",
        "Wire",
    ),
    "fit": (
        "FitResponse",
        "FitVerdict",
        "PendingAhead",
        "QuotaHeadroom",
        "RoleFit",
    ),
    "info": (
        "ApiAvailability",
        "Capabilities",
        "Compatibility",
        "ClusterReads",
        "ClusterReadsSource",
        "Connection",
        "ConnectionState",
        "Degraded",
        "DegradedReason",
        "IdentityMode",
        "InfoResponse",
        "JobKindInfo",
        "Permission",
        "TokenRequest",
    ),
    "inventory": (
        "AcceleratorModelSummary",
        "AcceleratorOnNode",
        "HardwareProfilesResponse",
        "HardwareProfileView",
        "InventoryNodesResponse",
        "InventoryResponse",
        "NodeAccelerators",
        "ProfileIdentifier",
        "ResourceUse",
        "Taint",
        "Toleration",
    ),
    "jobs": (
        "AcceleratorRequest",
        "CleanupRequest",
        "CleanupResponse",
        "EventView",
        "HeadResources",
        "JobDetail",
        "JobLogs",
        "JobMetric",
        "ClaimView",
        "ConnectionView",
        "DataSourcesResponse",
        "JobProgress",
        "LogPod",
        "SecretRequest",
        "VolumeRequest",
        "WorkerGroupRequest",
        "JobRequest",
        "JobScript",
        "JobsResponse",
        "JobAction",
        "JobDisplay",
        "JobStatus",
        "JobView",
        "PodSummary",
        "RayPackage",
        "RayPackageRequest",
        "RaySubmission",
        "ScriptInterpreter",
        "SubmitResponse",
        "TimeLimitRequest",
    ),
    "kinds": ("JobKind",),
    "queues": (
        "FlavorQuota",
        "QueuesResponse",
        "QueueView",
        "ResourceQuota",
    ),
    "utilization": (
        "DeviceSeries",
        "JobUtilization",
        "JobUtilizationDetail",
        "MetricsSource",
        "QueueUsageResponse",
        "QueueUsageSeries",
        "UtilizationResponse",
    ),
    "workbench": (
        "WorkbenchProfileRequest",
        "WorkbenchProfileResponse",
        "WorkbenchView",
    ),
    "workloads": (
        "PodSetAssignment",
        "PodSetRequest",
        "WorkloadCondition",
        "WorkloadsResponse",
        "WorkloadState",
        "WorkloadView",
    ),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = ["API_PREFIX", "API_VERSION", *sorted(_HOME)]


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return __all__
