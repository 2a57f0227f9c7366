"""Tools for AI agents (MCP), served by jupyter-server-mcp from this Jupyter server (docs/agents.md)."""
