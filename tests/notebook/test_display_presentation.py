"""The notebooks show the server's words as given: tones, places in line, quantity texts, kind labels."""

from __future__ import annotations

from jupyter_accel.models import FitResponse, InfoResponse, JobKindInfo, JobsResponse, WorkloadsResponse
from jupyter_accel.notebook.display import View

KINDS = [
    JobKindInfo(kind="pytorch", label="PyTorchJob", badge="P", kubernetes_kind="PyTorchJob", served=True,
                version="v1", roles=["master", "worker"], default=True),
    JobKindInfo(kind="trainjob", label="TrainJob", badge="T", kubernetes_kind="TrainJob", served=False,
                roles=["node"]),
]  # fmt: skip


def test_workloads_show_the_servers_state_words_tone_and_place():
    answer = WorkloadsResponse.model_validate(
        {
            "workloads": [
                {
                    "name": "w1",
                    "namespace": "a",
                    "state": "admitted",
                    "label": "Admitted",
                    "tone": "info",
                    "message": "Admitted to team-a-cq",
                    "position_in_local_queue": None,
                },
                {
                    "name": "w2",
                    "namespace": "a",
                    "state": "pending",
                    "label": "Pending",
                    "tone": "warn",
                    "message": "Waiting for quota",
                    "position_in_local_queue": 0,
                    "place": "1st in line",
                },
            ]
        }
    )
    view = View(answer)
    text = repr(view)
    assert "in line" in text.splitlines()[1] and "1st in line" in text and "position" not in text
    html = view._repr_html_()
    assert "var(--jp-info-color1" in html and "var(--jp-success-color1" not in html  # admitted is info, as a job's


def test_the_fit_ahead_table_shows_the_place_and_the_servers_amounts():
    fit = FitResponse.model_validate(
        {
            "verdict": "must_queue",
            "label": "Must queue",
            "tone": "warn",
            "message": "Must queue: queued behind 1 workload",
            "ahead": [
                {
                    "name": "w",
                    "position_in_local_queue": 0,
                    "place": "1st in line",
                    "requests": {"cpu": 0.5},
                    "requests_text": {"cpu": "500m (as sent)"},
                },
            ],
        }
    )
    text = repr(View(fit))
    assert "1st in line" in text and "cpu=500m (as sent)" in text


def test_kinds_read_as_the_server_calls_them_when_its_kinds_are_at_hand():
    jobs = JobsResponse.model_validate(
        {
            "jobs": [
                {
                    "kind": "pytorch",
                    "name": "ddp-1",
                    "namespace": "a",
                    "managed_by_us": True,
                    "status": "Running",
                    "display": {
                        "label": "Running",
                        "tone": "info",
                        "sentence": "Running.",
                        "finished": False,
                        "actions": [],
                    },
                },
            ],
            "scope": "mine",
        }
    )
    assert "PyTorchJob" in repr(View(jobs, kinds=KINDS))
    assert "PyTorchJob" not in repr(View(jobs)) and "pytorch" in repr(View(jobs))
    job = View(jobs.jobs[0], kinds=KINDS)
    assert repr(job).startswith("pytorch ddp-1: Running")  # as the magics name it: %accel status --kind pytorch
    assert "PyTorchJob, namespace a" in repr(job)


def test_info_lists_the_kinds_once_with_the_default_and_the_connection_in_the_servers_words():
    info = InfoResponse.model_validate(
        {
            "version": "1",
            "connection": {
                "state": "error",
                "message": "The API server cannot be reached.",
                "label": "Connection error",
                "tone": "error",
            },
            "capabilities": {"apis": {"kueue": "v1beta2", "ray": "v1"}, "kinds": [k.model_dump() for k in KINDS]},
        }
    )
    text = repr(View(info))
    assert "Kubernetes: connection error" in text
    assert "PyTorchJob (PyTorchJob), the default  v1" in text and "TrainJob (TrainJob)" in text
    assert "ray " not in text  # the deprecated per-kind field is not shown beside the kinds
    assert "var(--jp-error-color1" in View(info)._repr_html_()


def test_info_shows_a_degraded_connection_in_the_servers_sentence_and_tone():
    sentence = "The Kubernetes API server is throttling this server (429, 2 s wait): requests wait as long as it asks."
    connection = {"state": "connected", "message": "Connected as alice.", "label": "Connected", "tone": "ok"}
    info = InfoResponse.model_validate(
        {
            "version": "1",
            "connection": {**connection, "degraded": {"reason": "throttled", "message": sentence, "tone": "error"}},
            "capabilities": {"apis": {}, "kinds": [k.model_dump() for k in KINDS]},
        }
    )
    text = repr(View(info)).splitlines()
    assert text[2:5] == ["Kubernetes: connected", "Connected as alice.", sentence], text[:6]
    html = View(info)._repr_html_()
    # the server's tone, not a fixed one
    assert f'color:var(--jp-error-color1, #d32f2f);margin:0.1em 0">{sentence}' in html
    healthy = InfoResponse.model_validate({**info.model_dump(), "connection": connection})
    assert sentence not in repr(View(healthy)) and "throttl" not in View(healthy)._repr_html_()


def test_info_says_where_cluster_reads_come_from_only_when_a_read_service_is_configured():
    from jupyter_accel.domain.presentation import cluster_reads

    connection = {"state": "connected", "message": "Connected as alice.", "label": "Connected", "tone": "ok"}

    def info_with(reads: object) -> InfoResponse:
        return InfoResponse.model_validate(
            {
                "version": "1",
                "connection": {**connection, "cluster_reads": reads},
                "capabilities": {"apis": {}, "kinds": [k.model_dump() for k in KINDS]},
            }
        )

    used = cluster_reads("https://reads.example:8443", used=True)
    unused = cluster_reads("https://reads.example:8443", used=False)
    own = cluster_reads(None, used=False)
    assert used.message in repr(View(info_with(used.model_dump(mode="json"))))
    assert unused.message in repr(View(info_with(unused.model_dump(mode="json"))))
    assert own.message not in repr(View(info_with(own.model_dump(mode="json"))))
