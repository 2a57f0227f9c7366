"""Trim watched objects to the fields jupyter-accel reads, so caches of big clusters stay small."""

from __future__ import annotations

import os
import sys
from typing import Any

from ..domain.labels import SIMULATED_NODE

_DROP_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def _meta(obj: dict[str, Any], keep_annotations: bool = True) -> dict[str, Any]:
    m = dict(obj.get("metadata") or {})
    m.pop("managedFields", None)
    if keep_annotations and m.get("annotations"):
        m["annotations"] = {k: v for k, v in m["annotations"].items() if k not in _DROP_ANNOTATIONS}
    elif not keep_annotations:
        m.pop("annotations", None)
    return m


def _resources(c: dict[str, Any]) -> dict[str, Any]:
    out = {"name": c.get("name"), "resources": c.get("resources") or {}}
    if c.get("restartPolicy"):  # an init container with restartPolicy Always is a sidecar: it holds its devices
        out["restartPolicy"] = c["restartPolicy"]
    return out


def _statuses(statuses: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    # lastState: a crash-looping or failed container's exit code and last log line (the failed job's cause)
    keep = ("name", "ready", "restartCount", "state", "lastState")
    return [{k: cs.get(k) for k in keep} for cs in statuses or []]


def trim_pod(pod: dict[str, Any]) -> dict[str, Any]:
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    return {
        "metadata": _meta(pod),
        "spec": {
            "nodeName": spec.get("nodeName"),
            "containers": [_resources(c) for c in spec.get("containers") or []],
            "initContainers": [_resources(c) for c in spec.get("initContainers") or []],
            "overhead": spec.get("overhead"),
            "resources": spec.get("resources"),  # pod-level resources replace the containers' cpu and memory
            "nodeSelector": spec.get("nodeSelector"),
            "tolerations": spec.get("tolerations"),
            "priorityClassName": spec.get("priorityClassName"),
            "schedulingGates": spec.get("schedulingGates"),
        },
        "status": {
            "phase": status.get("phase"),
            "reason": status.get("reason"),
            "message": status.get("message"),
            "startTime": status.get("startTime"),
            "conditions": status.get("conditions"),
            "containerStatuses": _statuses(status.get("containerStatuses")),
            "initContainerStatuses": _statuses(status.get("initContainerStatuses")),
        },
    }


def trim_node(node: dict[str, Any]) -> dict[str, Any]:
    spec = node.get("spec") or {}
    status = node.get("status") or {}
    meta = _meta(node, keep_annotations=False)
    key, value = SIMULATED_NODE
    if ((node.get("metadata") or {}).get("annotations") or {}).get(key) == value:
        meta["annotations"] = {key: value}  # the one annotation read: its pods are simulated
    return {
        "metadata": meta,
        "spec": {"taints": spec.get("taints"), "unschedulable": spec.get("unschedulable")},
        "status": {
            "capacity": status.get("capacity"),
            "allocatable": status.get("allocatable"),
            # Ready only, without its heartbeat time: a heartbeat is then no change (informer.same_object)
            "conditions": [
                {k: v for k, v in c.items() if k != "lastHeartbeatTime"}
                for c in status.get("conditions") or []
                if c.get("type") == "Ready"
            ],
        },
    }


def trim_event(ev: dict[str, Any]) -> dict[str, Any]:
    keep = (
        "type",
        "reason",
        "message",
        "involvedObject",
        "firstTimestamp",
        "lastTimestamp",
        "eventTime",
        "count",
        "source",
        "reportingComponent",
    )
    return {"metadata": _meta(ev, keep_annotations=False), **{k: ev.get(k) for k in keep}}


def event_age(ev: dict[str, Any]) -> str:
    """When an event last happened, as a sortable RFC 3339 string ("" when it says nothing)."""
    meta = ev.get("metadata") or {}
    return (
        ev.get("lastTimestamp")
        or ev.get("eventTime")
        or ev.get("firstTimestamp")
        or meta.get("creationTimestamp")
        or ""
    )


def trim_generic(obj: dict[str, Any]) -> dict[str, Any]:
    return {**obj, "metadata": _meta(obj)}


def interning_frees() -> bool:
    """Whether a string interned here leaves the interned table once nothing holds it. CPython 3.11 and 3.13 free
    it; 3.12 before the fix of python/cpython#113993, and free-threaded builds, make every interned string immortal,
    and interning each uid and timestamp of a churning cluster would then grow the server without end. Asked of the
    interpreter itself: an immortal object's reference count reads 2**32 - 1 or more."""
    probe = sys.intern(f"jupyter-accel-intern-probe-{os.urandom(8).hex()}")
    return sys.getrefcount(probe) < 1 << 30


# where interning would keep every string for good, the caches keep the decoder's strings (more memory, no leak)
SHARING = interning_frees()


def shared_strings(obj: Any) -> Any:
    """A copy of a decoded object whose keys and string values are interned: a cache of 20,000 pods holds one
    "True", one "team-a", one label key... instead of one per object. For a watch event, which the JSON decoder
    decoded on its own (it shares keys within one document only, values never). The object itself where interning
    does not free (SHARING)."""
    if not SHARING:
        return obj
    if isinstance(obj, dict):
        return {
            _intern(k): _intern(v) if type(v) is str else shared_strings(v) if isinstance(v, dict | list) else v
            for k, v in obj.items()
        }
    if isinstance(obj, list):
        return [_intern(v) if type(v) is str else shared_strings(v) if isinstance(v, dict | list) else v for v in obj]
    return obj


def share_values(obj: Any) -> Any:
    """The same for the objects of one list page, in place and for values only: the decoder shared the page's keys
    already, and nothing else holds the page. A fifth of `shared_strings`' CPU: 20,000 pods are listed on the way
    to a server's first view."""
    if not SHARING:
        return obj
    if type(obj) is dict:
        for k, v in obj.items():
            if type(v) is str:
                obj[k] = _intern(v)
            elif type(v) is dict or type(v) is list:
                share_values(v)
    elif type(obj) is list:
        for i, v in enumerate(obj):
            if type(v) is str:
                obj[i] = _intern(v)
            elif type(v) is dict or type(v) is list:
                share_values(v)
    return obj


_intern = sys.intern
