"""The caches' objects out of the cycle collector's way.

A cluster of 20,000 pods is a few hundred thousand small dicts in the caches. Python's cycle collector walks every
tracked object on each full collection while holding the GIL, so the Jupyter server's event loop stops meanwhile
(benchmarks/scale.py measures the longest callback). Cached objects are plain JSON data without cycles: reference
counting frees each when a watch event replaces it. So once the caches have listed, one collection frees what is
already garbage and `gc.freeze()` moves everything alive to the permanent generation, which full collections skip;
again after a relist, which replaces the objects. Caches that are dropped (another identity) call `release()`
first, so that what they leave behind is collectable again.

What a watch event brings after the list is not frozen, and a full collection walks it: a burst of 1,000 pod
changes is about 16,000 tracked containers, each walked by every full pass until the next relist (10-33 ms passes that
stop the event loop, benchmarks/scale.py). `untracked()` takes such an object out of the collector's sight the
moment it is cached, a listed one too: the one collection before freezing then walks what is not cached (20,000
listed pods: 40 ms of it, 3 ms untracked, and the list costs no more CPU). That is safe for the same reason
freezing is: the tree is JSON, never cyclic, and nothing changes a cached object; reference counting frees it when
it is replaced. An untracked object can never be freed too early, only kept too long if it ever joined a cycle; a
dict that is given a container is tracked again.

The inventory's per-node views are the same kind of thing: built once per node and per change of what its pods
hold, kept between builds (domain/inventory.InventoryMemo), never changed after. A burst that moves pods across a
thousand nodes rebuilds their views, and each is some twenty tracked objects (the model, its `__dict__`, its
fields-set set, its lists and nested models): 20,000 objects that every full pass walked, 10-22 ms of CPU holding the
GIL (benchmarks/scale.py with JA_LOOP_LAG_CENSUS=1). `untracked()` takes such a model out too, as it is built
(full passes in a burst: 4.5-10.6 ms of CPU since, docs/scale.md).
"""

from __future__ import annotations

import ctypes
import gc
import threading
import time
from typing import Any

from pydantic import BaseModel

_lock = threading.Lock()


def freeze_long_lived() -> float:
    """Collect once, then freeze what is alive; returns the seconds it took (one full collection)."""
    with _lock:
        t0 = time.monotonic()
        gc.collect()
        gc.freeze()
        return time.monotonic() - t0


def release() -> None:
    """Make frozen objects collectable again (their caches are being dropped)."""
    with _lock:
        gc.unfreeze()


def _gc_untrack() -> Any:
    try:  # CPython's own call, which its dicts and tuples use for the same purpose; absent elsewhere (PyPy)
        fn = ctypes.pythonapi.PyObject_GC_UnTrack
    except (AttributeError, ValueError):
        return None
    fn.argtypes, fn.restype = [ctypes.py_object], None
    return fn


_untrack = _gc_untrack()


_LEAVES = frozenset({str, int, float, bool, type(None)})  # hold nothing: the walk skips them at a set lookup


def untracked(obj: Any) -> Any:
    """`obj`, a cached JSON tree or a wire model that is never changed after it is built (or a list of them), with its
    dicts, lists and sets, and each model with what it holds (its `__dict__`, its fields-set set, nested models), no
    longer tracked by the cycle collector. A model already untracked is taken as done."""
    if _untrack is not None:
        _untrack_tree(obj)
    return obj


def _untrack_tree(obj: Any) -> None:
    kind = type(obj)
    children: Any
    if kind is dict:
        children = obj.values()
    elif kind is list:
        children = obj
    elif kind is set:
        children = ()  # hashable members: strings in a model's fields set
    elif isinstance(obj, BaseModel):
        if not gc.is_tracked(obj):
            return
        children = (obj.__dict__, obj.__pydantic_fields_set__, obj.__pydantic_extra__, obj.__pydantic_private__)
    else:
        return
    for child in children:
        if type(child) not in _LEAVES:
            _untrack_tree(child)
    if gc.is_tracked(obj):  # a dict of strings only was never tracked
        _untrack(obj)
