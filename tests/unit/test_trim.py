"""Trimmed cache objects keep every field the domain reads: sidecars' devices, pod-level resources, last exits."""

from __future__ import annotations

import json
from decimal import Decimal

from jupyter_accel.cluster import trim
from jupyter_accel.cluster.informer import Informer, Resource, same_object
from jupyter_accel.cluster.trim import event_age, share_values, shared_strings, trim_event, trim_node, trim_pod
from jupyter_accel.domain.job_status import pod_reason
from jupyter_accel.domain.resources import pod_requests

GPU = "nvidia.com/gpu"
changes: list[str] = []


def test_a_sidecar_holds_its_devices_after_trimming():
    pod = {
        "metadata": {"name": "p", "managedFields": [{"manager": "x"}]},
        "spec": {
            "nodeName": "gpu-1",
            "initContainers": [
                {"name": "setup", "image": "i", "resources": {"requests": {GPU: "1"}}},
                {"name": "proxy", "image": "i", "restartPolicy": "Always", "resources": {"requests": {GPU: "2"}}},
            ],
            "containers": [{"name": "main", "image": "i", "resources": {"requests": {GPU: "4", "cpu": "1"}}}],
            "resources": {"requests": {"cpu": "3"}},
        },
    }
    trimmed = trim_pod(pod)
    assert "managedFields" not in trimmed["metadata"]
    assert pod_requests(trimmed["spec"]) == pod_requests(pod["spec"])
    assert pod_requests(trimmed["spec"])[GPU] == Decimal(6)  # the app's 4 and the sidecar's 2 together
    assert pod_requests(trimmed["spec"])["cpu"] == Decimal(3)  # pod-level resources win for cpu


def test_a_crash_looping_container_keeps_its_last_exit():
    pod = {
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "main"}]},
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": "main",
                    "ready": False,
                    "restartCount": 3,
                    "image": "dropped",
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}},
                    "lastState": {"terminated": {"exitCode": 3, "reason": "Error"}},
                }
            ],
        },
    }
    trimmed = trim_pod(pod)
    assert "image" not in trimmed["status"]["containerStatuses"][0]
    assert pod_reason(trimmed) == pod_reason(pod)
    assert "code 3" in (pod_reason(trimmed) or "")


