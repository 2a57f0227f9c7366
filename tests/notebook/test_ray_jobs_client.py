"""Ray's own JobSubmissionClient against the Jupyter server (issue #26): the interactive RayCluster the user started
takes Ray jobs through the server's proxy, with the Jupyter token, a working_dir uploaded as Ray's package."""

from __future__ import annotations

import os
import time

import pytest

from jupyter_accel.notebook import AccelClient
from jupyter_accel.notebook.client import AccelError
from jupyter_accel.notebook.magics import AccelMagics

NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image"]
pytestmark = [pytest.mark.cluster, pytest.mark.devcluster(needs=NODE_PARTS)]


def test_rays_job_submission_client_runs_a_job_with_a_working_dir_on_the_users_cluster(
    real_node_server, unique, tmp_path, capsys, monkeypatch
):
    from ray.job_submission import JobStatus, JobSubmissionClient

    client = AccelClient(real_node_server.url, real_node_server.token)
    name = unique("rc")
    client.submit({"kind": "ray-cluster", "name": name, "workers": 1, "cpu": "500m", "memory": "2Gi"})
    try:
        deadline = time.monotonic() + 300
        while str(client.job("ray-cluster", name).job.status) != "Running":
            assert time.monotonic() < deadline, client.job("ray-cluster", name).job
            time.sleep(2)
        address, headers = client.ray_jobs_address(name)
        while True:  # the dashboard answers a little after the head pod is ready
            try:
                ray = JobSubmissionClient(address, headers=headers)
                break
            except Exception:
                assert time.monotonic() < deadline
                time.sleep(3)
        project = tmp_path / "proj"
        project.mkdir()
        (project / "helper.py").write_text("def squares(n):\n    return [i * i for i in range(n)]\n")
        (project / "main.py").write_text(
            "import ray\nfrom helper import squares\nray.init()\n"
            "print('SQUARES FROM THE PACKAGE', sum(ray.get([ray.remote(lambda x: x).remote(s) "
            "for s in squares(10)])))\n"
        )
        sid = ray.submit_job(entrypoint="python main.py", runtime_env={"working_dir": str(project)})
        while (status := ray.get_job_status(sid)) not in (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.STOPPED):
            assert time.monotonic() < deadline, status
            time.sleep(2)
        logs = ray.get_job_logs(sid)
        assert status == JobStatus.SUCCEEDED and "SQUARES FROM THE PACKAGE 285" in logs, (status, logs)
        assert any(j.submission_id == sid for j in ray.list_jobs())
        # the same through the product's own client, without Ray in the kernel
        again = client.ray_submit(name, "python -c \"print('HELLO FROM', 'RAY')\"")
        while client.ray_job(name, again)["status"] not in ("SUCCEEDED", "FAILED", "STOPPED"):
            assert time.monotonic() < deadline
            time.sleep(2)
        assert "HELLO FROM RAY" in client.ray_job_logs(name, again)

        # the magics: %accel connect points Ray's tools at it; %%accel_job --cluster runs a cell there
        for var in ("RAY_API_SERVER_ADDRESS", "RAY_JOB_HEADERS"):
            monkeypatch.setenv(var, "")  # restored after the test
        magics = AccelMagics(shell=None, client=client)
        conn = magics.accel(f"connect {name}")
        assert (conn.address, conn.headers) == (address, headers) and os.environ["RAY_API_SERVER_ADDRESS"] == address
        assert real_node_server.token not in repr(conn)
        assert conn.ray_address is None and "runs outside the cluster" in repr(conn)  # the tests' kernel: the host
        with pytest.raises(AccelError) as not_running:  # a cluster that is not there (or not running) is named
            magics.accel_job(f"--cluster {name}-nope --wait", "print(1)\n")
        assert not_running.value.status == 404, not_running.value
        assert any(j.submission_id == sid for j in conn.client().list_jobs())
        capsys.readouterr()
        cell = "import os, ray\nray.init()\nprint('CELL SAYS', os.environ['GREETING'], int(ray.cluster_resources()['CPU']) > 0)\n"
        assert magics.accel_job(f"--cluster {name} --wait --env GREETING=hi", cell) is None
        assert "CELL SAYS hi True" in capsys.readouterr().out
        # a cell in a folder of the workbench's files: the server packs it as Ray's own package and uploads it
        folder = real_node_server.root_dir / unique("proj")
        folder.mkdir()
        (folder / "helper.py").write_text("def squares(n):\n    return [i * i for i in range(n)]\n")
        (folder / ".secret-notes").write_text("left out: hidden")
        cell = "import os\nfrom helper import squares\nprint('CELL IN', sum(squares(4)), '.secret-notes' in os.listdir())\n"
        assert magics.accel_job(f"--cluster {name} --wait --workdir {folder}", cell) is None
        assert "CELL IN 14 False" in capsys.readouterr().out  # the hidden file was left out
        with pytest.raises(AccelError) as outside:  # a folder outside the server's files: refused, nothing sent
            client.ray_submit(name, "true", workdir=str(tmp_path))
        assert outside.value.status == 400 and outside.value.field == "workdir", outside.value
        with pytest.raises(AccelError, match="FAILED"):
            magics.accel_job(f"--cluster {name} --wait", "raise SystemExit(4)\n")

        # the cluster's detail lists what ran on it, newest first, in Ray's own words
        detail = client.job("ray-cluster", name)
        assert detail.ray_jobs_note is None and detail.ray_jobs is not None
        listed = {r.submission_id: r for r in detail.ray_jobs}
        assert listed[sid].status == "SUCCEEDED" and listed[sid].entrypoint == "python main.py"
        assert listed[again].status == "SUCCEEDED" and listed[sid].start_time
        assert detail.ray_jobs[0].status == "FAILED"  # the last cell, the newest
        shown = magics.accel(f"status {name}")
        assert sid in repr(shown) and "Ray jobs on it" in repr(shown)
    finally:
        client.delete("ray-cluster", name)
