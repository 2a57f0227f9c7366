"""Launch, watch and control jobs through the REST API, as the notebook user, against the real operators."""

from __future__ import annotations

import contextlib
import json

import pytest
from cluster_api import NAMESPACE, wait_for

from jupyter_accel.cluster import rest

pytestmark = pytest.mark.cluster


def job_of(body: dict, name: str) -> dict | None:
    return next((j for j in body["jobs"] if j["name"] == name), None)


def pytorch(name: str, workers: int, gpus: int, **extra) -> dict:
    return {
        "kind": "pytorch",
        "name": name,
        "image": "busybox",
        "command": ["python", "train.py"],
        "workers": workers,
        "accelerators": {"resource": "nvidia.com/gpu", "count": gpus},
        **extra,
    }


def admin_list(admin_api, plural: str, group: str = "kubeflow.org", version: str = "v1") -> list[str]:
    out = rest.request(admin_api, "GET", rest.resource_path(group, version, plural, NAMESPACE))
    return [o["metadata"]["name"] for o in out.get("items") or []]


async def delete(api, kind: str, name: str) -> None:
    await api.call("DELETE", f"jobs/{kind}/{name}")


async def test_pytorchjob_runs_to_succeeded_with_logs(api, unique):
    name = unique("ddp")
    code, out = await api.call("POST", "jobs", pytorch(name, 3, 1))
    assert code == 201, out
    assert out["created"] is True
    try:
        seen: dict[str, str] = {}  # every pod seen, with its role: the operator removes a worker still running
        # when the master succeeds (cleanPodPolicy Running), so the last listing may hold fewer

        def succeeded(b: dict) -> bool:
            j = job_of(b, name) or {}
            seen.update({p["name"]: p["role"] for p in j.get("pods", [])})
            return j.get("status") == "Succeeded"

        body = await api.until("jobs", succeeded, timeout=120)
        job = job_of(body, name)
        assert job["managed_by_us"] is True
        assert job["queue"] == "default"
        assert sorted(seen.values()) == ["master", "worker", "worker"], seen
        assert all(p["node"] and p["node"].startswith("gpu-h100") for p in job["pods"])
        assert not any(p["simulated"] for p in job["pods"])  # nodes are not visible to the notebook user: not claimed
        code, logs = await api.call("GET", f"jobs/pytorch/{name}/logs")
        assert code == 200 and logs.strip(), logs
        code, tail = await api.call("GET", f"jobs/pytorch/{name}/logs", tail="2")
        assert code == 200 and 1 <= len(tail.strip().splitlines()) <= 2, tail
        code, err = await api.call("GET", f"jobs/pytorch/{name}/logs", pod="not-a-pod-of-it")
        assert code == 400 and err["field"] == "pod"
        detail = await api.get(f"jobs/pytorch/{name}")
        assert any(e["reason"] for e in detail["events"])
        code, clean = await api.call(
            "POST", "jobs/cleanup", {"older_than_seconds": 0, "scope": "namespace", "dry_run": True}
        )
        assert code == 200 and f"pytorch/{name}" in clean["deleted"], clean
    finally:
        await delete(api, "pytorch", name)


@pytest.mark.parametrize("identity", ["queue-viewer"])  # reads nodes: it can tell kwok's nodes
async def test_pods_on_kwok_nodes_are_marked_simulated(api, unique):
    name = unique("sim")
    code, out = await api.call("POST", "jobs", pytorch(name, 1, 1))
    assert code == 201, out
    try:
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["pods"] and all(p["node"] for p in j["pods"]), timeout=120
        )
        pods = job_of(body, name)["pods"]
        assert all(p["simulated"] for p in pods), pods
    finally:
        await delete(api, "pytorch", name)


async def test_raycluster_gets_head_and_workers(api, unique):
    name = unique("ray")
    req = {
        "kind": "ray-cluster",
        "name": name,
        "image": "rayproject/ray:2.41.0",
        "workers": 2,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
    }
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running" and len(j["pods"]) == 3, timeout=120
        )
        roles = sorted(p["role"] for p in job_of(body, name)["pods"])
        assert roles == ["head", "worker", "worker"]
        detail = await api.get(f"jobs/ray-cluster/{name}")
        assert detail["dashboard_path"].endswith(f"jobs/ray-cluster/{name}/dashboard/")
        # proxied through the API server's service proxy; under kwok no dashboard answers, which must read well
        code, err = await api.call("GET", f"jobs/ray-cluster/{name}/dashboard/index.html")
        assert code == 502 and "Ray dashboard" in err["message"], err
        await _abandoned_follows_do_not_block(api, name)
    finally:
        await delete(api, "ray-cluster", name)


