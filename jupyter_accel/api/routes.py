"""The handler table: the one list the server registers and the OpenAPI generator reads."""

from __future__ import annotations

from .accelerators import InventoryHandler, ProfilesHandler
from .base import AccelHandler
from .identity import TokenHandler
from .info import InfoHandler
from .queues import QueuesHandler, WorkloadsHandler
from .stream import StreamHandler

HANDLERS: list[type[AccelHandler]] = [
    InfoHandler,
    TokenHandler,
    StreamHandler,
    InventoryHandler,
    ProfilesHandler,
    QueuesHandler,
    WorkloadsHandler,
]
