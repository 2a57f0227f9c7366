"""PUT/DELETE /accel/v1/identity/token: use a bearer token given by the user (kept in server memory only)."""

from __future__ import annotations

from tornado import web

from .. import models
from .base import AccelHandler, ApiError, Endpoint


class TokenHandler(AccelHandler):
    path = "identity/token"
    endpoints = {
        "put": Endpoint(
            "Use this bearer token for every Kubernetes call",
            request="TokenRequest",
            response="Connection",
            errors=(400,),
        ),
        "delete": Endpoint("Forget the runtime token; go back to the configured identity", response="Connection"),
    }

    @web.authenticated
    async def put(self) -> None:
        body = self.parse_body(models.TokenRequest)
        if any(c.isspace() for c in body.token.strip()):
            raise ApiError(400, "token: must not contain whitespace", field="token")
        self.send(await self.accel.set_token(body.token.strip()))

    @web.authenticated
    async def delete(self) -> None:
        self.send(await self.accel.set_token(None))
