"""Jupyter server of the galata UI tests.

Galata's test settings, bound to 127.0.0.1, plus this source tree's server extension and prebuilt
labextension (jupyter_accel/labextension) -- served without installing the package into the venv, so the
tests always exercise the tree as built.
"""

import os
import sys
import tempfile
from pathlib import Path

import jupyterlab.galata
from jupyterlab.galata import configure_jupyter_server

c = get_config()  # noqa: F821 -- injected by traitlets when it loads this file

REPO = Path(__file__).resolve().parents[2]
LABEXTENSION = REPO / "jupyter_accel" / "labextension"

configure_jupyter_server(c)
c.ServerApp.ip = "127.0.0.1"
c.ServerApp.port = int(os.environ.get("JUPYTER_ACCEL_UI_PORT", "18891"))

if not (LABEXTENSION / "package.json").exists():
    raise SystemExit(f"{LABEXTENSION} is missing: run `npm run build` in labextension/ first.")

# The server extension from the source tree, ahead of any installed copy.
sys.path.insert(0, str(REPO))
c.ServerApp.jpserver_extensions = {"jupyter_accel": True}

# Lab finds extensions as <dir>/<npm name>/package.json, so link the build output under its npm name.
linked = Path(tempfile.mkdtemp(prefix="accel-labextensions-"))
(linked / "jupyter-accel").symlink_to(LABEXTENSION, target_is_directory=True)
c.LabServerApp.extra_labextensions_path = [str(linked), str(Path(jupyterlab.galata.__file__).parent)]
# The sandboxes these tests run in are root containers; the server binds 127.0.0.1 only.
c.ServerApp.allow_root = True
