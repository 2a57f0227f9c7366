"""Plain, true answers in the places where the raw data misleads (issue: honest status)."""

from __future__ import annotations

from decimal import Decimal

from k8s_objects import GPU_TOLERATION, a100_mig_node, cluster_queue, gaudi_node, h100_node, local_queue

from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.domain.fit import FitCluster, assess_fit, fit_response
from jupyter_accel.domain.inventory import build_inventory
from jupyter_accel.domain.job_status import JobSeen, job_view, pod_reason
from jupyter_accel.domain.resources import PodDemand
from jupyter_accel.domain.workload_state import describe
from jupyter_accel.models import FitVerdict, JobStatus, Tone

REG = AcceleratorRegistry()
GPU = "nvidia.com/gpu"


def test_a_mig_only_node_gives_no_empty_whole_gpu_row_but_the_node_still_shows_it():
    inv = build_inventory([a100_mig_node(), h100_node("h-0")], [], REG)
    rows = {(m.resource, m.model): m for m in inv.summary.models}
    assert all(m.capacity > 0 for m in inv.summary.models)
    assert not [k for k in rows if k[0] == "nvidia.com/gpu" and "A100" in k[1]]
    node = next(n for n in inv.nodes if n.name == "gpu-a100-mig-0")
    assert [d.allocatable for d in node.accelerators if d.resource == "nvidia.com/gpu"] == [0]


def test_an_accelerator_without_a_product_label_is_named_by_vendor_and_resource():
    inv = build_inventory([gaudi_node()], [], REG)
    assert [m.model for m in inv.summary.models] == ["Intel Gaudi (habana.ai/gaudi), unknown model"]


def test_a_finished_pod_being_removed_says_how_it_ended_not_terminating():
    def pod(phase: str, code: int) -> dict:
        return {
            "metadata": {"name": "p", "deletionTimestamp": "2026-12-04T10:00:00Z"},
            "status": {
                "phase": phase,
                "containerStatuses": [{"name": "main", "state": {"terminated": {"exitCode": code, "reason": "Error"}}}],
            },
        }

    assert pod_reason(pod("Failed", 3)) == "main: Error (exit code 3)."
    assert pod_reason(pod("Succeeded", 0)) is None
    running = {"metadata": {"name": "p", "deletionTimestamp": "x"}, "status": {"phase": "Running"}}
    assert pod_reason(running) == "Terminating"


def test_quota_that_fits_with_nodes_out_of_sight_is_not_called_fits_now():
    demand = PodDemand("worker", 1, {"cpu": Decimal(8), "memory": Decimal(32 * 2**30), GPU: Decimal(2)})
    r = fit_response(
        assess_fit(
            [demand],
            FitCluster(nodes=None, pods=None, resource_flavors=None),
            local_queue=local_queue("team-a-queue", "team-a-cq"),
            cluster_queue=cluster_queue("team-a-cq", reserved_gpu=0),
        )
    )
    assert r.verdict == FitVerdict.fits_now and r.label == "Quota fits"
    assert r.message.startswith("Quota fits: 2 nvidia.com/gpu")
    assert r.message.endswith("placement is unknown: nodes are not visible to your account")


# Recorded from devcluster (Kueue 0.17.0): a PyTorchJob of a Master and a Worker with 8 GPUs each, queued in
# team-a-cq (8 nominal + 4 borrowable nvidia.com/gpu).
KUEUE_017_MAX_CAPACITY = (
    "couldn't assign flavors to pod set worker: insufficient quota for nvidia.com/gpu in flavor nvidia-h100-80gb, "
    "previously considered podsets requests (8) + current podset request (8) > maximum capacity (12)"
)


def test_a_job_too_big_for_its_queue_can_never_start_and_has_no_place_in_line():
    wl = {
        "metadata": {"name": "pytorchjob-big-1", "namespace": "team-a"},
        "spec": {"queueName": "default", "active": True},
        "status": {
            "conditions": [
                {"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": KUEUE_017_MAX_CAPACITY}
            ]
        },
    }
    _, why, sentence = describe(wl, cluster_queue="team-a-cq")
    assert why == "ExceedsMaxQuota"
    assert sentence == (
        "Can never be admitted as is: needs 16 nvidia.com/gpu but ClusterQueue team-a-cq can hold at most 12 "
        "on flavor nvidia-h100-80gb"
    )
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "big-1", "namespace": "team-a", "labels": {"kueue.x-k8s.io/queue-name": "default"}},
        "spec": {"runPolicy": {"suspend": True}},
    }
    view = job_view(job, JobSeen(workload=wl, position=0))
    assert view.status is JobStatus.queued and view.position == 0  # the wire keeps Kueue's number
    assert (view.display.label, view.display.tone, view.display.place) == ("Can never start", Tone.error, None)
    assert view.display.sentence.startswith("Can never be admitted as is: needs 16 nvidia.com/gpu")
    assert view.display.detail == KUEUE_017_MAX_CAPACITY


def test_only_workloads_that_compete_for_the_same_accelerators_are_ahead():
    def item(name: str) -> dict:
        return {"metadata": {"name": name, "namespace": "team-a"}, "priority": 0, "positionInLocalQueue": 0}

    def wl(name: str, resource: str) -> dict:
        return {
            "metadata": {"name": name, "namespace": "team-a"},
            "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
                {"name": "c", "resources": {"requests": {resource: "1"}}}]}}}]},
        }  # fmt: skip

    demand = PodDemand("worker", 1, {"cpu": Decimal(1), GPU: Decimal(1)})
    r = fit_response(
        assess_fit(
            [demand],
            FitCluster(
                nodes=None,
                pods=None,
                pending=[item("wants-amd"), item("wants-nvidia"), item("unknown")],
                workloads=[wl("wants-amd", "amd.com/gpu"), wl("wants-nvidia", GPU)],
            ),
            local_queue=local_queue("team-a-queue", "team-a-cq"),
            cluster_queue=cluster_queue("team-a-cq", reserved_gpu=8),
        )
    )
    assert [a.name for a in r.ahead] == ["wants-nvidia", "unknown"]  # an unknown one may still compete


def test_a_node_selector_no_node_matches_is_named_with_its_count():
    demand = PodDemand(
        "worker",
        1,
        {"cpu": Decimal(1), GPU: Decimal(1)},
        node_selector={"nvidia.com/gpu.product": "NVIDIA-H200"},
        tolerations=[GPU_TOLERATION],
    )
    r = fit_response(
        assess_fit([demand], FitCluster(nodes=[h100_node("h-0"), h100_node("h-1")], pods=[]), local_queue=None)
    )
    assert r.verdict == FitVerdict.never_fits
    assert "node selector nvidia.com/gpu.product=NVIDIA-H200 matches 0 nodes" in r.message
