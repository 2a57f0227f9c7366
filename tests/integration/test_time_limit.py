"""Time limits on Kueue itself: extending a RayCluster's limit moves what Kueue enforces, a limit past the admin's
ceiling is refused with nothing changed, and a job Kueue stops at its limit says so (kwok nodes: the pods "run").

The admin identity has `patch workloads/status` and `delete workloads`, which extending a running job and
requeueing one stopped at its limit need in Kueue 0.17 (domain/time_limit.py); the notebook user has neither
and is told so."""

from __future__ import annotations

import pytest
from cluster_api import NAMESPACE, wait_for

from jupyter_accel.cluster import rest
from jupyter_accel.domain.eta import parse_time

pytestmark = pytest.mark.cluster
CEILING = 3 * 3600


@pytest.fixture
def accel_config(devcluster, identity: str) -> dict:
    return {
        "identity": "kubeconfig",
        "kubeconfig": str(devcluster.kubeconfig(identity)),
        "namespace": NAMESPACE,
        "max_run_seconds_limit": CEILING,
    }


def job_of(body: dict, name: str) -> dict | None:
    return next((j for j in body["jobs"] if j["name"] == name), None)


def raycluster(name: str, limit: int) -> dict:
    return {
        "kind": "ray-cluster",
        "name": name,
        "image": "rayproject/ray:2.41.0",
        "workers": 1,
        "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
        "max_run_seconds": limit,
    }


def workload_of(admin_api, job_uid: str) -> dict | None:
    path = rest.resource_path("kueue.x-k8s.io", "v1beta2", "workloads", NAMESPACE)
    items = rest.request(admin_api, "GET", path, query={"labelSelector": f"kueue.x-k8s.io/job-uid={job_uid}"})
    return next(iter(items.get("items") or []), None)


async def running(api, name: str) -> dict:
    body = await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=120)
    return job_of(body, name)


@pytest.mark.parametrize("identity", ["admin"])
async def test_extending_a_running_raycluster_moves_kueues_stop_and_past_the_ceiling_changes_nothing(
    api, admin_api, unique
):
    name = unique("ext")
    code, out = await api.call("POST", "jobs", raycluster(name, 600))
    assert code == 201, out
    try:
        job = await running(api, name)
        assert "extend" in job["display"]["actions"]
        before = parse_time(job["stops_at"])
        code, view = await api.call("POST", f"jobs/ray-cluster/{name}/limit", {"extend_seconds": 1200})
        assert code == 200, view
        wl = workload_of(admin_api, job["uid"])
        # Kueue's own accounting carries the extension: it stops the workload 1200 s later than before
        assert wl["spec"]["maximumExecutionTimeSeconds"] == 600
        assert wl["status"]["accumulatedPastExecutionTimeSeconds"] == -1200
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["max_run_seconds"] == 1800 and j["stops_at"], timeout=30
        )
        job = job_of(body, name)
        assert (parse_time(job["stops_at"]) - before).total_seconds() == 1200
        assert "limit 30m" in job["display"]["time_limit"], job["display"]
        # past the admin's ceiling: a 400 naming the field, and Kueue's Workload is as it was
        code, err = await api.call("POST", f"jobs/ray-cluster/{name}/limit", {"extend_seconds": CEILING})
        assert code == 400 and err["field"] == "extend_seconds", err
        assert f"at most {CEILING} seconds" in err["message"]
        assert workload_of(admin_api, job["uid"])["status"]["accumulatedPastExecutionTimeSeconds"] == -1200
        code, err = await api.call("POST", f"jobs/ray-cluster/{name}/limit", {"max_run_seconds": 900})
        assert code == 400 and err["field"] == "max_run_seconds" and "can only grow" in err["message"], err
    finally:
        await api.call("DELETE", f"jobs/ray-cluster/{name}")


async def test_the_notebook_user_extends_a_suspended_raycluster_and_is_told_why_not_a_running_one(
    api, admin_api, unique
):
    name = unique("ext")
    code, out = await api.call("POST", "jobs", raycluster(name, 600))
    assert code == 201, out
    try:
        job = await running(api, name)
        code, err = await api.call("POST", f"jobs/ray-cluster/{name}/limit", {"extend_seconds": 600})
        assert code == 403 and "not visible to your account" in err["message"], err
        assert "workloads/status" in err["message"]
        wl = workload_of(admin_api, job["uid"])
        assert "accumulatedPastExecutionTimeSeconds" not in (wl.get("status") or {})
        # suspended, its label may change, and Kueue copies it into the Workload
        code, _ = await api.call("POST", f"jobs/ray-cluster/{name}/suspend")
        assert code == 200
        await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Suspended" and not j["pods"], timeout=60
        )

        async def set_limit():  # until Kueue has released its quota the job is still being stopped: a 400 says so
            code, view = await api.call("POST", f"jobs/ray-cluster/{name}/limit", {"max_run_seconds": 7200})
            assert code in (200, 400), view
            return code == 200 or ("being stopped" not in view["message"] and pytest.fail(view["message"]))

        await wait_for(set_limit, timeout=30, what="the new limit accepted once the job is suspended")
        await wait_for(
            lambda: (
                (workload_of(admin_api, job["uid"]) or {}).get("spec", {}).get("maximumExecutionTimeSeconds") == 7200
            ),
            timeout=30,
            what="Kueue copying the job's new limit into its Workload",
        )
        code, err = await api.call("POST", f"jobs/ray-cluster/{name}/limit", {"max_run_seconds": CEILING + 60})
        assert code == 400 and err["field"] == "max_run_seconds", err
    finally:
        await api.call("DELETE", f"jobs/ray-cluster/{name}")


@pytest.mark.parametrize("identity", ["admin"])
async def test_a_job_stopped_at_its_limit_says_so_and_runs_again_once_extended(api, unique):
    name = unique("lim")
    code, out = await api.call("POST", "jobs", raycluster(name, 60))
    assert code == 201, out
    try:
        await running(api, name)
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["display"]["stopped_at_limit"], timeout=150
        )
        job = job_of(body, name)
        assert job["status"] == "Suspended"
        assert job["reason"] == (
            "Stopped at its 1m time limit; nothing was deleted; extend its limit to queue it again."
        )
        assert job["display"]["actions"] == ["extend", "delete"]
        code, err = await api.call("POST", f"jobs/ray-cluster/{name}/resume")
        assert code == 409 and "extend its limit" in err["message"], err
        detail = await api.get(f"jobs/ray-cluster/{name}")
        assert detail["job"]["display"]["sentence"] == job["reason"]
        code, view = await api.call("POST", f"jobs/ray-cluster/{name}/limit", {"extend_seconds": 600})
        assert code == 200, view
        job = await running(api, name)
        assert job["max_run_seconds"] == 600 and "limit 10m" in job["display"]["time_limit"], job["display"]
    finally:
        await api.call("DELETE", f"jobs/ray-cluster/{name}")
