"""One renderer per API answer (cluster_views, job_views): the model's layout as blocks, written once for both
outputs; anything else is shown field by field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .blocks import Block, Heading, Table
from .cluster_views import (
    connection_blocks,
    data_blocks,
    info_blocks,
    inventory_blocks,
    inventory_nodes_blocks,
    profiles_blocks,
    queues_blocks,
    workbench_blocks,
    workbench_change_blocks,
    workloads_blocks,
)
from .format import amount
from .job_views import cleanup_blocks, fit_blocks, job_blocks, job_detail_blocks, jobs_blocks, submitted_blocks
from .utilization_views import job_utilization_blocks, utilization_blocks

__all__ = ["amount", "blocks"]


def _generic(m: Any) -> list[Block]:
    data = m.model_dump(mode="json") if hasattr(m, "model_dump") else dict(m)
    rows = [[k, v if isinstance(v, str | int | float | bool) or v is None else _compact(v)] for k, v in data.items()]
    return [Heading(type(m).__name__), Table(["field", "value"], rows)]


def _compact(value: Any) -> str:
    import json

    text = json.dumps(value)
    return text if len(text) <= 200 else text[:197] + "..."


RENDERERS: dict[str, Callable[[Any], list[Block]]] = {
    "InfoResponse": info_blocks,
    "Connection": connection_blocks,
    "InventoryResponse": inventory_blocks,
    "InventoryNodesResponse": inventory_nodes_blocks,
    "HardwareProfilesResponse": profiles_blocks,
    "QueuesResponse": queues_blocks,
    "DataSourcesResponse": data_blocks,
    "WorkbenchView": workbench_blocks,
    "WorkbenchProfileResponse": workbench_change_blocks,
    "WorkloadsResponse": workloads_blocks,
    "FitResponse": fit_blocks,
    "JobsResponse": jobs_blocks,
    "JobView": job_blocks,
    "JobDetail": job_detail_blocks,
    "SubmitResponse": submitted_blocks,
    "CleanupResponse": cleanup_blocks,
    "UtilizationResponse": utilization_blocks,
    "JobUtilizationDetail": job_utilization_blocks,
}


def blocks(model: Any) -> list[Block]:
    for cls in type(model).__mro__:
        if cls.__name__ in RENDERERS:
            return RENDERERS[cls.__name__](model)
    return _generic(model)
