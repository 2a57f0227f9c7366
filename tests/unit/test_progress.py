"""A TrainJob's own progress report (Trainer 2.3 status.trainerStatus) in the job view and its one line."""

from __future__ import annotations

from jupyter_accel.domain.job_status import job_view
from jupyter_accel.domain.progress import trainer_progress

# status.trainerStatus as Trainer 2.3's status server wrote it on devcluster (rank 0 POSTed 50 %, then this)
RECORDED = {
    "estimatedRemainingSeconds": 150,
    "lastUpdatedTime": "2026-12-06T07:42:12Z",
    "metrics": [{"name": "loss", "value": "0.41"}, {"name": "eval_accuracy", "value": "0.87"}],
    "progressPercentage": 50,
}


def trainjob(trainer_status: dict | None = None) -> dict:
    status: dict = {"jobsStatus": [{"name": "node", "active": 2, "ready": 2}]}
    if trainer_status is not None:
        status["trainerStatus"] = trainer_status
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "tj", "namespace": "team-a", "creationTimestamp": "2026-12-06T07:40:00Z"},
        "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2}},
        "status": status,
    }


def test_the_recorded_report_in_numbers_and_one_line():
    p = trainer_progress(trainjob(RECORDED))
    assert p is not None
    assert (p.percent, p.remaining_seconds, p.updated) == (50, 150, "2026-12-06T07:42:12Z")
    assert [(m.name, m.value) for m in p.metrics] == [("loss", "0.41"), ("eval_accuracy", "0.87")]
    assert p.text == "50 % · about 3m left · loss 0.41 · eval_accuracy 0.87"


def test_no_report_no_progress_and_a_partial_report_says_only_what_it_has():
    assert trainer_progress(trainjob()) is None
    only_metrics = trainer_progress(trainjob({"lastUpdatedTime": "x", "metrics": [{"name": "loss", "value": "2"}]}))
    assert only_metrics is not None and only_metrics.percent is None and only_metrics.text == "loss 2"
    nothing = trainer_progress(trainjob({"lastUpdatedTime": "x"}))
    assert nothing is not None and nothing.text == "reporting, no numbers yet"
    done = trainer_progress(
        trainjob({"lastUpdatedTime": "x", "progressPercentage": 100, "estimatedRemainingSeconds": 0})
    )
    assert done is not None and done.text == "100 %"  # no "about 0m left"


def test_the_job_view_carries_it_and_other_kinds_report_none():
    view = job_view(trainjob(RECORDED))
    assert view.progress is not None and view.progress.percent == 50
    pytorch = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "pt", "namespace": "team-a"},
        "spec": {"pytorchReplicaSpecs": {}},
        "status": {"trainerStatus": RECORDED},  # not a field of its kind: never read as progress
    }
    assert job_view(pytorch).progress is None


def test_accel_status_and_jobs_show_the_numbers():
    from jupyter_accel.models import JobsResponse
    from jupyter_accel.notebook.display import to_text
    from jupyter_accel.notebook.display.job_views import job_blocks, jobs_blocks

    view = job_view(trainjob(RECORDED))
    status = to_text(job_blocks(view))
    assert "Progress: 50 % · about 3m left · loss 0.41 · eval_accuracy 0.87" in status
    listing = to_text(jobs_blocks(JobsResponse(jobs=[view])))
    assert "progress" in listing and "50 % · about 3m left" in listing
