"""Build the OpenAPI 3.1 document of the REST API from the handler table and the wire models.

`python -m jupyter_accel.openapi > docs/openapi.json` rewrites the committed document; tests/test_openapi.py fails
when the committed one is stale.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from . import __version__
from . import models as wire
from .api.routes import HANDLERS
from .models import API_PREFIX, ErrorResponse

REF = "#/components/schemas/{model}"


def _path_template(pattern: str) -> tuple[str, list[str]]:
    """Turn a tornado pattern such as jobs/(?P<kind>[^/]+)/(?P<name>[^/]+) into /jobs/{kind}/{name}."""
    names = re.findall(r"\(\?P<(\w+)>[^)]*\)", pattern)
    return "/" + API_PREFIX + "/" + re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", pattern), names


def _path_schema(pattern: str, param: str) -> dict[str, Any]:
    """A path parameter as the route takes it: `kind` is a JobKind, `action` one of its alternatives, else the
    route's own regular expression (anchored), so generated requests reach the handlers, not only the 404."""
    if param == "kind":
        return {"$ref": REF.format(model="JobKind")}
    regex = re.search(rf"\(\?P<{param}>([^)]*)\)", pattern).group(1)
    if re.fullmatch(r"[a-z]+(\|[a-z]+)*", regex):
        return {"type": "string", "enum": regex.split("|")}
    if regex == ".*":
        return {"type": "string"}
    return {"type": "string", "pattern": f"^{regex}$"}


def build() -> dict[str, Any]:
    models: set[type[BaseModel]] = {ErrorResponse}
    for h in HANDLERS:
        for ep in h.endpoints.values():
            models.update(getattr(wire, m) for m in (ep.request, ep.response) if m is not None)
    ordered = sorted(models, key=lambda m: m.__name__)
    _, defs = models_json_schema([(m, "serialization") for m in ordered], ref_template=REF)
    schemas = defs.get("$defs", {})
    err = {"content": {"application/json": {"schema": {"$ref": REF.format(model="ErrorResponse")}}}}
    paths: dict[str, Any] = {}
    for h in HANDLERS:
        if not h.endpoints:  # the catch-all JSON 404 documents nothing
            continue
        route, params = _path_template(h.path)
        item: dict[str, Any] = {}
        for verb, ep in sorted(h.endpoints.items()):
            op: dict[str, Any] = {"summary": ep.summary, "operationId": f"{verb}_{h.__name__}"}
            parameters = [
                {"name": p, "in": "path", "required": True, "schema": _path_schema(h.path, p)} for p in params
            ]
            parameters += [
                {"name": q, "in": "query", "required": False, "description": d, "schema": {"type": "string"}}
                for q, d in sorted(ep.query.items())
            ]
            if parameters:
                op["parameters"] = parameters
            if ep.request is not None:
                op["requestBody"] = {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": REF.format(model=ep.request)}}},
                }
            responses: dict[str, Any] = {}
            if ep.streaming:
                responses[str(ep.status)] = {
                    "description": "stream",
                    "content": {ep.streaming: {"schema": {"type": "string"}}},
                }
            elif ep.response is not None:
                for code in (ep.status, *ep.also):
                    responses[str(code)] = {
                        "description": "OK",
                        "content": {"application/json": {"schema": {"$ref": REF.format(model=ep.response)}}},
                    }
            else:
                responses[str(ep.status)] = {"description": "OK"}
            # every body is read by AccelHandler.parse_body: 400 when it is no JSON text, 413 past MAX_BODY_BYTES
            body_errors = {400, 413} if ep.request is not None else set()
            for code in sorted({*ep.errors, *body_errors, 401, 403}):
                responses[str(code)] = {"description": "error", **err}
            op["responses"] = responses
            item[verb] = op
        paths[route] = item
    return {
        "openapi": "3.1.0",
        "info": {"title": "jupyter-accel", "version": __version__.split("+")[0]},
        "paths": paths,
        "components": {"schemas": schemas},
    }


def dumps() -> str:
    return json.dumps(build(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    sys.stdout.write(dumps())
