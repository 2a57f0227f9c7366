"""The read side against the devcluster: exact figures, permission-degraded views, recovery of the watches."""

from __future__ import annotations

import contextlib

import pytest
from cluster_api import NAMESPACE, admin_create, admin_delete, gpu_pod, wait_for

pytestmark = pytest.mark.cluster


H100 = "NVIDIA-H100-80GB-HBM3"  # devcluster's real node adds a second nvidia.com/gpu model (its CPU-backed devices)


def model(inv: dict, resource: str, product: str | None = None) -> dict:
    return next(m for m in inv["models"] if m["resource"] == resource and product in (None, m["model"]))


def node_dev(inv: dict, node: str, resource: str) -> dict:
    n = next(n for n in inv["nodes"] if n["name"] == node)
    return next(d for d in n["accelerators"] if d["resource"] == resource)


async def full_inventory(api) -> dict:
    """The per-model answer with its nodes (GET inventory/nodes, one page holds all of devcluster's)."""
    inv = await api.get("inventory")
    page = await api.get("inventory/nodes", limit="500")
    assert page["total"] == inv["node_count"] == len(page["nodes"]), (inv, page)
    return {**inv, "nodes": page["nodes"]}


async def until_inventory(api, check, timeout: float = 90) -> dict:
    async def ok():
        inv = await full_inventory(api)
        return inv if check(inv) else None

    return await wait_for(ok, timeout, "the inventory")


class TestInventoryAsAdmin:
    @pytest.fixture
    def identity(self) -> str:
        return "admin"

    async def test_free_h100_after_a_three_gpu_pod(self, api, admin_api, unique):
        # start from quiet H100s: a pod of an earlier test that ends during the check would move the figures
        before = await until_inventory(
            api,
            lambda b: (
                model(b, "nvidia.com/gpu", H100)["free"] == 16
                and node_dev(b, "gpu-h100-0", "nvidia.com/gpu")["free"] == 8  # the node page agrees
            ),
            timeout=180,
        )
        assert node_dev(before, "gpu-h100-0", "nvidia.com/gpu")["allocatable"] == 8
        base_free = node_dev(before, "gpu-h100-0", "nvidia.com/gpu")["free"]
        total_free = model(before, "nvidia.com/gpu", H100)["free"]
        name = unique("three-gpus")
        admin_create(admin_api, gpu_pod(name, "gpu-h100-0", 3), "team-b")
        try:
            # the summary and the node page are two answers, each a moment behind the other while the pod starts
            # (api/answers.py: the inventory answers from its last answer between computations while pods churn)
            inv = await until_inventory(
                api,
                lambda b: (
                    node_dev(b, "gpu-h100-0", "nvidia.com/gpu")["free"] == base_free - 3
                    and model(b, "nvidia.com/gpu", H100)["free"] == total_free - 3
                ),
            )
            dev = node_dev(inv, "gpu-h100-0", "nvidia.com/gpu")
            assert dev["allocated"] == 8 - base_free + 3
            assert model(inv, "nvidia.com/gpu", H100)["free"] == total_free - 3
            assert "H100" in dev["model"]
        finally:
            admin_delete(admin_api, "v1", "Pod", name, "team-b")
        await until_inventory(api, lambda b: node_dev(b, "gpu-h100-0", "nvidia.com/gpu")["free"] == base_free)

    async def test_mig_amd_gaudi_counts(self, api):
        inv = await full_inventory(api)
        assert node_dev(inv, "gpu-a100-mig-0", "nvidia.com/mig-1g.10gb")["allocatable"] == 14
        assert node_dev(inv, "gpu-a100-mig-0", "nvidia.com/mig-3g.40gb")["allocatable"] == 4
        assert node_dev(inv, "gpu-a100-mig-0", "nvidia.com/mig-1g.10gb")["mig_profile"] == "1g.10gb"
        assert model(inv, "amd.com/gpu")["allocatable"] == 8
        assert model(inv, "habana.ai/gaudi")["allocatable"] == 8
        assert model(inv, "nvidia.com/gpu", H100)["allocatable"] == 16
        assert model(inv, "nvidia.com/gpu", H100)["node_count"] == 2
        assert inv["pods_visibility"]["visible"] is True

    async def test_node_pages_by_model(self, api):
        h100 = model(await api.get("inventory"), "nvidia.com/gpu", H100)
        first = await api.get("inventory/nodes", model=h100["key"], limit="1")
        second = await api.get("inventory/nodes", model=h100["key"], limit="1", offset="1")
        assert first["total"] == second["total"] == h100["node_count"] == 2
        assert [n["name"] for n in first["nodes"] + second["nodes"]] == ["gpu-h100-0", "gpu-h100-1"]
        refused = (
            ({"limit": "0"}, "limit"),
            ({"limit": "501"}, "limit"),
            ({"offset": "-1"}, "offset"),
            ({"offset": "two"}, "offset"),
            ({"model": "nvidia.com/gpu|no-such-model"}, "model"),
        )
        for params, field in refused:
            code, err = await api.call("GET", "inventory/nodes", **params)
            assert code == 400 and err["field"] == field, (params, code, err)
            assert "allowed" in err["message"]


