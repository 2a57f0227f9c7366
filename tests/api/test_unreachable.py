"""An API server that cannot be reached gives readable states and JSON errors, never a 500 or a traceback."""

from __future__ import annotations

import json
import socket

import pytest
from tornado.httpclient import HTTPClientError

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: not-a-real-token}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: team-z}}]
current-context: x
"""


@pytest.fixture
def accel_config(tmp_path) -> dict:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = tmp_path / "dead.kubeconfig"
    path.write_text(KUBECONFIG % port)
    return {"identity": "kubeconfig", "kubeconfig": str(path), "request_timeout": 2.0}


async def test_info_says_unreachable(jp_fetch):
    body = json.loads((await jp_fetch("accel", "v1", "info")).body)
    assert body["connection"]["state"] == "error"
    assert "cannot be reached" in body["connection"]["message"]
    assert body["connection"]["namespace"] == "team-z"  # from the kubeconfig context
    assert "not-a-real-token" not in json.dumps(body)


@pytest.mark.parametrize("path", ["inventory", "queues", "workloads", "jobs"])
async def test_reads_answer_503_json(jp_fetch, path):
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("accel", "v1", path)
    assert err.value.code == 503
    body = json.loads(err.value.response.body)
    assert body["reason"] == "Not connected"
    assert "Traceback" not in body["message"]
