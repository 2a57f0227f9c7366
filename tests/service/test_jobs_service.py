"""The jobs service without a cluster: idempotent submit, queue checks, rollback, controls and refusals, against
an in-memory hub of plain dicts (the cluster tests cover the same paths against the real API server)."""

from __future__ import annotations

import threading

import pytest
from memory_cluster import MemoryHub, MemoryWriter

from jupyter_accel.api.base import http_error
from jupyter_accel.cluster.kept_logs import KeptLogStore
from jupyter_accel.cluster.writes import WriteError
from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.models import JobKind, JobRequest, JobStatus, RayPackageRequest
from jupyter_accel.services import errors, job_control, job_logs
from jupyter_accel.services.jobs import JobSettings, JobsService

IMAGES = {k.value: "runtime:1" for k in JobKind}
GPU_NODE = {
    "metadata": {"name": "gpu-1", "labels": {}},
    "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": "8"}},
}


def cluster(**settings) -> tuple[MemoryHub, MemoryWriter, JobsService]:
    hub = MemoryHub()
    for key in ("rayclusters", "rayjobs", "pytorchjobs", "trainjobs", "pods", "events", "workloads", "nodes"):
        hub.caches[key] = []
    hub.caches["nodes"] = [GPU_NODE]
    hub.caches["localqueues"] = [{"metadata": {"name": "default", "namespace": "team-a"}, "spec": {}}]
    writer = MemoryWriter(hub)
    service = JobsService(
        hub, writer, AcceleratorRegistry(), JobSettings(default_images=IMAGES, workbench_prefix="wb", **settings)
    )
    return hub, writer, service


def pytorch(**fields) -> JobRequest:
    return JobRequest.model_validate({"kind": "pytorch", "command": ["python", "-c", "print(1)"], **fields})


