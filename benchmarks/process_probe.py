"""A Jupyter server extension for the benchmarks: what the server process holds, from inside.

`GET /bench/process` answers the live threads grouped by name (a pool's threads share a prefix: accel-logs_3 ->
accel-logs), the garbage collector's object count, and, when the server runs with tracemalloc on
(PYTHONTRACEMALLOC=1), where the memory allocated since `GET /bench/process?mark=1` lives (the top source lines).
`?trim=1` first collects garbage and hands the C heap's free memory back to the system (glibc's malloc_trim), so
RSS afterwards tells memory still held from memory freed but kept by the allocator after a peak.
So the soak benchmark can say which pool grew and which lines hold memory that grew, instead of only that RSS did.
Loaded only by the benchmarks (`jpserver_extensions`), never by the product.
"""

from __future__ import annotations

import collections
import ctypes
import gc
import json
import re
import threading
import tracemalloc
from typing import Any

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web

_MARK: list[tracemalloc.Snapshot] = []


def thread_groups() -> dict[str, int]:
    names = (re.sub(r"(_\d+|-\d+|\s*\(.*\))+$", "", t.name) for t in threading.enumerate())
    return dict(collections.Counter(names).most_common())


def grown_since_mark(top: int = 15) -> list[dict[str, Any]]:
    if not tracemalloc.is_tracing() or not _MARK:
        return []
    stats = tracemalloc.take_snapshot().compare_to(_MARK[0], "lineno")
    return [
        {"where": str(s.traceback[0]), "grown_kib": round(s.size_diff / 1024, 1), "blocks": s.count_diff}
        for s in stats[:top]
    ]


def trim() -> bool:
    gc.collect()
    try:
        return bool(ctypes.CDLL("libc.so.6").malloc_trim(0))
    except (OSError, AttributeError):  # not glibc
        return False


class ProcessHandler(JupyterHandler):
    @web.authenticated
    def get(self) -> None:
        trimmed = trim() if self.get_argument("trim", "") else None
        if self.get_argument("mark", "") and tracemalloc.is_tracing():
            _MARK[:] = [tracemalloc.take_snapshot()]
        body = {
            "threads": thread_groups(),
            "gc_objects": len(gc.get_objects()),
            "tracing": tracemalloc.is_tracing(),
            "grown": grown_since_mark(),
            "trimmed": trimmed,
        }
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(body))


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    return [{"module": "process_probe"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    route = url_path_join(serverapp.web_app.settings["base_url"], "bench/process")
    serverapp.web_app.add_handlers(".*$", [(route, ProcessHandler)])
