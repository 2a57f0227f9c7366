"""The indexes a job list builds once (Workloads by job, pods by label) answer as a scan of every object would."""

from __future__ import annotations

import itertools

from jupyter_accel.domain.job_status import PodsByLabel, pod_selectors
from jupyter_accel.domain.labels import JOB_UID
from jupyter_accel.domain.workloads import WorkloadsByJob

NS = "team-a"


def _job(kind: str, name: str, uid: str | None) -> dict:
    api = "kubeflow.org/v1" if kind == "PyTorchJob" else "ray.io/v1"
    meta = {"name": name, "namespace": NS, **({"uid": uid} if uid else {})}
    return {"apiVersion": api, "kind": kind, "metadata": meta}


def _workload(name: str, created: str, *, label_uid=None, owner=None) -> dict:
    meta: dict = {"name": name, "namespace": NS, "creationTimestamp": created}
    if label_uid:
        meta["labels"] = {JOB_UID: label_uid}
    if owner:
        meta["ownerReferences"] = [owner]
    return {"metadata": meta}


def _scan_workload(workloads: list[dict], job: dict) -> dict | None:
    """The rule, said plainly: the newest Workload with the job's uid as label or owner (without a uid: an owner
    of the job's kind and name)."""
    uid, kind, name = job["metadata"].get("uid"), job["kind"], job["metadata"]["name"]
    hits = []
    for wl in workloads:
        meta = wl["metadata"]
        owners = meta.get("ownerReferences") or []
        if uid:
            if (meta.get("labels") or {}).get(JOB_UID) == uid or any(o.get("uid") == uid for o in owners):
                hits.append(wl)
        elif any(o.get("kind") == kind and o.get("name") == name for o in owners):
            hits.append(wl)
    return max(hits, key=lambda w: w["metadata"]["creationTimestamp"]) if hits else None


def test_workloads_by_job_agree_with_a_scan():
    jobs = [_job("PyTorchJob", f"train-{i}", f"uid-{i}") for i in range(6)] + [
        _job("RayCluster", "ray-0", None),
        _job("PyTorchJob", "no-uid", None),
    ]
    workloads = [
        _workload("w0", "2026-12-04T10:00:00Z", label_uid="uid-0"),
        _workload("w1", "2026-12-04T10:00:00Z", owner={"kind": "PyTorchJob", "name": "train-1", "uid": "uid-1"}),
        # a job requeued: two Workloads, the newest wins
        _workload("w2a", "2026-12-04T10:00:00Z", label_uid="uid-2"),
        _workload("w2b", "2026-12-04T11:00:00Z", owner={"kind": "PyTorchJob", "name": "train-2", "uid": "uid-2"}),
        # the label of one job and the owner of another
        _workload("w3", "2026-12-04T10:00:00Z", label_uid="uid-3", owner={"kind": "X", "name": "y", "uid": "uid-4"}),
        _workload("w-ray", "2026-12-04T10:00:00Z", owner={"kind": "RayCluster", "name": "ray-0"}),
        _workload("w-other", "2026-12-04T10:00:00Z", owner={"kind": "RayCluster", "name": "no-uid"}),
    ]
    index = WorkloadsByJob(workloads)
    for job in jobs:
        assert index.for_job(job) is _scan_workload(workloads, job), job["metadata"]
    assert index.for_job(jobs[2])["metadata"]["name"] == "w2b"
    assert index.for_job(jobs[4])["metadata"]["name"] == "w3"
    assert index.for_job(jobs[5]) is None and index.for_job(jobs[7]) is None


def _pod(name: str, labels: dict, namespace: str | None = NS) -> dict:
    meta = {"name": name, "labels": labels, **({"namespace": namespace} if namespace else {})}
    return {"metadata": meta}


def test_pods_by_label_agree_with_a_scan():
    names = [f"job-{i}" for i in range(5)]
    pods = []
    for i, (name, role) in enumerate(itertools.product(names, ("master", "worker"))):
        pods.append(_pod(f"{name}-{role}-{i}", {"training.kubeflow.org/job-name": name, "role": role}))
    pods += [
        _pod("elsewhere", {"training.kubeflow.org/job-name": "job-0"}, namespace="team-b"),
        _pod("no-namespace", {"training.kubeflow.org/job-name": "job-1"}, namespace=None),
        _pod("ray-head", {"ray.io/cluster": "job-0"}),
        _pod("unlabelled", {}),
    ]
    index = PodsByLabel(pods)
    for name in [*names, "absent"]:
        for kind in ("PyTorchJob", "RayCluster"):
            job = _job(kind, name, "u")
            selectors = pod_selectors(job)
            scan = [
                p
                for p in pods
                if p["metadata"].get("namespace") in (None, NS)
                and any(all(p["metadata"]["labels"].get(k) == v for k, v in s.items()) for s in selectors)
            ]
            assert index.select(job) == scan, (kind, name)
    assert [p["metadata"]["name"] for p in index.select(_job("PyTorchJob", "job-1", "u"))] == [
        "job-1-master-2",
        "job-1-worker-3",
        "no-namespace",
    ]
