"""Time limits: what a limit is now, the sentence of a job Kueue stopped at it, and what a new limit writes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jupyter_accel.domain.job_status import JobSeen, ViewRules, derive_status, job_view
from jupyter_accel.domain.time_limit import LimitRefused, current_limit, plan_limit, stopped_at_limit
from jupyter_accel.domain.workload_state import describe
from jupyter_accel.models import JobAction, JobStatus

LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
EXTENDED = "jupyter-accel.io/max-run-seconds"


def raycluster(limit: str | None = "600", suspend: bool = False, annotations: dict | None = None) -> dict:
    labels = {"kueue.x-k8s.io/queue-name": "default", **({LABEL: limit} if limit else {})}
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "ext", "namespace": "team-a", "uid": "u1", "labels": labels,
                     "annotations": annotations or {}},
        "spec": {"suspend": suspend, "headGroupSpec": {"template": {"spec": {"containers": []}}}},
    }  # fmt: skip


def cond(ctype: str, status: str, reason: str, message: str = "", at: str = "2026-12-04T15:27:07Z") -> dict:
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": at}


def workload(*conditions: dict, active: bool = True, limit: int | None = 600, used: int | None = None) -> dict:
    spec = {"active": active, "queueName": "default", "podSets": []}
    if limit:
        spec["maximumExecutionTimeSeconds"] = limit
    status: dict = {"conditions": list(conditions)}
    if used is not None:
        status["accumulatedPastExecutionTimeSeconds"] = used
    meta = {"name": "raycluster-ext-f01c0", "namespace": "team-a", "resourceVersion": "42",
            "labels": {"kueue.x-k8s.io/job-uid": "u1"}}  # fmt: skip
    return {"metadata": meta, "spec": spec, "status": status}


ADMITTED = (
    cond("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue team-a-cq"),
    cond("Admitted", "True", "Admitted", "The workload is admitted"),
)
# Recorded from devcluster (Kueue 0.17.0): a RayCluster with a 600 s limit, 20 s after Kueue stopped it at it. The
# DeactivationTarget condition stays (kubernetes-sigs/kueue#14309), and Kueue counted the 618 s it ran.
EXPIRED = (
    cond("QuotaReserved", "False", "Pending", "The workload is deactivated due to exceeding the maximum execution time"),
    cond("Evicted", "True", "DeactivatedDueToMaximumExecutionTimeExceeded",
         "The workload is deactivated due to exceeding the maximum execution time"),
    cond("Admitted", "False", "NoReservation", "The workload has no reservation"),
    cond("Requeued", "False", "DeactivatedDueToMaximumExecutionTimeExceeded",
         "The workload is deactivated due to exceeding the maximum execution time"),
    cond("DeactivationTarget", "True", "MaximumExecutionTimeExceeded", "exceeding the maximum execution time"),
)  # fmt: skip
STOPPED = "Stopped at its 10m time limit; nothing was deleted; extend its limit to queue it again."


def test_a_job_stopped_at_its_limit_says_so_and_offers_extend_not_resume():
    wl = workload(*EXPIRED, active=False, used=618)
    assert stopped_at_limit(wl)
    status, reason = derive_status(raycluster(suspend=True), wl, [])
    assert (status, reason) == (JobStatus.suspended, STOPPED)
    view = job_view(raycluster(suspend=True), JobSeen(workload=wl))
    assert view.display.sentence == STOPPED and view.display.stopped_at_limit
    assert view.display.actions == [JobAction.extend, JobAction.delete]
    # /workloads says the same of the same Workload
    _state, why, text = describe(wl)
    assert (why, text + ".") == ("MaximumExecutionTimeExceeded", STOPPED)


def test_the_moment_kueue_marks_it_before_evicting_already_reads_stopped_at_its_limit():
    # recorded: active false and DeactivationTarget set while quota is still reserved
    wl = workload(*ADMITTED, cond("DeactivationTarget", "True", "MaximumExecutionTimeExceeded"), active=False)
    assert derive_status(raycluster(), wl, [])[1] == STOPPED


def test_a_job_a_user_suspended_keeps_the_plain_sentence_and_resume():
    wl = workload(cond("Evicted", "True", "Deactivated", "The workload is deactivated"), active=False)
    assert not stopped_at_limit(wl)
    view = job_view(raycluster(suspend=True), JobSeen(workload=wl))
    assert "resume to queue it again" in view.display.sentence
    assert view.display.actions == [JobAction.resume, JobAction.extend, JobAction.delete]


def test_extend_is_offered_below_the_ceiling_only_and_not_without_a_limit():
    wl = workload(*ADMITTED)
    assert (
        JobAction.extend in job_view(raycluster(), JobSeen(workload=wl), ViewRules(limit_ceiling=3600)).display.actions
    )
    assert (
        JobAction.extend
        not in job_view(raycluster(), JobSeen(workload=wl), ViewRules(limit_ceiling=600)).display.actions
    )
    no_limit = workload(*ADMITTED, limit=None)
    assert JobAction.extend not in job_view(raycluster(limit=None), JobSeen(workload=no_limit)).display.actions
    assert job_view(raycluster(), JobSeen(workload=wl), ViewRules(writable=False)).display.actions == []


def test_queued_or_suspended_the_label_changes_and_kueue_follows():
    plan = plan_limit(raycluster(suspend=True), workload(), extend_seconds=3600, ceiling=8 * 3600)
    assert plan.limit == 4200
    assert plan.job_patch == {"metadata": {"labels": {LABEL: "4200"}, "annotations": {EXTENDED: None}}}
    assert plan.status_patch is None and not plan.replace_workload


def test_running_the_count_of_time_used_moves_and_the_new_limit_is_noted_on_the_job():
    wl = workload(*ADMITTED, used=100)
    plan = plan_limit(raycluster(), wl, max_run_seconds=1800)
    assert plan.status_patch == {
        "metadata": {"resourceVersion": "42"},
        "status": {"accumulatedPastExecutionTimeSeconds": 100 - 1200},
    }
    assert plan.job_patch == {"metadata": {"annotations": {EXTENDED: "1800"}}}
    # and the job then reads the longer limit, with Kueue's stop moved by as much
    wl["status"]["accumulatedPastExecutionTimeSeconds"] = -1100
    job = raycluster(annotations={EXTENDED: "1800"})
    assert current_limit(job, wl) == 1800
    view = job_view(job, JobSeen(workload=wl), now=datetime(2026, 12, 4, 15, 30, tzinfo=UTC))
    assert view.stops_at == "2026-12-04T15:55:27Z"  # admitted 15:27:07 + 600 + 1100 s
    assert view.display.time_limit == "Kueue stops it at 15:55 UTC (limit 30m, 26m left)."


def test_a_job_stopped_at_its_limit_gets_a_fresh_workload_for_its_next_run():
    plan = plan_limit(raycluster(suspend=True), workload(*EXPIRED, active=False, used=618), extend_seconds=1200)
    assert plan.limit == 1200 and plan.replace_workload
    assert plan.job_patch["metadata"]["labels"] == {LABEL: "1200"}


@pytest.mark.parametrize(
    ("wl", "ask", "field", "words"),
    [
        (workload(*ADMITTED), {"extend_seconds": 8 * 3600}, "extend_seconds", "at most 28800 seconds (8h) in all"),
        (workload(*ADMITTED), {"max_run_seconds": 300}, "max_run_seconds", "can only grow; it is 10m now"),
        (workload(*ADMITTED, limit=None), {"max_run_seconds": 900}, "max_run_seconds", "cannot get one"),
        (workload(limit=None), {"extend_seconds": 900}, "extend_seconds", "no time limit to extend"),
        (None, {"max_run_seconds": 900}, "max_run_seconds", "no Kueue Workload"),
        (workload(), {"max_run_seconds": 900, "extend_seconds": 60}, "max_run_seconds", "either"),
        (workload(cond("Finished", "True", "Succeeded")), {"extend_seconds": 60}, "extend_seconds", "ended"),
    ],
)
def test_refusals_name_the_field_and_say_why(wl, ask, field, words):
    job = raycluster(limit=None if wl is not None and not wl["spec"].get("maximumExecutionTimeSeconds") else "600")
    with pytest.raises(LimitRefused) as refused:
        plan_limit(job, wl, ceiling=8 * 3600, **ask)
    assert refused.value.field == field and words in refused.value.message, refused.value.message
