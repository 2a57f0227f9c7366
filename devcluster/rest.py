"""A small Kubernetes REST client for start-up and seeding (admin only; tests use the `kubernetes` package).

It avoids the `kubernetes` client's full discovery at start-up, which is slow once ~20 CRDs are installed.
"""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path


class ApiError(Exception):
    def __init__(self, status: int, body: str, what: str) -> None:
        super().__init__(f"{what}: HTTP {status}: {body[:500]}")
        self.status = status
        self.body = body


def tls_context(ca: Path, cert: Path | None = None, key: Path | None = None) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(ca))
    if cert is not None:
        ctx.load_cert_chain(str(cert), str(key))
    return ctx


def insecure_context() -> ssl.SSLContext:
    """For the self-signed health endpoints of kcm/scheduler: loopback only, nothing secret sent."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class Rest:
    def __init__(self, server: str, ctx: ssl.SSLContext) -> None:
        self.server = server.rstrip("/")
        self.ctx = ctx
        self._resources: dict[str, dict[str, tuple[str, bool]]] = {}

    def request(self, method: str, path: str, body=None, content_type="application/json", timeout=30):
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            raise ApiError(exc.code, exc.read().decode(errors="replace"), f"{method} {path}") from None
        return json.loads(raw) if raw.strip().startswith(b"{") else raw.decode(errors="replace")

    def get(self, path: str):
        return self.request("GET", path)

    def _resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        """(plural, namespaced) for a kind, from the group-version's discovery document (cached)."""
        if api_version not in self._resources or kind not in self._resources[api_version]:
            base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
            doc = self.get(base)
            self._resources[api_version] = {
                r["kind"]: (r["name"], r["namespaced"]) for r in doc["resources"] if "/" not in r["name"]
            }
        try:
            return self._resources[api_version][kind]
        except KeyError:
            raise ApiError(404, f"kind {kind} not served by {api_version}", "discovery") from None

    def path(self, api_version: str, kind: str, namespace: str | None = None, name: str | None = None) -> str:
        plural, namespaced = self._resource(api_version, kind)
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        if namespaced:
            base += f"/namespaces/{namespace or 'default'}"
        base += f"/{plural}"
        return base + (f"/{name}" if name else "")

    def apply(self, obj: dict, manager: str = "devcluster") -> dict:
        """Server-side apply (idempotent; no annotation size limit, unlike client-side apply)."""
        meta = obj["metadata"]
        path = self.path(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"])
        query = urllib.parse.urlencode({"fieldManager": manager, "force": "true"})
        return self.request("PATCH", f"{path}?{query}", obj, "application/apply-patch+yaml")

    def apply_status(self, obj: dict, manager: str = "devcluster") -> dict:
        meta = obj["metadata"]
        path = self.path(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"])
        query = urllib.parse.urlencode({"fieldManager": manager, "force": "true"})
        body = {k: obj[k] for k in ("apiVersion", "kind", "metadata", "status")}
        return self.request("PATCH", f"{path}/status?{query}", body, "application/apply-patch+yaml")

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
        try:
            self.request("DELETE", self.path(api_version, kind, namespace, name), timeout=10)
        except ApiError as exc:
            if exc.status != 404:
                raise

    def wait(self, what: str, check, timeout: float = 30, interval: float = 0.25):
        """Poll check() until it returns a truthy value; on timeout say what was awaited and the last error."""
        deadline, last = time.monotonic() + timeout, None
        while time.monotonic() < deadline:
            try:
                if result := check():
                    return result
            except (OSError, ApiError) as exc:
                last = exc
            time.sleep(interval)
        raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}" + (f": {last}" if last else ""))
