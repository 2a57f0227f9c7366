"""This workbench: the Notebook the Jupyter server runs in, its hardware profile, and a change of profile."""

from __future__ import annotations

from pydantic import Field

from .base import Visibility, Wire
from .fit import FitResponse
from .jobs import QueueName


class WorkbenchView(Wire):
    name: str | None = Field(
        default=None, description="The Notebook's name (from NB_PREFIX); none outside a workbench."
    )
    namespace: str | None = None
    found: bool = Field(default=False, description="The Notebook object was read.")
    visibility: Visibility = Field(default_factory=Visibility)
    hardware_profile: str | None = Field(default=None, description="opendatahub.io/hardware-profile-name, if set.")
    hardware_profile_namespace: str | None = None
    profile_display_name: str | None = Field(
        default=None, description="The profile's display name, where it is readable."
    )
    requests: dict[str, str] = Field(
        default_factory=dict,
        description="Its notebook container's requests (the platform wrote them from the profile).",
    )
    limits: dict[str, str] = Field(default_factory=dict)
    accelerators: dict[str, int] = Field(default_factory=dict, description="Accelerators its container asks for.")
    queue: str | None = Field(default=None, description="Its kueue.x-k8s.io/queue-name label, if set.")
    kueue_managed: bool | None = Field(
        default=None,
        description="The project carries kueue.openshift.io/managed=true (None: the namespace is not readable).",
    )
    stopped: bool = Field(default=False, description="The platform stopped it (annotation kubeflow-resource-stopped).")
    message: str = Field(description="One sentence on where it stands, for every front-end.")


class WorkbenchProfileRequest(Wire):
    """Change this workbench's hardware profile. The platform applies it when the workbench restarts."""

    hardware_profile: str = Field(min_length=1, description="A HardwareProfile's name (GET /profiles).")
    hardware_profile_namespace: str | None = Field(default=None, description="Its namespace, where names repeat.")
    queue: QueueName | None = Field(
        default=None,
        description="The LocalQueue for a Kueue-managed project; default: the profile's, or the current label.",
    )
    dry_run: bool = Field(default=False, description="Check and show the patch; change nothing.")


class WorkbenchProfileResponse(Wire):
    workbench: WorkbenchView
    fit: FitResponse = Field(description="Would the workbench's pod fit with this profile (the jobs' fit check).")
    patch: list[dict] = Field(description="The JSON patch (RFC 6902) for the Notebook, as sent (or as it would be).")
    applied: bool = Field(description="The Notebook was patched.")
    warning: str = Field(description="What the change costs: the kernel and its memory are lost on restart.")
