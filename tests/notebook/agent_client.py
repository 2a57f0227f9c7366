"""An MCP client of a test Jupyter server's jupyter-server-mcp, as an agent uses it (the `mcp` package)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

MCP_CONFIG = {
    "jpserver_extensions": {"jupyter_server_mcp": True},
    # port 0: parallel servers never clash; the runtime file says where it listens. Loopback only.
    "MCPExtensionApp": {"mcp_port": 0, "mcp_name": "jupyter-accel test"},
}


def mcp_url(runtime_dir: Path, timeout: float = 60.0) -> str:
    """The MCP endpoint the server published in its runtime dir (jpserver-mcp-<pid>.json)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for f in runtime_dir.glob("jpserver-mcp-*.json"):
            return json.loads(f.read_text())["url"]
        time.sleep(0.3)
    raise AssertionError(f"no jpserver-mcp-*.json in {runtime_dir} after {timeout} s")


class Agent:
    """Calls tools one session at a time (each call opens its own session: simple, and what a stateless agent does)."""

    def __init__(self, url: str):
        self.url = url

    async def _session(self, fn: Any) -> Any:
        async with streamable_http_client(self.url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await fn(session)

    def tools(self) -> dict[str, Any]:
        async def go(s: ClientSession) -> Any:
            return {t.name: t for t in (await s.list_tools()).tools}

        return asyncio.run(self._session(go))

    def call(self, tool: str, **arguments: Any) -> tuple[bool, Any]:
        """(is_error, answer): the tool's dict, or its error text."""

        async def go(s: ClientSession) -> Any:
            return await s.call_tool(tool, arguments, read_timeout_seconds=120)

        result = asyncio.run(self._session(go))
        if result.is_error:
            return True, " ".join(getattr(c, "text", "") for c in result.content)
        if result.structured_content is not None:
            data = result.structured_content
            return False, data.get("result", data) if set(data) == {"result"} else data
        return False, json.loads(result.content[0].text)
