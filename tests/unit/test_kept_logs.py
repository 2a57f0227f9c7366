"""domain/log_lines and cluster/kept_logs' files: lines of several pods labelled and interleaved in time; a pod's
kept log bounded in two halves, resumed without repeating a line, and the oldest jobs dropped past the total."""

from __future__ import annotations

import json
import os
import time

from jupyter_accel.cluster.kept_logs import KeptLogStore, container_ended, started_container
from jupyter_accel.domain.log_lines import interleave, pod_label, split_stamped, strip_stamps


def stamped(second: int, text: str) -> str:
    return f"2026-12-06T04:00:{second:02d}.000000000Z {text}"


def test_lines_of_every_pod_interleave_in_time_each_with_its_pod():
    master = "\n".join([stamped(1, "hello from rank 0 of 2"), stamped(4, "rank 0 done")])
    worker = "\n".join([stamped(2, "hello from rank 1 of 2"), "a line without a stamp", stamped(3, "rank 1 done")])
    assert list(interleave([("master-0", master), ("worker-0", worker)])) == [
        "[master-0] hello from rank 0 of 2",
        "[worker-0] hello from rank 1 of 2",
        "[worker-0] a line without a stamp",
        "[worker-0] rank 1 done",
        "[master-0] rank 0 done",
    ]


def test_stamps_split_and_strip_and_pods_get_short_labels():
    assert split_stamped(stamped(9, "x y")) == ("2026-12-06T04:00:09.000000000Z", "x y")
    assert split_stamped("plain text") == ("", "plain text")
    assert strip_stamps(stamped(1, "a") + "\n" + stamped(2, "b")) == "a\nb\n"
    assert pod_label("ddp", "ddp-worker-1") == "worker-1"
    assert pod_label("ddp", "other-pod") == "other-pod"


def test_a_resumed_stream_keeps_no_line_twice_and_a_partial_line_waits(tmp_path):
    store = KeptLogStore(tmp_path, "team-a", job_bytes=1 << 20, total_bytes=1 << 30)
    w = store.writer("u1", "p", "main", 1 << 20)
    w.write((stamped(1, "one") + "\n" + stamped(2, "tw")).encode())
    w.write(b"o\n")
    w.close(complete=False)
    again = store.writer("u1", "p", "main", 1 << 20)  # the stream was resumed from the second's start
    again.write((stamped(2, "two") + "\n" + stamped(3, "three") + "\n").encode())
    again.close(complete=True)
    assert strip_stamps(store.read("u1", "p")) == "one\ntwo\nthree\n"
    kept = store.pod("u1", "p")
    assert kept is not None and kept.complete and not kept.truncated


def test_a_pod_keeps_its_newest_lines_within_its_share_and_says_it_was_truncated(tmp_path):
    store = KeptLogStore(tmp_path, "team-a", job_bytes=1 << 20, total_bytes=1 << 30)
    share = 64 * 1024
    w = store.writer("u2", "p", "main", share)
    for i in range(4000):
        w.write((f"2026-12-06T04:00:00.{i:09d}Z line {i:05d} " + "x" * 40 + "\n").encode())
    w.close(complete=True)
    text = strip_stamps(store.read("u2", "p"))
    kept = store.pod("u2", "p")
    assert kept is not None and kept.truncated and kept.bytes <= share
    assert text.rstrip().endswith("line 03999 " + "x" * 40) and "line 00000" not in text


def test_past_the_total_the_oldest_jobs_go_first_but_not_one_being_written(tmp_path):
    store = KeptLogStore(tmp_path, "team-a", job_bytes=1 << 20, total_bytes=150_000)
    for uid in ("old", "mid", "new"):
        w = store.writer(uid, "p", "main", 1 << 20)
        w.write((stamped(1, "y" * 80_000) + "\n").encode())
        w.close(complete=True)
    for age, uid in ((300, "old"), (200, "mid"), (100, "new")):
        t = time.time() - age
        os.utime(store.job_dir(uid), (t, t))
    assert store.enforce_total(busy={"old"}) == ["mid", "new"]  # oldest first; the one being written stays
    assert sorted(d.name for d in store.root.iterdir()) == ["old"]


def test_a_container_is_started_once_it_runs_or_ran_and_ended_once_terminated():
    pod = {
        "spec": {"containers": [{"name": "pytorch"}, {"name": "sidecar"}]},
        "status": {"phase": "Pending", "containerStatuses": [{"name": "pytorch", "state": {"waiting": {}}}]},
    }
    assert started_container(pod) is None and not container_ended(pod, "pytorch")
    pod["status"]["containerStatuses"][0]["state"] = {"running": {}}
    assert started_container(pod) == "pytorch" and not container_ended(pod, "pytorch")
    pod["status"]["containerStatuses"][0]["state"] = {"terminated": {"exitCode": 5}}
    assert container_ended(pod, "pytorch") and container_ended(None, "pytorch")


def test_the_records_are_json_a_reader_never_sees_half_written(tmp_path):
    store = KeptLogStore(tmp_path, "ns", job_bytes=1 << 20, total_bytes=1 << 30)
    store.note_job("u3", "pytorch", "j")
    w = store.writer("u3", "j-master-0", "pytorch", 1 << 20)
    w.write((stamped(1, "hi") + "\n").encode())
    w.close(complete=True)
    meta = json.loads((store.job_dir("u3") / "j-master-0.json").read_text())
    assert meta["complete"] and meta["bytes"] > 0 and not list(store.job_dir("u3").glob("*.tmp"))
    assert json.loads((store.job_dir("u3") / "job.json").read_text())["name"] == "j"


def test_a_follower_reads_each_kept_line_once_across_a_rotation(tmp_path):
    store = KeptLogStore(tmp_path, "team-a", job_bytes=1 << 20, total_bytes=1 << 30)
    share = 64 * 1024
    w = store.writer("u4", "p", "main", share)
    seen, offset = [], None
    for i in range(3000):
        w.write((f"2026-12-06T04:00:00.{i:09d}Z line {i:05d} " + "x" * 40 + "\n").encode())
        if i % 97 == 0:  # a look now and then, as a followed stream does
            text, offset = store.read_since("u4", "p", offset)
            seen += strip_stamps(text).splitlines()
    w.write(b"2026-12-06T04:00:01.000000000Z half a li")  # not a whole line yet: not read
    text, offset = store.read_since("u4", "p", offset)
    seen += strip_stamps(text).splitlines()
    assert w.meta.truncated  # it rotated more than once meanwhile
    assert seen == [f"line {i:05d} " + "x" * 40 for i in range(3000)]
