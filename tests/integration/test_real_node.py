"""Jobs on devcluster's real node: their code runs (kubelet + containerd + runc), their logs are their own.

Every job here goes to the LocalQueue `real-node`, whose Kueue flavor selects the real node; the image is the one
devcluster built from Debian packages and PyPI (Python + ray[default], no torch). The kwok nodes never run a
container, so nothing asserted here could pass there.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cluster_api import wait_for
from tornado.httpclient import HTTPClientError

from jupyter_accel.domain.eta import parse_time

NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image"]
pytestmark = [pytest.mark.cluster, pytest.mark.devcluster(needs=NODE_PARTS)]
QUEUE = "real-node"
NODE = "devcluster-node"


@pytest.fixture
def image(devcluster) -> str:
    ref = devcluster.node_image()
    assert ref, "the real node is declared present but is not running"
    return ref


def job_of(body: dict, name: str) -> dict | None:
    return next((j for j in body["jobs"] if j["name"] == name), None)


async def ended(api, name: str, timeout: float) -> dict:
    """The job once it has succeeded or failed, as /jobs lists it."""
    body = await api.until(
        "jobs", lambda b: (j := job_of(b, name)) and j["status"] in ("Succeeded", "Failed"), timeout=timeout
    )
    return job_of(body, name)


def script_job(kind: str, name: str, image: str, text: str, **extra) -> dict:
    return {
        "kind": kind,
        "name": name,
        "image": image,
        "queue": QUEUE,
        "cpu": "500m",
        "memory": "1Gi",
        "script": {"text": text, "interpreter": "python"},
        **extra,
    }


def resp_type(text: str) -> str:
    return "html" if text.lstrip().lower().startswith(("<!doctype html", "<html")) else "other"


async def pod_logs(api, kind: str, name: str, pod: str) -> str:
    code, text = await api.call("GET", f"jobs/{kind}/{name}/logs", pod=pod)
    assert code == 200, (pod, code, text)
    return text


# Each rank prints what the operator injected, then they meet at MASTER_ADDR:MASTER_PORT as torch.distributed's
# rendezvous would (no torch in the image): rank 0 ends only once every worker has reported, and a while after, so a
# worker's pod has ended (and keeps its logs) before the master's success ends the job and cleanPodPolicy Running
# removes what still runs. Without it the master could succeed while a worker was still initializing.
RANKS = """
import os, socket, time
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
print(f"RANK {rank} WORLD_SIZE {world} MASTER {addr}", flush=True)
if rank == 0:
    server = socket.create_server(("", port))
    server.settimeout(300)
    joined = set()
    while len(joined) < world - 1:
        conn, _ = server.accept()
        joined.add(conn.recv(16).decode())
        conn.close()
    time.sleep(5)
    print(f"RANKS JOINED {' '.join(sorted(joined))}", flush=True)
else:
    deadline = time.monotonic() + 300
    while True:
        try:
            with socket.create_connection((addr, port), timeout=5) as conn:
                conn.sendall(str(rank).encode())
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)
"""


async def test_pytorchjob_prints_the_ranks_the_operator_injected(api, unique, image):
    name = unique("ranks")
    t0 = time.monotonic()
    code, out = await api.call("POST", "jobs", script_job("pytorch", name, image, RANKS, workers=2))
    assert code == 201, out
    try:
        first_line = None
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            body = await api.get("jobs")
            job = job_of(body, name) or {}
            if first_line is None and job.get("status") in ("Running", "Succeeded", "Failed"):
                master = next((p["name"] for p in job["pods"] if p["role"] == "master"), None)
                if master and "RANK" in await pod_logs(api, "pytorch", name, master):
                    first_line = time.monotonic() - t0
            if job.get("status") in ("Succeeded", "Failed"):
                break
            await asyncio.sleep(0.5)
        assert job.get("status") == "Succeeded", job
        assert all(p["node"] == NODE for p in job["pods"]), job["pods"]
        lines = set()
        for pod in job["pods"]:
            lines |= {ln.strip() for ln in (await pod_logs(api, "pytorch", name, pod["name"])).splitlines()}
        assert f"RANK 0 WORLD_SIZE 2 MASTER {name}-master-0" in lines, lines
        assert f"RANK 1 WORLD_SIZE 2 MASTER {name}-master-0" in lines, lines
        assert "RANKS JOINED 1" in lines, lines  # the worker reached the master over the pod network
        print(f"\nreal node: 2-pod PyTorchJob submit -> first log line {first_line:.1f} s")
    finally:
        await api.call("DELETE", f"jobs/pytorch/{name}")


RAY_TASKS = """
import ray
ray.init()
@ray.remote
def square(x):
    return x * x
