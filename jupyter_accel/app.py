"""The server extension: configuration, wiring of handlers, start and stop of the background machinery."""

from __future__ import annotations

import asyncio
import time

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join

from .config import AccelConfig
from .models import API_PREFIX, Capabilities, Connection

PROBE_TTL = 15.0  # seconds an answered connection probe stays fresh


class AccelApp(ExtensionApp):
    name = "jupyter_accel"
    load_other_extensions = True

    classes = [AccelConfig]

    def initialize_settings(self) -> None:
        from .cluster.session import ClusterSession

        self.accel_config = AccelConfig(parent=self)
        self.session = ClusterSession(self.accel_config)
        self._probed_at = 0.0
        self._probe_lock = asyncio.Lock()
        self.settings["jupyter_accel"] = self

    def initialize_handlers(self) -> None:
        from .api.routes import HANDLERS

        for handler in HANDLERS:
            self.handlers.append((url_path_join("/", API_PREFIX, handler.path), handler))

    async def current_state(self) -> tuple[Connection, Capabilities]:
        """The connection, re-probed off the event loop at most every PROBE_TTL seconds."""
        async with self._probe_lock:
            if time.monotonic() - self._probed_at > PROBE_TTL and self.session.api_client is not None:
                await asyncio.get_running_loop().run_in_executor(None, self.session.probe)
                self._probed_at = time.monotonic()
        return self.session.connection, Capabilities(read_only=self.accel_config.read_only)
