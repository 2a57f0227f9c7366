"""The handler table: the one list the server registers and the OpenAPI generator reads."""

from __future__ import annotations

from .base import AccelHandler
from .info import InfoHandler

HANDLERS: list[type[AccelHandler]] = [InfoHandler]
