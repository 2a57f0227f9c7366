"""Identities of a workbench against the devcluster: the token forwarded by an auth proxy, the pod's service account
(in-cluster mode from a service-account directory), the environment of workbench images (extra CA bundle,
HTTPS proxy) and the RBAC tiers of examples/workbench/rbac/."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import select
import socket
import threading
import uuid
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from cluster_api import NAMESPACE, Api, admin_create, admin_delete

from jupyter_accel.cluster import rest

pytestmark = pytest.mark.cluster

HEADER = "X-Forwarded-Access-Token"
RBAC = Path(__file__).resolve().parents[2] / "examples" / "workbench" / "rbac"


def user_token(devcluster, identity: str) -> str:
    conf = yaml.safe_load(devcluster.kubeconfig(identity, token=True).read_text())
    return conf["users"][0]["user"]["token"]


def forwarding(jp_fetch, token: str) -> Api:
    """The REST API as reached through an auth proxy that adds the user's token to every request."""
    return Api(functools.partial(jp_fetch, headers={HEADER: token}))


class TestForwardedToken:
    @pytest.fixture
    def accel_config(self, devcluster) -> dict:
        return {
            "identity": "kubeconfig",
            "kubeconfig": str(devcluster.kubeconfig("notebook-user")),
            "namespace": NAMESPACE,
            "forwarded_token_header": HEADER,
        }

    async def test_the_forwarded_token_is_the_identity(self, jp_fetch, devcluster, caplog):
        plain = Api(jp_fetch)
        before = await plain.get("info")
        assert before["connection"]["user"] == "notebook-user"
        assert before["connection"]["identity"] == "kubeconfig"

        token = user_token(devcluster, "queue-viewer")
        proxied = forwarding(jp_fetch, token)
        info = await proxied.until("info", lambda b: b["connection"]["user"] == "queue-viewer", timeout=30)
        assert info["connection"]["identity"] == "forwarded"
        # the user's own RBAC: queue-viewer may list nodes, notebook-user may not
        inv = await proxied.until("inventory", lambda b: b["visibility"]["visible"], timeout=30)
        assert inv["models"] and inv["node_count"]
        assert (await proxied.get("inventory/nodes"))["nodes"]  # the nodes themselves come page by page
        # it stays the server's identity for requests without the header (the kernel's, for one)
        assert (await plain.get("info"))["connection"]["identity"] == "forwarded"

        # a token given at runtime wins; forgetting it goes back to the forwarded one
        other = user_token(devcluster, "notebook-user")
        code, conn = await proxied.call("PUT", "identity/token", {"token": other})
        assert code == 200 and conn["identity"] == "token"
        assert (await proxied.until("info", lambda b: b["connection"]["user"] == "notebook-user"))["connection"][
            "identity"
        ] == "token"
        code, conn = await proxied.call("DELETE", "identity/token")
        assert code == 200
        await proxied.until("info", lambda b: b["connection"]["user"] == "queue-viewer")

        # "Bearer <token>" is accepted too; anything else is a 400 naming the header, without the value
        bearer = Api(functools.partial(jp_fetch, headers={HEADER: f"Bearer {token}"}))
        assert (await bearer.get("info"))["connection"]["user"] == "queue-viewer"
        bad = Api(functools.partial(jp_fetch, headers={HEADER: "two words"}))
        bad._ready = True
        code, err = await bad.call("GET", "info")
        assert code == 400 and err["field"] == f"header {HEADER}", err
        assert "two words" not in str(err)

        assert token not in caplog.text and other not in caplog.text
        assert token not in str(info) and token not in str(inv)

    async def test_an_unauthenticated_request_cannot_switch(self, jp_fetch, devcluster):
        token = user_token(devcluster, "queue-viewer")
        code = None
        try:
            await jp_fetch("accel", "v1", "info", headers={HEADER: token, "Authorization": ""})
        except Exception as exc:  # tornado's HTTPClientError
            code = getattr(exc, "code", None)
        assert code in (401, 403)
        info = await Api(jp_fetch).get("info")
        assert info["connection"]["user"] == "notebook-user"


class TestForwardedTokenOff:
    async def test_the_header_is_ignored_by_default(self, jp_fetch, devcluster):
        proxied = forwarding(jp_fetch, user_token(devcluster, "queue-viewer"))
        info = await proxied.get("info")
        assert info["connection"]["user"] == "notebook-user"
        assert info["connection"]["identity"] == "kubeconfig"


# ---- the pod's service account ---------------------------------------------------------------------------------


