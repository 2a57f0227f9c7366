"""The dev cluster's guarantees, proven against the running cluster (real apiserver, scheduler, Kueue,
KubeRay, training operator; kwok nodes). The extension's own cluster tests build on these fixtures."""

from __future__ import annotations

import ipaddress
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import yaml
from kubernetes import client
from kubernetes.client.rest import ApiException
from polling import poll_until

from devcluster.versions import DATA

pytestmark = pytest.mark.cluster
NET_AUDIT = Path("/work/shared/tools/net-audit")
RUN_FOR = "devcluster.jupyter-accel.io/run-for"


def wait_for(what, check, timeout=60.0, interval=0.5):
    return poll_until(check, timeout, what, interval)


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def pods_of(core: client.CoreV1Api, ns: str, selector: str) -> list:
    return core.list_namespaced_pod(ns, label_selector=selector).items


def cond(obj: dict, ctype: str) -> dict | None:
    return next((c for c in obj.get("status", {}).get("conditions", []) if c["type"] == ctype), None)


def gpu_container(name: str, gpus: int, resource: str = "nvidia.com/gpu") -> dict:
    res = {"cpu": "1", "memory": "1Gi", resource: str(gpus)}
    return {"name": name, "image": "example.invalid/train:1", "resources": {"requests": res, "limits": res}}


# ---- nodes and pods ---------------------------------------------------------------------------------------


@pytest.mark.devcluster(needs=["kwok"])
def test_nodes_ready_with_accelerator_allocatable(api_admin):
    want = {n["metadata"]["name"]: n for n in yaml.safe_load_all((DATA / "nodes.yaml").read_text()) if n}
    nodes = {n.metadata.name: n for n in client.CoreV1Api(api_admin).list_node().items}
    assert set(want) <= set(nodes)
    for name in want:
        node = nodes[name]
        ready = next(c for c in node.status.conditions if c.type == "Ready")
        assert ready.status == "True", name
        assert {a.address for a in node.status.addresses} <= {"127.0.0.1", "localhost"}, name
    assert nodes["gpu-h100-0"].status.allocatable["nvidia.com/gpu"] == "8"
    assert nodes["gpu-h100-1"].metadata.labels["nvidia.com/gpu.product"] == "NVIDIA-H100-80GB-HBM3"
    assert nodes["gpu-a100-mig-0"].status.allocatable["nvidia.com/mig-1g.10gb"] == "14"
    assert nodes["gpu-mi300x-0"].status.allocatable["amd.com/gpu"] == "8"
    assert nodes["gaudi2-0"].status.allocatable["habana.ai/gaudi"] == "8"
    assert "nvidia.com/gpu" not in (nodes["cpu-0"].status.allocatable or {})
    taints = {(t.key, t.effect) for t in nodes["gpu-h100-0"].spec.taints}
    assert ("nvidia.com/gpu", "NoSchedule") in taints


@pytest.mark.devcluster(needs=["kwok", "kube-scheduler"])
def test_scheduler_places_gpu_pod_on_gpu_node_respecting_taints(api_admin):
    core, ns = client.CoreV1Api(api_admin), "team-b"  # team-b: no default LocalQueue, pods stay unmanaged
    tolerating, plain = uid("gpu-tol"), uid("gpu-notol")
    tol = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    for name, tolerations in ((tolerating, tol), (plain, [])):
        spec = {"containers": [gpu_container("main", 2)], "tolerations": tolerations}
        core.create_namespaced_pod(ns, {"metadata": {"name": name}, "spec": spec})
    try:
        pod = wait_for(
            "tolerating GPU pod Running",
            lambda: (p := core.read_namespaced_pod(tolerating, ns)).status.phase == "Running" and p,
        )
        assert pod.spec.node_name in ("gpu-h100-0", "gpu-h100-1")
        assert ipaddress.ip_address(pod.status.pod_ip).is_loopback
        assert pod.status.host_ip == "127.0.0.1"
        # logs go apiserver -> kwok's kubelet API on 127.0.0.1
        assert "processing shard" in core.read_namespaced_pod_log(tolerating, ns, container="main")

        def unschedulable():
            p = core.read_namespaced_pod(plain, ns)
            c = next((c for c in p.status.conditions or [] if c.type == "PodScheduled"), None)
            return c is not None and c.status == "False" and c.reason == "Unschedulable" and c

        c = wait_for("untolerating GPU pod Unschedulable", unschedulable)
        assert "untolerated taint" in c.message
        assert core.read_namespaced_pod(plain, ns).spec.node_name is None
    finally:
        for name in (tolerating, plain):
            core.delete_namespaced_pod(name, ns, grace_period_seconds=0)