print("SUM OF SQUARES", sum(ray.get([square.remote(i) for i in range(10)])), flush=True)
"""


async def test_rayjob_runs_real_ray_tasks_to_succeeded(api, unique, image):
    name = unique("rj")
    req = script_job("ray-job", name, image, RAY_TASKS, workers=1, memory="2Gi")
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        job = await ended(api, name, timeout=420)
        assert job["status"] == "Succeeded", job
        code, logs = await api.call("GET", f"jobs/ray-job/{name}/logs")
        assert code == 200 and "SUM OF SQUARES 285" in logs, logs[-3000:]
    finally:
        await api.call("DELETE", f"jobs/ray-job/{name}")


async def test_raycluster_head_serves_the_real_ray_dashboard(api, unique, image):
    name = unique("rc")
    req = {"kind": "ray-cluster", "name": name, "image": image, "queue": QUEUE, "workers": 1,
           "cpu": "500m", "memory": "2Gi"}  # fmt: skip
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=300)

        async def dashboard():
            # one path piece: jp_fetch keeps its trailing slash (the dashboard's index page)
            try:
                resp = await api.jp_fetch("accel", "v1", f"jobs/ray-cluster/{name}/dashboard/")
            except HTTPClientError:
                return None
            html = resp.body.decode()
            return (html, resp.headers["Content-Type"]) if "<title>Ray Dashboard</title>" in html else None

        html, ctype = await wait_for(dashboard, timeout=120, what="the Ray dashboard through the API server's proxy")
        assert resp_type(html) == "html" and ctype.startswith("text/html"), ctype
        version = await api.get(f"jobs/ray-cluster/{name}/dashboard/api/version")
        assert version["ray_version"] == "2.60.0", version  # Ray's own answer, from the head pod

        # Ray's Jobs API through the same proxy: a Ray job on this cluster, its status and its driver's log
        # one path piece: jp_fetch keeps its trailing slash (Ray's route is api/jobs/)
        resp = await api.jp_fetch(
            "accel", "v1", f"jobs/ray-cluster/{name}/dashboard/api/jobs/", method="POST",
            body=json.dumps({"entrypoint": RAY_ONE}), headers={"Content-Type": "application/json"},
        )  # fmt: skip
        sid = json.loads(resp.body)["submission_id"]

        async def finished():
            record = await api.get(f"jobs/ray-cluster/{name}/dashboard/api/jobs/{sid}")
            return record if record["status"] in ("SUCCEEDED", "FAILED", "STOPPED") else None

        record = await wait_for(finished, timeout=180, what="the Ray job on the interactive cluster")
        logs = (await api.get(f"jobs/ray-cluster/{name}/dashboard/api/jobs/{sid}/logs"))["logs"]
        assert record["status"] == "SUCCEEDED" and "SUM OF SQUARES 285" in logs, (record, logs)
        with pytest.raises(HTTPClientError) as missing:  # Ray's own 404 (plain text), handed on as Ray answered it
            await api.jp_fetch("accel", "v1", f"jobs/ray-cluster/{name}/dashboard/api/jobs/raysubmit_nope")
        assert missing.value.code == 404 and b"raysubmit_nope" in missing.value.response.body
        code, err = await api.call("POST", f"jobs/ray-cluster/{name}/dashboard/api/actors/kill", {})
        assert code == 400 and err["field"] == "subpath", err  # writes reach the Jobs API only
    finally:
        await api.call("DELETE", f"jobs/ray-cluster/{name}")


RAY_ONE = (
    'python -c "import ray; ray.init(); f = ray.remote(lambda x: x * x); '
    "print('SUM OF SQUARES', sum(ray.get([f.remote(i) for i in range(10)])))\""
)


FAILS = """
print("loading shard 7", flush=True)
print("shard 7 is corrupt", flush=True)
raise SystemExit(3)
"""


async def test_a_script_that_exits_3_fails_naming_code_and_last_line(api, unique, image):
    name = unique("exit3")
    code, out = await api.call("POST", "jobs", script_job("pytorch", name, image, FAILS, workers=1))
    assert code == 201, out
    try:
        job = await ended(api, name, timeout=240)
        assert job["status"] == "Failed", job
        assert "exited with code 3" in job["reason"], job["reason"]
        assert "shard 7 is corrupt" in job["reason"], job["reason"]
    finally:
        await api.call("DELETE", f"jobs/pytorch/{name}")


async def test_an_image_that_does_not_exist_shows_the_runtimes_pull_error(api, unique):
    name = unique("noimg")
    req = script_job("pytorch", name, "devcluster.local/jupyter-accel/does-not-exist:1", RANKS, workers=1)
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        body = await api.until(
            "jobs",
            lambda b: (
                (j := job_of(b, name)) and any(w in (j["reason"] or "") for w in ("ErrImagePull", "ImagePullBackOff"))
            ),
            timeout=180,
        )
        assert job_of(body, name)["status"] == "Starting", job_of(body, name)
    finally:
        await api.call("DELETE", f"jobs/pytorch/{name}")


SLEEPS = """
import time
print("holding my devices:", __import__("os").environ.get("DEVCLUSTER_DEVICE_IDS"), flush=True)
time.sleep(3600)
"""


def real_node_gpus_allocated(inventory: dict) -> int | None:
    node = next(n for n in inventory["nodes"] if n["name"] == NODE)
    return next(a["allocated"] for a in node["accelerators"] if a["resource"] == "nvidia.com/gpu")


@pytest.mark.parametrize("identity", ["admin"])  # reads nodes and every pod: the inventory has allocated numbers
async def test_suspend_resume_delete_real_pods_and_free_the_devices(devcluster, api, unique, image):
    name = unique("hold")
    req = script_job("pytorch", name, image, SLEEPS, workers=1, accelerators={"resource": "nvidia.com/gpu", "count": 2})
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        body = await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=180)
        pod = job_of(body, name)["pods"][0]["name"]
        await wait_for(
            lambda: _has(api, name, pod, "holding my devices: devcluster-gpu-"), timeout=60, what="the device IDs"
        )
        code, _ = await api.call("POST", f"jobs/pytorch/{name}/suspend")
        assert code == 200
        await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Suspended" and not j["pods"], timeout=120
        )
        code, _ = await api.call("POST", f"jobs/pytorch/{name}/resume")
        assert code == 200
        await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=180)
        await api.until("inventory/nodes", lambda inv: real_node_gpus_allocated(inv) == 2, timeout=60, limit="500")
    finally:
        await api.call("DELETE", f"jobs/pytorch/{name}")
    await api.until("jobs", lambda b: job_of(b, name) is None, timeout=120)
    # the pods that held them are gone from the node: the inventory shows the devices free again
    await api.until("inventory/nodes", lambda inv: real_node_gpus_allocated(inv) == 0, timeout=120, limit="500")
    api_admin = devcluster.admin
    await wait_for(
        lambda: not [p for p in api_admin.get("/api/v1/namespaces/team-a/pods")["items"]
                     if p["spec"].get("nodeName") == NODE and name in p["metadata"]["name"]],
        timeout=120, what="the job's pods gone from the real node",
    )  # fmt: skip


async def _has(api, name: str, pod: str, text: str) -> bool:
    return text in await pod_logs(api, "pytorch", name, pod)


HOLD = "import time\nprint('holding', flush=True)\ntime.sleep(900)\n"


@pytest.mark.parametrize("identity", ["admin"])  # reads the ClusterQueue and every Workload of the namespace
async def test_the_start_estimate_holds_when_the_jobs_ahead_stop_at_their_limits(api, unique, image):
    """Two jobs hold all 4 GPUs of real-node-cq with limits of 1 and 2 minutes; a third waits for 2 GPUs. Its
    estimate is the first one's admission plus its limit, and Kueue admits it then, within the debounce."""
    gpus = {"resource": "nvidia.com/gpu", "count": 2}
    short, long, waiting = unique("lim1"), unique("lim2"), unique("next")
    names = (short, long, waiting)
    try:
        for name, limit in ((short, 60), (long, 120)):
            req = script_job("pytorch", name, image, HOLD, workers=1, accelerators=gpus, max_run_seconds=limit)
            code, out = await api.call("POST", "jobs", req)
            assert code == 201, out
        await api.until(
            "jobs",
            lambda b: all(
                (j := job_of(b, n)) and j["status"] in ("Admitted", "Starting", "Running") for n in names[:2]
            ),
            timeout=120,
        )
        code, out = await api.call(
            "POST", "jobs", script_job("pytorch", waiting, image, HOLD, workers=1, accelerators=gpus)
        )
        assert code == 201, out
        body = await api.until("jobs", lambda b: (j := job_of(b, waiting)) and j["starts_by"], timeout=60)
        job = job_of(body, waiting)
        assert job["status"] == "Queued" and "if the jobs ahead stop at their time limits" in job["display"]["eta"]
        expected = parse_time(job["starts_by"])
        limited = job_of(body, short)
        assert limited["stops_at"] == job["starts_by"]  # the first to go frees what it needs
        assert "Kueue stops it at" in limited["display"]["time_limit"]
        body = await api.until("jobs", lambda b: (j := job_of(b, waiting)) and j["status"] != "Queued", timeout=180)
        admitted_at = datetime.now(UTC)
        print(
            f"eta: estimated {job['starts_by']}, left the queue {(admitted_at - expected).total_seconds():+.1f} s from it"
        )
        # Kueue deactivates the first at its limit and admits the waiting one at once; the push debounce, the
        # polling here and Kueue's own requeue loop add seconds
        assert expected - timedelta(seconds=2) <= admitted_at <= expected + timedelta(seconds=30), (
            expected,
            admitted_at,
        )
        assert job_of(body, short)["status"] == "Suspended"  # stopped through Kueue, not deleted
    finally:
        for name in names:
            await api.call("DELETE", f"jobs/pytorch/{name}")


