"""HardwareProfile / AcceleratorProfile views and their translation into pod settings."""

from __future__ import annotations

import dataclasses

import pytest
from k8s_objects import GPU_TOLERATION, H100

from jupyter_accel.domain.hardware_profiles import (
    accelerator_profile_view,
    apply_profile,
    hardware_profile_view,
    list_profiles,
)


def hwp(name, *, scheduling=None, annotations=None, namespace="redhat-ods-applications"):
    spec = {
        "identifiers": [
            {
                "displayName": "CPU",
                "identifier": "cpu",
                "minCount": 1,
                "maxCount": 16,
                "defaultCount": 4,
                "resourceType": "CPU",
            },
            {
                "displayName": "Memory",
                "identifier": "memory",
                "minCount": "2Gi",
                "maxCount": "128Gi",
                "defaultCount": "16Gi",
                "resourceType": "Memory",
            },
            {
                "displayName": "H100",
                "identifier": "nvidia.com/gpu",
                "minCount": 1,
                "maxCount": 8,
                "defaultCount": 1,
                "resourceType": "Accelerator",
            },
        ]
    }
    if scheduling:
        spec["scheduling"] = scheduling
    return {
        "apiVersion": "infrastructure.opendatahub.io/v1",
        "kind": "HardwareProfile",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "annotations": {"opendatahub.io/display-name": f"{name} display", **(annotations or {})},
        },
        "spec": spec,
    }


QUEUE = {"type": "Queue", "kueue": {"localQueueName": "team-a-queue", "priorityClass": "high-priority"}}
NODE = {"type": "Node", "node": {"nodeSelector": {"nvidia.com/gpu.product": H100}, "tolerations": [GPU_TOLERATION]}}


def test_view_of_a_queue_profile():
    v = hardware_profile_view(
        hwp(
            "h100-queue",
            scheduling=QUEUE,
            annotations={
                "opendatahub.io/description": "One H100 via Kueue",
                "opendatahub.io/dashboard-feature-visibility": '["workbench", "model-serving"]',
            },
        )
    )
    assert (v.kind, v.display_name, v.description) == ("HardwareProfile", "h100-queue display", "One H100 via Kueue")
    assert v.accelerator == "nvidia.com/gpu" and v.enabled
    assert [(i.identifier, i.accelerator, i.min_count, i.max_count, i.default_count) for i in v.identifiers] == [
        ("cpu", False, "1", "16", "4"),
        ("memory", False, "2Gi", "128Gi", "16Gi"),
        ("nvidia.com/gpu", True, "1", "8", "1"),
    ]
    assert (v.scheduling_type, v.local_queue_name, v.priority_class) == ("Queue", "team-a-queue", "high-priority")
    assert v.visible_in == ["workbench", "model-serving"]


def test_apply_queue_profile_with_a_gpu_count():
    placement = apply_profile(hardware_profile_view(hwp("h100-queue", scheduling=QUEUE)), accelerator_count=4)
    assert placement.requests == {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "4"}
    assert placement.limits == {"nvidia.com/gpu": "4"}  # accelerators: request == limit
    assert placement.labels == {
        "kueue.x-k8s.io/queue-name": "team-a-queue",
        "kueue.x-k8s.io/priority-class": "high-priority",
    }
    assert placement.node_selector == {} and placement.tolerations == []
    assert placement.annotations == {
        "opendatahub.io/hardware-profile-name": "h100-queue",
        "opendatahub.io/hardware-profile-namespace": "redhat-ods-applications",
    }
    assert dataclasses.asdict(placement)["queue_name"] == "team-a-queue"


def test_apply_node_profile_copies_placement():
    placement = apply_profile(hardware_profile_view(hwp("h100-node", scheduling=NODE)), overrides={"memory": "32Gi"})
    assert placement.requests == {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"}
    assert placement.node_selector == {"nvidia.com/gpu.product": H100}
    assert placement.tolerations == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert placement.queue_name is None and placement.labels == {}


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"accelerator_count": 9}, r"hardware_profile\.nvidia\.com/gpu: 9 nvidia\.com/gpu is outside .*\(1\.\.8\)"),
        ({"overrides": {"memory": "1Gi"}}, r"hardware_profile\.memory: 1Gi memory is outside .*\(2Gi\.\.128Gi\)"),
        ({"overrides": {"amd.com/gpu": "1"}}, r"hardware_profile: amd\.com/gpu not in profile 'p'; allowed: cpu, "),
        ({"overrides": {"cpu": "lots"}}, r"hardware_profile\.cpu: 'lots' is not a quantity"),
    ],
)
def test_apply_rejects_counts_outside_the_profile(kw, match):
    with pytest.raises(ValueError, match=match):
        apply_profile(hardware_profile_view(hwp("p")), **kw)


def test_disabled_profiles_are_hidden_and_refused():
    off = hwp("off", annotations={"opendatahub.io/disabled": "true"})
    assert [p.name for p in list_profiles([off, hwp("on")])] == ["on"]
    assert [p.name for p in list_profiles([off], include_disabled=True)] == ["off"]
    with pytest.raises(ValueError, match="disabled"):
        apply_profile(hardware_profile_view(off))


def test_feature_filter_and_legacy_accelerator_profiles():
    serving = hwp("serving-only", annotations={"opendatahub.io/dashboard-feature-visibility": '["model-serving"]'})
    legacy = {
        "apiVersion": "dashboard.opendatahub.io/v1",
        "kind": "AcceleratorProfile",
        "metadata": {"name": "migrated-gpu", "namespace": "redhat-ods-applications"},
        "spec": {
            "displayName": "NVIDIA GPU",
            "enabled": True,
            "identifier": "nvidia.com/gpu",
            "tolerations": [GPU_TOLERATION],
        },
    }
    names = [p.name for p in list_profiles([serving, hwp("everywhere")], [legacy], feature="workbench")]
    assert names == ["everywhere", "migrated-gpu"]
    v = accelerator_profile_view(legacy)
    assert (v.kind, v.accelerator, v.scheduling_type) == ("AcceleratorProfile", "nvidia.com/gpu", "Node")
    placement = apply_profile(v, accelerator_count=2)
    assert placement.requests == placement.limits == {"nvidia.com/gpu": "2"}
    assert placement.tolerations == [GPU_TOLERATION] and placement.annotations == {}
