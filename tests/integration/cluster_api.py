"""Helpers of the integration tests: a JSON view of jp_fetch, admin-side object creation, waiting."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from tornado.httpclient import HTTPClientError

from jupyter_accel.cluster import rest

NAMESPACE = "team-a"


class Api:
    """jp_fetch with JSON in and out, errors returned instead of raised."""

    def __init__(self, jp_fetch):
        self.jp_fetch = jp_fetch
        self._ready = False

    async def call(self, method: str, path: str, body: Any = None, **params: str) -> tuple[int, Any]:
        if not self._ready:
            self._ready = True
            await self.until(
                "info",
                lambda b: b["connection"]["state"] == "connected" and b["capabilities"]["apis"]["kueue"],
                timeout=30,
            )
        kwargs: dict[str, Any] = {"method": method}
        if body is not None:
            kwargs["body"] = json.dumps(body)
        elif method in ("POST", "PUT"):
            kwargs["body"] = "{}"
        if params:
            kwargs["params"] = params
        try:
            resp = await self.jp_fetch("accel", "v1", *path.split("/"), **kwargs)
        except HTTPClientError as err:
            data = err.response.body if err.response is not None else b""
            return err.code, json.loads(data) if data else None
        text = resp.body.decode()
        ctype = resp.headers.get("Content-Type", "")
        return resp.code, json.loads(text) if text and "json" in ctype else text

    async def get(self, path: str, **params: str) -> Any:
        code, body = await self.call("GET", path, **params)
        assert code == 200, (path, code, body)
        return body

    async def until(self, path: str, check: Callable[[Any], Any], timeout: float = 90, **params: str) -> Any:
        """Poll a read endpoint until `check(body)` is truthy; the last body is shown on failure."""
        deadline = time.monotonic() + timeout
        body: Any = None
        while time.monotonic() < deadline:
            code, body = await self.call("GET", path, **params)
            if code == 200 and check(body):
                return body
            await asyncio.sleep(0.5)
        raise AssertionError(f"timed out waiting on {path}: last answer {json.dumps(body)[:3000]}")


def admin_create(api_client, obj: dict[str, Any], namespace: str | None = None) -> dict[str, Any]:
    group, _, version = obj["apiVersion"].rpartition("/")
    plural = obj["kind"].lower() + "s"
    return rest.request(api_client, "POST", rest.resource_path(group, version, plural, namespace), body=obj)


def admin_delete(api_client, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
    group, _, version = api_version.rpartition("/")
    try:
        rest.request(
            api_client,
            "DELETE",
            rest.resource_path(group, version, kind.lower() + "s", namespace, name),
            body={"propagationPolicy": "Background", "gracePeriodSeconds": 0},
        )
    except rest.ApiException as exc:
        if exc.status != 404:
            raise


def gpu_pod(name: str, node: str, gpus: int, resource: str = "nvidia.com/gpu") -> dict[str, Any]:
    """A long-running pod pinned to one node, asking for `gpus` devices."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},  # bare pods run until deleted under kwok
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": node},
            "tolerations": [{"operator": "Exists"}],
            "containers": [
                {
                    "name": "main",
                    "image": "busybox",
                    "resources": {"requests": {resource: str(gpus), "cpu": "100m"}, "limits": {resource: str(gpus)}},
                }
            ],
        },
    }


async def wait_for(fn: Callable[[], Awaitable[Any] | Any], timeout: float = 60, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if asyncio.iscoroutine(last):
            last = await last
        if last:
            return last
        await asyncio.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}: {last!r}")