CONNECTION = """
import hashlib, os
key = os.environ["AWS_SECRET_ACCESS_KEY"]
print("env sha256", hashlib.sha256(key.encode()).hexdigest(), flush=True)
with open("/etc/connection/AWS_SECRET_ACCESS_KEY") as f:
    print("file sha256", hashlib.sha256(f.read().encode()).hexdigest(), flush=True)
"""


async def test_a_connections_values_reach_the_job_and_never_an_answer_or_a_log_line(
    api, admin_api, unique, image, caplog
):
    """An OpenShift AI data connection (a Secret with its annotation) given as environment and as files: the job
    prints the values' hashes; no answer of the server, and no line it logged, holds a value."""
    import hashlib
    import secrets as random

    from cluster_api import admin_create, admin_delete

    name, conn = unique("conn"), unique("s3-connection")
    value = random.token_hex(24)
    admin_create(
        admin_api,
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": conn, "annotations": {"opendatahub.io/connection-type": "s3"}},
            "stringData": {"AWS_SECRET_ACCESS_KEY": value, "AWS_S3_BUCKET": "training-data"},
        },
        "team-a",
    )
    answers: list[str] = []
    try:
        missing = script_job("pytorch", name, image, CONNECTION, secrets=[{"name": f"{conn}-nope"}])
        code, err = await api.call("POST", "jobs", missing)
        assert code == 400 and err["field"] == "secrets[0].name", err
        assert (await api.call("GET", f"jobs/pytorch/{name}"))[0] == 404  # nothing was created
        request = script_job(
            "pytorch",
            name,
            image,
            CONNECTION,
            secrets=[{"name": conn}, {"name": conn, "mount_path": "/etc/connection"}],
        )
        code, out = await api.call("POST", "jobs", request)
        answers.append(str(out))
        assert code == 201, out
        body = await api.until("jobs", lambda b: (j := job_of(b, name)) and j["display"]["finished"], timeout=240)
        answers.append(str(body))
        assert job_of(body, name)["status"] == "Succeeded", job_of(body, name)
        answers.append(str(await api.get(f"jobs/pytorch/{name}")))
        code, logs = await api.call("GET", f"jobs/pytorch/{name}/logs", all="true")
        answers.append(str(logs))
        digest = hashlib.sha256(value.encode()).hexdigest()
        assert f"env sha256 {digest}" in logs and f"file sha256 {digest}" in logs, logs
        leaked = [a[:200] for a in answers if value in a] + [r.getMessage()[:200] for r in caplog.records
                                                              if value in r.getMessage()]  # fmt: skip
        assert not leaked, leaked
    finally:
        await api.call("DELETE", f"jobs/pytorch/{name}")
        admin_delete(admin_api, "v1", "Secret", conn, "team-a")


