"""Every route and verb of the extension refuses unauthenticated requests; mutating verbs also get
jupyter_server's XSRF check for cookie-authenticated browsers (APIHandler)."""

from __future__ import annotations

import re

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_accel.api.routes import HANDLERS

SAMPLE = {"kind": "pytorch", "name": "x", "action": "suspend", "subpath": "index.html", "rest": "no/such/route"}


def _routes():
    for h in HANDLERS:
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: SAMPLE[m.group(1)], h.path)
        for verb in h.endpoints:
            yield verb.upper(), path


@pytest.mark.parametrize(("verb", "path"), list(_routes()))
async def test_unauthenticated_is_refused(jp_fetch, verb, path):
    body = "{}" if verb in ("POST", "PUT", "PATCH") else None
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch(
            "accel",
            "v1",
            *path.split("/"),
            method=verb,
            body=body,
            headers={"Authorization": ""},
            allow_nonstandard_methods=True,
        )
    assert err.value.code in (401, 403)