@pytest.fixture
def service_account(devcluster, admin_api):
    """A ServiceAccount in team-a (as ODH's notebook controller makes per workbench) and a token for it."""
    name = f"wb-{uuid.uuid4().hex[:6]}"
    admin_create(admin_api, {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}, NAMESPACE)
    out = rest.request(
        admin_api,
        "POST",
        f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts/{name}/token",
        body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 3600}},
    )
    yield name, out["status"]["token"]
    admin_delete(admin_api, "v1", "ServiceAccount", name, NAMESPACE)


def sa_dir(tmp_path: Path, token: str, ca: bytes) -> Path:
    d = tmp_path / "serviceaccount"
    d.mkdir()
    (d / "token").write_text(token)
    (d / "namespace").write_text(NAMESPACE)
    (d / "ca.crt").write_bytes(ca)
    return d


def pod_env(monkeypatch, devcluster) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(devcluster.ports["apiserver"]))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("JUPYTER_ACCEL_NAMESPACE", raising=False)
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)


def manifests(name: str, sa: str, profiles_namespace: str = NAMESPACE) -> list[dict]:
    """An example RBAC file with its placeholders replaced, as the README tells an admin to."""
    docs = [d for d in yaml.safe_load_all((RBAC / name).read_text()) if d]
    suffix = uuid.uuid4().hex[:6]
    for d in docs:
        meta = d["metadata"]
        if meta.get("namespace") == "my-project":
            meta["namespace"] = NAMESPACE
        if meta.get("namespace") == "redhat-ods-applications":
            meta["namespace"] = profiles_namespace
        meta["name"] = f"{meta['name']}-{suffix}"
        for s in d.get("subjects", []):
            s["name"], s["namespace"] = sa, NAMESPACE
        if "roleRef" in d:
            d["roleRef"]["name"] = f"{d['roleRef']['name']}-{suffix}"
    return docs


@contextlib.contextmanager
def applied(admin_api, docs: list[dict]):
    made = []
    try:
        for d in docs:
            admin_create(admin_api, d, d["metadata"].get("namespace"))
            made.append(d)
        yield
    finally:
        for d in reversed(made):
            with contextlib.suppress(Exception):
                admin_delete(
                    admin_api, d["apiVersion"], d["kind"], d["metadata"]["name"], d["metadata"].get("namespace")
                )


def perms(info: dict) -> dict:
    """(verb, resource, namespaced) -> allowed; a check not (yet) made reads as not allowed."""
    out = {(p["verb"], p["resource"], p["namespaced"]): p["allowed"] for p in info["capabilities"]["permissions"]}
    return defaultdict(bool, out)


class TestInClusterTiers:
    """The server as in a workbench pod (service-account files, KUBERNETES_SERVICE_HOST), with the example RBAC."""

    @pytest.fixture
    def accel_config(self, devcluster, service_account, tmp_path, monkeypatch) -> dict:
        pod_env(monkeypatch, devcluster)
        d = sa_dir(tmp_path, service_account[1], (devcluster.pki_dir / "ca.crt").read_bytes())
        return {"identity": "auto", "service_account_dir": str(d)}

    async def test_no_rbac_tier_a_tier_b(self, jp_fetch, admin_api, service_account):
        sa = service_account[0]
        api = Api(jp_fetch)
        api._ready = True
        info = await api.until(
            "info",
            lambda b: b["connection"]["state"] == "connected" and b["capabilities"]["permissions"],
            timeout=30,
        )
        assert info["connection"]["identity"] == "in-cluster"
        assert info["connection"]["namespace"] == NAMESPACE  # from the namespace file
        assert info["connection"]["user"] == f"system:serviceaccount:{NAMESPACE}:{sa}"
        assert perms(info)[("create", "pytorchjobs", True)] is False
        assert (await api.get("inventory"))["visibility"]["message"] == "not visible to your account"
        jobs = await api.get("jobs")
        assert jobs["visibility"]["pytorch"]["message"] == "not visible to your account", jobs
        assert (await api.get("queues"))["visibility"]["message"] == "not visible to your account"

        with applied(admin_api, manifests("tier-a-namespace.yaml", sa)):
            # the permissions are probed when the caches start: a new identity object starts them afresh
            info = await self._restart_and_wait(api, lambda p: p[("create", "pytorchjobs", True)])
            p = perms(info)
            assert p[("list", "localqueues", True)] and p[("list", "workloads", True)] and p[("get", "pods/log", True)]
            assert p[("list", "nodes", False)] is False and p[("list", "clusterqueues", False)] is False
            inv = await api.get("inventory")
            assert inv["visibility"]["visible"] is False
            assert inv["visibility"]["message"] == "not visible to your account"
            q = await api.until("queues", lambda b: b["queues"])
            lq = next(x for x in q["queues"] if x["name"] == "default")
            assert lq["cluster_queue_visibility"]["message"] == "not visible to your account"
            jobs = await api.get("jobs")
            assert "pytorch" in jobs["kinds_served"], jobs
            assert (await api.get("profiles"))["visibility"]["message"] == "not visible to your account"

            with applied(admin_api, manifests("tier-b-cluster.yaml", sa)):
                info = await self._restart_and_wait(api, lambda p: p[("list", "nodes", False)])
                p = perms(info)
                assert p[("list", "clusterqueues", False)] and p[("list", "hardwareprofiles", True)]
                assert p[("list", "pods", False)] is False  # deliberately not granted
                inv = await api.until("inventory", lambda b: b["visibility"]["visible"], timeout=30)
                assert inv["models"] and inv["node_count"]
                assert (await api.get("inventory/nodes"))["nodes"]
                assert inv["pods_visibility"]["visible"] is False
                q = await api.until(
                    "queues",
                    lambda b: any(x["cluster_queue_visibility"]["visible"] for x in b["queues"]),
                    timeout=30,
                )
                profiles = await api.get("profiles")
                assert profiles["profiles"], profiles

    async def _restart_and_wait(self, api: Api, check):
        """Hand the identity back and forth (DELETE of a runtime token re-resolves it) until `check(perms)`."""
        for _ in range(20):
            code, _ = await api.call("DELETE", "identity/token")
            assert code == 200
            info = await api.until(
                "info",
                lambda b: b["connection"]["state"] == "connected" and b["capabilities"]["permissions"],
                timeout=30,
            )
            if check(perms(info)):
                return info
            await asyncio.sleep(0.5)
        raise AssertionError(f"permissions never changed: {perms(info)}")