# ---- Kubeflow Trainer v2: a TrainJob becomes a JobSet of indexed Jobs; Trainer's torch plugin injects PET_* -------
TRAINER = pytest.mark.devcluster(needs=["jobset", "trainer-controller", "kueue"])

# The RANKS rendezvous, on what Trainer injects (torchrun's PET_* variables; the image has no torch to read them).
PET_RANKS = (
    RANKS.replace('"RANK"', '"PET_NODE_RANK"')
    .replace('"WORLD_SIZE"', '"PET_NNODES"')
    .replace('"MASTER_ADDR"', '"PET_MASTER_ADDR"')
    .replace('"MASTER_PORT"', '"PET_MASTER_PORT"')
)


@TRAINER
async def test_trainjob_runs_every_rank_from_what_trainer_injected(api, unique, image):
    name = unique("tj")
    code, out = await api.call("POST", "jobs", script_job("trainjob", name, image, PET_RANKS, workers=2))
    assert code == 201, out
    try:
        job = await ended(api, name, timeout=300)
        assert job["status"] == "Succeeded", job
        assert len(job["pods"]) == 2 and all(p["node"] == NODE for p in job["pods"]), job["pods"]
        code, logs = await api.call("GET", f"jobs/trainjob/{name}/logs", all="true")
        assert code == 200, logs
        master = f"{name}-node-0-0.{name}"  # Trainer's headless-Service name of rank 0
        assert f"RANK 0 WORLD_SIZE 2 MASTER {master}" in logs, logs  # the values of PET_NODE_RANK, PET_NNODES, ...
        assert f"RANK 1 WORLD_SIZE 2 MASTER {master}" in logs, logs
        assert "RANKS JOINED 1" in logs, logs  # rank 1 reached rank 0 over the pod network, by Trainer's DNS name
    finally:
        await api.call("DELETE", f"jobs/trainjob/{name}")


