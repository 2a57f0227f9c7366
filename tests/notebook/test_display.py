"""Rich display from model instances: the same facts in HTML (escaped) and in aligned plain text."""

from __future__ import annotations

from jupyter_accel.models import (
    FitResponse,
    InventoryNodesResponse,
    InventoryResponse,
    JobDetail,
    JobsResponse,
    QueuesResponse,
    Visibility,
)
from jupyter_accel.notebook.display import View, amount


def _inventory() -> InventoryResponse:
    return InventoryResponse.model_validate(
        {
            "node_count": 1,
            "models": [
                {
                    "key": "nvidia.com/gpu|H100 <80GB>",
                    "resource": "nvidia.com/gpu",
                    "vendor": "nvidia",
                    "vendor_name": "NVIDIA",
                    "model": "H100 <80GB>",
                    "memory_mib": 81559,
                    "node_count": 1,
                    "capacity": 8,
                    "allocatable": 8,
                    "allocated": 6,
                    "free": 2,
                }
            ],
            "pods_visibility": {"visible": False, "message": "pods are not visible to your account"},
        }
    )


def _nodes(offset: int = 0, total: int = 1) -> InventoryNodesResponse:
    return InventoryNodesResponse.model_validate(
        {
            "model": "nvidia.com/gpu|H100 <80GB>",
            "nodes": [
                {
                    "name": "gpu-h100-0",
                    "ready": True,
                    "unschedulable": True,
                    "usable": False,
                    "label": "Cordoned",
                    "tone": "warn",
                    "accelerators": [
                        {
                            "resource": "nvidia.com/gpu",
                            "vendor": "nvidia",
                            "vendor_name": "NVIDIA",
                            "model": "H100 <80GB>",
                            "capacity": 8,
                            "allocatable": 8,
                            "allocated": 6,
                            "free": 2,
                        }
                    ],
                    "cpu": {"allocatable": 96, "allocated": 10.5, "free": 85.5},
                    "memory": {"allocatable": 2 * 2**40, "allocated": 2**40, "free": 2**40 - 512 * 2**30},
                }
            ],
            "total": total,
            "offset": offset,
            "limit": 1,
            "pods_visibility": {"visible": False, "message": "pods are not visible to your account"},
        }
    )


def test_amounts_in_the_units_people_read():
    assert amount("memory", 64 * 2**30) == "64Gi"
    assert amount("memory", 1.5 * 2**40) == "1.5Ti"
    assert amount("cpu", 0.5) == "0.5"
    assert amount("nvidia.com/gpu", 8.0) == "8"
    assert amount("cpu", None) == "—"


def test_node_page_text_and_what_comes_next():
    text = repr(View(_nodes()))
    assert "Nodes with H100 <80GB>" in text and "Nodes 1-1 of 1" in text
    assert "gpu-h100-0" in text and "Cordoned" in text  # the server's words for the node's state
    assert "var(--jp-warn-color1" in View(_nodes())._repr_html_()  # and its tone
    assert "H100 <80GB>: 2/8 free" in text
    assert "85.5/96" in text and "512Gi/2Ti" in text
    assert "pods are not visible to your account" in text
    assert "--offset" not in text  # the last page says nothing more comes
    assert "`%accel nodes --offset 6`" in repr(View(_nodes(offset=5, total=9)))


def test_inventory_text_and_html():
    view = View(_inventory())
    text = repr(view)
    assert "1 node has accelerators: `%accel nodes` lists them." in text
    assert "pods are not visible to your account" in text
    html = view._repr_html_()
    assert "H100 &lt;80GB&gt;" in html and "<80GB>" not in html  # escaped
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("model "))
    row = lines[lines.index(header) + 2]
    assert row.index(" 8 ") + 1 == header.index("allocatable")  # aligned columns
    assert "80 GiB" in row


def test_queue_quota_and_hidden_cluster_queue():
    queues = QueuesResponse.model_validate(
        {
            "queues": [
                {
                    "name": "default",
                    "namespace": "team-a",
                    "cluster_queue": "team-a-cq",
                    "is_default": True,
                    "cohort": "research",
                    "pending_workloads": 3,
                    "admitted_workloads": 1,
                    "flavors": [
                        {
                            "name": "nvidia-h100-80gb",
                            "resources": [
                                {
                                    "resource": "nvidia.com/gpu",
                                    "nominal": 8,
                                    "reserved": 6,
                                    "free": 2,
                                    "borrowable": 4,
                                    "available": 6,
                                    "max_capacity": 12,
                                }
                            ],
                        }
                    ],
                    "cluster_queue_visibility": {"visible": False, "message": "not visible to your account"},
                }
            ]
        }
    )
    text = repr(View(queues))
    assert "default → team-a-cq (default), cohort research" in text
    assert "3 pending, 0 reserving, 1 admitted" in text
    row = next(line for line in text.splitlines() if line.startswith("nvidia-h100-80gb"))
    assert row.split()[1:] == ["nvidia.com/gpu", "8", "6", "2", "4", "6", "12"]
    assert "ClusterQueue quota: not visible to your account" in text


