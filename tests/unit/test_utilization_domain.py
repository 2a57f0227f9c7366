"""domain/utilization.py: the exporters' names, the queries for a batch of pods, their answers per device (both
label conventions, MIG's ratio, Gaudi's bytes), a job's mean, and when its devices count as idle."""

from __future__ import annotations

from jupyter_accel.domain import utilization as U

NVIDIA = U.family_for("nvidia")
AMD = U.family_for("amd")
GAUDI = U.family_for("habana")


def series(metric: dict[str, str], *values: tuple[float, float | str]) -> dict:
    return {"metric": metric, "values": [[t, str(v)] for t, v in values]}


def test_one_query_per_metric_covers_every_pod_in_both_label_conventions():
    q = U.query(NVIDIA, "util", "team-a", ["train-1-master-0", "ray.head-x", "train-1-master-0"])
    assert q == (
        'DCGM_FI_DEV_GPU_UTIL{exported_namespace="team-a",exported_pod=~"ray\\\\.head\\\\-x|train\\\\-1\\\\-master\\\\-0"}'
        ' or DCGM_FI_DEV_GPU_UTIL{namespace="team-a",pod=~"ray\\\\.head\\\\-x|train\\\\-1\\\\-master\\\\-0"}'
    )
    assert U.query(GAUDI, "util", "ns", ["p"]) == 'habanalabs_utilization{pod_namespace="ns",pod_name=~"p"}'
    assert U.query(AMD, "util_ratio", "ns", ["p"]) is None  # only NVIDIA's MIG instances need the ratio


def test_openshifts_renamed_labels_win_over_the_exporters_own_pod():
    # On OpenShift `pod` names the dcgm-exporter pod; the workload is in exported_pod.
    openshift = {"pod": "nvidia-dcgm-exporter-abc", "namespace": "nvidia-gpu-operator", "exported_pod": "train-0",
                 "exported_namespace": "team-a", "exported_container": "pytorch", "UUID": "GPU-1", "gpu": "0"}  # fmt: skip
    vanilla = {"pod": "train-1", "namespace": "team-a", "container": "pytorch", "UUID": "GPU-2", "gpu": "1"}
    found = U.devices(NVIDIA, {"util": [series(openshift, (10, 40)), series(vanilla, (10, 60))]})
    assert [(d.key.pod, d.key.container, d.key.device) for d in found] == [
        ("train-0", "pytorch", "GPU-1"),
        ("train-1", "pytorch", "GPU-2"),
    ]


def test_a_mig_instance_reports_only_the_engine_ratio_which_becomes_a_percent():
    mig = {"pod": "p", "namespace": "ns", "container": "c", "UUID": "GPU-9", "GPU_I_ID": "3"}
    whole = {"pod": "p", "namespace": "ns", "container": "c", "UUID": "GPU-8"}
    answers = {
        "util": [series(whole, (0, 50))],
        "util_ratio": [series(mig, (0, 0.25)), series(whole, (0, 0.9))],
        "mem_used": [series(mig, (0, 1000))],
        "mem_free": [series(mig, (0, 9000))],
    }
    by_device = {d.key.device: d for d in U.devices(NVIDIA, answers)}
    assert by_device["GPU-9:3"].util == [(0.0, 25.0)]
    assert by_device["GPU-8"].util == [(0.0, 50.0)]  # the percent wins where the exporter reports it
    assert by_device["GPU-9:3"].memory_total_mib == 10000


def test_gaudi_memory_in_bytes_becomes_mib_and_nan_is_a_gap():
    labels = {"pod_name": "p", "pod_namespace": "ns", "UUID": "hl-1"}
    [d] = U.devices(GAUDI, {"util": [series(labels, (0, "NaN"), (5, 80))], "mem_used": [series(labels, (5, 2**31))]})
    assert d.util == [(5.0, 80.0)] and d.mem_used == [(5.0, 2048.0)] and d.key.container is None


def test_series_without_a_workload_are_left_out_and_devcluster_says_what_it_measures():
    idle = {"UUID": "GPU-0", "gpu": "0"}  # a device nobody holds: no pod labels
    sim = {"pod": "p", "namespace": "ns", "UUID": "devcluster-gpu-1", U.SIMULATED_LABEL: "cpu-use"}
    [d] = U.devices(NVIDIA, {"util": [series(idle, (0, 0)), series(sim, (0, 70))]})
    assert d.simulated == "cpu-use"


def test_a_jobs_mean_and_its_idle_run():
    a = [(0.0, 0.0), (30.0, 90.0), (60.0, 0.0), (90.0, 1.0), (120.0, 0.0)]
    b = [(0.0, 0.0), (30.0, 0.0), (60.0, 2.0), (90.0, 0.0)]  # reported up to 90 s only
    assert U.mean_series([a, b])[1] == (30.0, 45.0)
    assert U.idle_seconds([a, b], threshold=5, step=30) == 90  # 60, 90, 120 idle on every device
    assert U.idle_seconds([a], threshold=0.5, step=30) == 30  # only the last sample
    assert U.idle_seconds([[(0.0, 99.0)]], threshold=5, step=30) == 0
    assert U.idle_seconds([], threshold=5, step=30) is None
    assert U.idle_sentence(4, 0.2, 1200) == "4 accelerators at 0 % for 20m"
    assert U.idle_sentence(1, 3, 90) == "1 accelerator at 3 % for 1m"
    assert [U.elapsed(s) for s in (45, 150, 3600, 5400)] == ["45s", "2m", "1h", "1h 30m"]


def test_the_query_cache_asks_once_for_callers_at_the_same_moment_and_within_its_time():
    import threading
    import time

    from jupyter_accel.services.utilization import QueryCache

    cache, asked = QueryCache(ttl=5), []

    def fetch():
        asked.append(1)
        time.sleep(0.2)  # a slow metrics API: the other callers arrive while it answers
        return [{"metric": {}, "values": []}]

    answers = []
    threads = [threading.Thread(target=lambda: answers.append(cache.get(("q", 0), fetch))) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(asked) == 1 and len(answers) == 5
    assert cache.get(("q", 0), fetch) is answers[0] and len(asked) == 1
    cache.get(("q", 30), fetch)  # the next step is another query
    assert len(asked) == 2
