"""GET /accel/v1/queues and /workloads: LocalQueues with their ClusterQueue quota, Workloads with reasons."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tornado import web

from .. import models
from .base import AccelHandler, Endpoint

if TYPE_CHECKING:
    from ..cluster.hub import Hub

# domain/ and cluster/ are imported inside the handlers, to keep the Jupyter server's start-up short.


class QueuesHandler(AccelHandler):
    path = "queues"
    endpoints = {
        "get": Endpoint("LocalQueues of the namespace and their quotas", response="QueuesResponse", errors=(503,))
    }
    _track_activity = False

    @web.authenticated
    async def get(self) -> None:
        from ..domain.queues import build_queues

        hub = await self.synced_hub()
        self.send(
            build_queues(
                self.readable_items(hub, "localqueues"),
                self.readable_items(hub, "clusterqueues"),
                self.readable_items(hub, "cohorts"),
                self.readable_items(hub, "resourceflavors"),
                configured_default=self.accel.accel_config.default_queue,
            )
        )


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
        from ..domain.workloads import build_workloads

        hub = await self.synced_hub()
        self.send(
            build_workloads(
                self.readable_items(hub, "workloads"),
                local_queues=self.readable_items(hub, "localqueues"),
                cluster_queues=self.readable_items(hub, "clusterqueues"),
                pending_summaries=pending_summaries(hub),
            ).model_copy(update=self._positions_note(hub))
        )

    @staticmethod
    def _positions_note(hub: Hub) -> dict[str, Any]:
        from ..cluster.informer import CacheState

        if hub.pending_state == CacheState.absent:
            return {
                "positions_visibility": models.Visibility(
                    visible=False, message="Kueue's visibility API is not served by this cluster"
                )
            }
        return {}


def pending_summaries(hub: Hub) -> list[dict[str, Any]] | None:
    """The visibility API's answers as summaries; None when it is not served or not visible to this identity."""
    from ..cluster.informer import CacheState

    if hub.pending_state in (CacheState.forbidden, CacheState.absent, CacheState.starting):
        return None
    return [{"items": items} for items in hub.pending.values()]
