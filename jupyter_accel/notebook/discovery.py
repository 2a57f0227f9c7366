"""Find the Jupyter server this kernel belongs to: its base URL and a token the server accepts.

Order: $JUPYTER_ACCEL_URL / $JUPYTER_ACCEL_TOKEN (explicit), then the jpserver-*.json runtime files of running
servers, then JupyterHub's single-user environment. The runtime files are read directly (no jupyter_server
import: the kernel must stay light).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ENV_URL = "JUPYTER_ACCEL_URL"
ENV_TOKEN = "JUPYTER_ACCEL_TOKEN"


class DiscoveryError(RuntimeError):
    """No server could be found; the message says what was tried and how to point the kernel at one."""


@dataclass(frozen=True)
class ServerEndpoint:
    url: str  # base URL of the Jupyter server, ending in "/" (includes base_url / the Hub prefix)
    token: str  # may be empty (a server without token auth)
    source: str  # where it came from, for messages: "environment", the runtime file path, "JupyterHub"

    def __repr__(self) -> str:  # never show the token
        return f"ServerEndpoint(url={self.url!r}, source={self.source!r})"


def _with_slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"


def runtime_dir() -> Path:
    """jupyter_core's runtime dir ($JUPYTER_RUNTIME_DIR, else <data dir>/runtime); jupyter_core is light."""
    from jupyter_core.paths import jupyter_runtime_dir

    return Path(jupyter_runtime_dir())


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return True  # unknown: keep it rather than drop a live server
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_servers(directory: Path | None = None) -> list[tuple[Path, dict]]:
    """The runtime files of live servers, newest first."""
    directory = directory or runtime_dir()
    found = []
    for path in directory.glob("jpserver-*.json"):
        try:
            info = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # a server is writing it right now, or it is not ours
        if isinstance(info, dict) and info.get("url") and _alive(info.get("pid")):
            found.append((path, info))
    found.sort(key=lambda item: item[0].stat().st_mtime if item[0].exists() else 0, reverse=True)
    return found


def _contains(root: str, cwd: Path) -> int:
    """Length of root when it contains cwd (longest match wins), else -1."""
    try:
        resolved = Path(root).expanduser().resolve()
    except (OSError, RuntimeError):
        return -1
    return len(str(resolved)) if cwd == resolved or resolved in cwd.parents else -1


def _local_url(url: str) -> str:
    # a server listening on all interfaces is reached on the loopback address
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::", "") or parts.hostname is None:
        netloc = f"127.0.0.1:{parts.port}" if parts.port else "127.0.0.1"
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


def pick_server(servers: list[tuple[Path, dict]], cwd: Path) -> tuple[Path, dict] | None:
    """The server whose root_dir (notebook_dir on old servers) contains cwd; else the only one; else None."""
    best: tuple[int, tuple[Path, dict]] | None = None
    for item in servers:
        root = item[1].get("root_dir") or item[1].get("notebook_dir")
        score = _contains(root, cwd) if root else -1
        if score >= 0 and (best is None or score > best[0]):
            best = (score, item)
    if best is not None:
        return best[1]
    return servers[0] if len(servers) == 1 else None


def find_server(cwd: Path | None = None) -> ServerEndpoint:
    env = os.environ
    hub_token = env.get("JUPYTERHUB_API_TOKEN", "")
    explicit_token = env.get(ENV_TOKEN)
    if env.get(ENV_URL):
        token = explicit_token if explicit_token is not None else hub_token
        return ServerEndpoint(_with_slash(env[ENV_URL]), token, "environment")

    cwd = (cwd or Path.cwd()).resolve()
    servers = running_servers()
    chosen = pick_server(servers, cwd)
    if chosen is not None:
        path, info = chosen
        url = _local_url(_with_slash(info["url"]))
        token = explicit_token if explicit_token is not None else (info.get("token") or hub_token)
        return ServerEndpoint(url, token, str(path))

    prefix = env.get("JUPYTERHUB_SERVICE_PREFIX")
    if prefix:
        # the single-user server's own address; the Hub accepts the user's API token on it
        service_url = env.get("JUPYTERHUB_SERVICE_URL") or "http://127.0.0.1:8888/"
        parts = urlsplit(_local_url(service_url))
        url = urlunsplit(parts._replace(path=_with_slash(prefix), query="", fragment=""))
        return ServerEndpoint(url, explicit_token if explicit_token is not None else hub_token, "JupyterHub")

    if servers:
        roots = ", ".join(str(i.get("root_dir") or i.get("notebook_dir")) for _, i in servers)
        raise DiscoveryError(
            f"{len(servers)} Jupyter servers are running and none serves {cwd} (roots: {roots}). "
            f"Set {ENV_URL} (and {ENV_TOKEN}) to the one to use."
        )
    raise DiscoveryError(
        f"No running Jupyter server found in {runtime_dir()}. Set {ENV_URL} (e.g. http://127.0.0.1:8888/) "
        f"and {ENV_TOKEN} to reach it."
    )
