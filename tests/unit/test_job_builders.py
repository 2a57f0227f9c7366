"""Job builders: exact structure of the fields that matter to KubeRay, Kubeflow and Kueue."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal

import pytest

from jupyter_accel.domain import labels as L
from jupyter_accel.domain.builders import BuildContext, build_objects, demands, pod_sets, with_owner
from jupyter_accel.domain.builders.common import worker_resources
from jupyter_accel.domain.builders.raycluster import ray_start_params
from jupyter_accel.domain.builders.script import MAX_SCRIPT_BYTES
from jupyter_accel.domain.kinds.trainjob import SPEC as trainjob_spec
from jupyter_accel.models import JobRequest

GPU = "nvidia.com/gpu"
CTX = BuildContext(
    namespace="team-a",
    image="rayproject/ray:2.52.0-gpu",
    queue="team-a-queue",
    workbench="/notebook/team-a/alice-wb",
    known_accelerators=[GPU, "habana.ai/gaudi", "nvidia.com/mig-1g.5gb"],
    name_suffix="x7k2p",
)
# What hardware_profiles.apply_profile() gives, as dataclasses.asdict() writes it (Node scheduling).
NODE_PROFILE = {
    "requests": {"cpu": "8", "memory": "32Gi", GPU: "1"},
    "limits": {GPU: "1"},
    "node_selector": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "labels": {},
    "annotations": {L.HARDWARE_PROFILE_NAME: "h100", L.HARDWARE_PROFILE_NAMESPACE: "opendatahub"},
    "queue_name": None,
    "priority_class": None,
}
QUEUE_PROFILE = {
    "requests": {"cpu": "4", "memory": "16Gi", GPU: "2"},
    "limits": {GPU: "2"},
    "queue_name": "gpu-queue",
    "priority_class": "high",
}


def req(**body) -> JobRequest:
    return JobRequest.model_validate(body)


def build(ctx: BuildContext = CTX, **body):
    return build_objects(req(**body), ctx)


def test_raycluster_structure():
    [rc] = build(
        kind="ray-cluster",
        name="rc-gpu",
        workers=2,
        accelerators={"resource": GPU, "count": 1},
        cpu="8",
        memory="32Gi",
        head={"cpu": "2", "memory": "8Gi"},
        env={"HF_HOME": "/data"},
    )
    assert rc["apiVersion"] == "ray.io/v1" and rc["kind"] == "RayCluster"
    assert rc["metadata"]["name"] == "rc-gpu" and rc["metadata"]["namespace"] == "team-a"
    assert rc["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "jupyter-accel",
        "jupyter-accel.io/kind": "ray-cluster",
        "jupyter-accel.io/workbench": "alice-wb",
        "kueue.x-k8s.io/queue-name": "team-a-queue",
    }
    assert rc["metadata"]["annotations"] == {"jupyter-accel.io/workbench-prefix": "/notebook/team-a/alice-wb"}
    spec = rc["spec"]
    assert "suspend" not in spec and "enableInTreeAutoscaling" not in spec  # Kueue owns suspension
    assert spec["rayVersion"] == "2.52.0"
    head = spec["headGroupSpec"]
    assert head["rayStartParams"] == {}
    [hc] = head["template"]["spec"]["containers"]
    assert hc == {
        "name": "ray-head",
        "image": "rayproject/ray:2.52.0-gpu",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"cpu": "2", "memory": "8Gi"}},
        "env": [{"name": "HF_HOME", "value": "/data"}],
    }
    assert "kueue.x-k8s.io/queue-name" not in head["template"]["metadata"]["labels"]
    assert head["template"]["metadata"]["labels"][L.ROLE] == "head"
    [group] = spec["workerGroupSpecs"]
    assert {k: group[k] for k in ("groupName", "replicas", "minReplicas", "maxReplicas", "rayStartParams")} == {
        "groupName": "workers",
        "replicas": 2,
        "minReplicas": 2,
        "maxReplicas": 2,
        "rayStartParams": {"num-gpus": "1"},
    }
    [wc] = group["template"]["spec"]["containers"]
    assert wc["name"] == "ray-worker"
    assert wc["resources"] == {
        "requests": {"cpu": "8", "memory": "32Gi", GPU: "1"},
        "limits": {"cpu": "8", "memory": "32Gi", GPU: "1"},
    }


def test_head_only_cluster_has_no_worker_group():
    [rc] = build(kind="ray-cluster", workers=0)
    assert "workerGroupSpecs" not in rc["spec"]
    assert [d.role for d in pod_sets(rc)] == ["head"]


def test_ray_start_params_for_non_gpu_accelerators():
    assert ray_start_params({GPU: 2}) == {"num-gpus": "2"}
    assert ray_start_params({"nvidia.com/mig-1g.5gb": 1}) == {"num-gpus": "1"}
    assert ray_start_params({"amd.com/gpu": 4}) == {"num-gpus": "4"}
    gaudi = ray_start_params({"habana.ai/gaudi": 8})
    assert gaudi == {"resources": '"{\\"HPU\\": 8}"'}
    assert json.loads(json.loads(gaudi["resources"])) == {"HPU": 8}
    assert ray_start_params({}) == {}
    [rc] = build(kind="ray-cluster", accelerators={"resource": "habana.ai/gaudi", "count": 8})
    assert rc["spec"]["workerGroupSpecs"][0]["rayStartParams"] == {"resources": '"{\\"HPU\\": 8}"'}


def test_rayjob_structure_and_kueue_constraints():
    [rj] = build(
        kind="ray-job",
        name="rj-demo",
        entrypoint="python -c 'import ray; ray.init()'",
        runtime_env={"pip": ["numpy"], "env_vars": {"A": "1"}},
        workers=1,
        accelerators={"resource": GPU, "count": 1},
        client_request_id="cell-42-try",
    )
    assert rj["kind"] == "RayJob"
    spec = rj["spec"]
    assert spec["entrypoint"] == "python -c 'import ray; ray.init()'"
    assert spec["shutdownAfterJobFinishes"] is True
    assert spec["ttlSecondsAfterFinished"] == 600
    assert spec["submissionMode"] == "K8sJobMode"
    assert "clusterSelector" not in spec and "deletionStrategy" not in spec and "suspend" not in spec
    assert json.loads(spec["runtimeEnvYAML"]) == {"env_vars": {"A": "1"}, "pip": ["numpy"]}
    assert spec["rayClusterSpec"]["workerGroupSpecs"][0]["rayStartParams"] == {"num-gpus": "1"}
    [sub] = spec["submitterPodTemplate"]["spec"]["containers"]
    assert sub["name"] == "ray-job-submitter" and "command" not in sub  # KubeRay fills in `ray job submit`
    assert rj["metadata"]["labels"][L.REQUEST_ID] == "cell-42-try"
    assert rj["metadata"]["annotations"][L.REQUEST_ID] == "cell-42-try"
    [again] = build(kind="ray-job", entrypoint="x", ttl_seconds_after_finished=0)
    assert again["spec"]["ttlSecondsAfterFinished"] == 0


def test_pytorchjob_structure():
    [pj] = build(
        replace(CTX, image="pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime"),
        kind="pytorch",
        name="ddp-demo",
        workers=3,
        command=["torchrun", "/workspace/train.py"],
        accelerators={"resource": GPU, "count": 2},
        cpu="4",
        memory="16Gi",
        ttl_seconds_after_finished=3600,
    )
    assert pj["apiVersion"] == "kubeflow.org/v1" and pj["kind"] == "PyTorchJob"
    spec = pj["spec"]
    assert spec["nprocPerNode"] == "2"  # a string, from the GPUs per pod
    assert spec["runPolicy"] == {"cleanPodPolicy": "Running", "backoffLimit": 0, "ttlSecondsAfterFinished": 3600}
    master, worker = spec["pytorchReplicaSpecs"]["Master"], spec["pytorchReplicaSpecs"]["Worker"]
    assert (master["replicas"], worker["replicas"]) == (1, 2)
    assert master["restartPolicy"] == worker["restartPolicy"] == "Never"  # the failed pod keeps its exit code
    for rs in (master, worker):
        [c] = rs["template"]["spec"]["containers"]
        assert c["name"] == "pytorch" and c["image"] == "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime"
        assert c["command"] == ["torchrun", "/workspace/train.py"]
        assert c["resources"]["limits"] == {"cpu": "4", "memory": "16Gi", GPU: "2"}
    assert [(d.role, d.count) for d in pod_sets(pj)] == [("master", 1), ("worker", 2)]


def test_pytorchjob_single_node_and_nproc():
    [pj] = build(kind="pytorch", command=["python", "t.py"], workers=1)
    assert list(pj["spec"]["pytorchReplicaSpecs"]) == ["Master"]
    assert pj["spec"]["nprocPerNode"] == "1"  # not "auto": that is one process per CPU
    [pj] = build(kind="pytorch", command=["python", "t.py"], nproc_per_node=4)
    assert pj["spec"]["nprocPerNode"] == "4"


def test_trainjob_structure():
    [tj] = build(
        replace(CTX, image="pytorch/pytorch:2.7.1"),
        kind="trainjob",
        name="tj-demo",
        workers=3,
        command=["torchrun", "/workspace/train.py"],
        accelerators={"resource": GPU, "count": 1},
        env={"NCCL_DEBUG": "INFO"},
    )
    assert tj["apiVersion"] == "trainer.kubeflow.org/v1alpha1" and tj["kind"] == "TrainJob"
    spec = tj["spec"]
    assert spec["runtimeRef"] == {
        "name": "torch-distributed",
        "apiGroup": "trainer.kubeflow.org",
        "kind": "ClusterTrainingRuntime",
    }
    assert spec["trainer"] == {
        "image": "pytorch/pytorch:2.7.1",
        "command": ["torchrun", "/workspace/train.py"],
        "numNodes": 3,
        "numProcPerNode": 1,
        "env": [{"name": "NCCL_DEBUG", "value": "INFO"}],
        "resourcesPerNode": {
            "requests": {"cpu": "1", "memory": "4Gi", GPU: "1"},
            "limits": {"cpu": "1", "memory": "4Gi", GPU: "1"},
        },
    }
    assert "runtimePatches" not in spec and "podTemplateOverrides" not in spec
    assert tj["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a-queue"
    [tj] = build(kind="trainjob", command=["x"], runtime="deepspeed-distributed")
    assert tj["spec"]["runtimeRef"]["name"] == "deepspeed-distributed"


def test_hardware_profile_node_scheduling_applies_to_worker_pods_only():
    ctx = replace(CTX, profile=NODE_PROFILE)
    [rc] = build(ctx, kind="ray-cluster", hardware_profile="h100", workers=2)
    worker = rc["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    assert worker["nodeSelector"] == {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
    assert worker["tolerations"] == NODE_PROFILE["tolerations"]
    assert worker["containers"][0]["resources"] == {
        "requests": {"cpu": "8", "memory": "32Gi", GPU: "1"},
        "limits": {GPU: "1"},
    }
    head = rc["spec"]["headGroupSpec"]["template"]["spec"]
    assert "nodeSelector" not in head and "tolerations" not in head
    assert rc["metadata"]["annotations"][L.HARDWARE_PROFILE_NAME] == "h100"
    assert rc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a-queue"  # server default kept
    # explicit cpu/memory in the request override the profile's defaults
    [rc] = build(ctx, kind="ray-cluster", hardware_profile="h100", cpu="2")
    res = rc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["resources"]
    assert res["requests"]["cpu"] == res["limits"]["cpu"] == "2" and res["requests"]["memory"] == "32Gi"


def test_profile_is_ignored_unless_the_request_names_one():
    [rc] = build(replace(CTX, profile=NODE_PROFILE), kind="ray-cluster")
    worker = rc["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    assert "nodeSelector" not in worker and GPU not in worker["containers"][0]["resources"]["limits"]


def test_queue_precedence_request_then_profile_then_server():
    ctx = replace(CTX, profile=QUEUE_PROFILE)
    [rc] = build(ctx, kind="ray-cluster", hardware_profile="gpu")
    assert rc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "gpu-queue"
    assert rc["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "high"
    [rc] = build(ctx, kind="ray-cluster", hardware_profile="gpu", queue="mine", priority_class="low")
    assert rc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "mine"
    assert rc["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "low"
    [rc] = build(replace(CTX, queue=None), kind="ray-cluster")
    assert "kueue.x-k8s.io/queue-name" not in rc["metadata"]["labels"]


# what the API server publishes for Trainer 2.1's TrainJob (OpenAPI v3), trimmed to the fields that tell
TRAINER_2_1_SCHEMA = {"properties": {"spec": {"properties": {"podTemplateOverrides": {}, "trainer": {}}}}}


def test_trainjob_placement_and_script_through_the_version_override():
    ctx = replace(CTX, profile=NODE_PROFILE)
    tj, _cm = build(ctx, kind="trainjob", name="tj", hardware_profile="h100", script={"text": "print(1)"})
    [patch] = tj["spec"]["runtimePatches"]
    assert patch["manager"] == "jupyter-accel.io/launcher"
    [rj] = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]
    assert rj["name"] == "node"
    pod = rj["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == NODE_PROFILE["node_selector"]
    assert pod["tolerations"] == NODE_PROFILE["tolerations"]
    assert pod["volumes"] == [{"name": "jupyter-accel-script", "configMap": {"name": "tj-script"}}]
    assert pod["containers"] == [
        {
            "name": "node",
            "volumeMounts": [
                {"name": "jupyter-accel-script", "mountPath": "/opt/jupyter-accel/script", "readOnly": True}
            ],
        }
    ]
    assert tj["spec"]["trainer"]["command"] == ["torchrun", "/opt/jupyter-accel/script/main.py"]
    old, _ = build(
        replace(ctx, kind_options=trainjob_spec.build_options(TRAINER_2_1_SCHEMA)),
        kind="trainjob",
        name="tj",
        hardware_profile="h100",
        script={"text": "print(1)"},
    )
    assert "runtimePatches" not in old["spec"]
    assert old["spec"]["podTemplateOverrides"] == [{"targetJobs": [{"name": "node"}], "spec": pod}]
    for obj in (tj, old):
        [d] = pod_sets(obj)
        assert d.node_selector == NODE_PROFILE["node_selector"] and d.tolerations == NODE_PROFILE["tolerations"]


def test_script_becomes_a_configmap_mounted_and_run():
    rj, cm = build(
        kind="ray-job",
        name="cell",
        workers=1,
        script={"text": "import ray\nray.init()\n", "filename": "cell.py", "args": ["--n", "a b"]},
    )
    assert cm["apiVersion"] == "v1" and cm["kind"] == "ConfigMap"
    assert cm["metadata"]["name"] == "cell-script" and cm["metadata"]["namespace"] == "team-a"
    assert cm["data"] == {"cell.py": "import ray\nray.init()\n"}
    assert cm["metadata"]["labels"][L.MANAGED_BY] == "jupyter-accel"
    assert cm["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a-queue"
    assert rj["spec"]["entrypoint"] == "python /opt/jupyter-accel/script/cell.py --n 'a b'"
    cluster = rj["spec"]["rayClusterSpec"]
    for template in (cluster["headGroupSpec"]["template"], cluster["workerGroupSpecs"][0]["template"]):
        assert template["spec"]["volumes"] == [{"name": "jupyter-accel-script", "configMap": {"name": "cell-script"}}]
        assert template["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] == "/opt/jupyter-accel/script"
    pj, _ = build(kind="pytorch", name="ddp", workers=2, script={"text": "print(1)"})
    for rs in pj["spec"]["pytorchReplicaSpecs"].values():
        assert rs["template"]["spec"]["containers"][0]["command"] == ["torchrun", "/opt/jupyter-accel/script/main.py"]
    pj, _ = build(kind="pytorch", name="ddp", script={"text": "echo hi", "interpreter": "bash", "filename": "a.sh"})
    assert pj["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["command"] == [
        "bash",
        "/opt/jupyter-accel/script/a.sh",
    ]


def test_oversized_script_is_refused_by_the_builder_too():
    with pytest.raises(ValueError, match=r"script\.text"):
        build(kind="ray-job", script={"text": "x" * (MAX_SCRIPT_BYTES + 1)})


def test_with_owner_links_the_configmap_to_the_created_job():
    rj, cm = build(kind="ray-job", name="cell", script={"text": "print(1)"})
    created = {**rj, "metadata": {**rj["metadata"], "uid": "1234-uid"}}
    owned = with_owner(cm, created)
    assert owned["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "ray.io/v1",
            "kind": "RayJob",
            "name": "cell",
            "uid": "1234-uid",
            "controller": False,
            "blockOwnerDeletion": False,
        }
    ]
    assert "ownerReferences" not in cm["metadata"]  # a copy; the input is untouched


def test_generated_names_are_stable_per_client_request_id():
    a = build(replace(CTX, name_suffix="aaaaa"), kind="ray-cluster", client_request_id="req-1")[0]
    b = build(replace(CTX, name_suffix="bbbbb"), kind="ray-cluster", client_request_id="req-1")[0]
    c = build(CTX, kind="ray-cluster", client_request_id="req-2")[0]
    assert a["metadata"]["name"] == b["metadata"]["name"] != c["metadata"]["name"]
    assert a["metadata"]["name"].startswith("ray-") and len(a["metadata"]["name"]) == 9
    assert build(CTX, kind="pytorch", command=["x"])[0]["metadata"]["name"] == "ddp-x7k2p"
    with pytest.raises(ValueError, match="name"):
        build(replace(CTX, name_suffix=""), kind="ray-cluster")


def test_user_labels_are_kept_but_ours_win():
    [rc] = build(kind="ray-cluster", labels={"team": "vision", "app.kubernetes.io/managed-by": "someone"})
    assert rc["metadata"]["labels"]["team"] == "vision"
    assert rc["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "jupyter-accel"


def test_image_default_and_override():
    [rc] = build(kind="ray-cluster", image="quay.io/me/ray:2.49.1-py311")
    assert rc["spec"]["rayVersion"] == "2.49.1"
    assert rc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] == "quay.io/me/ray:2.49.1-py311"
    [rc] = build(replace(CTX, image="registry/ray:latest"), kind="ray-cluster")
    assert "rayVersion" not in rc["spec"]
    with pytest.raises(ValueError, match="image"):
        build(replace(CTX, image=None), kind="ray-cluster")


def test_demands_match_the_built_pods():
    body = {
        "kind": "ray-job",
        "entrypoint": "x",
        "workers": 3,
        "accelerators": {"resource": GPU, "count": 2},
        "cpu": "4",
        "memory": "16Gi",
    }
    ds = {d.role: d for d in demands(req(**body), CTX)}
    assert set(ds) == {"head", "workers", "submitter"}
    assert ds["workers"].count == 3
    assert ds["workers"].requests == {"cpu": Decimal(4), "memory": Decimal(16 * 2**30), GPU: Decimal(2)}
    assert ds["head"].requests == {"cpu": Decimal(1), "memory": Decimal(4 * 2**30)}
    assert ds["submitter"].requests == {"cpu": Decimal("0.5"), "memory": Decimal(200 * 2**20)}
    # unnamed requests without a suffix can still be sized
    assert demands(req(kind="pytorch", command=["x"], workers=2), replace(CTX, name_suffix=""))[1].count == 1
    ctx = replace(CTX, profile=NODE_PROFILE)
    [head, workers] = demands(req(kind="ray-cluster", hardware_profile="h100", workers=2), ctx)
    assert workers.node_selector == NODE_PROFILE["node_selector"] and head.node_selector == {}
    assert workers.requests[GPU] == 1


def test_worker_resources_without_known_list_treat_extended_resources_as_accelerators():
    ctx = replace(CTX, known_accelerators=None, profile={"requests": {"amd.com/gpu": "1", "cpu": "2"}})
    res = worker_resources(req(kind="ray-cluster", hardware_profile="p"), ctx)
    assert res["limits"] == {"amd.com/gpu": "1", "memory": "4Gi"}  # the accelerator's limit mirrors its request
    assert res["requests"] == {"amd.com/gpu": "1", "cpu": "2", "memory": "4Gi"}


def _pull_secret_lists(node) -> list:
    if isinstance(node, dict):
        here = [node["imagePullSecrets"]] if "imagePullSecrets" in node else []
        return here + [x for v in node.values() for x in _pull_secret_lists(v)]
    if isinstance(node, list):
        return [x for v in node for x in _pull_secret_lists(v)]
    return []


def test_every_pod_of_every_kind_gets_the_image_pull_secrets():
    from jupyter_accel.domain.builders import build_objects
    from jupyter_accel.domain.builders.common import BuildContext

    ctx = BuildContext(namespace="team-a", image="reg.example/private:1", queue="default", known_accelerators=[])
    bodies = {
        "ray-cluster": {"workers": 1},
        "ray-job": {"entrypoint": "python -c 1", "workers": 1},
        "pytorch": {"command": ["python", "x.py"], "workers": 2},
        "trainjob": {"command": ["python", "x.py"], "workers": 2},
    }
    for kind, body in bodies.items():
        req = JobRequest.model_validate({"kind": kind, "name": "p", "image_pull_secrets": ["quay-pull"], **body})
        found = _pull_secret_lists(build_objects(req, ctx)[0])
        pods = {"ray-cluster": 2, "ray-job": 3, "pytorch": 2, "trainjob": 1}[kind]  # head+workers(+submitter), ...
        assert found == [[{"name": "quay-pull"}]] * pods, (kind, found)


def test_autoscaling_raycluster_is_an_elastic_job_with_its_groups():
    body = dict(
        kind="ray-cluster",
        name="elastic",
        workers=1,
        max_workers=4,
        accelerators={"resource": GPU, "count": 1},
        worker_groups=[{"name": "cpu", "workers": 2, "cpu": "4", "memory": "8Gi"}],
    )
    [rc] = build(**body)
    assert rc["metadata"]["annotations"]["kueue.x-k8s.io/elastic-job"] == "true"
    assert rc["spec"]["enableInTreeAutoscaling"] is True
    gpu, cpu = rc["spec"]["workerGroupSpecs"]
    assert (gpu["groupName"], gpu["replicas"], gpu["minReplicas"], gpu["maxReplicas"]) == ("workers", 1, 1, 4)
    assert gpu["rayStartParams"] == {"num-gpus": "1"}
    assert (cpu["groupName"], cpu["replicas"], cpu["minReplicas"], cpu["maxReplicas"]) == ("cpu", 2, 2, 2)
    assert cpu["rayStartParams"] == {}
    assert cpu["template"]["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "4", "memory": "8Gi"},
        "limits": {"cpu": "4", "memory": "8Gi"},
    }
    # the fit check counts what Kueue reserves: the head with KubeRay's autoscaler sidecar, groups at their minimum
    sets = {d.role: d for d in pod_sets(rc)}
    assert sets["head"].requests["cpu"] == Decimal("1.5")
    assert (sets["workers"].count, sets["cpu"].count) == (1, 2)
    # no queue: Ray's autoscaler alone, no Kueue annotation
    [plain] = build(replace(CTX, queue=None), **body)
    assert "kueue.x-k8s.io/elastic-job" not in (plain["metadata"].get("annotations") or {})


def test_fixed_size_groups_do_not_autoscale_and_empty_groups_are_left_out():
    [rc] = build(kind="ray-cluster", name="fixed", workers=0, worker_groups=[{"name": "cpu", "workers": 2}])
    assert "enableInTreeAutoscaling" not in rc["spec"]
    assert [g["groupName"] for g in rc["spec"]["workerGroupSpecs"]] == ["cpu"]
    [job] = build(kind="ray-job", name="rj", entrypoint="true", worker_groups=[{"name": "cpu", "workers": 1}])
    assert [g["groupName"] for g in job["spec"]["rayClusterSpec"]["workerGroupSpecs"]] == ["workers", "cpu"]
