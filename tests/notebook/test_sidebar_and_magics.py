"""One server, two front-ends (issue #19): a job launched from the sidebar is visible from the magics and can be
controlled there, and the reverse. The sidebar's side is the REST calls it makes (labextension/src/api.ts: the
launch form's request from launch.ts, the job list of scope "mine", a job's detail, suspend and delete); the
notebook's side is a real kernel running the magics against the same Jupyter server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid

import pytest

pytestmark = pytest.mark.cluster


class Sidebar:
    """The sidebar's requests (labextension/src/api.ts), with the Jupyter server's token as a browser has it."""

    def __init__(self, server) -> None:
        self.base, self.token = server.url.rstrip("/") + "/accel/v1/", server.token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path, data=data, method=method, headers={"Authorization": f"token {self.token}"}
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                raw, code = resp.read(), resp.status
        except urllib.error.HTTPError as exc:
            raw, code = exc.read(), exc.code
        return code, json.loads(raw) if raw else None

    def launch(self, name: str) -> dict:
        """What the launch form sends for its defaults (launch.ts buildRequest): one worker, a command, one GPU."""
        body = {
            "kind": "pytorch",
            "workers": 1,
            "name": name,
            "command": ["sh", "-c", "echo from the sidebar"],
            "accelerators": {"resource": "nvidia.com/gpu", "count": 1},
            "client_request_id": str(uuid.uuid4()),
        }
        code, answer = self.call("POST", "jobs", body)
        assert code == 201, answer
        return answer

    def my_jobs(self) -> dict[str, dict]:
        code, body = self.call("GET", "jobs?scope=mine")
        assert code == 200, body
        return {j["name"]: j for j in body["jobs"]}


def _text(result) -> str:
    return "\n".join(result.data("text/plain"))


def _row(text: str, name: str) -> str:
    rows = [line for line in text.splitlines() if name in line]
    assert rows, text
    return rows[0]


def test_a_job_launched_from_the_sidebar_is_seen_and_controlled_from_the_magics(
    cluster_server, cluster_kernel, unique, wait_until
):
    sidebar = Sidebar(cluster_server)
    name = unique("from-sidebar")
    launched = sidebar.launch(name)
    try:
        assert launched["job"]["managed_by_us"] and launched["job"]["workbench"], launched["job"]
        listed = cluster_kernel.run("%accel jobs")  # the kernel's own list: this workbench's jobs
        assert listed.ok, listed.error
        wait_until(lambda: name in _text(cluster_kernel.run("%accel jobs")), 30, f"{name} in %accel jobs")
        status = cluster_kernel.run(f"%accel status {name}")  # found by name, its kind looked up
        assert status.ok and _text(status).startswith(f"pytorch {name}: "), _text(status)

        suspended = cluster_kernel.run(f"%accel suspend {name}")
        assert suspended.ok, suspended.error
        wait_until(lambda: sidebar.my_jobs().get(name, {}).get("status") == "Suspended", 90, "Suspended in the sidebar")
        shown = sidebar.my_jobs()[name]["display"]
        assert "resume" in shown["actions"], shown
        # both front-ends say the same, in the server's words
        assert _text(cluster_kernel.run(f"%accel status {name}")).startswith(f"pytorch {name}: {shown['label']}")
        assert shown["label"] in _row(_text(cluster_kernel.run("%accel jobs")), name)
    finally:
        cluster_kernel.run(f"%accel delete {name}")
    wait_until(lambda: name not in sidebar.my_jobs(), 60, f"{name} gone from the sidebar's list")


def test_a_job_launched_from_the_magics_is_seen_and_controlled_from_the_sidebar(
    cluster_server, cluster_kernel, unique, wait_until
):
    sidebar = Sidebar(cluster_server)
    name = unique("from-magic")
    launched = cluster_kernel.run(f"%%accel_job --kind pytorch --workers 1 --name {name}\nprint('from the notebook')\n")
    assert launched.ok, launched.error
    try:
        job = wait_until(lambda: sidebar.my_jobs().get(name), 30, f"{name} in the sidebar's list of mine")
        assert job["kind"] == "pytorch" and job["managed_by_us"], job
        code, detail = sidebar.call("GET", f"jobs/pytorch/{name}")  # the detail tab
        assert code == 200 and detail["job"]["workbench"] == job["workbench"], detail
        done = wait_until(
            lambda: (j := sidebar.my_jobs().get(name)) and j["display"]["finished"] and j, 120, f"{name} finished"
        )
        assert done["status"] == "Succeeded", done
        assert _text(cluster_kernel.run(f"%accel status {name}")).startswith(
            f"pytorch {name}: {done['display']['label']}"
        )

        code, _ = sidebar.call("DELETE", f"jobs/pytorch/{name}")  # the sidebar's Delete
        assert code in (200, 202, 204)
        wait_until(lambda: not cluster_kernel.run(f"%accel status {name}").ok, 60, f"{name} gone for the kernel too")
        missing = cluster_kernel.run(f"%accel status {name}")
        assert "No job named" in "\n".join(missing.error["traceback"])
    finally:
        sidebar.call("DELETE", f"jobs/pytorch/{name}")