class TestInClusterEnvironment:
    @pytest.fixture
    def proxy(self):
        p = ConnectProxy()
        yield p
        p.close()

    @pytest.fixture
    def accel_config(self, request, devcluster, service_account, tmp_path, monkeypatch, proxy) -> dict:
        pod_env(monkeypatch, devcluster)
        real_ca = devcluster.pki_dir / "ca.crt"
        case = request.node.name
        if "ca_bundle" in case:
            # the pod's ca.crt does not sign the API server (a TLS-inspecting proxy, a custom CA); the image's
            # bundle does
            other = next(p for p in sorted(devcluster.pki_dir.glob("*.crt")) if p.read_bytes() != real_ca.read_bytes())
            d = sa_dir(tmp_path, service_account[1], other.read_bytes())
            if "with_bundle" in case:
                monkeypatch.setenv("SSL_CERT_FILE", str(real_ca))
        else:
            d = sa_dir(tmp_path, service_account[1], real_ca.read_bytes())
            monkeypatch.setenv("HTTPS_PROXY", proxy.url)
            if "no_proxy" in case:
                monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
        return {"identity": "in-cluster", "service_account_dir": str(d), "request_timeout": 5}

    async def test_ca_bundle_without_it_fails(self, jp_fetch):
        api = Api(jp_fetch)
        api._ready = True
        info = await api.get("info")
        assert info["connection"]["state"] == "error"
        assert "cannot be reached" in info["connection"]["message"]

    async def test_ca_bundle_with_bundle_connects(self, jp_fetch):
        api = Api(jp_fetch)
        api._ready = True
        info = await api.until("info", lambda b: b["connection"]["state"] == "connected", timeout=30)
        assert info["connection"]["identity"] == "in-cluster"

    async def test_https_proxy_is_used(self, jp_fetch, proxy, devcluster):
        api = Api(jp_fetch)
        api._ready = True
        await api.until("info", lambda b: b["connection"]["state"] == "connected", timeout=30)
        assert f"127.0.0.1:{devcluster.ports['apiserver']}" in proxy.targets

    async def test_no_proxy_bypasses_it(self, jp_fetch, proxy):
        api = Api(jp_fetch)
        api._ready = True
        await api.until("info", lambda b: b["connection"]["state"] == "connected", timeout=30)
        assert proxy.targets == []


class ConnectProxy:
    """A minimal HTTP CONNECT proxy on 127.0.0.1 that records the targets it tunnels to."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.targets: list[str] = []
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        self._stop = True
        self.sock.close()

    def _accept(self):
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket):
        with conn:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                head += chunk
            line = head.split(b"\r\n", 1)[0].decode()
            method, target, _ = line.split(" ", 2)
            if method != "CONNECT":
                conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
                return
            self.targets.append(target)
            host, port = target.rsplit(":", 1)
            with socket.create_connection((host, int(port))) as up:
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                rest_ = head.split(b"\r\n\r\n", 1)[1]
                if rest_:
                    up.sendall(rest_)
                socks = [conn, up]
                while not self._stop:
                    ready, _, _ = select.select(socks, [], [], 1.0)
                    for s in ready:
                        data = s.recv(65536)
                        if not data:
                            return
                        (up if s is conn else conn).sendall(data)
