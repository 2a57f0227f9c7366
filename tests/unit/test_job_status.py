"""Unified job status from Workload + job CR + pods, for every kind, incl. the contradictions upstream has."""

from __future__ import annotations

import pytest

from jupyter_accel.domain.job_status import (
    JobSeen,
    ViewRules,
    accelerators_held,
    derive_status,
    job_view,
    pod_reason,
    pod_selectors,
    select_pods,
)
from jupyter_accel.models import JobKind, JobStatus

GPU = "nvidia.com/gpu"
T0 = "2026-12-02T10:00:00Z"
T1 = "2026-12-02T10:05:00Z"
T2 = "2026-12-02T11:00:00Z"


def cond(ctype: str, status: str = "True", reason: str = "", message: str = "", at: str = T1) -> dict:
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": at}


def workload(*conditions: dict, cq: str | None = "gpu-cq", active: bool = True, **status) -> dict:
    wl = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "rayjob-rj-1a2b3", "namespace": "team-a", "labels": {"kueue.x-k8s.io/job-uid": "u1"}},
        "spec": {
            "queueName": "team-a-queue",
            "priority": 100,
            "active": active,
            "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"},
            "podSets": [{"name": "head", "count": 1}],
        },
        "status": {"conditions": list(conditions), **status},
    }
    if cq and any(c["type"] == "QuotaReserved" and c["status"] == "True" for c in conditions):
        wl["status"]["admission"] = {"clusterQueue": cq, "podSetAssignments": []}
    return wl


def admitted_wl(*more: dict) -> dict:
    return workload(cond("QuotaReserved", reason="QuotaReserved"), cond("Admitted", reason="Admitted"), *more)


PENDING_WL = workload(
    cond(
        "QuotaReserved",
        "False",
        "Pending",
        "couldn't assign flavors to pod set workers: insufficient unused quota for nvidia.com/gpu "
        "in flavor gpu-a100, 2 more needed",
    )
)


def pod(
    name: str,
    labels: dict,
    phase: str = "Running",
    ready: bool = True,
    node: str | None = "gpu-node-1",
    gpus: int = 0,
    **status,
) -> dict:
    resources = {
        "requests": {"cpu": "1", "memory": "4Gi", **({GPU: str(gpus)} if gpus else {})},
        "limits": {GPU: str(gpus)} if gpus else {},
    }
    p = {
        "metadata": {"name": name, "namespace": "team-a", "labels": labels},
        "spec": {"containers": [{"name": "main", "resources": resources}], **({"nodeName": node} if node else {})},
        "status": {
            "phase": phase,
            "startTime": T0 if phase != "Pending" else None,
            "conditions": [
                cond("PodScheduled", "True" if node else "False"),
                cond("Ready", "True" if ready else "False"),
            ],
            **status,
        },
    }
    return p


def ray_pod(cluster: str, node_type: str, name: str, **kw) -> dict:
    labels = {
        "ray.io/cluster": cluster,
        "ray.io/node-type": node_type,
        "ray.io/group": "headgroup" if node_type == "head" else "workers",
    }
    return pod(name, labels, **kw)


def unschedulable(name: str, labels: dict) -> dict:
    p = pod(name, labels, phase="Pending", ready=False, node=None, gpus=1)
    p["status"]["conditions"] = [
        cond("PodScheduled", "False", "Unschedulable", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.")
    ]
    return p


def raycluster(name: str = "rc", *, labels: dict | None = None, workers: int = 2, **status) -> dict:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {
            "name": name,
            "namespace": "team-a",
            "uid": "u1",
            "creationTimestamp": T0,
            "labels": labels
            if labels is not None
            else {"kueue.x-k8s.io/queue-name": "team-a-queue", "app.kubernetes.io/managed-by": "jupyter-accel"},
        },
        "spec": {
            "headGroupSpec": {"template": {"spec": {"containers": [{"name": "ray-head"}]}}},
            "workerGroupSpecs": [
                {
                    "groupName": "workers",
                    "replicas": workers,
                    "template": {"spec": {"containers": [{"name": "ray-worker", "resources": {"limits": {GPU: "1"}}}]}},
                }
            ],
        },
        "status": status,
    }


