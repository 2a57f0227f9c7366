"""The GIL shared in short slices, so the event loop is not kept waiting behind the caches' threads.

The watch threads (decoding events) and the worker threads that compute answers hold the GIL one switch interval
at a time. The event loop gives the GIL up at every socket call and waits up to a whole interval to get it back,
each time: at Python's default 5 ms, a handler with a dozen socket calls took 60 to 160 ms of wall time for about
1 ms of CPU while 1,000 pod changes arrived at 20,000 cached pods. At 1 ms the Jupyter server's own GET /api/status
had p99 47 ms instead of 94 ms during that burst, with paced readers (benchmarks/scale.py, both runs in
benchmarks/results/). The threads lose a little throughput to more frequent switches; the server runs no kernels.
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL = 0.001  # seconds


def share_with_event_loop() -> None:
    """Shorten the process's switch interval to SWITCH_INTERVAL (never lengthen one set shorter already)."""
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
