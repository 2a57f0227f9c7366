"""Every route and verb of the handler table (api/routes.py HANDLERS) as a concrete request path, for the tests that
must cover all of them (authentication, XSRF, Host and Origin checks): a route added to the table is covered by
them without a test being edited."""

from __future__ import annotations

import re

from jupyter_accel.api.routes import HANDLERS

# a value for each path parameter of the table's patterns
SAMPLE = {"kind": "pytorch", "name": "x", "action": "suspend", "subpath": "index.html", "rest": "no/such/route"}
MUTATING = ("POST", "PUT", "PATCH", "DELETE")


def routes() -> list[tuple[str, str]]:
    """(VERB, path below /accel/v1/) for every documented verb of every handler."""
    out = []
    for h in HANDLERS:
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: SAMPLE[m.group(1)], h.path)
        out += [(verb.upper(), path) for verb in h.endpoints]
    return out


def mutating_routes() -> list[tuple[str, str]]:
    return [(verb, path) for verb, path in routes() if verb in MUTATING]