@pytest.mark.devcluster(needs=["kwok", "kube-scheduler", "kube-controller-manager"])
def test_job_pod_runs_then_succeeds_after_run_for(api_admin):
    batch, core, ns, name = client.BatchV1Api(api_admin), client.CoreV1Api(api_admin), "team-b", uid("job")
    template = {
        "metadata": {"annotations": {RUN_FOR: "4s"}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "example.invalid/x:1"}]},
    }
    batch.create_namespaced_job(ns, {"metadata": {"name": name}, "spec": {"template": template}})
    sel = f"job-name={name}"
    running = wait_for("job pod Running", lambda: [p for p in pods_of(core, ns, sel) if p.status.phase == "Running"])
    t_running = time.monotonic()
    wait_for("job pod Succeeded", lambda: [p for p in pods_of(core, ns, sel) if p.status.phase == "Succeeded"])
    assert time.monotonic() - t_running >= 2, "pod finished before its run-for delay"
    job = wait_for("Job Complete", lambda: (j := batch.read_namespaced_job(name, ns)).status.succeeded == 1 and j)
    assert any(c.type == "Complete" and c.status == "True" for c in job.status.conditions)
    assert "done" in core.read_namespaced_pod_log(running[0].metadata.name, ns)
    batch.delete_namespaced_job(name, ns, propagation_policy="Background")


# ---- Kueue + training operator ---------------------------------------------------------------------------


def workload_for(custom: client.CustomObjectsApi, ns: str, owner_uid: str) -> dict | None:
    items = custom.list_namespaced_custom_object("kueue.x-k8s.io", "v1beta2", ns, "workloads")["items"]
    return next(
        (w for w in items if any(o["uid"] == owner_uid for o in w["metadata"].get("ownerReferences", []))), None
    )


def pytorchjob(name: str, gpus_per_pod: int, master_runs: str, worker_runs: str) -> dict:
    """Master + 1 Worker. The job succeeds when the Master does, so the Master should run longer."""

    def replica(n: int, run_for: str) -> dict:
        return {
            "replicas": n,
            "restartPolicy": "Never",
            "template": {
                "metadata": {"annotations": {RUN_FOR: run_for}},
                "spec": {"containers": [gpu_container("pytorch", gpus_per_pod)]},
            },
        }

    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": name, "labels": {"kueue.x-k8s.io/queue-name": "default"}},
        "spec": {"pytorchReplicaSpecs": {"Master": replica(1, master_runs), "Worker": replica(1, worker_runs)}},
    }


