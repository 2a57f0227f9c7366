"""Reliability tests (issue #19): fuzzing from the OpenAPI document, hostile inputs, token leaks, faults.

They run in the normal `python -m pytest tests`; those marked `cluster` use the session's devcluster."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_report import LINES

from devcluster.rest import ApiError


def pytest_collection_modifyitems(config, items) -> None:
    """The fault tests stop and restart parts of the session's cluster: they run last, after everything else."""
    restarts = ("tests/reliability/test_faults.py", "tests/reliability/test_apiserver_restart.py")
    faults = [i for i in items if i.nodeid.startswith(restarts)]
    if faults:
        items[:] = [i for i in items if i not in faults] + faults


def pytest_terminal_summary(terminalreporter) -> None:
    if LINES:
        terminalreporter.section("reliability figures")
        for line in LINES:
            terminalreporter.write_line(line)


ROOT_CA_WAIT = 30.0  # seconds a new namespace may take to get its kube-root-ca.crt (none comes: the test goes on)


class Namespace:
    """A throwaway namespace where the notebook user has its team-a rights and one LocalQueue that points at no
    ClusterQueue: Kueue keeps every job submitted there suspended, so nothing runs and no quota is taken."""

    QUEUE = "fuzz-q"

    def __init__(self, devcluster, prefix: str):
        self.cluster = devcluster
        self.admin = devcluster.admin
        self.name = f"{prefix}-{uuid.uuid4().hex[:6]}"

    def create(self) -> Namespace:
        a, ns = self.admin, self.name
        a.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        a.request(
            "POST",
            f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": "notebooks-workloads"},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": "jupyter-accel-notebook-workloads",
                },
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "notebook-user"}],
            },
        )
        a.request(
            "POST",
            f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{ns}/localqueues",
            {
                "apiVersion": "kueue.x-k8s.io/v1beta2",
                "kind": "LocalQueue",
                "metadata": {"name": self.QUEUE},
                "spec": {"clusterQueue": "fuzz-no-such-cluster-queue"},
            },
        )
        # kube-controller-manager publishes the ConfigMap kube-root-ca.crt into every new namespace, a moment later:
        # wait for it, so a test that compares the namespace's objects before and after sees a settled namespace
        deadline = time.monotonic() + ROOT_CA_WAIT
        while time.monotonic() < deadline and "kube-root-ca.crt" not in self.names(
            "/api/v1/namespaces/{ns}/configmaps"
        ):
            time.sleep(0.2)
        return self

    def accel_config(self) -> dict:
        return {
            "identity": "kubeconfig",
            "kubeconfig": str(self.cluster.kubeconfig("notebook-user")),
            "namespace": self.name,
        }

    def names(self, path: str) -> set[str]:
        """Names of the objects at a namespaced list path such as `/api/v1/namespaces/{ns}/configmaps`."""
        try:
            items = self.admin.get(path.format(ns=self.name))["items"]
        except ApiError as exc:
            if exc.status == 404:  # the kind is not served
                return set()
            raise
        return {i["metadata"]["name"] for i in items}

    def delete(self) -> None:
        try:
            self.admin.request("DELETE", f"/api/v1/namespaces/{self.name}")
        except ApiError as exc:
            if exc.status != 404:
                raise


@pytest.fixture(scope="module")
def throwaway_namespace(devcluster, request) -> Iterator[Namespace]:
    ns = Namespace(devcluster, Path(request.fspath).stem.replace("_", "-")[:20]).create()
    try:
        yield ns
    finally:
        ns.delete()
