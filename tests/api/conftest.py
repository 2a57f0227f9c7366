"""Server fixtures: a real Jupyter server with the extension enabled, authentication on."""

from __future__ import annotations

import pytest


@pytest.fixture
def accel_config() -> dict:
    """Per-test AccelConfig traits; tests override this fixture to point at a kubeconfig."""
    return {"identity": "none"}


@pytest.fixture
def jp_server_config(accel_config: dict) -> dict:
    return {
        "ServerApp": {"jpserver_extensions": {"jupyter_accel": True}, "allow_unauthenticated_access": False},
        "AccelConfig": accel_config,
    }
