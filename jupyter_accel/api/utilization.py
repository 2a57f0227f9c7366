"""GET /accel/v1/utilization, jobs/{kind}/{name}/utilization and queues/usage: the accelerators' utilization of the
user's running jobs and their queues' use over time, from the cluster's metrics API (services/utilization.py).
Asked only when a client asks (the sidebar while it shows), computed off the event loop."""

from __future__ import annotations

import time

from tornado import web

from .base import Endpoint
from .jobs import KIND, NAME, JobsBase, parse_kind


class UtilizationHandler(JobsBase):
    path = "utilization"
    endpoints = {
        "get": Endpoint(
            "Utilization of the running jobs' accelerators: now, over the last half hour, and idle warnings",
            response="UtilizationResponse",
            query={"scope": "mine | namespace (default mine)"},
            errors=(400, 503),
        )
    }
    _track_activity = False  # polled while the sidebar shows

    @web.authenticated
    async def get(self) -> None:
        from ..services.jobs import check_scope

        scope = check_scope(self.get_argument("scope", "mine"))
        hub = await self.synced_hub()

        def compute() -> str:  # all in a worker: the services' first import, the queries, the JSON of 50 jobs
            jobs = self.accel.jobs_service(hub).list_jobs(scope).jobs
            return self.accel.utilization_service(hub).for_jobs(jobs).model_dump_json()

        self.send_body(await self.blocking(compute))


class JobUtilizationHandler(JobsBase):
    path = f"jobs/{KIND}/{NAME}/utilization"
    endpoints = {
        "get": Endpoint(
            "One job's accelerators over its life: utilization and memory per device",
            response="JobUtilizationDetail",
            errors=(400, 404, 503),
        )
    }
    _track_activity = False

    @web.authenticated
    async def get(self, kind: str, name: str) -> None:
        from ..domain.eta import parse_time

        job_kind = parse_kind(kind)
        hub = await self.synced_hub()

        def compute() -> str:
            job = self.accel.jobs_service(hub).view(job_kind, name)
            started = parse_time(job.start_time or job.created)
            metrics = self.accel.utilization_service(hub)
            return metrics.for_job(job, started.timestamp() if started else None, time.time()).model_dump_json()

        self.send_body(await self.blocking(compute))


class QueueUsageHandler(JobsBase):
    path = "queues/usage"
    endpoints = {
        "get": Endpoint(
            "Use over the last hours of the ClusterQueues behind this namespace's LocalQueues (Kueue's metrics)",
            response="QueueUsageResponse",
            errors=(503,),
        )
    }
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        hub = await self.synced_hub()

        def compute() -> str:
            behind = sorted({(q.get("spec") or {}).get("clusterQueue", "") for q in hub.items("localqueues")} - {""})
            return self.accel.utilization_service(hub).for_queues(behind).model_dump_json()

        self.send_body(await self.blocking(compute))
