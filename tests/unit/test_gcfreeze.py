"""Cached objects leave the cycle collector's walk: frozen once listed (and back when their caches are dropped),
untracked when a watch event brings them, and freed by reference counting all the same."""

from __future__ import annotations

import gc
import types
import weakref
from typing import Any

from jupyter_accel.cluster.gcfreeze import freeze_long_lived, release, untracked
from jupyter_accel.cluster.informer import Informer, Resource
from jupyter_accel.cluster.remote import RemoteCache
from jupyter_accel.cluster.trim import trim_pod


def test_freeze_then_release():
    release()
    cache = {f"pod-{i}": {"spec": {"containers": [{"name": "c"}]}} for i in range(5000)}
    garbage: list[object] = []
    garbage.append(garbage)  # a cycle nobody holds: collected first, never frozen
    ref = id(garbage)
    del garbage
    freeze_long_lived()
    try:
        assert gc.get_freeze_count() >= 3 * len(cache)  # each pod's dicts and list
        assert all(id(o) != ref for o in gc.get_objects())
        walked = {id(o) for o in gc.get_objects()}  # what a full collection would walk
        assert not walked & {id(pod) for pod in cache.values()}
    finally:
        release()
    assert gc.get_freeze_count() == 0


def _containers(obj: Any) -> list[Any]:
    """Every dict and list of a JSON tree, itself included."""
    if isinstance(obj, dict):
        return [obj, *(c for v in obj.values() for c in _containers(v))]
    if isinstance(obj, list):
        return [obj, *(c for v in obj for c in _containers(v))]
    return []


def _event_pod(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "team-a", "resourceVersion": "7", "ownerReferences": [{"kind": "Job"}]},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


def test_a_watched_object_is_cached_out_of_the_collectors_sight():
    fresh = trim_pod(_event_pod("a"))
    assert sum(gc.is_tracked(c) for c in _containers(fresh)) >= 6  # what the collector walks without it
    inf = Informer(None, Resource("pods", "", "v1", "pods", True, trim_pod), None, lambda _k: None)  # type: ignore[arg-type]
    inf._apply({"type": "ADDED", "object": _event_pod("a")})
    cached = inf._objects[("team-a", "a")]
    assert cached == fresh
    assert not any(gc.is_tracked(c) for c in _containers(cached))


def test_a_workbench_holds_the_read_services_objects_untracked_too():
    told: list[str] = []
    cache = RemoteCache("nodes", types.SimpleNamespace(on_change=told.append))  # type: ignore[arg-type]  # no feed
    node = {"metadata": {"name": "n1"}, "status": {"conditions": [{"type": "Ready"}]}}
    cache.apply({"state": "synced", "instance": "i", "revision": 1, "items": [node]})
    changed = {"metadata": {"name": "n2"}, "spec": {"taints": [{"key": "gpu"}]}}
    cache.apply({"state": "synced", "instance": "i", "revision": 2, "changed": [changed]})
    held = [cache.get("n1"), cache.get("n2")]
    assert held == [node, changed] and told == ["nodes", "nodes"]
    assert not any(gc.is_tracked(c) for obj in held for c in _containers(obj))


class _Probe:
    """Something a weak reference can watch, held deep inside a tree."""


def test_an_untracked_tree_is_freed_by_reference_counting_alone():
    probe = _Probe()
    tree = untracked({"spec": {"containers": [{"name": "c", "env": [probe]}]}, "status": {"conditions": [{}]}})
    assert not any(gc.is_tracked(c) for c in _containers(tree))
    alive = weakref.ref(probe)
    del probe
    gc.disable()  # no collection may be what frees it
    try:
        del tree
        assert alive() is None
    finally:
        gc.enable()


def test_an_untracked_dict_given_a_container_is_tracked_again():
    tree = untracked({"spec": {"containers": []}})
    assert not gc.is_tracked(tree)
    tree["more"] = []  # CPython tracks a dict again when a container goes in: a later cycle stays collectable
    assert gc.is_tracked(tree)
