"""The extension against the real devcluster: a Jupyter server per test, configured as one cluster identity."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from cluster_api import NAMESPACE, Api

pytestmark = pytest.mark.cluster


@pytest.fixture
def identity() -> str:
    """Which devcluster identity the server runs as; tests override it."""
    return "notebook-user"


@pytest.fixture
def accel_config(devcluster, identity: str) -> dict:
    return {"identity": "kubeconfig", "kubeconfig": str(devcluster.kubeconfig(identity)), "namespace": NAMESPACE}


@pytest.fixture
def admin_api(devcluster):
    return devcluster.api_client("admin")


@pytest.fixture
def unique() -> Callable[[str], str]:
    return lambda prefix: f"{prefix}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def api(jp_fetch) -> Api:
    """The REST API of a fresh server; its first call waits until the caches of the identity are connected."""
    return Api(jp_fetch)