def rayjob(**status) -> dict:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {
            "name": "rj",
            "namespace": "team-a",
            "uid": "u2",
            "creationTimestamp": T0,
            "labels": {"kueue.x-k8s.io/queue-name": "team-a-queue"},
        },
        "spec": {
            "entrypoint": "python x.py",
            "shutdownAfterJobFinishes": True,
            "rayClusterSpec": raycluster(workers=1)["spec"],
        },
        "status": status,
    }


def pytorchjob(*conditions: dict, suspend: bool = False, **status) -> dict:
    tmpl = {"spec": {"containers": [{"name": "pytorch", "resources": {"limits": {GPU: "1"}}}]}}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {
            "name": "ddp",
            "namespace": "team-a",
            "uid": "u3",
            "labels": {"kueue.x-k8s.io/queue-name": "team-a-queue"},
        },
        "spec": {
            "runPolicy": {"suspend": suspend},
            "pytorchReplicaSpecs": {
                "Master": {"replicas": 1, "template": tmpl},
                "Worker": {"replicas": 2, "template": tmpl},
            },
        },
        "status": {"conditions": list(conditions), **status},
    }


def trainjob(*conditions: dict, suspend: bool = False, jobs: list | None = None) -> dict:
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "tj", "namespace": "team-a", "uid": "u4", "labels": {}},
        "spec": {
            "suspend": suspend,
            "runtimeRef": {"name": "torch-distributed"},
            "trainer": {"numNodes": 2, "resourcesPerNode": {"limits": {GPU: "4"}}},
        },
        "status": {"conditions": list(conditions), "jobsStatus": jobs or []},
    }


def status_of(obj, wl=None, pods=()):
    return derive_status(obj, wl, list(pods))


# ----------------------------------------------------------------------------------------------- queueing


def test_queued_with_kueue_reason_and_message():
    st, why = status_of(raycluster(), PENDING_WL)
    assert st is JobStatus.queued
    # our sentence (the one /workloads gives this Workload), Kueue's own words beside it as detail
    assert why.startswith("Waiting for quota") and "2 more than is free" in why
    view = job_view(raycluster(), JobSeen(workload=PENDING_WL))
    assert view.display.sentence == why and "2 more needed" in (view.display.detail or "")


def test_granular_queue_reasons_become_plain_sentences():
    wl = workload(cond("QuotaReserved", "False", "ExceedsMaxQuota", "request exceeds nominal quota"))
    st, why = status_of(rayjob(jobDeploymentStatus="Suspended"), wl)
    assert st is JobStatus.queued and "Can never be admitted" in why and "nominal quota" in why
    display = job_view(rayjob(jobDeploymentStatus="Suspended"), JobSeen(workload=wl, position=0)).display
    assert (display.label, display.tone, display.place) == ("Can never start", "error", None)


def test_evicted_and_requeued_is_queued_with_the_eviction_reason():
    wl = workload(
        cond("QuotaReserved", "False", "Pending", "waiting"),
        cond("Evicted", "True", "PodsReadyTimeout", "Exceeded the PodsReady timeout default/rj"),
        requeueState={"count": 1, "requeueAt": T2},
    )
    st, why = status_of(pytorchjob(cond("Suspended", reason="PyTorchJobSuspended"), suspend=True), wl)
    assert st is JobStatus.queued
    assert "PodsReadyTimeout" in why and "next try at 11:00" in why


def test_quota_reserved_but_checks_pending_is_still_queued():
    wl = workload(
        cond("QuotaReserved"),
        cond("Admitted", "False", "UnsatisfiedChecks"),
        admissionChecks=[{"name": "provisioning", "state": "Pending", "message": "waiting for nodes"}],
    )
    st, why = status_of(raycluster(), wl)
    assert st is JobStatus.queued and "gpu-cq" in why and "provisioning (Pending: waiting for nodes)" in why


def test_labelled_but_no_workload_yet():
    rc = raycluster()
    rc["spec"]["suspend"] = True  # set by Kueue's webhook at creation
    st, why = status_of(rc)
    assert st is JobStatus.queued and "Workload" in why


def test_deactivated_workload_is_suspended_by_the_user():
    wl = workload(cond("QuotaReserved", "False", "Inactive"), cond("Evicted", "True", "Deactivated"), active=False)
    assert status_of(rayjob(jobDeploymentStatus="Suspended"), wl)[0] is JobStatus.suspended


def test_user_suspended_without_kueue():
    rc = raycluster(labels={})
    rc["spec"]["suspend"] = True
    assert status_of(rc) == (JobStatus.suspended, "Suspended.")
    tj = trainjob(cond("Suspended", reason="Suspended"), suspend=True)
    assert status_of(tj)[0] is JobStatus.suspended


