"""Request bodies that are not UTF-8 JSON, too deep or too large, and paths no route matches: always a JSON answer
naming what is wrong, never a 500 or Jupyter's HTML page (the failures a schemathesis run found, issue #19).

No cluster is needed: bodies are parsed before the caches are asked for, so a bad body is a 400 even while the
server is not connected (a good body gets the 503 "not connected" here, which proves the parse passed)."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_accel.api.base import MAX_BODY_BYTES, MAX_BODY_DEPTH

BODY_ROUTES = [("POST", "fit"), ("POST", "jobs"), ("POST", "jobs/cleanup"), ("PUT", "identity/token")]


async def call(jp_fetch, method: str, path: str, body: bytes | None = None, **kw):
    try:
        resp = await jp_fetch(
            "accel", "v1", *path.split("/"), method=method, body=body, allow_nonstandard_methods=True, **kw
        )
    except HTTPClientError as err:
        resp = err.response
    return resp.code, resp.headers.get("Content-Type", ""), resp.body


def error_of(ctype: str, raw: bytes) -> dict:
    assert ctype.startswith("application/json"), (ctype, raw[:200])
    body = json.loads(raw)
    assert body["message"], body
    return body


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"kind": "pytorch", "name": "\xc3\x28"}', "not UTF-8"),
        (b"\x00", "not valid JSON"),
        (b"{", "not valid JSON"),
        (b'{"kind": "pytorch", "name": "\\ud800"}', "surrogate"),
        (b'{"\\udfff": 1}', "surrogate"),
        (b"[" * 100_000 + b"]" * 100_000, "deeper"),
    ],
)
async def test_body_that_is_not_json_text_is_a_400_naming_the_body(jp_fetch, method, path, raw, says):
    code, ctype, body = await call(jp_fetch, method, path, raw)
    err = error_of(ctype, body)
    assert code == 400, err
    assert err["field"] == "(body)"
    assert says in err["message"]


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
async def test_nesting_past_the_bound_is_refused(jp_fetch, method, path):
    deep: dict = {}
    node = deep
    for _ in range(MAX_BODY_DEPTH + 1):
        node["a"] = {}
        node = node["a"]
    code, ctype, body = await call(
        jp_fetch, method, path, json.dumps({"kind": "ray-job", "runtime_env": deep}).encode()
    )
    err = error_of(ctype, body)
    assert code == 400 and err["field"] == "(body)" and str(MAX_BODY_DEPTH) in err["message"], err


async def test_nesting_within_the_bound_passes_the_parse(jp_fetch):
    code, _, body = await call(jp_fetch, "POST", "fit", json.dumps({"kind": "ray-job", "runtime_env": {}}).encode())
    assert code == 503, body  # parsed and validated; then "not connected"


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
async def test_oversized_body_is_refused_before_parsing(jp_fetch, method, path):
    code, ctype, body = await call(jp_fetch, method, path, b'{"x": "' + b"a" * MAX_BODY_BYTES + b'"}')
    err = error_of(ctype, body)
    assert code == 413 and err["field"] == "(body)" and str(MAX_BODY_BYTES) in err["message"], err


@pytest.mark.parametrize(
    "path",
    ["jobs/0/0/0", "jobs/pytorch/x/logs/extra", "jobs/pytorch/x/explode", "nothing", "info/x", "jobs/PyTorch/x", ""],
)
@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE", "PATCH"])
async def test_unmatched_path_below_the_prefix_is_a_json_404(jp_fetch, method, path):
    body = b"{}" if method in ("POST", "PUT", "PATCH") else None
    code, ctype, raw = await call(jp_fetch, method, path, body)
    err = error_of(ctype, raw)
    assert code == 404, err
    assert "No such endpoint" in err["message"]


async def test_unmatched_head_is_a_404(jp_fetch):
    code, _, _ = await call(jp_fetch, "HEAD", "jobs/0/0/0")
    assert code == 404


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
async def test_unmatched_path_is_authenticated_like_the_rest(jp_fetch, method):
    body = b"{}" if method == "POST" else None
    code, _, _ = await call(jp_fetch, method, "jobs/0/0/0", body, headers={"Authorization": ""})
    assert code in (401, 403)


async def test_wrong_verb_on_a_route_is_json(jp_fetch):
    code, ctype, raw = await call(jp_fetch, "PATCH", "info", b"{}")
    assert code == 405
    error_of(ctype, raw)
