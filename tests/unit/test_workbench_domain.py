"""A workbench's Notebook as plain dicts: what it holds, and the JSON patch of a change of hardware profile."""

from __future__ import annotations

from decimal import Decimal

from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.domain.hardware_profiles import apply_profile, hardware_profile_view
from jupyter_accel.domain.workbench import profile_ops, workbench_demand, workbench_queue, workbench_view

REGISTRY = AcceleratorRegistry()


def notebook(annotations=None, labels=None, containers=None) -> dict:
    return {
        "metadata": {"name": "wb", "namespace": "team-a", "annotations": annotations, "labels": labels},
        "spec": {
            "template": {
                "spec": {
                    "containers": containers
                    or [
                        {"name": "sidecar", "resources": {"requests": {"cpu": "100m"}}},
                        {"name": "wb", "resources": {"requests": {"cpu": "2"}, "limits": {"nvidia.com/gpu": "2"}}},
                    ]
                }
            }
        },
    }


def profile(name="h100", namespace="team-a", queue="default", node=None) -> dict:
    scheduling = {"type": "Node", "node": node} if node else {"type": "Queue", "kueue": {"localQueueName": queue}}
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "identifiers": [
                {"displayName": "CPU", "identifier": "cpu", "minCount": 1, "defaultCount": 4},
                {"displayName": "GPU", "identifier": "nvidia.com/gpu", "minCount": 1, "defaultCount": 1,
                 "resourceType": "Accelerator"},
            ],
            "scheduling": scheduling,
        },
    }  # fmt: skip


def test_view_reads_the_named_container_and_its_accelerators():
    nb = notebook({"opendatahub.io/hardware-profile-name": "h100", "kubeflow-resource-stopped": "x"}, {})
    view = workbench_view("wb", "team-a", nb, REGISTRY, namespace_obj={"metadata": {"labels": {}}})
    assert view.found and view.accelerators == {"nvidia.com/gpu": 2} and view.requests == {"cpu": "2"}
    assert view.stopped and view.kueue_managed is False and view.hardware_profile == "h100"
    assert "stopped" in view.message and "2 nvidia.com/gpu" in view.message
    assert workbench_view("wb", "team-a", nb, REGISTRY).kueue_managed is None  # namespace unreadable: unknown
    why = "an admin must allow get on notebooks (kubeflow.org) in team-a"
    refused = workbench_view("wb", "team-a", None, REGISTRY, refused=why)
    assert not refused.found and not refused.visibility.visible
    assert refused.message == f"Workbench wb is not visible to your account: {why}."  # said once, with the ask
    assert workbench_view(None, None, None, REGISTRY).message.startswith("This server does not run in a workbench")


def test_ops_write_annotations_resources_and_guard_the_container():
    nb = notebook({"opendatahub.io/hardware-profile-namespace": "old"}, None)
    view = hardware_profile_view(profile(namespace=None))
    placement = apply_profile(view)
    ops = profile_ops(nb, view, placement, None)
    assert ops[0] == {
        "op": "add",
        "path": "/metadata/annotations/opendatahub.io~1hardware-profile-name",
        "value": "h100",
    }
    assert {"op": "remove", "path": "/metadata/annotations/opendatahub.io~1hardware-profile-namespace"} in ops
    test = next(op for op in ops if op["op"] == "test")
    assert test == {"op": "test", "path": "/spec/template/spec/containers/1/name", "value": "wb"}  # the named one
    res = next(op for op in ops if op["path"].endswith("/resources"))
    assert res["path"] == "/spec/template/spec/containers/1/resources"
    assert res["value"] == {"requests": {"cpu": "4", "nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}
    assert not any("labels" in op["path"] for op in ops)  # no queue asked: no label


def test_labels_map_is_made_when_absent_and_queue_rules():
    nb = notebook({}, None)
    view = hardware_profile_view(profile(queue="gpu-q"))
    placement = apply_profile(view)
    assert workbench_queue(nb, placement, managed=True, requested=None) == "gpu-q"
    assert workbench_queue(nb, placement, managed=True, requested="mine") == "mine"
    assert workbench_queue(nb, placement, managed=False, requested="mine") is None  # Kueue does not manage it
    queued = notebook({}, {"kueue.x-k8s.io/queue-name": "default"})
    assert workbench_queue(queued, placement, managed=None, requested=None) == "gpu-q"  # already queued
    ops = profile_ops(nb, view, placement, "gpu-q")
    labels = [op for op in ops if op["path"].startswith("/metadata/labels")]
    assert labels == [
        {"op": "add", "path": "/metadata/labels", "value": {}},
        {"op": "add", "path": "/metadata/labels/kueue.x-k8s.io~1queue-name", "value": "gpu-q"},
    ]


def test_node_profile_sets_placement_and_demand_carries_it():
    node = {"nodeSelector": {"pool": "mig"}, "tolerations": [{"key": "g", "operator": "Exists"}]}
    view = hardware_profile_view(profile(node=node))
    placement = apply_profile(view)
    nb = notebook({}, {})
    paths = {op["path"]: op["value"] for op in profile_ops(nb, view, placement, None)}
    assert paths["/spec/template/spec/nodeSelector"] == {"pool": "mig"}
    assert paths["/spec/template/spec/tolerations"] == [{"key": "g", "operator": "Exists"}]
    demand = workbench_demand(nb, placement)
    assert demand.count == 1 and demand.node_selector == {"pool": "mig"}
    assert demand.requests["nvidia.com/gpu"] == 1 and demand.requests["cpu"] == Decimal("4.1")  # with the sidecar
