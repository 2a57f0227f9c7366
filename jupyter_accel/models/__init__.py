"""The wire schema: every request and response body of the REST API, defined once.

Imported by the server (validation, responses, the OpenAPI document) and by the kernel-side client (parsing).
docs/openapi.json and labextension/src/generated/api.ts are generated from these (scripts/gen_openapi.py).
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
)

__all__ = [
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
    "Visibility",
    "Wire",
]
