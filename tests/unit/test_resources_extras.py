"""The additions to domain/resources.py: sidecar-aware pod requests, pod-level resources, formatting."""

from __future__ import annotations

from decimal import Decimal

from jupyter_accel.domain.resources import PodDemand, format_quantity, parse_quantity, pod_requests, to_number


def test_sidecars_add_to_main_containers():
    spec = {
        "containers": [{"name": "main", "resources": {"requests": {"cpu": "2", "nvidia.com/gpu": "1"}}}],
        "initContainers": [
            {"name": "log", "restartPolicy": "Always", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}
        ],
    }
    assert pod_requests(spec) == {"cpu": Decimal("2.250"), "nvidia.com/gpu": 1, "memory": 64 * 2**20}


def test_pod_level_resources_replace_cpu_memory_only():
    spec = {
        "resources": {"requests": {"cpu": "4", "memory": "16Gi"}},
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "2"}}}],
    }
    assert pod_requests(spec) == {"cpu": 4, "memory": 16 * 2**30, "nvidia.com/gpu": 2}


def test_demand_total_and_affinity():
    aff = {"nodeAffinity": {}}
    d = PodDemand.from_pod_spec(
        "worker", 3, {"affinity": aff, "containers": [{"name": "w", "resources": {"limits": {"nvidia.com/gpu": "2"}}}]}
    )
    assert d.total() == {"nvidia.com/gpu": 6} and d.affinity == aff


def test_format_quantity():
    assert format_quantity("memory", parse_quantity("64Gi")) == "64Gi"
    # one rule for every front-end (models/quantities.py): the largest binary unit reached, cores as numbers
    assert format_quantity("memory", parse_quantity("1536Mi")) == "1.5Gi"
    assert format_quantity("cpu", parse_quantity("500m")) == "0.5"
    assert format_quantity("cpu", Decimal("2.000")) == "2"
    assert format_quantity("nvidia.com/gpu", 4.0) == "4"
    assert to_number(Decimal("4.000")) == 4 and isinstance(to_number(Decimal("4.000")), int)
    assert to_number(Decimal("0.5")) == 0.5