@pytest.mark.devcluster(needs=["kwok", "kube-scheduler", "kube-controller-manager", "kueue", "training-operator"])
def test_pytorchjob_waits_for_quota_then_runs_and_succeeds(api_admin, api_notebook_user, api_queue_viewer):
    """team-a may hold 12 H100 (8 nominal + 4 borrowed). A Job holding all 12 keeps a 2x4-GPU PyTorchJob
    queued (QuotaReserved=False, visible with a position); once the Job ends, the PyTorchJob is admitted,
    scheduled onto H100 nodes, runs and succeeds."""
    ns = "team-a"
    batch, core = client.BatchV1Api(api_notebook_user), client.CoreV1Api(api_notebook_user)
    custom = client.CustomObjectsApi(api_notebook_user)
    blocker, ptj = uid("blocker"), uid("ptj")
    batch.create_namespaced_job(ns, {
        "metadata": {"name": blocker, "labels": {"kueue.x-k8s.io/queue-name": "default"}},
        "spec": {"parallelism": 3, "completions": 3, "template": {
            "metadata": {"annotations": {RUN_FOR: "15s"}},
            "spec": {"restartPolicy": "Never", "containers": [gpu_container("main", 4)]}}},
    })  # fmt: skip
    try:
        job_uid = batch.read_namespaced_job(blocker, ns).metadata.uid
        wait_for("blocker admitted", lambda: (w := workload_for(custom, ns, job_uid)) and cond(w, "Admitted")
                 and cond(w, "Admitted")["status"] == "True")  # fmt: skip
        custom.create_namespaced_custom_object("kubeflow.org", "v1", ns, "pytorchjobs", pytorchjob(ptj, 4, "12s", "3s"))
        ptj_uid = custom.get_namespaced_custom_object("kubeflow.org", "v1", ns, "pytorchjobs", ptj)["metadata"]["uid"]

        def pending():
            w = workload_for(custom, ns, ptj_uid)
            c = w and cond(w, "QuotaReserved")
            return c and c["status"] == "False" and (w, c)

        wl, reserved = wait_for("PyTorchJob workload pending on quota", pending, timeout=30)
        # Kueue 0.19 with UnadmittedWorkloadsObservability (devcluster turns it on): the tiered reason
        assert reserved["reason"] == "WaitingForQuota", reserved
        assert "insufficient quota" in reserved["message"].lower() or "couldn't assign" in reserved["message"]
        got = custom.get_namespaced_custom_object("kubeflow.org", "v1", ns, "pytorchjobs", ptj)
        assert got["spec"]["runPolicy"]["suspend"] is True
        assert not pods_of(core, ns, f"training.kubeflow.org/job-name={ptj}")

        # Kueue's visibility API, through the aggregation layer: the notebook user sees its LocalQueue...
        path = f"/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/{ns}/localqueues/default/pendingworkloads"
        summary = raw_get(api_notebook_user, path)
        mine = [p for p in summary["items"] if p["metadata"]["name"] == wl["metadata"]["name"]]
        assert mine and mine[0]["positionInLocalQueue"] == 0, summary
        # ...the queue-viewer the whole ClusterQueue; the notebook user may not.
        cq_path = "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/team-a-cq/pendingworkloads"
        assert any(p["metadata"]["name"] == wl["metadata"]["name"] for p in raw_get(api_queue_viewer, cq_path)["items"])
        with pytest.raises(ApiException) as denied:
            raw_get(api_notebook_user, cq_path)
        assert denied.value.status == 403

        # quota frees up when the blocker's pods finish: the PyTorchJob is admitted and runs
        def succeeded():
            j = custom.get_namespaced_custom_object("kubeflow.org", "v1", ns, "pytorchjobs", ptj)
            c = cond(j, "Succeeded")
            return c and c["status"] == "True" and j

        wait_for("PyTorchJob Succeeded", succeeded, timeout=90)
        w = workload_for(custom, ns, ptj_uid)
        assert cond(w, "Admitted")["status"] == "True"
        flavors = w["status"]["admission"]["podSetAssignments"][0]["flavors"]
        assert flavors["nvidia.com/gpu"] == "nvidia-h100-80gb"
        sel = f"training.kubeflow.org/job-name={ptj}"
        pods = wait_for(
            "both PyTorchJob pods Succeeded",
            lambda: (ps := pods_of(core, ns, sel)) and all(p.status.phase == "Succeeded" for p in ps) and ps,
            timeout=30,
        )
        assert sorted(p.metadata.labels["training.kubeflow.org/replica-type"] for p in pods) == ["master", "worker"]
        for pod in pods:
            assert pod.spec.node_name in ("gpu-h100-0", "gpu-h100-1")
            assert "training finished" in core.read_namespaced_pod_log(pod.metadata.name, ns, container="pytorch")
    finally:
        custom.delete_namespaced_custom_object("kubeflow.org", "v1", ns, "pytorchjobs", ptj)
        batch.delete_namespaced_job(blocker, ns, propagation_policy="Background")


def raw_get(api: client.ApiClient, path: str) -> dict:
    """GET a path the generated client has no method for (aggregated APIs), raising ApiException on errors."""
    method, url, headers, body, post = api.param_serialize("GET", path, header_params={"Accept": "application/json"},
                                                           auth_settings=["BearerToken"])  # fmt: skip
    resp = api.call_api(method, url, headers, body, post)
    resp.read()
    return api.response_deserialize(resp, {"200": "object"}).data


# ---- KubeRay ---------------------------------------------------------------------------------------------


