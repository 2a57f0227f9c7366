"""The soak benchmark (benchmarks/soak.py) at its smoke size on the session's devcluster, about a minute: clients on
the read endpoints and the push stream while jobs are created and deleted and their pods come and go. It asserts no
timings (the full run measures them); it asserts what must hold at any speed: no error of any kind, every push
received by every stream client, the server's file descriptors and threads back where they were, and every job of
the run removed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from jupyter_accel.api.jobs import TAIL_THREADS

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import soak  # noqa: E402
import soak_load  # noqa: E402

pytestmark = pytest.mark.cluster

# threads of pools that start them on demand, up to their size: asyncio's default executor (min(32, cpus + 4)) and
# the log tails' pool (api/jobs.py TAIL_THREADS); every other thread is started once and stays
GROWING_POOLS = {
    "asyncio": min(32, (os.cpu_count() or 1) + 4),
    "accel-log-tails": TAIL_THREADS._max_workers,
    # the log keeper follows each running pod of the server's jobs in a thread while it streams (cluster/kept_logs):
    # at most the pods of the jobs alive, and of those being deleted (a few pods each)
    "accel-kept-log": 2 * 4 * soak.Settings.smoke().live,
}


def test_soak_smoke(devcluster):
    result = soak.run(devcluster, soak.Settings.smoke(), log=lambda _: None)
    text = soak.table(result)
    assert "| change -> event naming jobs |" in text and "| open fds |" in text

    assert result["errors_total"] == 0, (result["errors"], result["read_errors"], result["stream_errors"])
    assert result["reads"]["all"]["requests"] > 100, result["reads"]["all"]
    assert result["churn"]["created"] >= 10 and result["churn"]["deleted"] >= 5, result["churn"]

    push = result["push"]
    assert push["samples"] == push["changes"] * result["settings"]["streams"] > 0, push  # each change, each client
    assert push["missed"] == 0 and push["revision_gaps"] == 0 and push["reconnects"] == 0, push
    assert len(set(push["events_per_client"])) <= 2 and push["last_revision_spread"] <= 1, push

    res = result["resources"]
    assert res["fds"]["end"] - res["fds"]["start"] <= 6, res["fds"]
    assert res["fds"]["after"] <= res["fds"]["idle"] + 12, res["fds"]  # the clients' sockets went with them
    assert res["threads"]["end"] - res["threads"]["start"] <= 6, res["threads"]
    start, after = result["inside"]["start"]["threads"], result["inside"]["after"]["threads"]
    for name in {*start, *after}:
        if name in GROWING_POOLS:
            assert after.get(name, 0) <= GROWING_POOLS[name], (name, after)
        else:
            assert after.get(name, 0) == start.get(name, 0), (name, start, after)

    admin = devcluster.admin
    for path in (
        "/apis/kubeflow.org/v1/namespaces/team-a/pytorchjobs",
        "/apis/ray.io/v1/namespaces/team-a/rayclusters",
    ):
        assert admin.get(f"{path}?labelSelector={soak_load.WORKBENCH_LABEL}")["items"] == [], path
