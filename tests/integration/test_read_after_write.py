"""A read that follows a write of the same server shows that write (issue #31), on the real cluster.

Submit, suspend, set a time limit and delete in a tight loop, 200 writes, and after each one the namespace's job list (the
sidebar's fetch): it must hold the job just made, show it suspended, show its new limit, and not hold it once it was
deleted. No wait, no retry: the first read after the write is the one checked."""

from __future__ import annotations

import time

import pytest
from cluster_api import NAMESPACE

pytestmark = pytest.mark.cluster

WRITES = 200


async def listed(api, name: str) -> dict | None:
    body = await api.get("jobs", scope="namespace")
    return next((j for j in body["jobs"] if j["name"] == name), None)


async def test_the_job_list_after_each_write_shows_it(api, unique):
    missed: list[tuple] = []
    made: list[str] = []
    t0 = time.monotonic()
    try:
        await _writes(api, unique, made, missed)
    finally:  # a failed step leaves no queued job behind for the tests after it
        for name in made:
            await api.call("DELETE", f"jobs/pytorch/{name}")
    took = time.monotonic() - t0
    print(f"{WRITES} writes, each followed by a list, in {took:.1f} s; missed: {len(missed)}")
    assert not missed, missed


async def _writes(api, unique, made: list[str], missed: list) -> None:
    writes = 0
    while writes < WRITES:
        name = unique("raw")
        made.append(name)
        # more GPUs than its ClusterQueue's quota: Kueue keeps it queued, so no admission races the writes
        request = {
            "kind": "pytorch",
            "name": name,
            "image": "busybox",
            "command": ["sleep", "600"],
            "workers": 1,
            "accelerators": {"resource": "nvidia.com/gpu", "count": 64},
        }
        code, out = await api.call("POST", "jobs", request)
        assert code == 201, out
        writes += 1
        job = await listed(api, name)
        if job is None or job["namespace"] != NAMESPACE:
            missed.append(("submit", name, job))

        limit = 3600 + 60 * writes  # a new value each time: an answer computed before the write cannot match
        code, out = await api.call("POST", f"jobs/pytorch/{name}/limit", {"max_run_seconds": limit})
        assert code == 200, out
        writes += 1
        job = await listed(api, name)
        if job is None or job["max_run_seconds"] != limit:
            missed.append(("limit", name, limit, job and job["max_run_seconds"]))

        code, out = await api.call("POST", f"jobs/pytorch/{name}/suspend")
        assert code == 200, out
        writes += 1
        job = await listed(api, name)
        if job is None or job["status"] != "Suspended":
            missed.append(("suspend", name, job and job["status"]))

        code, out = await api.call("DELETE", f"jobs/pytorch/{name}")
        assert code in (200, 202, 204), out
        made.remove(name)
        writes += 1
        job = await listed(api, name)
        if job is not None and job["status"] != "Deleting":
            missed.append(("delete", name, job["status"]))
