"""Jupyter server of the compatibility smoke test (scripts/test-packaging.sh).

Unlike jupyter_server_test_config.py this serves only what is installed in the venv it runs from (the wheel
under test and that venv's JupyterLab): no source tree, no galata helper extension, which a JupyterLab other
than the one galata's npm package matches may not ship.
"""

import os
import tempfile

c = get_config()  # noqa: F821 -- injected by traitlets when it loads this file

c.ServerApp.ip = "127.0.0.1"
c.ServerApp.port = int(os.environ["JUPYTER_ACCEL_SMOKE_PORT"])
c.ServerApp.port_retries = 0
c.ServerApp.open_browser = False
c.ServerApp.root_dir = tempfile.mkdtemp(prefix="accel-smoke-root-")
c.IdentityProvider.token = ""
c.ServerApp.password = ""
c.ServerApp.disable_check_xsrf = True
c.LabApp.workspaces_dir = tempfile.mkdtemp(prefix="accel-smoke-ws-")
# JupyterLab refuses to start as root without this; only then is it set
c.ServerApp.allow_root = os.geteuid() == 0
c.Application.log_level = "WARN"