@TRAINER
async def test_a_trainjob_that_exits_3_is_named_while_its_runtime_restarts_it(api, unique, image):
    """Trainer's torch runtime restarts a failed node in place (its Job's pods restart OnFailure, backoffLimit 6), and a
    TrainJob cannot override that (runtimePatches take no restartPolicy): the job reads the exit code at once."""
    name = unique("tjexit")
    code, out = await api.call("POST", "jobs", script_job("trainjob", name, image, FAILS, workers=1))
    assert code == 201, out
    try:
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and "(code 3)" in (j["reason"] or ""), timeout=240
        )
        job = job_of(body, name)
        assert job["status"] in ("Starting", "Failed"), job
        code, logs = await api.call("GET", f"jobs/trainjob/{name}/logs", all="true")
        assert code == 200 and "shard 7 is corrupt" in logs, logs
    finally:
        await api.call("DELETE", f"jobs/trainjob/{name}")


@TRAINER
async def test_a_trainjob_suspends_resumes_and_deletes_through_kueue(devcluster, api, unique, image):
    name = unique("tjhold")
    code, out = await api.call("POST", "jobs", script_job("trainjob", name, image, HOLD, workers=1))
    assert code == 201, out
    try:
        await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=180)
        code, _ = await api.call("POST", f"jobs/trainjob/{name}/suspend")
        assert code == 200
        await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Suspended" and not j["pods"], timeout=120
        )
        wl = [w for w in devcluster.admin.get("/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads")["items"]
              if name in w["metadata"]["name"]]  # fmt: skip
        assert wl and wl[0]["spec"].get("active") is False, wl  # stopped through Kueue, not behind its back
        code, _ = await api.call("POST", f"jobs/trainjob/{name}/resume")
        assert code == 200
        await api.until("jobs", lambda b: (j := job_of(b, name)) and j["status"] == "Running", timeout=180)
    finally:
        await api.call("DELETE", f"jobs/trainjob/{name}")
    await api.until("jobs", lambda b: job_of(b, name) is None, timeout=120)