def test_submit_creates_the_job_and_a_retry_with_the_same_request_id_creates_nothing():
    hub, writer, service = cluster()
    first, status = service.submit(pytorch(client_request_id="abc-1"))
    assert (status, first.created, first.job.kind) == (201, True, JobKind.pytorch)
    assert [o["metadata"]["name"] for o in hub.caches["pytorchjobs"]] == [first.job.name]
    assert hub.caches["pytorchjobs"][0]["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "default"
    again, status = service.submit(pytorch(client_request_id="abc-1"))
    assert (status, again.created, again.job.name) == (200, False, first.job.name)
    assert len(hub.caches["pytorchjobs"]) == 1
    assert [c[0] for c in writer.calls].count("create") == 1


def test_a_queue_that_does_not_exist_is_refused_naming_the_allowed_ones_and_nothing_is_written():
    _hub, writer, service = cluster()
    with pytest.raises(errors.Invalid) as refused:
        service.submit(pytorch(queue="gold"))
    assert refused.value.field == "queue"
    assert "allowed: default" in refused.value.errors[0].message
    assert writer.calls == []
    assert http_error(refused.value).status_code == 400


def test_the_job_is_rolled_back_when_its_script_configmap_cannot_be_made():
    hub, writer, service = cluster()
    writer.refuse["ConfigMap"] = WriteError(422, "ConfigMap is invalid", [{"field": "data", "message": "too big"}])
    request = JobRequest.model_validate({"kind": "pytorch", "script": {"text": "print(1)"}})
    with pytest.raises(errors.Invalid) as refused:
        service.submit(request)
    assert refused.value.errors[0].field == "data"
    # the dry run of the ConfigMap comes first, so the job is never created at all
    assert hub.caches["pytorchjobs"] == []
    assert [c for c in writer.calls if c[0] == "create"] == []


def test_a_configmap_refused_after_the_job_was_created_takes_the_job_with_it():
    hub, writer, service = cluster()

    class RefuseRealCreate(MemoryWriter):
        def create(self, obj, namespace, *, dry_run=False):
            if obj["kind"] == "ConfigMap" and not dry_run:
                raise WriteError(500, "etcdserver: request timed out")
            return super().create(obj, namespace, dry_run=dry_run)

    writer = RefuseRealCreate(hub)
    service = JobsService(hub, writer, AcceleratorRegistry(), JobSettings(default_images=IMAGES))
    request = JobRequest.model_validate({"kind": "pytorch", "script": {"text": "print(1)"}})
    with pytest.raises(errors.Upstream):
        service.submit(request)
    assert hub.caches["pytorchjobs"] == []
    assert [c[0] for c in writer.calls][-1] == "delete"


def test_a_name_clash_is_a_conflict_on_the_name_field():
    _hub, _writer, service = cluster()
    service.submit(pytorch(name="train-1"))
    with pytest.raises(errors.Conflict) as refused:
        service.submit(pytorch(name="train-1"))
    assert (refused.value.field, http_error(refused.value).status_code) == ("name", 409)


def test_read_only_refuses_writes_before_anything_is_built():
    _hub, writer, service = cluster(read_only=True)
    with pytest.raises(errors.ReadOnly):
        service.submit(pytorch())
    assert writer.calls == []
    assert http_error(errors.ReadOnly("x")).status_code == 403


def test_suspend_deactivates_the_workload_when_there_is_one_else_patches_the_job_as_its_operator_wants(monkeypatch):
    monkeypatch.setattr(job_control, "WORKLOAD_WAIT_S", 0.3)  # Kueue never makes one here
    hub, writer, service = cluster()
    created, _ = service.submit(pytorch(name="train-1"))
    service.set_suspended(JobKind.pytorch, "train-1", True)
    assert hub.caches["pytorchjobs"][0]["spec"]["runPolicy"]["suspend"] is True
    uid = hub.caches["pytorchjobs"][0]["metadata"]["uid"]
    hub.caches["workloads"] = [
        {
            "metadata": {
                "name": "pytorchjob-train-1-abcde",
                "namespace": "team-a",
                "labels": {"kueue.x-k8s.io/job-uid": uid},
                "ownerReferences": [{"kind": "PyTorchJob", "name": "train-1", "uid": uid}],
            },
            "spec": {"active": True, "queueName": "default"},
        }
    ]
    view = service.set_suspended(JobKind.pytorch, "train-1", False)
    assert hub.caches["workloads"][0]["spec"]["active"] is True
    assert writer.calls[-1] == ("patch", "workloads", "pytorchjob-train-1-abcde")
    service.set_suspended(JobKind.pytorch, "train-1", True)
    assert hub.caches["workloads"][0]["spec"]["active"] is False
    assert view.name == created.job.name


def test_a_stop_asked_before_kueue_made_the_workload_waits_for_it_and_deactivates_it():
    hub, writer, service = cluster()
    service.submit(pytorch(name="train-1"))
    uid = hub.caches["pytorchjobs"][0]["metadata"]["uid"]
    workload = {
        "metadata": {"name": "wl", "namespace": "team-a", "labels": {"kueue.x-k8s.io/job-uid": uid}},
        "spec": {"active": True},
    }
    kueue = threading.Timer(0.3, lambda: hub.caches["workloads"].append(workload))  # Kueue, a moment later
    kueue.start()
    service.set_suspended(JobKind.pytorch, "train-1", True)
    kueue.join()
    # the Workload deactivated, not the job's own suspend, which Kueue would undo when it admits the Workload
    assert hub.caches["workloads"][0]["spec"]["active"] is False
    assert ("patch", "workloads", "wl") in writer.calls


def test_a_refused_workload_patch_is_not_visible_to_your_account():
    hub, _writer, service = cluster()
    service.submit(pytorch(name="train-1"))
    uid = hub.caches["pytorchjobs"][0]["metadata"]["uid"]
    hub.caches["workloads"] = [
        {
            "metadata": {"name": "wl", "namespace": "team-a", "labels": {"kueue.x-k8s.io/job-uid": uid}},
            "spec": {"active": True},
        }
    ]

    class NoPatch(MemoryWriter):
        def merge_patch(self, ref, patch):
            raise WriteError(403, "workloads is forbidden")

    service = JobsService(hub, NoPatch(hub), AcceleratorRegistry(), JobSettings(default_images=IMAGES))
    with pytest.raises(errors.NotVisible) as refused:
        service.set_suspended(JobKind.pytorch, "train-1", True)
    assert refused.value.message.startswith("not visible to your account")


def test_logs_and_dashboards_say_why_there_is_nothing(tmp_path):
    hub, _writer, service = cluster()
    service.submit(pytorch(name="train-1"))

    def pod_of(plan) -> str:
        return next(iter(plan.live)) if plan.live else plan.kept[0].pod

    with pytest.raises(errors.NotFound, match="has no pods yet"):
        job_logs.plan(service, None, JobKind.pytorch, "train-1", None, False)
    hub.caches["pytorchjobs"][0]["status"] = {"conditions": [{"type": "Succeeded", "status": "True"}]}
    with pytest.raises(errors.NotFound, match="pods were removed by its operator; no log of them was kept"):
        job_logs.plan(service, None, JobKind.pytorch, "train-1", None, False)
    master = {
        "metadata": {
            "name": "train-1-master-0",
            "namespace": "team-a",
            "labels": {"training.kubeflow.org/job-name": "train-1", "training.kubeflow.org/replica-type": "master"},
        }
    }
    hub.caches["pods"] = [master]
    assert pod_of(job_logs.plan(service, None, JobKind.pytorch, "train-1", None, False)) == "train-1-master-0"
    with pytest.raises(errors.Invalid, match="not a pod of train-1"):
        job_logs.plan(service, None, JobKind.pytorch, "train-1", "someone-else", False)
    with pytest.raises(errors.Invalid, match="only ray-cluster and ray-job have a Ray dashboard"):
        service.dashboard_target(JobKind.pytorch, "train-1", "")
    with pytest.raises(errors.NotFound):
        service.detail(JobKind.ray_cluster, "nope")


def test_a_job_whose_pods_are_gone_reads_its_kept_logs_and_its_detail_says_so(tmp_path):
    hub, _writer, service = cluster()
    store = KeptLogStore(tmp_path, "team-a", job_bytes=1 << 20, total_bytes=1 << 30)
    service.kept_logs = store
    service.submit(pytorch(name="train-2"))
    job = hub.caches["pytorchjobs"][0]
    job["metadata"]["uid"] = uid = "uid-2"
    job["status"] = {"conditions": [{"type": "Failed", "status": "True"}]}
    for pod, line in (("train-2-master-0", "step 1 ok"), ("train-2-worker-0", "rank 1 here")):
        w = store.writer(uid, pod, "pytorch", 1 << 20)
        w.write(f"2026-12-06T04:00:00.{len(pod)}00000000Z {line}\n".encode())
        w.close(complete=True)
    plan = job_logs.plan(service, store, JobKind.pytorch, "train-2", None, False)
    assert [k.pod for k in plan.kept] == ["train-2-master-0"] and not plan.live  # the master's: the job's output
    every = job_logs.plan(service, store, JobKind.pytorch, "train-2", None, True)
    assert every.all_pods and sorted(k.pod for k in every.kept) == ["train-2-master-0", "train-2-worker-0"]
    detail = service.detail(JobKind.pytorch, "train-2")
    assert detail.logs is not None and detail.logs.sentence == "Its 2 pods ran and were removed; their logs were kept."
    assert [(p.label, p.live, p.kept, p.complete) for p in detail.logs.pods] == [
        ("master-0", False, True, True),
        ("worker-0", False, True, True),
    ]


def test_the_dashboard_of_a_ray_cluster_is_its_head_service_proxy():
    _hub, _writer, service = cluster()
    service.submit(JobRequest.model_validate({"kind": "ray-cluster", "name": "ray-1"}))
    cluster_name, path = service.dashboard_target(JobKind.ray_cluster, "ray-1", "api/version")
    assert cluster_name == "ray-1"
    assert path == "/api/v1/namespaces/team-a/services/ray-1-head-svc:dashboard/proxy/api/version"
    assert service.detail(JobKind.ray_cluster, "ray-1").dashboard_path == "/accel/v1/jobs/ray-cluster/ray-1/dashboard/"


def test_a_running_clusters_detail_lists_its_ray_jobs_from_its_dashboard():
    hub, writer, service = cluster()
    for name in ("ray-1", "ray-2"):
        service.submit(JobRequest.model_validate({"kind": "ray-cluster", "name": name}))
    hub.get("rayclusters", "ray-1", "team-a")["status"] = {"state": "ready", "readyWorkerReplicas": 1}
    assert service.detail(JobKind.ray_cluster, "ray-2").ray_jobs is None  # not running: its dashboard is not asked
    assert not [c for c in writer.calls if c[0] == "read"]
    down = service.detail(JobKind.ray_cluster, "ray-1")
    assert down.ray_jobs is None and "did not answer" in down.ray_jobs_note
    path = service.dashboard_target(JobKind.ray_cluster, "ray-1", "api/jobs/")[1]
    writer.dashboards[path] = [  # Ray 2.x's GET /api/jobs/ (times in epoch milliseconds)
        {"submission_id": "raysubmit_a", "status": "SUCCEEDED", "entrypoint": "python main.py",
         "start_time": 1765000000000, "end_time": 1765000005000, "message": "Job finished successfully."},
        {"submission_id": "raysubmit_b", "status": "PENDING", "entrypoint": "python b.py", "start_time": 0},
        {"submission_id": None, "status": "RUNNING", "entrypoint": "a driver started by hand"},
    ]  # fmt: skip
    detail = service.detail(JobKind.ray_cluster, "ray-1")
    assert [(r.submission_id, r.status) for r in detail.ray_jobs] == [
        ("raysubmit_b", "PENDING"),  # not started yet: first
        ("raysubmit_a", "SUCCEEDED"),
    ]
    assert detail.ray_jobs[1].start_time == "2025-12-06T05:46:40Z" and detail.ray_jobs_note is None
    writer.dashboards[path] = {"unexpected": "shape"}
    assert "unknown shape" in service.detail(JobKind.ray_cluster, "ray-1").ray_jobs_note


def test_a_working_dir_goes_to_a_running_cluster_as_rays_package(tmp_path):
    import io
    import zipfile

    (tmp_path / "proj" / ".git").mkdir(parents=True)
    (tmp_path / "proj" / "helper.py").write_text("X = 1\n")
    (tmp_path / "proj" / ".git" / "HEAD").write_text("ref\n")
    hub, writer, service = cluster(files_root=str(tmp_path))
    service.submit(JobRequest.model_validate({"kind": "ray-cluster", "name": "ray-1"}))
    body = RayPackageRequest(workdir="proj")
    with pytest.raises(errors.Conflict, match="not a running Ray cluster"):  # no head yet: nothing packed or sent
        service.ray_package(JobKind.ray_cluster, "ray-1", body)
    hub.get("rayclusters", "ray-1", "team-a")["status"] = {"state": "ready", "readyWorkerReplicas": 1}
    with pytest.raises(errors.ServiceError, match="did not answer"):  # its dashboard does not answer
        service.ray_package(JobKind.ray_cluster, "ray-1", body)
    writer.dashboards[service.dashboard_target(JobKind.ray_cluster, "ray-1", "api/jobs/")[1]] = []
    package = service.ray_package(JobKind.ray_cluster, "ray-1", body)
    assert package.uri.startswith("gcs://_ray_pkg_") and package.uri.endswith(".zip") and package.files == 1
    [(path, data)] = writer.sent.items()
    assert path.endswith(f"ray-1-head-svc:dashboard/proxy/api/packages/gcs/{package.uri[len('gcs://') :]}")
    assert zipfile.ZipFile(io.BytesIO(data)).namelist() == ["helper.py"]  # at the top, as Ray's client packs it
    assert service.ray_package(JobKind.ray_cluster, "ray-1", body).uri == package.uri  # same files, same package
    with pytest.raises(errors.Invalid, match="workdir"):
        service.ray_package(JobKind.ray_cluster, "ray-1", RayPackageRequest(workdir="../elsewhere"))
    _hub, _writer, read_only = cluster(files_root=str(tmp_path), read_only=True)
    with pytest.raises(errors.ReadOnly):
        read_only.ray_package(JobKind.ray_cluster, "ray-1", body)


def test_a_kind_the_account_cannot_list_is_reported_not_visible_and_the_rest_listed():
    hub, _writer, service = cluster()
    service.submit(pytorch(name="train-1"))
    hub.unreadable.add("rayjobs")
    listed = service.list_jobs("namespace")
    assert [j.name for j in listed.jobs] == ["train-1"]
    assert listed.jobs[0].status in (JobStatus.starting, JobStatus.queued)
    assert listed.visibility["ray-job"].visible is False
    assert listed.visibility["ray-job"].message == "not visible to your account"
    with pytest.raises(errors.Invalid) as refused:
        service.list_jobs("everyone")
    assert refused.value.field == "scope"


def test_a_kind_the_cluster_does_not_serve_is_refused_on_the_kind_field():
    hub, _writer, service = cluster()
    del hub.caches["trainjobs"]
    with pytest.raises(errors.Invalid) as refused:
        service.submit(JobRequest.model_validate({"kind": "trainjob", "command": ["true"]}))
    assert refused.value.field == "kind"
    assert "does not serve TrainJob" in refused.value.message


def test_a_maximum_run_time_becomes_kueues_label_with_the_admins_default_and_ceiling():
    hub, _writer, service = cluster(default_max_run_seconds={"ray-cluster": 28800}, max_run_seconds_limit=36000)
    service.submit(JobRequest.model_validate({"kind": "ray-cluster", "name": "ray-1"}))
    service.submit(pytorch(name="train-1", max_run_seconds=3600))
    service.submit(pytorch(name="train-2"))
    labels = {
        o["metadata"]["name"]: o["metadata"]["labels"] for k in ("rayclusters", "pytorchjobs") for o in hub.caches[k]
    }
    assert labels["ray-1"]["kueue.x-k8s.io/max-exec-time-seconds"] == "28800"  # interactive: limited by default
    assert labels["train-1"]["kueue.x-k8s.io/max-exec-time-seconds"] == "3600"
    assert "kueue.x-k8s.io/max-exec-time-seconds" not in labels["train-2"]
    with pytest.raises(errors.Invalid) as refused:
        service.submit(pytorch(max_run_seconds=36001))
    assert refused.value.field == "max_run_seconds" and "at most 36000" in refused.value.message


def test_the_detail_of_a_job_the_caches_have_not_seen_yet_is_read_from_the_api_server():
    hub, writer, service = cluster()
    writer.lagging = True  # the watch has not brought the new job yet
    made, _ = service.submit(pytorch())
    assert hub.caches["pytorchjobs"] == []
    detail = service.detail(JobKind.pytorch, made.job.name)
    assert detail.job.name == made.job.name and detail.job.kind == JobKind.pytorch
    assert ("get", "pytorchjobs", made.job.name) in writer.calls
    with pytest.raises(errors.NotFound):
        service.detail(JobKind.pytorch, "never-made")


def test_a_missing_claim_or_secret_is_refused_naming_each_and_nothing_is_created():
    hub, writer, service = cluster()
    hub.caches["persistentvolumeclaims"] = [{"metadata": {"name": "datasets", "namespace": "team-a"}}]
    request = pytorch(
        name="data-1",
        volumes=[{"claim": "datasets", "mount_path": "/data"}, {"claim": "nope", "mount_path": "/ckpt"}],
        secrets=[{"name": "missing-connection"}],
        image_pull_secrets=["quay-pull"],
    )
    with pytest.raises(errors.Invalid) as refused:
        service.submit(request)
    fields = {e.field: e.message for e in refused.value.errors}
    assert fields == {
        "volumes[1].claim": "no PersistentVolumeClaim 'nope' in namespace team-a",
        "secrets[0].name": "no Secret 'missing-connection' in namespace team-a",
        "image_pull_secrets[0]": "no Secret 'quay-pull' in namespace team-a",
    }
    assert not [c for c in writer.calls if c[0].startswith("create")]


def test_data_sources_list_claims_with_a_note_and_connections_by_metadata_only():
    hub, writer, service = cluster()
    hub.caches["persistentvolumeclaims"] = [
        {"metadata": {"name": "shared-data", "namespace": "team-a"},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                  "storageClassName": "local"},
         "status": {"phase": "Bound", "capacity": {"storage": "2Gi"}}},
        {"metadata": {"name": "team-scratch", "namespace": "team-a"},
         "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "5Gi"}}}},
    ]  # fmt: skip
    hub.caches["secrets"] = [
        {"metadata": {"name": "s3-bucket", "namespace": "team-a",
                      "annotations": {"opendatahub.io/connection-type-ref": "s3", "openshift.io/display-name": "Bucket"}},
         "data": {"AWS_SECRET_ACCESS_KEY": "c2VjcmV0"}},
        {"metadata": {"name": "default-token", "namespace": "team-a"}, "data": {"token": "dG9r"}},
    ]  # fmt: skip
    out = service.data_sources()
    assert [(c.name, c.capacity, c.phase) for c in out.claims] == [
        ("shared-data", "2Gi", "Bound"),
        ("team-scratch", "5Gi", None),
    ]
    assert out.claims[0].note and out.claims[0].note.startswith("ReadWriteOnce: it binds to one node")
    assert out.claims[1].note is None  # ReadWriteMany: nothing to warn about
    assert [(c.name, c.display_name, c.connection_type) for c in out.connections] == [("s3-bucket", "Bucket", "s3")]
    assert "c2VjcmV0" not in out.model_dump_json() and ("list_metadata", "secrets", "") in writer.calls