@pytest.mark.devcluster(needs=["kwok", "kube-scheduler", "kueue", "kuberay"])
def test_raycluster_gets_running_head_and_worker_pods(api_notebook_user):
    ns, name = "team-a", uid("ray")
    custom, core = client.CustomObjectsApi(api_notebook_user), client.CoreV1Api(api_notebook_user)

    def container(cname):
        res = {"cpu": "1", "memory": "2Gi"}
        return {"name": cname, "image": "rayproject/ray:2.46.0", "resources": {"requests": res, "limits": res}}

    worker = {
        "groupName": "gpu", "replicas": 1, "minReplicas": 1, "maxReplicas": 1, "rayStartParams": {},
        "template": {"spec": {"containers": [{**gpu_container("ray-worker", 1), "image": "rayproject/ray:2.46.0"}]}},
    }  # fmt: skip
    body = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": name, "labels": {"kueue.x-k8s.io/queue-name": "default"}},
        "spec": {
            "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [container("ray-head")]}}},
            "workerGroupSpecs": [worker],
        },
    }
    custom.create_namespaced_custom_object("ray.io", "v1", ns, "rayclusters", body)
    try:
        sel = f"ray.io/cluster={name}"

        def running():
            pods = pods_of(core, ns, sel)
            return len(pods) == 2 and all(p.status.phase == "Running" for p in pods) and pods

        pods = wait_for("RayCluster head and worker Running", running, timeout=60)
        kinds = {p.metadata.labels["ray.io/node-type"]: p for p in pods}
        assert set(kinds) == {"head", "worker"}
        assert kinds["worker"].spec.node_name in ("gpu-h100-0", "gpu-h100-1")  # Kueue injected the flavor
        assert "Ray runtime started" in core.read_namespaced_pod_log(kinds["head"].metadata.name, ns)
        state = wait_for(
            "RayCluster state ready",
            lambda: custom.get_namespaced_custom_object("ray.io", "v1", ns, "rayclusters", name)
            .get("status", {}).get("state") == "ready",
        )  # fmt: skip
        assert state
    finally:
        custom.delete_namespaced_custom_object("ray.io", "v1", ns, "rayclusters", name)


# ---- identities and RBAC ---------------------------------------------------------------------------------


def test_notebook_user_refused_cluster_reads_queue_viewer_allowed(devcluster, api_notebook_user, api_queue_viewer):
    with pytest.raises(ApiException) as exc:
        client.CoreV1Api(api_notebook_user).list_node()
    assert exc.value.status == 403
    with pytest.raises(ApiException) as exc:
        client.CustomObjectsApi(api_notebook_user).list_cluster_custom_object(
            "kueue.x-k8s.io", "v1beta2", "clusterqueues"
        )
    assert exc.value.status == 403
    with pytest.raises(ApiException) as exc:
        client.CoreV1Api(api_notebook_user).list_namespaced_pod("team-b")
    assert exc.value.status == 403
    client.CoreV1Api(api_notebook_user).list_namespaced_pod("team-a")
    lqs = client.CustomObjectsApi(api_notebook_user).list_namespaced_custom_object(
        "kueue.x-k8s.io", "v1beta2", "team-a", "localqueues"
    )
    seeded = ["default", *(["real-node"] if devcluster.node_image() else [])]  # the real node's queue, if it runs
    assert [q["metadata"]["name"] for q in lqs["items"]] == seeded

    assert len(client.CoreV1Api(api_queue_viewer).list_node().items) >= 7
    cqs = client.CustomObjectsApi(api_queue_viewer).list_cluster_custom_object(
        "kueue.x-k8s.io", "v1beta2", "clusterqueues"
    )
    assert {"team-a-cq", "team-b-cq"} <= {q["metadata"]["name"] for q in cqs["items"]}


def test_bearer_token_maps_to_the_same_notebook_user(devcluster):
    from kubernetes import config as kconfig

    api = kconfig.new_client_from_config(str(devcluster.kubeconfig("notebook-user", token=True)))
    review = client.AuthenticationV1Api(api).create_self_subject_review({"apiVersion": "authentication.k8s.io/v1",
                                                                         "kind": "SelfSubjectReview"})  # fmt: skip
    assert review.status.user_info.username == "notebook-user"
    assert "notebooks" in review.status.user_info.groups
    with pytest.raises(ApiException) as exc:
        client.CoreV1Api(api).list_node()
    assert exc.value.status == 403


