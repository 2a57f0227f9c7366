"""The committed OpenAPI document must match the wire models and the handler table."""

from __future__ import annotations

from pathlib import Path

from jupyter_accel.openapi import build, dumps

DOC = Path(__file__).parents[2] / "docs" / "openapi.json"


def test_committed_openapi_is_current():
    assert DOC.read_text() == dumps(), (
        "docs/openapi.json is stale: run `python -m jupyter_accel.openapi > docs/openapi.json`"
    )


def test_every_route_documents_auth_errors():
    for path, item in build()["paths"].items():
        for verb, op in item.items():
            assert {"401", "403"} <= set(op["responses"]), f"{verb} {path} lacks auth error responses"
