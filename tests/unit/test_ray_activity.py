"""Whether a Ray cluster runs anything, from its dashboard's answers (recorded from devcluster's real Ray 2.60
head), and the idle warning of one that holds accelerators."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from jupyter_accel.domain.ray_activity import idle_warning, ray_activity
from jupyter_accel.services.idle import Candidate, IdleWatch


def summary(tasks: dict) -> dict:
    cluster = {"summary": tasks, "total_tasks": len(tasks), "total_actor_tasks": 0, "summary_by": "func_name"}
    return {"result": True, "msg": "", "data": {"result": {"total": len(tasks), "num_after_truncation": 0,
            "num_filtered": 0, "result": {"node_id_to_summary": {"cluster": cluster}}}}}  # fmt: skip


def actors(total: int) -> dict:
    return {"result": True, "msg": "", "data": {"result": {"total": total, "result": []}}}


IDLE = ([], summary({}), actors(0))  # a fresh head: what devcluster's answered
LAMBDA = {"<lambda>": {"func_or_class_name": "<lambda>", "type": "NORMAL_TASK", "state_counts": {"RUNNING": 1}}}
BUSY = ([{"type": "SUBMISSION", "status": "RUNNING", "submission_id": "raysubmit_7mtKn2iB4rPkxRvf"}], summary(LAMBDA))


def test_runs_nothing_and_runs_something_in_the_dashboards_words():
    assert ray_activity(*IDLE) == (False, "no Ray job, task or actor")
    assert ray_activity(*BUSY, actors(0)) == (True, "1 Ray job, 1 task")
    done = {"<lambda>": {**LAMBDA["<lambda>"], "state_counts": {"FINISHED": 3, "FAILED": 1}}}
    succeeded = [{"type": "SUBMISSION", "status": "SUCCEEDED"}]
    assert ray_activity(succeeded, summary(done), actors(0))[0] is False
    assert ray_activity([], summary({}), actors(2)) == (True, "2 live actors")
    assert ray_activity({"detail": "Not Found"}, summary({}), actors(0))[0] is None  # another shape: no guess


def test_the_warning_comes_after_the_threshold_and_only_while_it_holds_accelerators():
    since = datetime(2026, 12, 4, 10, 0, tzinfo=UTC)
    held = {"nvidia.com/gpu": 2}
    assert idle_warning(held, since, since + timedelta(minutes=14), 900) is None
    assert idle_warning(held, since, since + timedelta(minutes=15, seconds=30), 900) == (
        "Holds 2 nvidia.com/gpu and has run nothing for 16m (no Ray job, task or actor); suspend it to give them back."
    )
    assert idle_warning({}, since, since + timedelta(hours=1), 900) is None
    assert idle_warning(held, None, since, 900) is None


def test_the_watch_remembers_since_when_each_cluster_runs_nothing():
    answers = {"a": IDLE, "b": (*BUSY, actors(0))}
    asked: list[str] = []

    def fetch(path: str, query):
        name, sub = path.split("/", 1)
        asked.append(path)
        which = {"api/jobs/": 0, "api/v0/tasks/summarize": 1, "api/v0/actors": 2}[sub]
        return answers[name][which]

    watch = IdleWatch(900)
    clusters = [Candidate(n, n, lambda sub, n=n: f"{n}/{sub}") for n in ("a", "b")]
    t0 = datetime(2026, 12, 4, 10, 0, tzinfo=UTC)
    watch.poll(clusters, fetch, now=t0)
    watch.poll(clusters, fetch, now=t0 + timedelta(minutes=5))
    assert watch.idle_since("a") == t0 and watch.idle_since("b") is None
    answers["a"] = (*BUSY, actors(0))  # it runs something again: the count starts over
    watch.poll(clusters, fetch, now=t0 + timedelta(minutes=6))
    assert watch.idle_since("a") is None
    answers["a"] = IDLE
    watch.poll(clusters[1:], fetch, now=t0 + timedelta(minutes=7))  # no longer a candidate: forgotten
    assert watch.idle_since("a") is None and len(asked) == 3 * 7

    def down(path: str, query):
        raise OSError("503 from the service proxy")

    watch.poll(clusters, down, now=t0)
    assert watch.idle_since("a") is None  # an unanswered dashboard is not idle
    assert (watch.interval, IdleWatch(60).interval) == (60.0, 15.0)


def test_a_rayjobs_tasks_ended_of_those_submitted_so_far():
    from jupyter_accel.domain.progress import ray_task_progress
    from jupyter_accel.domain.ray_activity import task_counts

    square = {"func_or_class_name": "square", "type": "NORMAL_TASK", "state_counts": {"FINISHED": 6, "RUNNING": 3}}
    failed = {"func_or_class_name": "load", "type": "NORMAL_TASK", "state_counts": {"FAILED": 1}}
    counts = task_counts(summary({"square": square, "load": failed}))
    assert counts == (7, 10)
    progress = ray_task_progress(counts)
    assert progress is not None and progress.percent == 70
    assert progress.text == "7 of 10 Ray tasks ended (of those submitted so far)"
    assert task_counts(summary({})) == (0, 0) and ray_task_progress((0, 0)) is None  # nothing submitted yet
    assert task_counts({"data": {}}) is None and ray_task_progress(None) is None  # an unknown shape says nothing


def test_the_watch_keeps_each_running_rayjobs_counts_and_forgets_the_rest():
    answers = {"a": summary({"f": {"state_counts": {"FINISHED": 1, "PENDING_ARGS_AVAIL": 1}}}), "b": {"odd": 1}}
    watch = IdleWatch(0)  # the idle warning off: the task counts still come
    jobs = [Candidate(n, n, lambda sub, n=n: f"{n}/{sub}") for n in ("a", "b")]
    watch.poll_tasks(jobs, lambda path, query: answers[path.split("/", 1)[0]])
    assert watch.task_counts("a") == (1, 2) and watch.task_counts("b") is None
    watch.poll_tasks(jobs[1:], lambda path, query: answers[path.split("/", 1)[0]])
    assert watch.task_counts("a") is None  # ended: no longer asked, forgotten