def test_hardwareprofiles_served_and_validated(api_admin, api_notebook_user):
    custom = client.CustomObjectsApi(api_notebook_user)
    names = {p["metadata"]["name"] for p in custom.list_namespaced_custom_object(
        "infrastructure.opendatahub.io", "v1", "team-a", "hardwareprofiles")["items"]}  # fmt: skip
    assert "nvidia-h100-queued" in names
    bad = {
        "apiVersion": "infrastructure.opendatahub.io/v1",
        "kind": "HardwareProfile",
        "metadata": {"name": uid("bad")},
        "spec": {"scheduling": {"type": "Queue"}},
    }
    with pytest.raises(ApiException) as exc:
        client.CustomObjectsApi(api_admin).create_namespaced_custom_object(
            "infrastructure.opendatahub.io", "v1", "team-a", "hardwareprofiles", bad
        )
    assert exc.value.status == 422 and "scheduling.kueue" in exc.value.body


# ---- loopback only ---------------------------------------------------------------------------------------


def _non_loopback_peers(pids: list[int]) -> list[str]:
    """Established TCP connections of `pids` whose peer is not loopback (ss, host network namespace)."""
    out = subprocess.run(["ss", "-Htnp", "state", "established"], capture_output=True, text=True, check=True).stdout
    bad = []
    for line in out.splitlines():
        fields = line.split()  # Recv-Q Send-Q Local Peer Process (no State column under a state filter)
        if len(fields) < 5 or not any(f"pid={p}," in fields[4] for p in pids):
            continue
        host = fields[3].rsplit(":", 1)[0].strip("[]").removeprefix("::ffff:")
        if not ipaddress.ip_address(host).is_loopback:
            bad.append(line)
    return bad


def test_net_audit_finds_nothing_beyond_loopback(devcluster):
    pids = devcluster.all_pids()
    assert len(pids) >= len(devcluster.recorded)
    res = subprocess.run([str(NET_AUDIT), *map(str, pids)], capture_output=True, text=True, check=False)
    assert "listening beyond loopback" not in res.stdout, res.stdout
    # net-audit's peer column is off by one under `ss ... state established` (ss drops the State column),
    # so it reports every connection; until it is fixed, its "connected" section is re-checked here.
    if res.returncode != 0:
        assert res.stdout.startswith("connected to a non-loopback peer:"), res.stdout
        assert _non_loopback_peers(pids) == []


@pytest.mark.devcluster(needs=["kuberay", "training-operator"])
def test_operator_sandboxes_have_only_loopback(devcluster):
    for name in ("kuberay", "training-operator"):
        res = devcluster.sandbox_exec(name, ["ip", "-o", "link"])
        assert res.returncode == 0, res.stderr
        links = [line.split(":")[1].strip() for line in res.stdout.splitlines()]
        assert links == ["lo"], (name, res.stdout)


NODE_PARTS = ["kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image"]


@pytest.mark.devcluster(needs=NODE_PARTS)
def test_real_node_is_ready_with_device_plugin_gpus_and_its_network_stays_inside(devcluster, api_admin):
    node = client.CoreV1Api(api_admin).read_node("devcluster-node")
    conds = {c.type: c.status for c in node.status.conditions}
    assert conds["Ready"] == "True"
    assert node.status.allocatable["nvidia.com/gpu"] == "4"  # advertised by the device plugin, not patched in
    assert node.status.node_info.container_runtime_version.startswith("containerd://")
    assert [a.address for a in node.status.addresses if a.type == "InternalIP"] == ["10.89.0.1"]
    assert any(t.key == "devcluster.jupyter-accel.io/real-node" for t in node.spec.taints or [])
    # The node's private addresses exist only in its own network namespace, which has no route out.
    res = devcluster.node_exec(["ip", "-o", "-4", "route"])
    assert res.returncode == 0, res.stderr
    assert "default" not in res.stdout, res.stdout
    host = subprocess.run(["ip", "-o", "-4", "addr"], capture_output=True, text=True, check=True).stdout
    assert "10.89.0.1" not in host and "10.88." not in host