# --------------------------------------------------------------------------------------- admitted / starting


def test_admitted_while_the_cr_still_reads_suspended():
    # kueue #11931: admitted, the operator has not resumed it yet
    st, why = status_of(rayjob(jobDeploymentStatus="Suspended"), admitted_wl())
    assert st is JobStatus.admitted and "gpu-cq" in why


def test_admitted_while_the_cr_still_reads_suspended_names_a_pod_that_cannot_start():
    # the class of #27's lag: any admitted job whose pod already shows why it cannot be placed says so at once
    pods = [
        ray_pod("rj-raycluster", "head", "rj-head-abc"),
        unschedulable("rj-worker-x", {"ray.io/cluster": "rj-raycluster", "ray.io/node-type": "worker"}),
    ]
    st, why = status_of(rayjob(jobDeploymentStatus="Suspended"), admitted_wl(), pods)
    assert st is JobStatus.starting and "rj-worker-x: Unschedulable" in why and "1 of 2 pods not ready" in why


def test_admitted_no_pods_yet():
    st, _ = status_of(pytorchjob(cond("Created", reason="PyTorchJobCreated")), admitted_wl())
    assert st is JobStatus.admitted


def test_starting_with_unschedulable_pod_reason():
    pods = [
        ray_pod("rc", "head", "rc-head-abc"),
        unschedulable("rc-workers-worker-x", {"ray.io/cluster": "rc", "ray.io/node-type": "worker"}),
    ]
    st, why = status_of(
        raycluster(conditions=[cond("HeadPodReady")], readyWorkerReplicas=0, desiredWorkerReplicas=1),
        admitted_wl(),
        pods,
    )
    assert st is JobStatus.starting
    assert "1 of 2 pods not ready" in why and "Unschedulable" in why and "Insufficient nvidia.com/gpu" in why


def test_starting_with_image_pull_backoff():
    p = pod(
        "ddp-master-0",
        {"training.kubeflow.org/job-name": "ddp", "training.kubeflow.org/replica-type": "master"},
        phase="Pending",
        ready=False,
    )
    p["status"]["containerStatuses"] = [
        {
            "name": "pytorch",
            "restartCount": 0,
            "state": {
                "waiting": {"reason": "ImagePullBackOff", "message": 'Back-off pulling image "pytorch/pytorch:nope"'}
            },
        }
    ]
    st, why = status_of(pytorchjob(cond("Created")), None, [p])
    assert st is JobStatus.starting and "pytorch: ImagePullBackOff" in why and "nope" in why


def test_cr_says_running_but_a_pod_is_pending_is_starting():
    # never from one field alone: the operator's Running flag while a worker cannot be scheduled
    pods = [
        pod("ddp-master-0", {"training.kubeflow.org/job-name": "ddp"}),
        unschedulable("ddp-worker-0", {"training.kubeflow.org/job-name": "ddp"}),
    ]
    st, why = status_of(pytorchjob(cond("Created"), cond("Running", reason="PyTorchJobRunning")), admitted_wl(), pods)
    assert st is JobStatus.starting and "ddp-worker-0" in why


def test_raycluster_starting_reasons_without_pods():
    st, why = status_of(raycluster(labels={}))
    assert st is JobStatus.starting and "head pod" in why
    failure = cond("ReplicaFailure", reason="FailedCreateWorkerPod", message='pods "x" is forbidden: quota')
    st, why = status_of(raycluster(labels={}, conditions=[failure]))
    assert st is JobStatus.starting and "forbidden" in why


def test_rayjob_initializing_shows_operator_message():
    st, why = status_of(
        rayjob(jobDeploymentStatus="Initializing"),
        admitted_wl(),
        [ray_pod("rj-abcde", "head", "h", ready=False, phase="Pending", node=None)],
    )
    assert st is JobStatus.starting
    st, why = status_of(rayjob(jobDeploymentStatus="Initializing", message="RayCluster rj-abcde is not ready"))
    assert st is JobStatus.starting and "not ready" in why


# -------------------------------------------------------------------------------------------------- running


