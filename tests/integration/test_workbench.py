"""This workbench against the real API server: devcluster's Notebook `notebook-tests` (data/workbench.yaml, a CRD
written here since no notebook controller is served), read and re-profiled through the REST API as the user."""

from __future__ import annotations

import contextlib

import pytest
from cluster_api import NAMESPACE

from jupyter_accel.cluster import rest

pytestmark = pytest.mark.cluster

WORKBENCH = "notebook-tests"
PROFILE = "opendatahub.io/hardware-profile-name"
PROFILE_NS = "opendatahub.io/hardware-profile-namespace"
QUEUE = "kueue.x-k8s.io/queue-name"


@pytest.fixture
def jp_server_config(accel_config: dict) -> dict:
    return {
        "ServerApp": {"jpserver_extensions": {"jupyter_accel": True}, "allow_unauthenticated_access": False},
        "AccelConfig": accel_config,
        "AccelApp": {"workbench": f"/notebook/{NAMESPACE}/{WORKBENCH}"},
    }


def _path() -> str:
    return rest.resource_path("kubeflow.org", "v1", "notebooks", NAMESPACE, WORKBENCH)


def _seed(admin_api) -> dict:
    """The Notebook as devcluster seeds it, made again (other tests, the fuzzer among them, may have patched it)."""
    from devcluster import manifests

    with contextlib.suppress(rest.ApiException):
        rest.request(admin_api, "DELETE", _path())
    (obj,) = manifests.data("workbench.yaml")
    return rest.request(admin_api, "POST", rest.resource_path("kubeflow.org", "v1", "notebooks", NAMESPACE), body=obj)


@pytest.fixture
def notebook(admin_api):
    yield _seed(admin_api)
    _seed(admin_api)


def _containers(nb: dict) -> dict[str, dict]:
    return {c["name"]: c for c in nb["spec"]["template"]["spec"]["containers"]}


class TestAsTheUser:
    @pytest.fixture
    def identity(self) -> str:
        return "queue-viewer"  # the user who may patch the project's Notebooks and read its Namespace

    async def test_reads_this_workbench(self, api, notebook):
        view = await api.get("workbench")
        assert view["found"] and view["name"] == WORKBENCH and view["namespace"] == NAMESPACE
        assert view["hardware_profile"] == "cpu-small" and view["profile_display_name"] == "CPU only (small)"
        assert view["requests"] == {"cpu": "2", "memory": "8Gi"} and view["accelerators"] == {}
        assert view["queue"] == "default" and view["kueue_managed"] is True and not view["stopped"]
        assert "CPU only (small)" in view["message"]

    async def test_dry_run_changes_nothing_then_the_patch_does(self, api, notebook, admin_api):
        body = {"hardware_profile": "nvidia-h100-queued", "dry_run": True}
        code, out = await api.call("POST", "workbench/profile", body)
        assert code == 200, out
        assert out["applied"] is False and "kernel" in out["warning"] and "Save" in out["warning"]
        assert out["fit"]["verdict"] in ("fits_now", "must_queue"), out["fit"]
        paths = {op["path"]: op for op in out["patch"]}
        assert paths[f"/metadata/annotations/{PROFILE.replace('/', '~1')}"]["value"] == "nvidia-h100-queued"
        resources = paths["/spec/template/spec/containers/0/resources"]["value"]
        assert resources["requests"] == {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "1"}
        assert resources["limits"] == {"nvidia.com/gpu": "1"}
        assert (
            rest.request(admin_api, "GET", _path())["metadata"]["resourceVersion"]
            == (notebook["metadata"]["resourceVersion"])
        )

        code, out = await api.call("POST", "workbench/profile", {"hardware_profile": "nvidia-h100-queued"})
        assert code == 200, out
        assert out["applied"] is True
        nb = rest.request(admin_api, "GET", _path())
        meta = nb["metadata"]
        assert meta["annotations"][PROFILE] == "nvidia-h100-queued" and meta["annotations"][PROFILE_NS] == NAMESPACE
        assert meta["labels"][QUEUE] == "default"  # the profile's queue, as the project is Kueue-managed
        assert meta["labels"]["kueue.x-k8s.io/priority-class"] == "high-priority"  # and its priority class
        assert _containers(nb)[WORKBENCH]["resources"]["requests"]["nvidia.com/gpu"] == "1"
        assert _containers(nb)["oauth-proxy"] == _containers(notebook)["oauth-proxy"]  # the sidecar untouched
        view = await api.get("workbench")
        assert view["accelerators"] == {"nvidia.com/gpu": 1} and view["hardware_profile"] == "nvidia-h100-queued"

    async def test_a_node_profile_brings_its_placement(self, api, notebook, admin_api):
        code, out = await api.call("POST", "workbench/profile", {"hardware_profile": "nvidia-a100-mig-1g"})
        assert code == 200, out
        pod = rest.request(admin_api, "GET", _path())["spec"]["template"]["spec"]
        assert pod["nodeSelector"] == {"nvidia.com/mig.strategy": "mixed"}
        assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        assert _containers({"spec": {"template": {"spec": pod}}})[WORKBENCH]["resources"]["limits"] == {
            "nvidia.com/mig-1g.10gb": "1"
        }

    async def test_bad_profiles_are_named_and_nothing_changes(self, api, notebook, admin_api):
        for name in ("no-such-profile", "amd-mi300x"):  # unknown; disabled
            code, out = await api.call("POST", "workbench/profile", {"hardware_profile": name})
            assert code == 400, out
            assert out["field"] == "hardware_profile" and "cpu-small" in out["message"], out
        code, out = await api.call("POST", "workbench/profile", {"hardware_profile": ""})
        assert code == 400 and out["field"] == "hardware_profile", out
        assert (
            rest.request(admin_api, "GET", _path())["metadata"]["resourceVersion"]
            == (notebook["metadata"]["resourceVersion"])
        )


class TestAsAReader:
    @pytest.fixture
    def identity(self) -> str:
        return "cluster-reader"  # reads every Notebook, may patch none

    async def test_sees_it_but_may_not_change_it(self, api, notebook, admin_api):
        view = await api.get("workbench")
        assert view["found"] and view["hardware_profile"] == "cpu-small"
        assert view["kueue_managed"] is None  # it may not read the Namespace: said as unknown, not as false
        for dry in (True, False):  # the API server checks the permission on a dry run too
            code, out = await api.call(
                "POST", "workbench/profile", {"hardware_profile": "nvidia-h100-queued", "dry_run": dry}
            )
            assert code == 403, out
            assert out["message"].startswith("your account may not change this workbench"), out
            assert "patch on notebooks" in out["message"]
        assert (
            rest.request(admin_api, "GET", _path())["metadata"]["resourceVersion"]
            == (notebook["metadata"]["resourceVersion"])
        )
