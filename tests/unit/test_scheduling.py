"""Taints/tolerations, nodeSelector and node affinity as kube-scheduler and Kueue's flavor assigner apply them."""

from __future__ import annotations

from k8s_objects import GPU_TAINT, GPU_TOLERATION, H100, flavor, h100_node

from jupyter_accel.domain.scheduling import (
    flavor_matches,
    matches_node_affinity,
    placement_problems,
    tolerates,
    untolerated_taints,
)


def test_toleration_semantics():
    assert tolerates(GPU_TOLERATION, GPU_TAINT)
    assert tolerates({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}, GPU_TAINT)
    assert not tolerates({"key": "nvidia.com/gpu", "value": "absent"}, GPU_TAINT)
    assert not tolerates({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, GPU_TAINT)
    assert tolerates({"operator": "Exists"}, GPU_TAINT)  # empty key + Exists tolerates everything
    assert not tolerates({"operator": "Equal"}, GPU_TAINT)


def test_prefer_no_schedule_never_blocks():
    soft = {"key": "dedicated", "value": "ml", "effect": "PreferNoSchedule"}
    assert untolerated_taints([soft, GPU_TAINT], []) == [GPU_TAINT]


def test_node_affinity_terms_or_expressions_and():
    labels = {"nvidia.com/gpu.product": H100, "nvidia.com/gpu.count": "8"}
    aff = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "In", "values": ["A100"]}]},
                    {
                        "matchExpressions": [
                            {"key": "nvidia.com/gpu.product", "operator": "In", "values": [H100]},
                            {"key": "nvidia.com/gpu.count", "operator": "Gt", "values": ["4"]},
                        ]
                    },
                ]
            }
        }
    }
    assert matches_node_affinity(labels, aff)
    assert not matches_node_affinity({**labels, "nvidia.com/gpu.count": "4"}, aff)
    assert matches_node_affinity(labels, {})
    by_name = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-h100-1"]}]}
                ]
            }
        }
    }
    assert matches_node_affinity({}, by_name, "gpu-h100-1")
    assert not matches_node_affinity({}, by_name, "gpu-h100-0")
    not_h100 = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "NotIn", "values": [H100]}]}
                ]
            }
        }
    }
    assert not matches_node_affinity(labels, not_h100)
    assert matches_node_affinity({}, not_h100)  # NotIn matches a missing label


def test_placement_problems_lists_every_reason():
    n = h100_node("gpu-h100-0", ready=False, unschedulable=True)
    problems = placement_problems(n, node_selector={"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}, tolerations=[])
    assert problems == [
        "node is not Ready",
        "node is cordoned (unschedulable)",
        "nodeSelector nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB does not match",
        "taint nvidia.com/gpu=present:NoSchedule is not tolerated",
    ]
    assert (
        placement_problems(
            h100_node("ok"), node_selector={"nvidia.com/gpu.product": H100}, tolerations=[GPU_TOLERATION]
        )
        == []
    )
    assert placement_problems(n, tolerations=[GPU_TOLERATION], check_state=False) == []


def test_flavor_matching_like_kueue():
    h100 = flavor("nvidia-h100-80gb", {"nvidia.com/gpu.product": H100}, tolerations=[GPU_TOLERATION])
    assert flavor_matches(h100, node_selector={}, affinity={}, tolerations=[]) == []
    assert flavor_matches(
        h100, node_selector={"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}, affinity={}, tolerations=[]
    ) == [
        f"nodeSelector nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB conflicts with flavor label "
        f"nvidia.com/gpu.product={H100}"
    ]
    # keys the flavor does not label are not compared
    assert flavor_matches(h100, node_selector={"topology.kubernetes.io/zone": "a"}, affinity={}, tolerations=[]) == []
    tainted = flavor("spot", {"pool": "spot"}, node_taints=[{"key": "spot", "value": "true", "effect": "NoSchedule"}])
    assert flavor_matches(tainted, node_selector={}, affinity={}, tolerations=[]) == [
        "flavor taint spot=true:NoSchedule is not tolerated"
    ]
    assert (
        flavor_matches(tainted, node_selector={}, affinity={}, tolerations=[{"key": "spot", "operator": "Exists"}])
        == []
    )
    aff = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "NotIn", "values": [H100]}]}
                ]
            }
        }
    }
    assert flavor_matches(h100, node_selector={}, affinity=aff, tolerations=[]) == [
        "required node affinity conflicts with the flavor's node labels"
    ]