def test_raycluster_running_needs_head_ready_and_all_workers():
    pods = [
        ray_pod("rc", "head", "rc-head"),
        ray_pod("rc", "worker", "w1", gpus=1),
        ray_pod("rc", "worker", "w2", gpus=1),
    ]
    ok = raycluster(
        state="ready",
        conditions=[cond("HeadPodReady"), cond("RayClusterProvisioned")],
        readyWorkerReplicas=2,
        desiredWorkerReplicas=2,
    )
    assert status_of(ok, admitted_wl(cond("PodsReady", reason="Started")), pods) == (JobStatus.running, None)
    # RayClusterProvisioned never flips back; a lost worker shows in readyWorkerReplicas and the pods
    lost = raycluster(
        conditions=[cond("HeadPodReady"), cond("RayClusterProvisioned")], readyWorkerReplicas=1, desiredWorkerReplicas=2
    )
    st, _ = status_of(lost, admitted_wl(), [*pods[:2], ray_pod("rc", "worker", "w2", ready=False)])
    assert st is JobStatus.starting


def test_trainjob_running_from_jobs_status_or_pods():
    pods = [pod(f"tj-node-0-{i}", {"jobset.sigs.k8s.io/jobset-name": "tj"}, gpus=4) for i in range(2)]
    tj = trainjob(cond("Suspended", "False", "Resumed"), jobs=[{"name": "node", "active": 2, "ready": 2}])
    assert status_of(tj, admitted_wl(), pods)[0] is JobStatus.running
    # no Running condition, jobsStatus not updated yet (kubeflow/sdk #803): the pods decide
    lagging = trainjob(cond("Suspended", "False", "Resumed"))
    assert status_of(lagging, admitted_wl(), pods)[0] is JobStatus.running
    assert status_of(lagging, admitted_wl(), pods[:1])[0] is JobStatus.starting  # 1 of 2 nodes up


def test_pytorch_restarting_is_running_with_a_note():
    pods = [pod("ddp-master-0", {"training.kubeflow.org/job-name": "ddp"})]
    st, why = status_of(
        pytorchjob(cond("Created"), cond("Running", "False"), cond("Restarting", message="worker 1 exited 137")),
        None,
        pods,
    )
    assert st is JobStatus.running and "Restarting" in why and "137" in why


def test_crashloop_reason_names_the_last_exit():
    p = pod("ddp-worker-0", {"training.kubeflow.org/job-name": "ddp"}, ready=False)
    p["status"]["containerStatuses"] = [
        {
            "name": "pytorch",
            "restartCount": 4,
            "state": {"waiting": {"reason": "CrashLoopBackOff"}},
            "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137}},
        }
    ]
    assert pod_reason(p) == "pytorch: CrashLoopBackOff: last exit OOMKilled (code 137)."


# ------------------------------------------------------------------------------------------------ terminal


def test_rayjob_deployment_decides_terminal_jobstatus_decides_success():
    assert status_of(rayjob(jobDeploymentStatus="Complete", jobStatus="SUCCEEDED"))[0] is JobStatus.succeeded
    st, why = status_of(rayjob(jobDeploymentStatus="Complete", jobStatus="STOPPED"))
    assert st is JobStatus.failed and "STOPPED" in why
    # kuberay #2314: RUNNING on the Ray side, Failed on the operator side -> Failed
    st, why = status_of(
        rayjob(
            jobDeploymentStatus="Failed",
            jobStatus="RUNNING",
            reason="DeadlineExceeded",
            message="The RayJob has passed the activeDeadlineSeconds",
        )
    )
    assert st is JobStatus.failed and why.startswith("DeadlineExceeded") and "activeDeadlineSeconds" in why
    st, why = status_of(
        rayjob(
            jobDeploymentStatus="ValidationFailed",
            reason="ValidationFailed",
            message="The RayJob spec is invalid: clusterSelector with rayClusterSpec",
        )
    )
    assert st is JobStatus.failed and "invalid" in why
    # SUCCEEDED while the deployment still runs: not finished yet
    st, why = status_of(rayjob(jobDeploymentStatus="Running", jobStatus="SUCCEEDED"))
    assert st is JobStatus.running and "succeeded" in why


def test_pytorch_terminal_even_with_stale_running_condition():
    pj = pytorchjob(
        cond("Created"),
        cond("Running", "False"),
        cond("Failed", reason="PyTorchJobFailed", message="job ddp is failed because 1 Worker failed"),
    )
    st, why = status_of(pj, admitted_wl())
    assert st is JobStatus.failed and "PyTorchJobFailed" in why and "1 Worker failed" in why
    assert status_of(pytorchjob(cond("Running", "False"), cond("Succeeded")))[0] is JobStatus.succeeded


