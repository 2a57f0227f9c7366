"""The ConfigMap that carries a script body (e.g. a notebook cell) to the pods of a distributed job."""

from __future__ import annotations

import base64
from typing import Any

from ...models.jobs import JobRequest
from .common import WORKDIR_ARCHIVE, BuildContext, metadata, script_configmap_name

# etcd refuses objects over 1.5 MiB and the API server ConfigMap data over 1 MiB; keep room for metadata.
CONFIGMAP_LIMIT = 1024 * 1024
MAX_SCRIPT_BYTES = CONFIGMAP_LIMIT - 16 * 1024


def script_size(request: JobRequest) -> int:
    return len(request.script.text.encode()) if request.script else 0


def workdir_limit(request: JobRequest) -> int:
    """Bytes left in the ConfigMap for the packed working dir, next to the script."""
    return MAX_SCRIPT_BYTES - script_size(request)


def build_script_configmap(request: JobRequest, ctx: BuildContext, job: str) -> dict[str, Any]:
    """The ConfigMap `<job>-script`: the script under its filename, the packed working dir under WORKDIR_ARCHIVE.
    Raises ValueError when too large."""
    size = script_size(request) + len(ctx.workdir_archive or b"")
    if size > MAX_SCRIPT_BYTES:
        raise ValueError(f"script.text: {size} bytes; at most {MAX_SCRIPT_BYTES} fit in a ConfigMap")
    cm: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata(script_configmap_name(job), request, ctx),
    }
    if request.script:
        cm["data"] = {request.script.filename: request.script.text}
    if request.workdir:
        cm["binaryData"] = {WORKDIR_ARCHIVE: base64.b64encode(ctx.workdir_archive or b"").decode()}
    return cm