def _node(rv: str, heartbeat: str, gpus: str = "8", ready: str = "True") -> dict:
    return {
        "metadata": {"name": "gpu-1", "resourceVersion": rv, "labels": {"nvidia.com/gpu.product": "H100"}},
        "spec": {},
        "status": {
            "capacity": {"nvidia.com/gpu": gpus},
            "allocatable": {"nvidia.com/gpu": gpus},
            "conditions": [
                {"type": "Ready", "status": ready, "lastHeartbeatTime": heartbeat, "lastTransitionTime": "t0"},
                {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": heartbeat},
            ],
        },
    }


def test_a_heartbeat_changes_nothing_that_is_read():
    informer = Informer(None, Resource("nodes", "", "v1", "nodes", False, trim_node), None, changes.append)  # type: ignore[arg-type]
    changes.clear()
    informer._apply({"type": "ADDED", "object": _node("1", "10:00")})
    assert (informer.revision, changes) == (1, ["nodes"])
    informer._apply({"type": "MODIFIED", "object": _node("2", "10:05")})  # a heartbeat: no change, no push
    assert (informer.revision, changes) == (1, ["nodes"])
    assert informer.get("gpu-1")["metadata"]["resourceVersion"] == "2"  # yet the newest copy is kept
    informer._apply({"type": "MODIFIED", "object": _node("3", "10:10", gpus="4")})  # what the inventory reads
    assert (informer.revision, changes) == (2, ["nodes", "nodes"])
    informer._apply({"type": "MODIFIED", "object": _node("4", "10:15", gpus="4", ready="False")})
    assert informer.revision == 3
    informer._apply({"type": "DELETED", "object": _node("5", "10:15")})
    informer._apply({"type": "DELETED", "object": _node("6", "10:15")})  # already gone: no change
    assert informer.revision == 4 and informer.items() == []


def test_same_object_ignores_only_the_resource_version():
    a = trim_node(_node("1", "10:00"))
    assert same_object(a, trim_node(_node("2", "11:00")))
    assert not same_object(a, trim_node(_node("2", "11:00", ready="Unknown")))
    assert not same_object(None, a)
    labelled = _node("2", "10:00")
    labelled["metadata"]["labels"]["nvidia.com/gpu.product"] = "H200"
    assert not same_object(a, trim_node(labelled))


def _event(i: int, at: str) -> dict:
    return {
        "metadata": {"name": f"ev-{i}", "namespace": "team-a", "resourceVersion": str(i)},
        "involvedObject": {"kind": "Pod", "name": f"p-{i}"},
        "reason": "Started",
        "lastTimestamp": at,
    }


def test_a_bounded_cache_keeps_its_newest_objects():
    events = Resource("events", "", "v1", "events", True, trim_event, keep_newest=10, age=event_age)
    informer = Informer(None, events, "team-a", lambda _key: None)  # type: ignore[arg-type]
    # a relist of 12 events, out of order: the 9 newest stay (the oldest tenth goes)
    order = (5, 0, 11, 3, 8, 1, 10, 2, 7, 4, 9, 6)
    listed = {("team-a", f"ev-{i}"): trim_event(_event(i, f"2026-12-05T10:{i:02d}:00Z")) for i in order}
    informer._replace(listed)
    assert sorted(e["metadata"]["name"] for e in informer.items()) == sorted(f"ev-{i}" for i in range(3, 12))
    # a new one while full: it is kept, and the oldest of the others go
    informer._apply({"type": "ADDED", "object": _event(12, "2026-12-05T10:12:00Z")})
    assert len(informer.items()) == 10
    informer._apply({"type": "ADDED", "object": _event(13, "2026-12-05T10:13:00Z")})
    names = {e["metadata"]["name"] for e in informer.items()}
    assert len(names) == 9 and "ev-13" in names and "ev-3" not in names and "ev-4" not in names


def test_an_unbounded_cache_keeps_everything():
    informer = Informer(None, Resource("events", "", "v1", "events", True, trim_event), "team-a", lambda _key: None)  # type: ignore[arg-type]
    for i in range(50):
        informer._apply({"type": "ADDED", "object": _event(i, f"2026-12-05T10:{i:02d}:00Z")})
    assert len(informer.items()) == 50


def test_an_events_age_is_its_last_time():
    assert event_age({"lastTimestamp": "2026-12-05T10:00:00Z", "firstTimestamp": "2026-12-05T09:00:00Z"}) == (
        "2026-12-05T10:00:00Z"
    )
    assert event_age({"eventTime": "2026-12-05T10:00:00.000001Z"}) == "2026-12-05T10:00:00.000001Z"
    assert event_age({"metadata": {"creationTimestamp": "2026-12-05T08:00:00Z"}}) == "2026-12-05T08:00:00Z"
    assert event_age({}) == ""


def test_two_decoded_copies_share_their_strings():
    """Strings the JSON decoder made once per watch event are one object in the cache: equal values, one copy."""
    event = '{"metadata": {"name": "p", "labels": {"team": "team-a"}}, "status": {"conditions": [{"type": "Ready"}]}}'
    first, second = (shared_strings(trim_pod(json.loads(event))) for _ in range(2))
    assert first == trim_pod(json.loads(event))  # nothing but the strings' identity changes
    assert first is not second
    assert first["metadata"]["labels"]["team"] is second["metadata"]["labels"]["team"]
    assert next(iter(first["metadata"]["labels"])) is next(iter(second["metadata"]["labels"]))  # keys too
    assert first["status"]["conditions"][0]["type"] is second["status"]["conditions"][0]["type"]


def test_sharing_strings_keeps_other_values_and_leaves_the_input_alone():
    obj = {"a": [1, 2.5, None, True, "x", {"b": ["y"]}], "c": {}}
    copy = shared_strings(obj)
    assert copy == obj and copy is not obj and copy["a"] is not obj["a"] and copy["a"][5] is not obj["a"][5]


def test_two_list_pages_share_their_values_in_place():
    """A list page's objects keep their own dicts (the page is nobody else's) and share their string values."""
    page = (
        '{"items": [{"metadata": {"labels": {"team": "team-a"}}, "status": {"phase": "Running", "x": [1, "Ready"]}}]}'
    )
    first, second = (json.loads(page)["items"][0] for _ in range(2))
    labels = first["metadata"]["labels"]
    assert share_values(first) is first and first["metadata"]["labels"] is labels  # in place
    share_values(second)
    assert first == second == json.loads(page)["items"][0]
    assert first["metadata"]["labels"]["team"] is second["metadata"]["labels"]["team"]
    assert first["status"]["phase"] is second["status"]["phase"]
    assert first["status"]["x"][1] is second["status"]["x"][1]


def test_strings_are_shared_only_where_interning_frees_them(monkeypatch):
    """This interpreter frees interned strings (CPython 3.11: the one CI runs), so the caches share; where it would
    keep them for good, objects are kept as decoded, neither copied nor changed."""
    assert trim.SHARING is trim.interning_frees() is True
    monkeypatch.setattr(trim, "SHARING", False)
    obj = json.loads('{"metadata": {"labels": {"team": "team-a"}}}')
    labels = obj["metadata"]["labels"]
    assert shared_strings(obj) is obj and share_values(obj) is obj and obj["metadata"]["labels"] is labels
