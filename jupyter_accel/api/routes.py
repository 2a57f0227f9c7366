"""The handler table: the one list the server registers and the OpenAPI generator reads."""

from __future__ import annotations

from .accelerators import InventoryHandler, InventoryNodesHandler, ProfilesHandler
from .base import AccelHandler, NotFoundHandler
from .identity import TokenHandler
from .info import InfoHandler
from .job_logs import JobLogsHandler
from .jobs import (
    CleanupHandler,
    DataSourcesHandler,
    FitHandler,
    JobActionHandler,
    JobHandler,
    JobLimitHandler,
    JobsHandler,
    RayDashboardHandler,
    RayPackageHandler,
)
from .queues import QueuesHandler, WorkloadsHandler
from .stream import StreamHandler
from .utilization import JobUtilizationHandler, QueueUsageHandler, UtilizationHandler
from .workbench import WorkbenchHandler, WorkbenchProfileHandler

# order matters where patterns overlap: jobs/cleanup before jobs/{kind}/{name}; the JSON 404 for anything else
# below the prefix comes last
HANDLERS: list[type[AccelHandler]] = [
    InfoHandler,
    TokenHandler,
    StreamHandler,
    InventoryHandler,
    InventoryNodesHandler,
    ProfilesHandler,
    QueuesHandler,
    QueueUsageHandler,
    WorkloadsHandler,
    UtilizationHandler,
    DataSourcesHandler,
    WorkbenchHandler,
    WorkbenchProfileHandler,
    FitHandler,
    CleanupHandler,
    JobsHandler,
    JobActionHandler,
    JobLimitHandler,
    RayPackageHandler,
    JobUtilizationHandler,
    JobLogsHandler,
    RayDashboardHandler,
    JobHandler,
    NotFoundHandler,
]
