"""jupyter-accel: accelerators, Kueue quotas and distributed Ray / PyTorch jobs from JupyterLab.

This module stays import-light: the kernel side (`%load_ext jupyter_accel`) must load in well under 0.3 s, so
nothing here imports jupyter_server, kubernetes or pydantic at module level.
"""

from __future__ import annotations

from typing import Any

try:
    from ._version import __version__
except ImportError:  # running from a source tree that was never built
    import json
    from pathlib import Path

    __version__ = json.loads((Path(__file__).parent.parent / "labextension" / "package.json").read_text())["version"]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyter-accel"}]


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    from .app import AccelApp

    return [{"module": "jupyter_accel", "app": AccelApp}]


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext jupyter_accel`: register the `%accel` and `%%accel_job` magics."""
    from .notebook.magics import register

    register(ipython)
