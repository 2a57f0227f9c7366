"""GET /accel/v1/queues and /workloads: LocalQueues with their ClusterQueue quota, Workloads with reasons.
Answers come from api/answers (computed off the event loop, once per change of the caches)."""

from __future__ import annotations

from tornado import web

from .base import AccelHandler, Endpoint

# services/ (and with it domain/ and cluster/) is imported inside the handlers, to keep the Jupyter server's
# start-up short.


class QueuesHandler(AccelHandler):
    path = "queues"
    endpoints = {
        "get": Endpoint("LocalQueues of the namespace and their quotas", response="QueuesResponse", errors=(503,))
    }
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        from ..services.reads import queues

        hub = await self.synced_hub()
        default = self.accel.accel_config.default_queue
        await self.send_answer(hub, "queues", (), lambda: queues(hub, default))


class WorkloadsHandler(AccelHandler):
    path = "workloads"
    endpoints = {
        "get": Endpoint(
            "Kueue Workloads of the namespace with reasons and queue positions",
            response="WorkloadsResponse",
            errors=(503,),
        )
    }
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        from ..services.reads import workloads

        hub = await self.synced_hub()
        await self.send_answer(hub, "workloads", (), lambda: workloads(hub))
