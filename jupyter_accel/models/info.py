"""Wire models of /info: versions, connection state, discovery and permissions."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from . import API_VERSION
from .base import Wire


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


class Connection(Wire):
    state: ConnectionState
    message: str = Field(description="A readable sentence about the connection, shown to the user as is.")
    identity: IdentityMode = Field(
        IdentityMode.none, description="The kind of identity in use (never the credential itself)."
    )
    namespace: str | None = Field(None, description="The namespace this server works in.")
    user: str | None = Field(None, description="The user name the API server knows this identity by.")
    kubernetes_version: str | None = None


class ApiAvailability(Wire):
    """Which API groups / versions the cluster serves (discovery)."""

    kueue: str | None = Field(None, description="Served Kueue version (v1beta2 preferred, v1beta1 fallback).")
    kueue_visibility: str | None = None
    ray: str | None = None
    pytorchjob: str | None = None
    trainjob: str | None = None
    hardware_profiles: str | None = None
    accelerator_profiles: str | None = None


class Permission(Wire):
    verb: str
    group: str = ""
    resource: str
    namespaced: bool = True
    allowed: bool
    reason: str | None = None


class Capabilities(Wire):
    apis: ApiAvailability = Field(default_factory=ApiAvailability)
    permissions: list[Permission] = Field(default_factory=list)
    read_only: bool = Field(False, description="The admin disabled launching and controlling jobs.")


class InfoResponse(Wire):
    version: str = Field(description="The server extension's version; the front-end refuses to run on a mismatch.")
    api_version: str = API_VERSION
    connection: Connection
    capabilities: Capabilities = Field(default_factory=Capabilities)


class TokenRequest(Wire):
    token: str = Field(min_length=1, max_length=16384, description="A Kubernetes bearer token; never echoed back.")
