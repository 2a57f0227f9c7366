"""Every route and verb of the extension refuses unauthenticated requests; mutating verbs also get
jupyter_server's XSRF check for cookie-authenticated browsers (APIHandler)."""

from __future__ import annotations

import pytest
from handler_routes import routes
from tornado.httpclient import HTTPClientError


@pytest.mark.parametrize(("verb", "path"), routes())
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
