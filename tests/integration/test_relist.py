"""A watch that resumes from a resourceVersion etcd has compacted gets 410 Gone, and the informer lists again: the
cache is then what the API server holds, not what it held before the gap (ConfigMaps, which devcluster serves
without the watch cache, so the 410 comes from etcd itself)."""

from __future__ import annotations

import base64
import gc
import json
import time
import urllib.request

import pytest

from jupyter_accel.cluster.informer import Informer, Resource, _key

pytestmark = [pytest.mark.cluster]
NS = "team-a"
CONFIGMAPS = Resource("configmaps", "", "v1", "configmaps", True)


def _etcd(devcluster, path: str, body: dict) -> dict:
    req = urllib.request.Request(
        f"http://127.0.0.1:{devcluster.ports['etcd']}{path}", json.dumps(body).encode(), method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def _compact_everything(devcluster) -> int:
    revision = int(_etcd(devcluster, "/v3/kv/range", {"key": base64.b64encode(b"/").decode()})["header"]["revision"])
    _etcd(devcluster, "/v3/kv/compaction", {"revision": str(revision), "physical": True})
    return revision


def _names(informer: Informer, prefix: str) -> set[str]:
    return {o["metadata"]["name"] for o in informer.items() if o["metadata"]["name"].startswith(prefix)}


def test_a_watch_from_a_compacted_version_gets_410_and_the_informer_lists_again(devcluster, unique):
    admin = devcluster.admin
    prefix = unique("relist")

    def configmap(name: str) -> dict:
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NS}, "data": {}}

    admin.apply(configmap(f"{prefix}-kept"))
    admin.apply(configmap(f"{prefix}-gone"))
    first = Informer(devcluster.api_client("admin"), CONFIGMAPS, NS, lambda _key: None)
    first.start()
    try:
        assert first.wait_synced(30)
        assert _names(first, prefix) == {f"{prefix}-kept", f"{prefix}-gone"}
        seen_at, seen = first.resource_version, first.items()
    finally:
        first.stop()
    # the gap: while no watch runs, one object goes, one comes, and etcd compacts past the version last seen
    admin.delete("v1", "ConfigMap", f"{prefix}-gone", NS)
    admin.apply(configmap(f"{prefix}-new"))
    _compact_everything(devcluster)

    again = Informer(devcluster.api_client("admin"), CONFIGMAPS, NS, lambda _key: None)
    again.resource_version = seen_at  # resume from where the first stopped, its objects in hand
    again._replace({_key(o): o for o in seen})
    again._listed = True
    again.start()
    try:
        deadline = time.monotonic() + 30
        while again.relists == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert again.relists == 1, "the watch from a compacted version was not answered with 410, or not relisted"
        assert _names(again, prefix) == {f"{prefix}-kept", f"{prefix}-new"}
    finally:
        again.stop()
        for name in (f"{prefix}-kept", f"{prefix}-new"):
            admin.delete("v1", "ConfigMap", name, NS)


def test_a_listed_object_is_cached_out_of_the_collectors_sight(devcluster, unique):
    """Listed objects are untracked as they are cached (gcfreeze.py): the collection before the caches are frozen
    then walks what is not cached, not the whole cluster."""
    admin = devcluster.admin
    name = unique("listed")
    meta = {"name": name, "namespace": NS, "labels": {"app": "x"}, "annotations": {"a": "b"}}
    admin.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}})
    informer = Informer(devcluster.api_client("admin"), CONFIGMAPS, NS, lambda _key: None)
    informer.start()
    try:
        assert informer.wait_synced(30)
        listed = [o for o in informer.items() if o["metadata"]["name"] == name]
        assert listed and listed[0]["metadata"]["labels"] == {"app": "x"}
        obj = listed[0]
        assert not any(gc.is_tracked(c) for c in (obj, obj["metadata"], obj["metadata"]["labels"], obj["data"]))
    finally:
        informer.stop()
        admin.delete("v1", "ConfigMap", name, NS)
