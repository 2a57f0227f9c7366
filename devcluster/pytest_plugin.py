"""pytest plugin: the dev cluster as a session fixture, plus per-identity kubeconfigs and API clients.

Installing the package registers it (the pytest11 entry point). Set JA_DEVCLUSTER_RUNDIR to reuse a cluster
started with `python -m devcluster up` (it is then left running). A component declared present in
devcluster/components.toml that fails to build or start makes the tests FAIL; tests needing a component
declared absent (`@pytest.mark.devcluster(needs=["kuberay"])`) are deselected, and the header says why.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .cluster import Cluster, StartError
from .versions import built, declared, versions

_deselected: list[str] = []


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "devcluster(needs=[...]): components the test needs (names as in devcluster/components.toml)"
    )


def pytest_report_header(config) -> list[str]:
    v = versions()
    parts, notes = [], []
    for name, d in declared().items():
        b = built(name)
        if not d.present:
            parts.append(f"{name}=v{b.version} ABSENT")
            notes.append(f"devcluster:   {name} declared absent: {d.reason}")
        elif b.bin_dir is None:
            parts.append(f"{name}=v{b.version} NOT-BUILT")
            notes.append(f"devcluster:   {name} declared present but {b.error} -> its tests FAIL")
        else:
            parts.append(f"{name}=v{b.version} real")
    reuse = os.environ.get("JA_DEVCLUSTER_RUNDIR")
    head = f"devcluster: k8s v{v['K8S_VERSION']}; " + ("reusing " + reuse if reuse else "started per session")
    return [head, "devcluster: " + "  ".join(parts), *notes]


def pytest_collection_modifyitems(config, items) -> None:
    absent = {n: d.reason for n, d in declared().items() if not d.present}
    keep, drop = [], []
    for item in items:
        needs = [n for m in item.iter_markers("devcluster") for n in m.kwargs.get("needs", [])]
        missing = [n for n in needs if n in absent]
        (drop if missing else keep).append(item)
        if missing:
            _deselected.append(f"{item.nodeid} (needs {', '.join(missing)}: {absent[missing[0]]})")
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_terminal_summary(terminalreporter) -> None:
    if _deselected:
        terminalreporter.write_line(f"devcluster: {len(_deselected)} test(s) deselected by components.toml:")
        for line in _deselected:
            terminalreporter.write_line(f"devcluster:   {line}")


@pytest.fixture(scope="session")
def devcluster() -> Cluster:
    """The running dev cluster (started once per session, or reused from JA_DEVCLUSTER_RUNDIR)."""
    reuse = os.environ.get("JA_DEVCLUSTER_RUNDIR")
    if reuse:
        cluster = Cluster.attach(reuse)
        if not cluster.is_healthy():
            pytest.fail(f"JA_DEVCLUSTER_RUNDIR={reuse} is not a healthy running dev cluster (see its logs/)")
        yield cluster
        return
    cluster = Cluster()
    cluster.stop_on_exit()
    try:
        cluster.start()
    except (StartError, RuntimeError, TimeoutError, OSError) as exc:
        pytest.fail(f"dev cluster failed to start (logs kept in {cluster.run}/logs): {exc}", pytrace=False)
    cluster.start_reaper()
    try:
        yield cluster
    finally:
        cluster._stop_once()


@pytest.fixture(scope="session")
def kubeconfig_admin(devcluster) -> Path:
    return devcluster.kubeconfig("admin")


@pytest.fixture(scope="session")
def kubeconfig_notebook_user(devcluster) -> Path:
    """CN=notebook-user, O=notebooks; edit-like rights in team-a only (default namespace team-a)."""
    return devcluster.kubeconfig("notebook-user")


@pytest.fixture(scope="session")
def kubeconfig_queue_viewer(devcluster) -> Path:
    """CN=queue-viewer: the notebook user's rights plus reads of nodes, Kueue queues and visibility."""
    return devcluster.kubeconfig("queue-viewer")


@pytest.fixture(scope="session")
def api_admin(devcluster):
    """`kubernetes.client.ApiClient` as admin (system:masters): for test setup, never for code under test."""
    client = devcluster.api_client("admin")
    yield client
    client.close()


@pytest.fixture(scope="session")
def api_notebook_user(devcluster):
    client = devcluster.api_client("notebook-user")
    yield client
    client.close()


@pytest.fixture(scope="session")
def api_queue_viewer(devcluster):
    client = devcluster.api_client("queue-viewer")
    yield client
    client.close()
