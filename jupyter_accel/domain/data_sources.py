"""What a job can mount, as the launch form and `%accel data` show it: PVCs with their access modes and a note on
what they allow, and OpenShift AI connections by their metadata. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models.jobs import ClaimView, ConnectionView
from .objects import field

CONNECTION_TYPE = "opendatahub.io/connection-type"  # OpenShift AI's annotation on a connection's Secret
CONNECTION_TYPE_REF = "opendatahub.io/connection-type-ref"  # its newer name for the same
DISPLAY_NAME = "openshift.io/display-name"

_NOTES = {
    "ReadWriteOnce": "ReadWriteOnce: it binds to one node, so every pod that mounts it must run there",
    "ReadWriteOncePod": "ReadWriteOncePod: one pod at a time may mount it; a job of several pods cannot share it",
    "ReadOnlyMany": "ReadOnlyMany: every pod may read it, none may write (mount it read_only)",
}


def claim_view(pvc: Mapping[str, Any]) -> ClaimView:
    modes = [str(m) for m in field(pvc, "spec", "accessModes") or []]
    note = None if "ReadWriteMany" in modes else next((_NOTES[m] for m in modes if m in _NOTES), None)
    capacity = field(pvc, "status", "capacity", "storage") or field(pvc, "spec", "resources", "requests", "storage")
    return ClaimView(
        name=str(field(pvc, "metadata", "name") or ""),
        access_modes=modes,
        capacity=str(capacity) if capacity else None,
        storage_class=field(pvc, "spec", "storageClassName"),
        phase=field(pvc, "status", "phase"),
        note=note,
    )


def connection_view(meta: Mapping[str, Any]) -> ConnectionView | None:
    """The connection a Secret's metadata describes; None for a Secret that is not a connection."""
    annotations = field(meta, "metadata", "annotations") or {}
    kind = annotations.get(CONNECTION_TYPE_REF) or annotations.get(CONNECTION_TYPE)
    if not kind:
        return None
    return ConnectionView(
        name=str(field(meta, "metadata", "name") or ""),
        display_name=annotations.get(DISPLAY_NAME),
        connection_type=str(kind),
    )
