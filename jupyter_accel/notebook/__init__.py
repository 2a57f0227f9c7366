"""Kernel side of jupyter-accel: REST client, magics, widgets and rich display.

Talks only to the server extension's REST API; never imports jupyter_server, kubernetes, cluster/ or domain/.
Kept import-light: pydantic (the models) and ipywidgets load on first use, not at `%load_ext`.
"""

from .client import AccelClient, AccelError
from .discovery import DiscoveryError, ServerEndpoint, find_server

__all__ = ["AccelClient", "AccelError", "DiscoveryError", "ServerEndpoint", "find_server"]
