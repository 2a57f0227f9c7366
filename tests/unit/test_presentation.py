"""How states read, decided once on the server for every front-end (the sidebar and the notebooks show these)."""

from __future__ import annotations

from jupyter_accel.domain.presentation import (
    STATUS_LOOK,
    VERDICT_LOOK,
    actions,
    job_display,
    ordinal,
    place_in_line,
)
from jupyter_accel.models import FitVerdict, JobAction, JobStatus, Tone


def test_every_status_has_a_label_a_tone_and_a_sentence_failures_red_successes_green():
    assert set(STATUS_LOOK) == set(JobStatus)
    tone = {s: look[1] for s, look in STATUS_LOOK.items()}
    assert (tone[JobStatus.failed], tone[JobStatus.succeeded]) == (Tone.error, Tone.ok)
    assert (tone[JobStatus.queued], tone[JobStatus.running]) == (Tone.warn, Tone.info)
    assert (tone[JobStatus.admitted], tone[JobStatus.starting]) == (Tone.info, Tone.info)
    assert set(VERDICT_LOOK) == set(FitVerdict)
    assert VERDICT_LOOK[FitVerdict.never_fits] == ("Can never fit", Tone.error)


def test_the_reason_is_preferred_and_a_state_without_one_gets_its_own_sentence():
    assert job_display(JobStatus.queued, "Quota exhausted.", None).sentence == "Quota exhausted."
    assert "Suspended" in job_display(JobStatus.suspended, None, None).sentence
    assert job_display(JobStatus.failed, None, None).finished is True
    assert job_display(JobStatus.running, None, None).finished is False


def test_one_convention_for_a_place_in_line_and_only_while_queued():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"
    ]  # fmt: skip
    assert place_in_line(0) == "1st in line"
    assert job_display(JobStatus.queued, None, 0).place == "1st in line"
    assert job_display(JobStatus.running, None, 0).place is None
    assert job_display(JobStatus.queued, None, None).place is None


def test_actions_follow_the_state_and_a_read_only_server_offers_none():
    assert actions(JobStatus.running) == [JobAction.suspend, JobAction.delete]
    assert actions(JobStatus.queued) == [JobAction.suspend, JobAction.delete]
    assert actions(JobStatus.suspended) == [JobAction.resume, JobAction.delete]
    assert actions(JobStatus.succeeded) == [JobAction.delete]
    assert actions(JobStatus.deleting) == []
    assert actions(JobStatus.running, writable=False) == []
    # a running Ray cluster takes Ray jobs ("Run on…"); not before it runs, not from a read-only server
    assert actions(JobStatus.running, takes_ray_jobs=True) == [JobAction.run, JobAction.suspend, JobAction.delete]
    assert JobAction.run not in actions(JobStatus.starting, takes_ray_jobs=True)
    assert actions(JobStatus.running, writable=False, takes_ray_jobs=True) == []
