"""The inventory's node views, kept between builds, are out of the cycle collector's walk (cluster/gcfreeze): a
burst that rebuilds a thousand of them must not lengthen every full collection by some twenty objects a view."""

from __future__ import annotations

import gc
import weakref
from decimal import Decimal
from typing import Any

from memory_cluster import MemoryHub
from pydantic import BaseModel

from jupyter_accel.cluster.gcfreeze import untracked
from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.domain.inventory import node_accelerators
from jupyter_accel.services.reads import Inventory


def _node(name: str, taints: int = 1) -> dict[str, Any]:
    cap = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8"}
    return {
        "metadata": {"name": name, "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}},
        "spec": {"taints": [{"key": f"t{i}", "effect": "NoSchedule"} for i in range(taints)]},
        "status": {"capacity": cap, "allocatable": cap, "conditions": [{"type": "Ready", "status": "True"}]},
    }


def _pod(name: str, node: str, gpus: int) -> dict[str, Any]:
    requests = {"nvidia.com/gpu": str(gpus), "cpu": "1"}
    return {
        "metadata": {"name": name, "namespace": "team-a"},
        "spec": {"nodeName": node, "containers": [{"name": "c", "resources": {"requests": requests}}]},
        "status": {"phase": "Running"},
    }


def _parts(obj: Any) -> list[Any]:
    """A view's own containers: the model, its __dict__ and fields set, nested models, lists and dicts."""
    if isinstance(obj, BaseModel):
        held = [obj.__dict__, obj.__pydantic_fields_set__]
        return [obj, *held, *(p for v in obj.__dict__.values() for p in _parts(v))]
    if isinstance(obj, list):
        return [obj, *(p for v in obj for p in _parts(v))]
    if isinstance(obj, dict):
        return [obj, *(p for v in obj.values() for p in _parts(v))]
    return []


def test_a_view_is_untracked_with_everything_it_holds_and_freed_by_reference_counting():
    view = node_accelerators(
        _node("n1", taints=2), {"nvidia.com/gpu": Decimal(3), "cpu": Decimal(1)}, AcceleratorRegistry()
    )
    assert sum(gc.is_tracked(p) for p in _parts(view)) >= 15  # what a full collection walks without it
    views = untracked([view])
    assert not any(gc.is_tracked(p) for p in _parts(views))
    alive = weakref.ref(view.taints[1])
    del view
    gc.disable()  # no collection may be what frees it
    try:
        views.clear()
        assert alive() is None
    finally:
        gc.enable()


def test_the_inventory_keeps_its_views_untracked_as_nodes_and_pods_change():
    hub = MemoryHub()
    hub.caches["nodes"] = [_node(f"n{i}") for i in range(3)] + [{"metadata": {"name": "cpu-only"}, "status": {}}]
    hub.caches["allpods"] = [_pod("a", "n0", 2)]
    inventory = Inventory(AcceleratorRegistry())
    first = inventory.nodes(hub, None, 0, 10).nodes
    assert [(n.name, n.accelerators[0].allocated) for n in first] == [("n0", 2), ("n1", 0), ("n2", 0)]
    assert not any(gc.is_tracked(p) for n in first for p in _parts(n))
    hub.caches["allpods"].append(_pod("b", "n1", 8))  # n1's view is built again
    again = inventory.nodes(hub, None, 0, 10).nodes
    assert again[0] is first[0] and again[1] is not first[1]  # the memo still reuses what did not change
    assert again[1].accelerators[0].free == 0
    assert not any(gc.is_tracked(p) for n in again for p in _parts(n))


def test_another_identitys_memo_keeps_its_views_untracked_too():
    inventory = Inventory(AcceleratorRegistry())
    for _ in range(2):  # a second hub: the memo is made afresh (services/reads.Inventory._full)
        hub = MemoryHub()
        hub.caches["nodes"], hub.caches["allpods"] = [_node("n0")], [_pod("a", "n0", 1)]
        views = inventory.nodes(hub, None, 0, 10).nodes
        assert [n.accelerators[0].allocated for n in views] == [1]
        assert not any(gc.is_tracked(p) for n in views for p in _parts(n))
