"""Who preempted a workload, why, and when it is tried again; and the reasons a pending workload can never be
admitted (Kueue 0.17's words, recorded from devcluster, and newer Kueue's structured reasons)."""

from __future__ import annotations

import pytest

from jupyter_accel.domain.preemption import preemption
from jupyter_accel.domain.workload_state import NEVER, describe
from jupyter_accel.domain.workloads import WorkloadContext
from jupyter_accel.models import WorkloadState

# Recorded from devcluster (Kueue 0.17.0): RayCluster pre-low (low-priority, 100) preempted in ClusterQueue
# preempt-cq (withinClusterQueue: LowerPriority) by RayCluster pre-high (high-priority, 1000).
MESSAGE = (
    "Preempted to accommodate a workload (UID: cc9e818d-c070-486b-8de8-b65125bc8033, JobUID: "
    "86ba6ec4-9490-4a01-ba4f-d339281fab31) due to prioritization in the ClusterQueue; preemptor path: /preempt-cq; "
    "preemptee path: /preempt-cq"
)
AT = "2026-12-04T16:03:40Z"


def cond(ctype: str, status: str, reason: str, message: str) -> dict:
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": AT}


def preempted(reason: str = "InClusterQueue", message: str = MESSAGE, requeue_at: str | None = None) -> dict:
    status: dict = {
        "conditions": [
            cond("QuotaReserved", "False", "Pending", "couldn't assign flavors to pod set workers: insufficient "
                 "unused quota for nvidia.com/gpu in flavor nvidia-h100-80gb, 2 more needed"),
            cond("Evicted", "True", "Preempted", message),
            cond("Admitted", "False", "NoReservation", "The workload has no reservation"),
            cond("Preempted", "True", reason, message),
            cond("Requeued", "True", "Preempted", message),
        ]
    }  # fmt: skip
    if requeue_at:
        status["requeueState"] = {"count": 1, "requeueAt": requeue_at}
    return {
        "metadata": {"name": "raycluster-pre-low-b8687", "namespace": "team-a", "uid": "low-uid"},
        "spec": {"queueName": "preempt", "priority": 100, "active": True, "podSets": []},
        "status": status,
    }


PREEMPTOR = {
    "metadata": {
        "name": "raycluster-pre-high-b8467",
        "namespace": "team-a",
        "uid": "cc9e818d-c070-486b-8de8-b65125bc8033",
        "ownerReferences": [{"kind": "RayCluster", "name": "pre-high", "controller": True}],
    },
    "spec": {"priority": 1000},
}


def test_the_preemptor_is_named_with_its_priority_and_why_in_plain_words():
    reading = WorkloadContext.of([PREEMPTOR])
    state, reason, text = reading.describe(preempted())
    assert (state, reason) == (WorkloadState.evicted, "InClusterQueue")
    assert text == (
        "Preempted at 16:03 UTC by RayCluster pre-high (priority 1000, this job's is 100): it has a higher priority "
        "in the same ClusterQueue; queued again"
    )


def test_a_preemptor_out_of_sight_and_the_retry_time():
    _, _, text = describe(preempted(requeue_at="2026-12-04T16:05:00Z"))
    assert text == (
        "Preempted at 16:03 UTC by a workload not visible to your account: it has a higher priority in the same "
        "ClusterQueue; next try at 16:05 UTC"
    )


@pytest.mark.parametrize(
    ("reason", "words", "why"),
    [
        ("InCohortReclamation", "reclamation within the cohort", "reclaimed the quota this job had borrowed"),
        ("InCohortFairSharing", "Fair Sharing within the cohort", "fair sharing in the cohort"),
        ("InCohortReclaimWhileBorrowing", "reclamation within the cohort while borrowing", "while borrowing"),
    ],
)
def test_each_of_kueues_preemption_reasons_reads_in_plain_words(reason, words, why):
    message = MESSAGE.replace("prioritization in the ClusterQueue", words).replace(
        "preemptor path: /preempt-cq", "preemptor path: /research/team-b-cq"
    )
    other = {**PREEMPTOR, "metadata": {**PREEMPTOR["metadata"], "namespace": "team-b"}}
    found = preemption(preempted(reason, message), {other["metadata"]["uid"]: other})
    assert found is not None and found.reason == reason and why in found.why
    assert found.by.startswith("RayCluster team-b/pre-high")  # another namespace's job is named with it


def test_a_reason_kueue_may_add_later_keeps_kueues_own_words():
    found = preemption(preempted("SomethingNew", MESSAGE.replace("prioritization in the ClusterQueue", "new rules")))
    assert found is not None and found.why == "Kueue says: new rules"


# Recorded from devcluster (Kueue 0.17.0): a worker with nodeSelector nvidia.com/gpu.product=NVIDIA-B200
NO_MATCH_017 = "couldn't assign flavors to pod set workers: flavor nvidia-h100-80gb doesn't match node affinity"


def pending(reason: str, message: str) -> dict:
    return {
        "metadata": {"name": "w", "namespace": "team-a"},
        "spec": {"queueName": "default", "active": True, "podSets": []},
        "status": {"conditions": [cond("QuotaReserved", "False", reason, message)]},
    }


def test_no_flavor_that_can_ever_match_is_never_in_0_17_words_and_in_newer_reasons():
    state, reason, text = describe(pending("Pending", NO_MATCH_017), cluster_queue="team-a-cq")
    assert (state, reason) == (WorkloadState.pending, "NoMatchingFlavor") and reason in NEVER
    assert text == (
        "Can never be admitted as is: no flavor of ClusterQueue team-a-cq matches its node selector or tolerations "
        "(flavor nvidia-h100-80gb doesn't match node affinity)"
    )
    taint = (
        "couldn't assign flavors to pod set workers: flavor a doesn't match node affinity, untolerated taint "
        "nvidia.com/gpu=present:NoSchedule in flavor b"
    )
    assert describe(pending("Pending", taint))[1] == "NoMatchingFlavor"
    # one flavor short of quota: it may still be admitted, so not never
    mixed = taint.replace("untolerated taint nvidia.com/gpu=present:NoSchedule in flavor b",
                          "insufficient unused quota for nvidia.com/gpu in flavor b, 2 more needed")  # fmt: skip
    assert describe(pending("Pending", mixed))[1] not in NEVER
    _, reason, text = describe(pending("NoMatchingFlavor", "no flavor matches"), cluster_queue="cq")
    assert reason == "NoMatchingFlavor" and text.startswith("Can never be admitted as is: no flavor of ClusterQueue cq")


def test_waiting_for_quota_reads_as_waiting():
    _, reason, text = describe(pending("WaitingForQuota", "waiting for 2 GPUs"), cluster_queue="cq")
    assert (reason, text) == ("WaitingForQuota", "Waiting for quota in ClusterQueue cq: waiting for 2 GPUs")