PROGRESS_EXAMPLE = Path(__file__).resolve().parents[2] / "examples/trainjob-progress/train.py"


@TRAINER
async def test_a_trainjob_reports_50_then_100_percent_through_trainers_status_server(api, unique, image):
    """The example script POSTs to the status server Trainer names in its pods (through devcluster's relay); the
    controller writes status.trainerStatus; the product shows it."""
    name = unique("tjprog")
    req = script_job("trainjob", name, image, PROGRESS_EXAMPLE.read_text(), workers=2)
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and (j.get("progress") or {}).get("percent") == 50, timeout=240
        )
        half = job_of(body, name)
        assert half["status"] == "Running", half
        assert half["progress"]["text"].startswith("50 % · about 1m left · loss 0.5"), half["progress"]
        done = await ended(api, name, timeout=180)
        assert done["status"] == "Succeeded" and done["progress"]["percent"] == 100, done
        assert done["progress"]["metrics"] == [{"name": "loss", "value": "0.25"}], done["progress"]
        code, logs = await api.call("GET", f"jobs/trainjob/{name}/logs", all="true")
        assert "progress 100 % reported (200)" in logs and "rank 1 of 2" in logs, logs
    finally:
        await api.call("DELETE", f"jobs/trainjob/{name}")


@TRAINER
async def test_info_lists_the_clusters_training_runtimes_and_its_stack(api):
    """As the notebook user: the runtimes (readable to every notebook user, as Kubeflow platforms grant) and the
    compatibility report of devcluster's stack."""
    info = await api.get("info")
    trainjob = next(k for k in info["capabilities"]["kinds"] if k["kind"] == "trainjob")
    assert trainjob["runtimes"] == ["torch-distributed"], trainjob
    report = info["capabilities"]["compatibility"]
    assert "Kueue: kueue.x-k8s.io/v1beta2" in report["served"], report
    assert "TrainJob progress from status.trainerStatus (Trainer 2.2 or later)" in report["features"], report
    assert report["missing"] == [], report  # devcluster serves everything the product uses


SLOW_TASKS = """
import time, ray
ray.init()
@ray.remote(num_cpus=0.1)
def step(i):
    time.sleep(3)
    return i
print("DONE", sum(ray.get([step.remote(i) for i in range(20)])), flush=True)
time.sleep(12)  # the last counts are read while it still runs
"""


async def test_a_running_rayjob_shows_its_tasks_ended_of_those_submitted(api, unique, image):
    name = unique("rjprog")
    req = script_job("ray-job", name, image, SLOW_TASKS, workers=1, memory="2Gi")
    code, out = await api.call("POST", "jobs", req)
    assert code == 201, out
    try:
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and (j.get("progress") or {}).get("text"), timeout=420
        )
        progress = job_of(body, name)["progress"]
        assert progress["text"].endswith(" of 20 Ray tasks ended (of those submitted so far)"), progress
        body = await api.until(
            "jobs", lambda b: (j := job_of(b, name)) and (j.get("progress") or {}).get("percent") == 100, timeout=120
        )
        assert job_of(body, name)["progress"]["text"].startswith("20 of 20"), job_of(body, name)
    finally:
        await api.call("DELETE", f"jobs/ray-job/{name}")
