"""cluster/written.py and api/answers.py: a read that follows this server's write includes it (issue #31).

The caches here are plain dicts with a resourceVersion, filled by a thread a moment after the write, as a watch
would: the read must wait for them, and must not be answered by an answer or a computation that began before."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from jupyter_accel.api.answers import Answers
from jupyter_accel.cluster import written
from jupyter_accel.cluster.written import WriteLog, newer_or_same
from jupyter_accel.models import Visibility


class Cache:
    """One kind's cache: objects by (namespace, name), the resourceVersion they are at, a revision of changes."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], dict[str, Any]] = {}
        self.applied_version: str | None = "100"
        self.revision = 0
        self.readable = True

    def get(self, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        return self.objects.get((namespace or "", name))

    def apply(self, name: str, rv: str, deleted: bool = False) -> None:
        if deleted:
            self.objects.pop(("ns", name), None)
        else:
            self.objects[("ns", name)] = {"metadata": {"name": name, "resourceVersion": rv}}
        self.revision += 1
        self.applied_version = rv


class IdentityCaches:
    def __init__(self) -> None:
        self.caches = {"pytorchjobs": Cache()}
        self.writes = WriteLog(self.caches.get)

    def revision(self, keys: tuple[str, ...]) -> tuple[object, ...]:
        return tuple(self.caches[k].revision if k in self.caches else 0 for k in keys)

    def write(self, name: str, rv: str, *, lag: float, deleted: bool = False) -> None:
        """What a write does: the API server answers at once; the watch brings the event `lag` seconds later."""
        self.writes.record("pytorchjobs", {"metadata": {"resourceVersion": rv}}, "ns", name, deleted=deleted)
        threading.Timer(lag, self.caches["pytorchjobs"].apply, (name, rv, deleted)).start()


def names(hub: IdentityCaches, delay: float = 0.0):
    def build() -> Visibility:
        held = sorted(n for _, n in hub.caches["pytorchjobs"].objects)  # a snapshot, then the slow part
        time.sleep(delay)
        return Visibility(message=",".join(held))

    return build


def test_resource_versions_order_numerically_and_say_when_they_cannot():
    assert newer_or_same("1000", "999") is True
    assert newer_or_same("999", "1000") is False
    assert newer_or_same(None, "5") is False
    assert newer_or_same("abc", "5") is None


def test_a_write_is_seen_once_its_cache_reaches_its_version():
    hub = IdentityCaches()
    hub.writes.record("pytorchjobs", {"metadata": {"resourceVersion": "105"}}, "ns", "a")
    assert hub.writes.seen() == 0
    hub.caches["pytorchjobs"].apply("other", "104")
    assert hub.writes.seen() == 0
    hub.caches["pytorchjobs"].apply("other", "105")
    assert hub.writes.seen() == 1


def test_opaque_versions_compare_the_object_itself_and_deletes_wait_for_it_to_go():
    hub = IdentityCaches()
    cache = hub.caches["pytorchjobs"]
    cache.applied_version = "opaque-1"
    hub.writes.record("pytorchjobs", {"metadata": {"resourceVersion": "x7"}}, "ns", "a")
    assert hub.writes.seen() == 0
    cache.objects[("ns", "a")] = {"metadata": {"name": "a", "resourceVersion": "x7"}}
    cache.applied_version = "opaque-2"
    assert hub.writes.seen() == 1
    hub.writes.record("pytorchjobs", None, "ns", "a", deleted=True)  # a delete answered with a Status
    assert hub.writes.seen() == 1
    del cache.objects[("ns", "a")]
    assert hub.writes.seen() == 2


def test_a_write_of_a_kind_without_a_cache_or_never_seen_holds_no_read_for_long(monkeypatch):
    hub = IdentityCaches()
    hub.writes.record("rayclusters", {"metadata": {"resourceVersion": "500"}}, "ns", "r")  # no such cache
    assert hub.writes.seen() == 1
    monkeypatch.setattr(written, "PATIENCE", 0.05)
    hub.writes.record("pytorchjobs", {"metadata": {"resourceVersion": "900"}}, "ns", "lost")  # its event never comes
    assert hub.writes.seen() == 1
    time.sleep(0.06)
    assert hub.writes.seen() == 2


def test_the_list_after_a_write_holds_it_although_the_watch_is_late():
    hub, views = IdentityCaches(), Answers()

    async def scenario():
        assert b'""' in await views.get(hub, "jobs", ("namespace",), names(hub))  # computed, memoized: empty
        answers = []
        for i in range(20):
            hub.write(f"job{i}", str(200 + i), lag=0.02)
            answers.append(await views.get(hub, "jobs", ("namespace",), names(hub)))
        return answers

    for i, body in enumerate(asyncio.run(scenario())):
        assert f"job{i}" in body.decode(), (i, body)


def test_a_computation_begun_before_the_write_does_not_answer_the_read_after_it():
    """A slow computation is under way when the write lands: the read waits for it and for one begun after."""
    hub, views = IdentityCaches(), Answers()

    async def scenario():
        await views.get(hub, "jobs", ("namespace",), names(hub))
        hub.caches["pytorchjobs"].apply("unrelated", "150")  # a change: the next read computes again...
        first = asyncio.ensure_future(views.get(hub, "jobs", ("namespace",), names(hub, delay=0.3)))
        await asyncio.sleep(0.05)  # ...and that computation is under way
        hub.write("mine", "160", lag=0.0)
        after = await views.get(hub, "jobs", ("namespace",), names(hub, delay=0.3))
        return await first, after

    first, after = asyncio.run(scenario())
    assert b"mine" not in first  # begun before the write: its reader asked before it too
    assert b"mine" in after


def test_a_delete_is_gone_from_the_read_after_it():
    hub, views = IdentityCaches(), Answers()
    hub.caches["pytorchjobs"].apply("doomed", "120")

    async def scenario():
        before = await views.get(hub, "jobs", ("namespace",), names(hub))
        hub.write("doomed", "130", lag=0.03, deleted=True)
        return before, await views.get(hub, "jobs", ("namespace",), names(hub))

    before, after = asyncio.run(scenario())
    assert b"doomed" in before and b"doomed" not in after


def test_the_blocking_wait_of_a_service_returns_once_the_cache_holds_the_write():
    hub = IdentityCaches()
    hub.write("a", "300", lag=0.05)
    t0 = time.monotonic()
    written.caught_up(hub)
    assert hub.caches["pytorchjobs"].get("a", "ns") is not None and time.monotonic() - t0 < 1.0