def test_trainjob_complete_and_failed():
    assert status_of(trainjob(cond("Complete", reason="Completed")))[0] is JobStatus.succeeded
    st, why = status_of(trainjob(cond("Failed", reason="DeadlineExceeded", message="too slow")))
    assert st is JobStatus.failed and "DeadlineExceeded" in why


def test_workload_finished_wins_over_a_lagging_cr():
    wl = admitted_wl(cond("Finished", reason="Failed", message="Job failed: BackoffLimitExceeded", at=T2))
    st, why = status_of(trainjob(cond("Suspended", "False")), wl)
    assert st is JobStatus.failed and "BackoffLimitExceeded" in why


def test_deleting_beats_everything():
    rj = rayjob(jobDeploymentStatus="Running")
    rj["metadata"]["deletionTimestamp"] = T2
    assert status_of(rj, admitted_wl())[0] is JobStatus.deleting


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="batch/v1"):
        derive_status({"apiVersion": "batch/v1", "kind": "Job"}, None, [])


# ---------------------------------------------------------------------------------------------- pods, view


def test_pod_selectors_per_kind():
    assert pod_selectors(raycluster()) == [{"ray.io/cluster": "rc"}]
    assert pod_selectors(rayjob()) == [{"job-name": "rj"}]
    assert pod_selectors(rayjob(rayClusterName="rj-x8k2p")) == [{"ray.io/cluster": "rj-x8k2p"}, {"job-name": "rj"}]
    assert pod_selectors(pytorchjob()) == [{"training.kubeflow.org/job-name": "ddp"}]
    assert pod_selectors(trainjob()) == [{"jobset.sigs.k8s.io/jobset-name": "tj"}]


def test_select_pods_filters_by_labels_and_namespace():
    mine = ray_pod("rj-x8k2p", "head", "h")
    submitter = pod("rj-abcd", {"job-name": "rj", "batch.kubernetes.io/job-name": "rj"}, phase="Succeeded")
    other = ray_pod("other", "head", "o")
    elsewhere = ray_pod("rj-x8k2p", "worker", "w") | {
        "metadata": {"name": "w", "namespace": "team-b", "labels": {"ray.io/cluster": "rj-x8k2p"}}
    }
    got = select_pods(rayjob(rayClusterName="rj-x8k2p"), [mine, submitter, other, elsewhere])
    assert [p["metadata"]["name"] for p in got] == ["h", "rj-abcd"]


def test_accelerators_held_counts_bound_live_pods_only():
    pods = [
        pod("a", {}, gpus=2),
        pod("b", {}, gpus=1, phase="Pending", ready=False),  # bound, starting
        pod("c", {}, gpus=4, phase="Succeeded", ready=False),
        unschedulable("d", {}),
    ]
    assert accelerators_held(pods) == {GPU: 3}
    assert accelerators_held(pods, known=["amd.com/gpu"]) == {}


def test_job_view_fields():
    pods = [
        ray_pod("rc", "head", "rc-head"),
        ray_pod("rc", "worker", "rc-workers-worker-1", gpus=1),
        unschedulable("rc-workers-worker-2", {"ray.io/cluster": "rc", "ray.io/node-type": "worker"}),
    ]
    rc = raycluster(conditions=[cond("HeadPodReady")], readyWorkerReplicas=1, desiredWorkerReplicas=2)
    rc["metadata"]["labels"]["jupyter-accel.io/workbench"] = "alice-wb"
    rc["metadata"]["annotations"] = {"jupyter-accel.io/workbench-prefix": "/notebook/team-a/alice-wb"}
    view = job_view(rc, JobSeen(workload=admitted_wl(), pods=pods, position=3), ViewRules(known_accelerators=[GPU]))
    assert view.kind is JobKind.ray_cluster and view.name == "rc" and view.namespace == "team-a"
    assert view.managed_by_us is True and view.workbench == "/notebook/team-a/alice-wb"
    assert view.status is JobStatus.starting and "rc-workers-worker-2" in view.reason
    assert view.queue == "team-a-queue" and view.cluster_queue == "gpu-cq"
    assert view.workload == "rayjob-rj-1a2b3" and view.priority == 100 and view.priority_class == "high"
    assert view.position is None  # only meaningful while queued
    assert view.accelerators == {GPU: 1} and view.accelerators_requested == {GPU: 2}
    assert view.created == T0 and view.start_time == T0 and view.end_time is None
    assert [(p.name, p.role, p.phase, p.ready) for p in view.pods] == [
        ("rc-head", "head", "Running", True),
        ("rc-workers-worker-1", "worker", "Running", True),
        ("rc-workers-worker-2", "worker", "Pending", False),
    ]
    assert view.pods[2].reason.startswith("Unschedulable") and view.pods[2].node is None
    queued = job_view(raycluster(), JobSeen(workload=PENDING_WL, position=3))
    assert queued.status is JobStatus.queued and queued.position == 3 and queued.cluster_queue is None


