"""GET /accel/v1/queues: LocalQueues with their ClusterQueue quota where visible."""

from __future__ import annotations

from tornado import web

from ..domain.queues import build_queues
from ..models import QueuesResponse
from .base import AccelHandler, Endpoint


class QueuesHandler(AccelHandler):
    path = "queues"
    endpoints = {"get": Endpoint("LocalQueues of the namespace and their quotas", response=QueuesResponse,
                                 errors=(503,))}
    _track_activity = False

    @web.authenticated
    def get(self) -> None:
        hub = self.hub()
        self.send(build_queues(
            self.readable_items(hub, "localqueues"),
            self.readable_items(hub, "clusterqueues"),
            self.readable_items(hub, "cohorts"),
            self.readable_items(hub, "resourceflavors"),
        ))
