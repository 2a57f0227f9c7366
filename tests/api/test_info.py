"""GET /accel/v1/info against a real Jupyter server (pytest-jupyter), without a cluster."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_accel import __version__


async def test_info_not_configured(jp_fetch):
    response = await jp_fetch("accel", "v1", "info")
    assert response.code == 200
    body = json.loads(response.body)
    assert body["version"] == __version__
    assert body["api_version"] == "v1"
    assert body["connection"]["state"] == "not_configured"
    assert "switched off" in body["connection"]["message"]


async def test_info_refuses_unauthenticated(jp_fetch):
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("accel", "v1", "info", headers={"Authorization": ""})
    assert err.value.code in (401, 403)


class TestMissingKubeconfig:
    @pytest.fixture
    def accel_config(self, tmp_path, monkeypatch) -> dict:
        monkeypatch.delenv("KUBECONFIG", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path))
        return {"identity": "kubeconfig", "kubeconfig": str(tmp_path / "missing.kubeconfig")}

    async def test_readable_state(self, jp_fetch):
        response = await jp_fetch("accel", "v1", "info")
        body = json.loads(response.body)
        assert body["connection"]["state"] == "not_configured"
        assert "No Kubernetes configuration" in body["connection"]["message"]


class TestTimeLimits:
    @pytest.fixture
    def accel_config(self) -> dict:
        return {"max_run_seconds_limit": 4 * 3600, "default_max_run_seconds": {"pytorch": 3600}}

    async def test_info_publishes_each_kinds_default_limit_and_the_ceiling(self, jp_fetch):
        body = json.loads((await jp_fetch("accel", "v1", "info")).body)
        caps = body["capabilities"]
        assert caps["max_run_seconds_limit"] == 4 * 3600
        defaults = {k["kind"]: k["default_max_run_seconds"] for k in caps["kinds"]}
        # an interactive Ray cluster's own 8 h default is cut to the ceiling; the admin's pytorch default as set
        assert defaults["ray-cluster"] == 4 * 3600 and defaults["pytorch"] == 3600
        assert defaults["ray-job"] is None


class TestDefaultImages:
    @pytest.fixture
    def accel_config(self) -> dict:
        return {
            "default_images": {"pytorch": "registry.example/train:1", "ray-cluster@amd": "registry.example/ray:rocm"}
        }

    async def test_info_says_which_image_a_request_gets_per_vendor(self, jp_fetch):
        from jupyter_accel.domain.kinds import spec_of_kind
        from jupyter_accel.models import JobKind

        kinds = {
            k["kind"]: k for k in json.loads((await jp_fetch("accel", "v1", "info")).body)["capabilities"]["kinds"]
        }
        assert set(kinds["pytorch"]["default_images"]) == {"", "amd", "habana", "intel", "nvidia"}
        assert set(kinds["pytorch"]["default_images"].values()) == {"registry.example/train:1"}  # the admin's, for all
        ray = kinds["ray-cluster"]["default_images"]
        assert ray["amd"] == "registry.example/ray:rocm"  # the admin's for the kind and vendor
        assert ray["nvidia"] == spec_of_kind(JobKind.ray_cluster).vendor_images["nvidia"]  # Ray's -gpu image
        assert ray[""] == spec_of_kind(JobKind.ray_cluster).default_image
        assert ray["habana"] is None  # no default: the form and the 400 say to name one