def test_job_view_times_per_kind():
    rj = job_view(rayjob(jobDeploymentStatus="Complete", jobStatus="SUCCEEDED", startTime=T0, endTime=T2))
    assert (rj.start_time, rj.end_time) == (T0, T2)
    pj = job_view(pytorchjob(cond("Succeeded"), startTime=T0, completionTime=T1))
    assert (pj.start_time, pj.end_time) == (T0, T1)
    tj = job_view(trainjob(cond("Complete", at=T2)))
    assert tj.end_time == T2 and tj.managed_by_us is False and tj.queue is None
    assert tj.accelerators_requested == {GPU: 8}


def test_failed_job_names_the_exit_code_and_the_last_line_the_process_printed():
    # As the kubelet reports it with terminationMessagePolicy FallbackToLogsOnError (recorded on the real node).
    terminated = {"exitCode": 3, "reason": "Error", "message": "loading shard 7\nshard 7 is corrupt\n"}
    failed_pod = pod(
        "ddp-master-0",
        {"training.kubeflow.org/replica-type": "master"},
        phase="Failed",
        ready=False,
        containerStatuses=[{"name": "pytorch", "state": {"terminated": terminated}}],
    )
    job = pytorchjob(cond("Failed", reason="PyTorchJobFailed", message="ddp has reached the specified backoff limit"))
    st, why = status_of(job, pods=[failed_pod])
    assert st is JobStatus.failed
    assert why.startswith("ddp-master-0 exited with code 3 (shard 7 is corrupt)"), why
    assert "backoff limit" in why  # the operator's own word stays, after the cause


def test_failed_job_whose_pod_is_gone_takes_the_cause_from_the_operators_event():
    # The Training Operator deletes a failed replica's pod once the job fails (recorded on devcluster's real node);
    # its Warning event keeps the exit code and the kubelet's termination message.
    ev = {
        "type": "Warning",
        "reason": "Error",
        "message": "Error pod e3-master-0 container pytorch exitCode: 3 terminated message: loading\nshard 7 is corrupt\n",
        "involvedObject": {"kind": "PyTorchJob", "name": "ddp"},
        "lastTimestamp": T1,
    }
    job = pytorchjob(cond("Failed", reason="PyTorchJobFailed", message="ddp has reached the specified backoff limit"))
    st, why = derive_status(job, None, [], [ev])
    assert st is JobStatus.failed
    assert why.startswith("e3-master-0 exited with code 3 (shard 7 is corrupt)"), why


def test_pods_on_a_simulated_node_are_marked_and_only_those():
    from jupyter_accel.cluster.trim import trim_node
    from jupyter_accel.domain.job_status import simulated_nodes

    fake = trim_node({"metadata": {"name": "kwok-h100-0", "annotations": {"kwok.x-k8s.io/node": "fake", "x": "y"}}})
    real = trim_node({"metadata": {"name": "devcluster-node", "annotations": {"node.alpha.kubernetes.io/ttl": "0"}}})
    assert fake["metadata"]["annotations"] == {"kwok.x-k8s.io/node": "fake"}  # the one annotation kept
    assert "annotations" not in real["metadata"]
    sim = simulated_nodes([fake, real])
    assert sim == {"kwok-h100-0"}
    pods = [pod(f"p-{n}", {"training.kubeflow.org/job-name": "pt"}) for n in ("a", "b")]
    pods[0]["spec"]["nodeName"], pods[1]["spec"]["nodeName"] = "kwok-h100-0", "devcluster-node"
    from jupyter_accel.domain.job_status import pod_summary

    assert [pod_summary(p, None, sim).simulated for p in pods] == [True, False]
    assert [pod_summary(p).simulated for p in pods] == [False, False]  # nodes not readable: nothing claimed
