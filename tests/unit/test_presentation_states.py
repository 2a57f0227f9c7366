"""The other states the front-ends show (workloads, pods, the connection) are worded and toned on the server, in
agreement with the job statuses; a workload's place in line travels beside Kueue's number."""

from __future__ import annotations

from jupyter_accel.domain.fit import FitCluster, assess_fit, fit_response
from jupyter_accel.domain.presentation import (
    CONNECTION_LOOK,
    STATUS_LOOK,
    WORKLOAD_LOOK,
    connection_look,
    pod_tone,
    workload_look,
)
from jupyter_accel.domain.resources import PodDemand
from jupyter_accel.domain.workloads import workload_view
from jupyter_accel.models import ConnectionState, JobStatus, Tone, WorkloadState


def test_a_workload_reads_like_the_job_it_runs():
    assert set(WORKLOAD_LOOK) == set(WorkloadState)
    for state, status in (
        (WorkloadState.admitted, JobStatus.admitted),
        (WorkloadState.running, JobStatus.running),
        (WorkloadState.succeeded, JobStatus.succeeded),
        (WorkloadState.failed, JobStatus.failed),
    ):
        assert workload_look(state) == STATUS_LOOK[status][:2]
    assert workload_look(WorkloadState.pending)[1] == STATUS_LOOK[JobStatus.queued][1]
    assert (pod_tone("Running"), pod_tone("Failed"), pod_tone("Pending"), pod_tone(None)) == (
        Tone.info,
        Tone.error,
        Tone.neutral,
        Tone.neutral,
    )


def test_every_connection_state_has_the_servers_words():
    assert set(CONNECTION_LOOK) == set(ConnectionState)
    assert connection_look(ConnectionState.connected) == ("Connected", Tone.ok)
    label, tone = connection_look(ConnectionState.not_configured)
    assert "not configured" in label.lower() and "not connected" in label.lower() and tone is Tone.warn


def test_a_pending_workload_and_a_workload_ahead_carry_their_place_in_words():
    wl = {
        "metadata": {"name": "pytorchjob-a-1", "namespace": "team-a"},
        "spec": {"queueName": "default", "active": True},
        "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": ""}]},
    }
    view = workload_view(wl, cluster_queue="team-a-cq", position=(2, 5))
    assert (view.label, view.tone, view.position_in_local_queue, view.place) == ("Pending", Tone.warn, 2, "3rd in line")
    admitted = {
        **wl,
        "status": {"conditions": [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}]},
    }
    assert workload_view(admitted, position=(2, 5)).place is None
    item = {"metadata": {"name": "vis"}, "priority": 0, "positionInLocalQueue": 0}
    fit = fit_response(
        assess_fit(
            [PodDemand("worker", 1, {})],
            FitCluster(nodes=None, pods=None, pending=[item]),
            local_queue={"metadata": {"name": "q"}},
        )
    )
    assert [(a.position_in_local_queue, a.place) for a in fit.ahead] == [(0, "1st in line")]
