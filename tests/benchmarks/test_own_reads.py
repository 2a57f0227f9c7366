"""The product's own reads of the API server, told apart from every other client's (benchmarks/scale.py's "requests
caused by refreshes"): its requests carry its user agent into the API server's audit log, and the reads its
background loops make on their schedule are counted by path before they are sent, so what is left was read for a
request."""

from __future__ import annotations

import sys
import threading
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kubernetes.client.exceptions import ApiException
from polling import poll_until

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from scale_load import product_reads, unscheduled_reads  # noqa: E402

from jupyter_accel.cluster import rest  # noqa: E402
from jupyter_accel.cluster.session import USER_AGENT, resolve  # noqa: E402
from jupyter_accel.config import AccelConfig  # noqa: E402


def _event(uri: str, *, at: str = "2026-12-07T10:00:00.5Z", **over: object) -> dict[str, object]:
    event = {
        "stage": "ResponseComplete",
        "verb": "list",
        "requestURI": uri,
        "objectRef": {"resource": "pods"},
        "userAgent": USER_AGENT,
        "user": {"username": "admin"},
        "requestReceivedTimestamp": at,
    }
    event.update(over)
    return event


def test_only_the_products_reads_of_resources_in_the_window_are_counted():
    since = datetime(2026, 12, 7, 10, tzinfo=UTC).timestamp()
    events = [
        _event("/api/v1/pods?limit=500"),
        _event("/api/v1/pods?limit=500&continue=x"),
        _event("/api/v1/nodes", verb="get"),
        _event("/api/v1/pods", stage="ResponseStarted"),  # the same request's earlier stage
        _event("/api/v1/pods?watch=true", verb="watch"),
        _event("/api/v1/pods", userAgent="kube-scheduler/v1.34"),  # another client
        _event("/api/v1/pods", user={"username": "cluster-reader"}),  # another account
        _event("/version", objectRef=None, verb="get"),  # not a resource
        _event("/api/v1/pods", at="2026-12-07T09:59:59.9Z"),  # before the window
        _event("/api/v1/pods", at="2026-12-07T10:00:02Z"),  # after it
    ]
    assert product_reads(events, "admin", since, since + 1) == Counter({"/api/v1/pods": 2, "/api/v1/nodes": 1})


def test_reads_beyond_the_schedule_are_named_by_path():
    audited = Counter({"/api/v1/pods": 3, "/api/v1/nodes": 2, "/apis/x/v1/things": 1})
    # one list counted but still in flight when the log was read: never a negative figure
    scheduled = {"/api/v1/pods": 4, "/api/v1/nodes": 1}
    assert unscheduled_reads(audited, scheduled) == {"/api/v1/nodes": 1, "/apis/x/v1/things": 1}
    assert unscheduled_reads(audited, {**scheduled, "/api/v1/nodes": 2, "/apis/x/v1/things": 1}) == {}


@pytest.mark.cluster
def test_the_audit_log_names_the_product_and_a_background_read_is_counted(devcluster):
    api = resolve(AccelConfig(identity="kubeconfig", kubeconfig=str(devcluster.kubeconfig("notebook-user")))).api_client
    assert api is not None
    name = uuid.uuid4().hex[:12]
    on_schedule = rest.resource_path("", "v1", "configmaps", "team-a", f"scheduled-{name}")
    for_a_request = rest.resource_path("", "v1", "configmaps", "team-a", f"requested-{name}")
    watch = rest.resource_path("", "v1", "configmaps", "team-a")

    def get(path: str) -> None:
        with pytest.raises(ApiException) as gone:  # absent: the read reaches the server and is answered 404
            rest.request(api, "GET", path, attempts=1)
        assert gone.value.status == 404

    def background() -> None:
        rest.on_schedule()
        get(on_schedule)
        resp = rest.stream(api, watch, query={"watch": True, "timeoutSeconds": 1}, attempts=1)
        list(rest.watch_events(resp))  # a watch is not a read: the server ends this one after a second

    since = time.time()
    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    get(for_a_request)  # this thread is not a background loop's
    until = time.time()
    scheduled = rest.scheduled_reads()
    assert scheduled.get(on_schedule) == 1 and for_a_request not in scheduled and watch not in scheduled

    def both_audited() -> Counter[str] | None:  # the audit event is written after the answer
        audited = product_reads(devcluster.audit_events(), "notebook-user", since - 1, until + 1)
        return audited if audited[on_schedule] and audited[for_a_request] else None

    audited = poll_until(both_audited, timeout=10, what="both reads in the audit log")
    assert audited[on_schedule] == 1 and audited[for_a_request] == 1
    left = unscheduled_reads(audited, scheduled)
    assert left.get(for_a_request) == 1 and on_schedule not in left


def test_a_long_lived_server_stops_adding_paths_but_keeps_counting_known_ones(monkeypatch):
    monkeypatch.setattr(rest, "SCHEDULED_READS", Counter({"/known": 1}))
    monkeypatch.setattr(rest, "MAX_SCHEDULED_PATHS", 1)

    def background() -> None:
        rest.on_schedule()
        rest._count_scheduled("GET", "/known", None)
        rest._count_scheduled("GET", "/new", None)
        rest._count_scheduled("GET", "/known", {"watch": True})
        rest._count_scheduled("POST", "/known", None)

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    rest._count_scheduled("GET", "/known", None)  # not a background loop's thread
    assert rest.scheduled_reads() == {"/known": 2}