async def test_autoscaling_raycluster_with_two_worker_groups_is_an_elastic_kueue_job(api, admin_api, unique):
    """max_workers makes Ray's autoscaler run; under Kueue that is an elastic job, which the real Kueue webhook
    accepts (and gates); the second group is its own PodSet; the head's PodSet holds the autoscaler sidecar,
    as the fit check counts it."""
    name = unique("elastic")
    req = {
        "kind": "ray-cluster",
        "name": name,
        "image": "rayproject/ray:2.41.0",
        "workers": 1,
        "max_workers": 3,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
        "worker_groups": [{"name": "cpu-workers", "workers": 1, "cpu": "2", "memory": "2Gi"}],
    }
    code, fit = await api.call("POST", "fit", req)
    assert code == 200, fit
    assert fit["image"] == "rayproject/ray:2.41.0"
    assert any("workers from 1 to 3" in n for n in fit["notes"]), fit["notes"]
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        rc = rest.request(admin_api, "GET", rest.resource_path("ray.io", "v1", "rayclusters", NAMESPACE, name))
        assert rc["metadata"]["annotations"]["kueue.x-k8s.io/elastic-job"] == "true"
        assert rc["spec"]["enableInTreeAutoscaling"] is True
        groups = {g["groupName"]: g for g in rc["spec"]["workerGroupSpecs"]}
        assert (groups["workers"]["minReplicas"], groups["workers"]["maxReplicas"]) == (1, 3)
        assert groups["cpu-workers"]["template"]["spec"]["containers"][0]["resources"]["limits"] == {
            "cpu": "2",
            "memory": "2Gi",
        }
        # Kueue's webhook took it as an elastic job: it gated every pod template itself
        gates = [g["name"] for g in groups["cpu-workers"]["template"]["spec"].get("schedulingGates") or []]
        assert "kueue.x-k8s.io/elastic-job" in gates, rc["spec"]

        def workload() -> dict | None:
            items = rest.request(
                admin_api, "GET", rest.resource_path("kueue.x-k8s.io", "v1beta2", "workloads", NAMESPACE)
            )["items"]
            return next(
                (w for w in items if (w["metadata"].get("ownerReferences") or [{}])[0].get("name") == name), None
            )

        wl = await wait_for(workload, timeout=60)
        sets = {p["name"]: p for p in wl["spec"]["podSets"]}
        assert {k: v["count"] for k, v in sets.items()} == {"head": 1, "workers": 1, "cpu-workers": 1}
        head = [c["name"] for c in sets["head"]["template"]["spec"]["containers"]]
        assert "autoscaler" in head, head
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["status"] in ("Running", "Starting"), timeout=120
        )
        assert job_of(body, name)["status"] in ("Running", "Starting")
    finally:
        await delete(api, "ray-cluster", name)


class TestWithQuotaVisible:
    """The fit check needs nodes and ClusterQueues: run as the identity an admin let see them."""

    @pytest.fixture
    def identity(self) -> str:
        return "queue-viewer"

    async def test_fits_now(self, api, unique):
        code, fit = await api.call("POST", "fit", pytorch(unique("fit"), 3, 1))
        assert code == 200, fit
        assert fit["verdict"] == "fits_now", fit

    async def test_over_quota_is_queued_with_reason_and_position(self, api, unique):
        await _over_quota(api, unique)

    async def test_never_fits_is_refused_by_fit_check(self, api, unique):
        code, fit = await api.call("POST", "fit", pytorch(unique("huge"), 1, 16))
        assert code == 200
        assert fit["verdict"] == "never_fits", fit
        assert "8" in fit["message"], fit["message"]


def ray_cluster(name: str, workers: int, gpus: int) -> dict:
    """Ray nodes run until deleted under kwok: a RayCluster holds its quota for as long as a test needs."""
    return {
        "kind": "ray-cluster",
        "name": name,
        "image": "rayproject/ray:2.41.0",
        "workers": workers,
        "accelerators": {"resource": "nvidia.com/gpu", "count": gpus},
    }


async def _over_quota(api, unique):
    blocker = unique("blocker")
    queued = [unique(f"q{i}") for i in range(3)]
    code, out = await api.call("POST", "jobs", ray_cluster(blocker, 3, 4))
    assert code == 201, out
    try:
        await api.until("jobs", lambda b: (j := job_of(b, blocker)) and j["status"] == "Running", timeout=90)
        fit_code, fit = await api.call("POST", "fit", pytorch(queued[0], 1, 2))
        assert fit_code == 200 and fit["verdict"] == "must_queue", fit
        assert "quota" in fit["message"].lower()
        for n in queued:
            code, out = await api.call("POST", "jobs", pytorch(n, 1, 2))
            assert code == 201, out
        body = await api.until(
            "jobs",
            lambda b: all(
                (j := job_of(b, n)) and j["status"] == "Queued" and j["position"] is not None for n in queued
            ),
            timeout=90,
        )
        positions = [job_of(body, n)["position"] for n in queued]
        # distinct, consecutive places (Kueue orders by its Workloads' creation; other jobs may sit ahead)
        assert len(set(positions)) == 3 and max(positions) - min(positions) == 2, positions
        reason = job_of(body, queued[0])["reason"]
        assert "quota" in reason.lower() and "nvidia.com/gpu" in reason, reason
    finally:
        await delete(api, "ray-cluster", blocker)
        for n in queued:
            await delete(api, "pytorch", n)


