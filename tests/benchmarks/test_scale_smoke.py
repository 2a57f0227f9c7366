"""The scale benchmark at its smoke size on the session's devcluster, so that it cannot rot. It checks that every
phase ran and answered, and that the benchmark removes what it built; it asserts no timings (benchmarks/ does
the measuring, side by side, at the issue's scale)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import scale  # noqa: E402
import scale_aside  # noqa: E402
import scale_objects  # noqa: E402
import scale_table  # noqa: E402

pytestmark = pytest.mark.cluster
NET_AUDIT = Path("/work/shared/tools/net-audit")


def test_scale_benchmark_smoke(devcluster, tmp_path):
    audits: list[str] = []

    def audit(pids: list[int]) -> None:
        res = subprocess.run([str(NET_AUDIT), *map(str, pids)], capture_output=True, text=True, check=False)
        audits.append(res.stdout)

    alone = scale_aside.can_restore()  # as root (CI): the session's cluster is set back afterwards
    nice = os.getpriority(os.PRIO_PROCESS, 0)
    result = scale.run(
        devcluster, scale_objects.SMOKE, seconds=1.0, clients=4, burst=20, alone=alone, audit=audit, log=lambda _: None
    )
    text = scale.table(result)
    assert "| GET inventory |" in text and "baseline / product" in text
    for name, row in result["rows"].items():
        assert row["requests"] > 0 and row["errors"] == 0, (name, row)
    assert result["nodes_seen"] >= scale_objects.SMOKE.nodes and result["jobs_seen"] >= scale_objects.SMOKE.jobs
    assert result["push"]["events"] == result["push"]["trials"]  # every change reached the push stream
    assert (
        result["ratio_p99"] is not None
        and result["ratio_one_p50"] is not None
        and result["ratio_paced_p99"] is not None
    )
    reads = result["apiserver_reads"]
    # the server's own reads are in the audit log (its first lists at least), and none beyond its schedule: every
    # refresh answered from the caches
    assert reads["own_audited"] >= reads["own_scheduled"] > 0, reads
    assert reads["caused_by_refreshes"] == 0 and reads["own_unscheduled"] == {}, reads
    assert "| the Jupyter server's event loop |" in text
    assert result["loop"] and all(w["samples"] > 0 for w in result["loop"].values()), result["loop"]
    assert alone == any(name.endswith(scale_table.ALONE) for name in result["loop"]), list(result["loop"])
    assert os.getpriority(os.PRIO_PROCESS, 0) == nice or not alone  # this process's priority was given back
    assert audits and all("listening beyond loopback" not in a for a in audits), audits
    # nothing of the bench is left for the tests that follow
    admin = devcluster.admin
    selector = f"labelSelector={scale_objects.BENCH}%3Dtrue"
    assert admin.get(f"/api/v1/nodes?{selector}")["items"] == []
    assert admin.get(f"/api/v1/namespaces?{selector}")["items"] == []
