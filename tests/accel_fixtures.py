"""Server fixtures: a real Jupyter server (pytest-jupyter) with the extension enabled, authentication on.

Tests choose the extension's configuration by overriding `accel_config`; cluster tests point it at a devcluster
identity's kubeconfig (see tests/cluster/conftest.py).
"""

from __future__ import annotations

import pytest


@pytest.fixture
def accel_config() -> dict:
    """Per-test AccelConfig traits."""
    return {"identity": "none"}


@pytest.fixture
def jp_server_config(accel_config: dict) -> dict:
    return {
        "ServerApp": {"jpserver_extensions": {"jupyter_accel": True}, "allow_unauthenticated_access": False},
        "AccelConfig": accel_config,
    }
