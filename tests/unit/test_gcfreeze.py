"""Cached objects leave the cycle collector's walk once frozen, and come back when their caches are dropped."""

from __future__ import annotations

import gc

from jupyter_accel.cluster.gcfreeze import freeze_long_lived, release


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