def test_fit_verdict_colour_and_numbers():
    fit = FitResponse.model_validate(
        {
            "verdict": "never_fits",
            "label": "Can never fit",
            "tone": "error",
            "message": "Can never fit: the largest node has 8 nvidia.com/gpu.",
            "roles": [
                {
                    "role": "worker",
                    "count": 2,
                    "requests": {"nvidia.com/gpu": 16, "memory": 64 * 2**30},
                    "problems": ["asks 16 nvidia.com/gpu per pod; the largest node has 8"],
                }
            ],
        }
    )
    view = View(fit)
    assert repr(view).startswith("Can never fit\nCan never fit: the largest node has 8")
    assert "nvidia.com/gpu=16, memory=64Gi" in repr(view)
    assert "var(--jp-error-color1" in view._repr_html_()


def test_jobs_and_detail():
    job = {
        "kind": "pytorch",
        "name": "ddp-1",
        "namespace": "team-a",
        "managed_by_us": True,
        "status": "Queued",
        "reason": "Waiting for quota: 8/8 nvidia.com/gpu reserved",
        "display": {
            "label": "Queued",
            "tone": "warn",
            "sentence": "Waiting for quota: 8/8 nvidia.com/gpu reserved",
            "place": "3rd in line",
            "eta": "Starts no later than ~14:20 UTC if the jobs ahead stop at their time limits.",
            "finished": False,
            "actions": ["suspend", "delete"],
        },
        "queue": "default",
        "position": 2,
        "accelerators_requested": {"nvidia.com/gpu": 4},
        "pods": [{"name": "ddp-1-master-0", "role": "master", "phase": "Pending", "reason": "SchedulingGated"}],
        "ahead": [
            {"name": "pytorchjob-big-1", "owner_kind": "PyTorchJob", "owner_name": "big", "priority": 100,
             "position_in_local_queue": 0, "place": "1st in line", "requests": {"nvidia.com/gpu": 8}}
        ],
    }  # fmt: skip
    jobs = JobsResponse.model_validate(
        {"jobs": [job], "scope": "mine", "visibility": {"trainjob": Visibility(visible=False).model_dump()}}
    )
    text = repr(View(jobs))
    assert "Jobs launched from this workbench" in text
    assert "trainjob: not visible to your account" in text
    assert "0/4 nvidia.com/gpu" in text and "Waiting for quota" in text
    assert "no later than ~14:20 UTC" in text  # the jobs table's time column: the estimate, or the time left
    detail = JobDetail.model_validate(
        {
            "job": job,
            "events": [
                {"type": "Normal", "reason": "Suspended", "object": "PyTorchJob/ddp-1", "message": "queued by Kueue"}
            ],
        }
    )
    text = repr(View(detail))
    assert text.startswith("pytorch ddp-1: Queued")
    assert "ddp-1-master-0" in text and "SchedulingGated" in text and "queued by Kueue" in text
    assert "Queued ahead" in text and "PyTorchJob/big" in text and "8 nvidia.com/gpu" in text.replace("\n", " ")
    assert "var(--jp-warn-color1" in View(detail)._repr_html_()


def test_utilization_says_why_it_is_empty_and_shows_rows_as_text():
    from jupyter_accel.models import UtilizationResponse
    from jupyter_accel.notebook.display import View

    empty = UtilizationResponse.model_validate(
        {
            "source": {"available": False, "message": "No metrics API is configured on this server"},
            "window_seconds": 1800,
            "step_seconds": 30,
        }
    )
    assert "No metrics API is configured" in repr(View(empty))
    rows = UtilizationResponse.model_validate(
        {
            "source": {"available": True, "message": "From the cluster's metrics API."},
            "window_seconds": 1800,
            "step_seconds": 30,
            "jobs": [
                {
                    "kind": "pytorch",
                    "name": "train-1",
                    "devices": 2,
                    "percent": 87.5,
                    "points": [[0, 0], [30, 50], [60, 100]],
                    "idle": None,
                }
            ],
        }
    )
    text = repr(View(rows))
    assert "train-1" in text and "88 %" in text and "▁▅█" in text


def test_terminal_sparkline():
    from jupyter_accel.notebook.display.format import sparkline

    assert sparkline([0, 50, 100, 12.5]) == "▁▅█▂"
