"""A read-only server (AccelConfig.read_only) runs nothing: Ray's Jobs API through the dashboard proxy takes no
writes either, refused before anything is looked up."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError


@pytest.fixture
def accel_config() -> dict:
    return {"identity": "none", "read_only": True}


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
async def test_ray_jobs_api_writes_are_refused_on_a_read_only_server(jp_fetch, method):
    body = json.dumps({"entrypoint": "echo hi"}) if method != "DELETE" else None
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch(
            "accel", "v1", "jobs/ray-cluster/rc/dashboard/api/jobs/", method=method, body=body,
            allow_nonstandard_methods=True,
        )  # fmt: skip
    answer = json.loads(err.value.response.body)
    assert err.value.code == 403 and "read-only" in answer["message"], answer
