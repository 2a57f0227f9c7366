"""The caches' objects out of the cycle collector's way.

A cluster of 20,000 pods is a few hundred thousand small dicts in the caches. Python's cycle collector walks every
tracked object on each full collection while holding the GIL, so the Jupyter server's event loop stops meanwhile
(benchmarks/scale.py measures the longest callback). Cached objects are plain JSON data without cycles: reference
counting frees each when a watch event replaces it. So once the caches have listed, one collection frees what is
already garbage and `gc.freeze()` moves everything alive to the permanent generation, which full collections skip;
again after a relist, which replaces the objects. Caches that are dropped (another identity) call `release()`
first, so that what they leave behind is collectable again.
"""

from __future__ import annotations

import gc
import threading
import time

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