class TestNotebookUser:
    async def test_nodes_not_visible_is_a_state_not_an_error(self, api):
        inv = await api.get("inventory")
        assert inv["visibility"]["visible"] is False
        assert inv["visibility"]["message"] == "not visible to your account"
        assert inv["node_count"] == 0 and inv["models"] == []
        page = await api.get("inventory/nodes")
        assert page["nodes"] == [] and page["visibility"]["message"] == "not visible to your account"

    async def test_queues_without_clusterqueue_rights(self, api):
        q = await api.until("queues", lambda b: b["queues"])
        assert q["default_queue"] == "default"
        lq = next(x for x in q["queues"] if x["name"] == "default")
        assert lq["cluster_queue"] == "team-a-cq"
        assert lq["cluster_queue_visibility"]["visible"] is False
        assert lq["cluster_queue_visibility"]["message"] == "not visible to your account"

    async def test_info_reports_permissions(self, api):
        info = await api.get("info")
        perms = {(p["verb"], p["resource"], p["namespaced"]): p["allowed"] for p in info["capabilities"]["permissions"]}
        assert perms[("list", "nodes", False)] is False
        assert perms[("create", "pytorchjobs", True)] is True
        assert info["connection"]["user"] == "notebook-user"
        assert info["connection"]["namespace"] == NAMESPACE


class TestQueueViewer:
    @pytest.fixture
    def identity(self) -> str:
        return "queue-viewer"

    async def test_clusterqueue_quota(self, api):
        q = await api.until("queues", lambda b: b["queues"] and b["queues"][0]["cluster_queue_visibility"]["visible"])
        lq = next(x for x in q["queues"] if x["name"] == "default")
        assert lq["cohort"] == "research"
        cell = next(
            r
            for f in lq["flavors"]
            if f["name"] == "nvidia-h100-80gb"
            for r in f["resources"]
            if r["resource"] == "nvidia.com/gpu"
        )
        assert cell["nominal"] == 8
        assert cell["borrowing_limit"] == 4

    async def test_inventory_without_cluster_pods(self, api):
        inv = await full_inventory(api)
        assert node_dev(inv, "gpu-h100-1", "nvidia.com/gpu")["allocatable"] == 8
        assert node_dev(inv, "gpu-h100-1", "nvidia.com/gpu")["free"] is None  # unknown, not guessed
        assert inv["pods_visibility"]["visible"] is False


class TestWatchRecovery:
    @pytest.fixture
    def identity(self) -> str:
        return "admin"

    async def test_caches_recover_after_apiserver_restart(self, api, devcluster, admin_api, unique):
        await api.get("inventory")
        devcluster.restart("kube-apiserver")
        name = unique("after-restart")

        def create():
            try:
                admin_create(admin_api, gpu_pod(name, "gpu-h100-1", 1), "team-b")
                return True
            except Exception:
                return False

        await wait_for(create, 60, "the API server to accept writes again")
        try:
            await until_inventory(api, lambda b: node_dev(b, "gpu-h100-1", "nvidia.com/gpu")["allocated"] >= 1)
        finally:
            admin_delete(admin_api, "v1", "Pod", name, "team-b")


class TestRuntimeToken:
    @pytest.fixture
    def identity(self) -> str:
        return "queue-viewer"

    async def test_token_switches_identity_and_never_leaks(self, api, devcluster, caplog):
        import yaml

        conf = yaml.safe_load(devcluster.kubeconfig("notebook-user", token=True).read_text())
        token = conf["users"][0]["user"]["token"]
        before = await api.get("info")
        assert before["connection"]["user"] == "queue-viewer"
        code, conn = await api.call("PUT", "identity/token", {"token": token})
        assert code == 200, conn
        assert token not in str(conn)
        info = await api.until("info", lambda b: b["connection"]["user"] == "notebook-user")
        assert info["connection"]["identity"] == "token"
        inv = await api.get("inventory")  # the notebook user may not read nodes
        assert inv["visibility"]["visible"] is False
        code, conn = await api.call("DELETE", "identity/token")
        assert code == 200
        await api.until("info", lambda b: b["connection"]["user"] == "queue-viewer")
        assert token not in caplog.text
        code, err = await api.call("PUT", "identity/token", {"token": ""})
        assert code == 400 and err["field"] == "token"


class TestPushStream:
    async def test_a_change_is_pushed_debounced(self, api, jp_fetch, admin_api, unique):
        """A pod created in the namespace reaches an open stream as one debounced `change` naming its topics."""
        import asyncio
        import json as _json

        from tornado.httpclient import HTTPClientError

        await api.get("info")
        chunks: list[bytes] = []
        fetch = asyncio.ensure_future(
            jp_fetch("accel", "v1", "stream", streaming_callback=chunks.append, request_timeout=15)
        )
        await wait_for(lambda: b"event: change" in b"".join(chunks), 10, "the first event")
        name = unique("pushed")
        admin_create(admin_api, gpu_pod(name, "cpu-0", 1, "example.com/none"), NAMESPACE)
        try:

            def events():
                out = []
                for block in b"".join(chunks).decode().split("\n\n"):
                    data = [ln[6:] for ln in block.splitlines() if ln.startswith("data: ")]
                    if data:
                        out.append(_json.loads(data[0]))
                return out

            found = await wait_for(lambda: [e for e in events() if "jobs" in e["topics"]], 20, "a jobs change")
            assert events()[0]["topics"] == ["*"]  # a (re)connected client refetches everything
            assert found[0]["revision"] > events()[0]["revision"]
        finally:
            admin_delete(admin_api, "v1", "Pod", name, NAMESPACE)
            fetch.cancel()
            with contextlib.suppress(asyncio.CancelledError, HTTPClientError):
                await fetch