async def test_suspend_resume_delete(api, unique, admin_api):
    name = unique("ctl")
    code, out = await api.call("POST", "jobs", ray_cluster(name, 1, 1))
    assert code == 201, out
    try:
        await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=90)
        code, view = await api.call("POST", f"jobs/ray-cluster/{name}/suspend")
        assert code == 200, view
        # suspended, and its pods gone: the GPU is given back
        await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Suspended" and j["accelerators"] == {}
        )
        code, view = await api.call("POST", f"jobs/ray-cluster/{name}/resume")
        assert code == 200, view
        await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=90)
    finally:
        code, _ = await api.call("DELETE", f"jobs/ray-cluster/{name}")
        assert code == 204
    await wait_for(lambda: name not in admin_list(admin_api, "rayclusters", "ray.io"), 60, "the RayCluster to go")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "pytorch", "name": "Bad_Name", "command": ["x"]}, "name"),
        ({"kind": "pytorch", "command": ["x"], "workers": 100000}, "workers"),
        (
            {"kind": "pytorch", "command": ["x"], "accelerators": {"resource": "example.com/tpu", "count": 1}},
            "accelerators.resource",
        ),
        ({"kind": "pytorch", "command": ["x"], "queue": "no-such-queue"}, "queue"),
        ({"kind": "starship", "command": ["x"]}, "kind"),
        ({"kind": "pytorch", "command": ["x"], "cpu": "lots"}, "cpu"),
        ({"kind": "trainjob", "command": ["x"], "workers": 0}, "workers"),
    ],
)
async def test_invalid_requests_are_400_and_create_nothing(api, admin_api, body, field):
    before = admin_list(admin_api, "pytorchjobs")
    code, err = await api.call("POST", "jobs", body)
    assert code == 400, err
    assert err["field"].startswith(field), err
    assert err["message"]
    assert admin_list(admin_api, "pytorchjobs") == before


async def test_retry_with_same_request_id_creates_one_job(api, admin_api):
    req = {**pytorch(None, 1, 1), "client_request_id": "retry-test-1"}
    req.pop("name")
    code1, first = await api.call("POST", "jobs", req)
    code2, second = await api.call("POST", "jobs", req)
    try:
        assert code1 == 201, first
        assert code2 == 200 and second["created"] is False, second
        assert first["job"]["name"] == second["job"]["name"]
        assert admin_list(admin_api, "pytorchjobs").count(first["job"]["name"]) == 1
    finally:
        await delete(api, "pytorch", first["job"]["name"])


async def test_name_clash_is_409(api, unique):
    name = unique("clash")
    code, out = await api.call("POST", "jobs", pytorch(name, 1, 1))
    assert code == 201, out
    try:
        code, err = await api.call("POST", "jobs", pytorch(name, 1, 1))
        assert code == 409, err
        assert "already exists" in err["message"]
    finally:
        await delete(api, "pytorch", name)


async def _abandoned_follows_do_not_block(api, name: str) -> None:
    """Browsers that drop a followed log must give back its thread and connection: after 12 abandoned
    follows, the next requests are answered at once."""
    import asyncio
    import time

    from tornado.httpclient import HTTPClientError

    for _ in range(12):
        with contextlib.suppress(HTTPClientError, TimeoutError):
            await api.jp_fetch(
                "accel", "v1", "jobs", "ray-cluster", name, "logs", params={"follow": "true"}, request_timeout=0.5
            )
    await asyncio.sleep(1)
    t0 = time.monotonic()
    code, logs = await api.call("GET", f"jobs/ray-cluster/{name}/logs", tail="5")
    assert code == 200 and logs.strip(), logs
    code, _ = await api.call("POST", f"jobs/ray-cluster/{name}/resume")
    assert code == 200
    assert time.monotonic() - t0 < 5


async def test_data_lists_the_namespaces_claims_and_connections_never_their_values(api, devcluster, unique):
    name = unique("conn")
    secret = {
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": name, "namespace": "team-a",
                     "annotations": {"opendatahub.io/connection-type-ref": "s3", "openshift.io/display-name": "My bucket"}},
        "stringData": {"AWS_SECRET_ACCESS_KEY": "do-not-show-" + name},
    }  # fmt: skip
    devcluster.admin.apply(secret)
    try:
        code, body = await api.call("GET", "data")
        assert code == 200, body
        shared = next(c for c in body["claims"] if c["name"] == "shared-data")  # devcluster's hostPath PV's claim
        assert shared["phase"] == "Bound" and shared["access_modes"], shared
        assert {"name": name, "display_name": "My bucket", "connection_type": "s3"} in body["connections"], body
        assert "do-not-show-" not in json.dumps(body)
        assert body["visibility"] == {}
    finally:
        devcluster.admin.delete("v1", "Secret", name, "team-a")
