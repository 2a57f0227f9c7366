"""Each Kueue version's recorded Workload shapes read the same: Kueue 0.17 (v1beta1, reason "Pending" and the why in
words) and Kueue 0.19.2 (v1beta2, the tiered reasons of UnadmittedWorkloadsObservability)."""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_accel.domain.workload_state import describe
from jupyter_accel.models import WorkloadState

# Recorded from devcluster (Kueue 0.19.2, gate on), read through v1beta2: a batch Job asking 4096 GPUs of team-a-cq
# (8 nominal + 4 borrowable nvidia.com/gpu)
KUEUE_019 = json.loads((Path(__file__).parent / "data/kueue-0.19.2-workloads.json").read_text())


def _as_017(wl: dict) -> dict:
    """The same workload as Kueue 0.17 wrote it: v1beta1, every unadmitted reason "Pending"."""
    old = json.loads(json.dumps(wl))
    old["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    for c in old["status"]["conditions"]:
        if c["type"] == "QuotaReserved" and c["status"] == "False":
            c["reason"] = "Pending"
    return old


def test_kueue_019_exceeds_max_quota_reads_as_never_in_its_structured_reason():
    (wl,) = [w for w in KUEUE_019 if w["metadata"]["name"].startswith("job-rec-huge")]
    assert wl["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    state, reason, text = describe(wl, cluster_queue="team-a-cq")
    assert (state, reason) == (WorkloadState.pending, "ExceedsMaxQuota")
    assert text == (
        "Can never be admitted as is: needs 4096 nvidia.com/gpu but ClusterQueue team-a-cq can hold at most 12 on "
        "flavor nvidia-h100-80gb"
    )
    # Kueue 0.17 said "Pending" with the same words: the same sentence, the reason told from the words
    assert describe(_as_017(wl), cluster_queue="team-a-cq") == (state, reason, text)


def _pending(reason: str, message: str) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "metadata": {"name": "wl", "namespace": "team-a"},
        "spec": {"queueName": "default", "active": True},
        "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": reason, "message": message}]},
    }


def test_kueue_019_tiered_reasons_each_have_a_sentence():
    waiting = describe(_pending("WaitingForQuota", ""), cluster_queue="team-a-cq")
    assert waiting == (WorkloadState.pending, "WaitingForQuota", "Waiting for quota in ClusterQueue team-a-cq")
    evaluating = describe(_pending("PendingEvaluation", ""), cluster_queue="team-a-cq")
    assert evaluating == (WorkloadState.pending, "PendingEvaluation", "Waiting to be evaluated by Kueue")
