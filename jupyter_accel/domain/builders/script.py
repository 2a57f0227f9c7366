"""The ConfigMap that carries a script body (e.g. a notebook cell) to the pods of a distributed job."""

from __future__ import annotations

from typing import Any

from ...models.jobs import JobRequest
from .common import BuildContext, metadata, script_configmap_name

# etcd refuses objects over 1.5 MiB and the API server ConfigMap data over 1 MiB; keep room for metadata.
CONFIGMAP_LIMIT = 1024 * 1024
MAX_SCRIPT_BYTES = CONFIGMAP_LIMIT - 16 * 1024


def script_size(request: JobRequest) -> int:
    return len(request.script.text.encode()) if request.script else 0


def build_script_configmap(request: JobRequest, ctx: BuildContext, job: str) -> dict[str, Any]:
    """The ConfigMap `<job>-script` with one key, the script's filename. Raises ValueError when too large."""
    assert request.script is not None
    size = script_size(request)
    if size > MAX_SCRIPT_BYTES:
        raise ValueError(f"script.text: {size} bytes; at most {MAX_SCRIPT_BYTES} fit in a ConfigMap")
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata(script_configmap_name(job), request, ctx),
        "data": {request.script.filename: request.script.text},
    }
