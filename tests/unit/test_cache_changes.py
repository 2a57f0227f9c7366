"""A cache's changes since a revision (informer.CachedObjects.changes_since), and the inventory's sums that follow
them (InventoryMemo.follow): through watch events, relists and a journal too short to reach back, they equal the
sums over every cached pod from scratch."""

from __future__ import annotations

import random
from typing import Any

from jupyter_accel.cluster.informer import Informer, Resource
from jupyter_accel.cluster.trim import trim_pod
from jupyter_accel.domain.inventory import InventoryMemo, allocated_by_node

PODS = Resource("allpods", "", "v1", "pods", False, trim_pod)


def _informer(journal: int | None = None) -> Informer:
    informer = Informer(None, PODS, None, lambda _key: None)  # type: ignore[arg-type]  # never started: no API
    if journal is not None:
        informer._journal = type(informer._journal)(maxlen=journal)
    return informer


def _pod(name: str, rv: int, node: str | None, cpu: str, phase: str = "Running") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "team-a", "resourceVersion": str(rv)},
        "spec": {"nodeName": node, "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": phase},
    }


def _exact(allocated: dict) -> dict:
    return {node: {name: str(q) for name, q in used.items()} for node, used in allocated.items()}


def test_changes_since_names_what_changed_and_starts_again_after_a_relist():
    inf = _informer()
    inf._apply({"type": "ADDED", "object": _pod("a", 1, "n1", "1")})
    assert len(inf._journal) == 0  # nobody asked for changes yet: none kept
    first = inf.changes_since(None)
    assert first.whole and first.revision == 1 and set(first.objects) == {("team-a", "a")}
    assert inf.changes_since(0).whole  # from before the journal was kept: every object
    inf._apply({"type": "ADDED", "object": _pod("b", 2, "n1", "1")})
    assert set(inf.changes_since(1).objects) == {("team-a", "b")} and not inf.changes_since(1).whole
    at = inf.revision
    assert inf.changes_since(at).objects == {} and not inf.changes_since(at).whole
    inf._apply({"type": "MODIFIED", "object": _pod("a", 3, "n2", "1")})
    inf._apply({"type": "MODIFIED", "object": _pod("a", 4, "n2", "1")})  # only its resourceVersion: no change
    inf._apply({"type": "DELETED", "object": _pod("b", 5, "n1", "1")})
    since = inf.changes_since(at)
    assert not since.whole and since.revision == at + 2
    assert set(since.objects) == {("team-a", "a"), ("team-a", "b")}
    assert since.objects[("team-a", "b")] is None and since.objects[("team-a", "a")]["spec"]["nodeName"] == "n2"
    inf._replace({("team-a", "c"): trim_pod(_pod("c", 6, "n3", "2"))})  # a relist: every object, whole
    again = inf.changes_since(since.revision)
    assert again.whole and set(again.objects) == {("team-a", "c")}
    inf._apply({"type": "ADDED", "object": _pod("d", 7, "n3", "1")})
    assert set(inf.changes_since(again.revision).objects) == {("team-a", "d")}


def test_a_reader_further_back_than_the_journal_gets_every_object():
    inf = _informer(journal=3)
    assert inf.changes_since(None).whole  # the journal is kept from the first reader on
    for i in range(3):
        inf._apply({"type": "ADDED", "object": _pod(f"p{i}", i + 1, "n1", "1")})
    assert not inf.changes_since(0).whole  # three changes: the journal reaches back
    inf._apply({"type": "ADDED", "object": _pod("p3", 9, "n1", "1")})
    behind = inf.changes_since(0)  # four: it does not
    assert behind.whole and len(behind.objects) == 4
    assert not inf.changes_since(1).whole and len(inf.changes_since(1).objects) == 3


def test_sums_that_follow_the_changes_equal_sums_from_scratch_through_a_churn():
    rng = random.Random(11)
    inf = _informer(journal=40)  # short: some readers fall behind it and start again
    memo, rv, names = InventoryMemo(), 0, [f"p{i}" for i in range(80)]
    for step in range(400):
        for _ in range(rng.randint(1, 12 if step % 50 else 60)):
            rv += 1
            name = rng.choice(names)
            if rng.random() < 0.2:
                inf._apply({"type": "DELETED", "object": _pod(name, rv, None, "1")})
                continue
            node = rng.choice(["n1", "n2", "n3", None])
            phase = rng.choice(["Running", "Running", "Pending", "Succeeded"])
            inf._apply({"type": "MODIFIED", "object": _pod(name, rv, node, rng.choice(["250m", "0.5", "1"]), phase)})
        if step % 97 == 0:  # a relist now and then: what the API server holds, in new dicts
            inf._replace({k: trim_pod(_pod(k[1], rv, "n4", "2")) for k in list(inf._objects)[::2]})
        if rng.random() < 0.7:  # the inventory is not built after every change
            assert _exact(memo.follow(inf)) == _exact(allocated_by_node(inf.items()))
    assert _exact(memo.follow(inf)) == _exact(allocated_by_node(inf.items()))
