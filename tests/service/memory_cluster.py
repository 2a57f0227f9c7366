"""An in-memory cluster of plain dicts for service tests: the caches the jobs service reads and a writer that
stores into them, as the API server and the informers would. No Kubernetes client, no network."""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import Any

from jupyter_accel.cluster.writes import PLURALS, Ref, WriteError

VERSIONS = {"ray.io": "v1", "kubeflow.org": "v1", "trainer.kubeflow.org": "v1alpha1", "kueue.x-k8s.io": "v1beta2"}


@dataclass
class MemoryHub:
    namespace: str = "team-a"
    caches: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    unreadable: set[str] = field(default_factory=set)
    pending: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # JobKind value -> build options

    @property
    def informers(self) -> dict[str, list[dict[str, Any]]]:
        return self.caches

    def items(self, key: str) -> list[dict[str, Any]]:
        return [] if key in self.unreadable else list(self.caches.get(key, []))

    def get(self, key: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        for obj in self.items(key):
            meta = obj.get("metadata") or {}
            if meta.get("name") == name and (namespace is None or meta.get("namespace") in (None, namespace)):
                return obj
        return None

    def readable(self, key: str) -> bool:
        return key in self.caches and key not in self.unreadable

    def version(self, group: str) -> str | None:
        return VERSIONS.get(group)

    def build_options(self, kind: Any) -> dict[str, Any]:
        return self.options.get(kind.value, {})


@dataclass
class MemoryWriter:
    """Creates, patches and deletes in the hub's caches; `refuse[kind]` makes writes of that kind fail."""

    hub: MemoryHub
    refuse: dict[str, WriteError] = field(default_factory=dict)
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (verb, kind or plural, name)
    # what the API server holds beyond the caches: set `lagging` and creates land here, not in the hub, as when a
    # watch has not brought a new object yet
    stored: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    lagging: bool = False
    dashboards: dict[str, Any] = field(default_factory=dict)  # API server path of a Ray dashboard -> its answer
    sent: dict[str, bytes] = field(default_factory=dict)  # what was sent to a Ray dashboard, by path
    _uids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def create(self, obj: dict[str, Any], namespace: str, *, dry_run: bool = False) -> dict[str, Any]:
        kind, name = obj["kind"], obj["metadata"]["name"]
        self.calls.append(("create-dry-run" if dry_run else "create", kind, name))
        if kind in self.refuse:
            raise self.refuse[kind]
        key = PLURALS[kind]
        if self.hub.get(key, name, namespace) is not None:
            raise WriteError(409, f'{key} "{name}" already exists', reason="AlreadyExists")
        stored = copy.deepcopy(obj)
        stored["metadata"] = {**stored["metadata"], "namespace": namespace, "uid": f"uid-{next(self._uids)}"}
        stored["metadata"].setdefault("creationTimestamp", "2026-12-04T10:00:00Z")
        if not dry_run and self.lagging:
            self.stored[(key, name)] = stored
        elif not dry_run:
            self.hub.caches.setdefault(key, []).append(stored)
        return stored

    def merge_patch(self, ref: Ref, patch: dict[str, Any], *, subresource: str | None = None) -> dict[str, Any]:
        plural = f"{ref.plural}/{subresource}" if subresource else ref.plural
        self.calls.append(("patch", plural, ref.name))
        if plural in self.refuse:
            raise self.refuse[plural]
        obj = self.hub.get(ref.plural, ref.name, ref.namespace)
        if obj is None:
            raise WriteError(404, "not found", reason="NotFound")
        expected = (patch.get("metadata") or {}).get("resourceVersion")
        if expected and expected != (obj.get("metadata") or {}).get("resourceVersion"):
            raise WriteError(409, "the object has been modified", reason="Conflict")
        _merge(obj, {k: v for k, v in patch.items() if k != "metadata"} if subresource else patch)
        return obj

    def delete(self, ref: Ref) -> None:
        self.calls.append(("delete", ref.plural, ref.name))
        if f"delete {ref.plural}" in self.refuse:
            raise self.refuse[f"delete {ref.plural}"]
        items = self.hub.caches.get(ref.plural, [])
        self.hub.caches[ref.plural] = [o for o in items if o["metadata"]["name"] != ref.name]

    def get(self, ref: Ref) -> dict[str, Any] | None:
        self.calls.append(("get", ref.plural, ref.name))
        return self.stored.get((ref.plural, ref.name)) or self.hub.get(ref.plural, ref.name, ref.namespace)

    def json_patch(self, ref: Ref, ops: list[dict[str, Any]], *, dry_run: bool = False) -> dict[str, Any]:
        """A dry run only: the object as it is (the cluster tests apply JSON patches on the real API server)."""
        self.calls.append(("json-patch-dry-run" if dry_run else "json-patch", ref.plural, ref.name))
        obj = self.get(ref)
        if obj is None:
            raise WriteError(404, "not found", reason="NotFound")
        if not dry_run:
            raise NotImplementedError("MemoryWriter applies no JSON patch; test it against the cluster")
        return copy.deepcopy(obj)

    def read_path(self, path: str) -> Any:
        """Ray dashboards' answers, as a test sets them in `dashboards` (path -> JSON); none: it does not answer."""
        self.calls.append(("read", path, ""))
        if path not in self.dashboards:
            raise WriteError(503, "no endpoints available for service", reason="ServiceUnavailable")
        return self.dashboards[path]

    def send_path(self, method: str, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
        """What a Ray head keeps of what it was sent (`sent`: path -> bytes); 503 where no dashboard answers."""
        self.calls.append(("send", path, method))
        head = path.split(":dashboard/proxy/")[0]
        if not any(p.split(":dashboard/proxy/")[0] == head for p in self.dashboards):
            return 503, b"no endpoints available for service"
        self.sent[path] = body
        return 200, b""

    def metadata(self, ref: Ref) -> dict[str, Any] | None:
        self.calls.append(("metadata", ref.plural, ref.name))
        obj = self.get(ref)
        return {"metadata": obj["metadata"]} if obj is not None else None

    def list_metadata(self, ref: Ref) -> list[dict[str, Any]]:
        self.calls.append(("list_metadata", ref.plural, ""))
        return [{"metadata": o["metadata"]} for o in self.hub.items(ref.plural)]

    def list_objects(self, ref: Ref, label_selector: str) -> list[dict[str, Any]]:
        wanted = dict(term.split("=", 1) for term in label_selector.split(",") if term)
        return [
            o
            for o in self.hub.items(ref.plural)
            if all(((o["metadata"].get("labels") or {}).get(k)) == v for k, v in wanted.items())
        ]


def queue_with_pending(hub: MemoryHub, *, priorities: tuple[int, ...], classes: dict[str, int]) -> None:
    """LocalQueue `default` on ClusterQueue `cq`, with a Workload `wl-<p>` pending in it at each of `priorities`
    (in that order), and WorkloadPriorityClasses `classes` (name -> value)."""
    hub.caches["localqueues"] = [{"metadata": {"name": "default", "namespace": hub.namespace},
                                  "spec": {"clusterQueue": "cq"}}]  # fmt: skip
    hub.caches["workloadpriorityclasses"] = [{"metadata": {"name": n}, "value": v} for n, v in classes.items()]
    hub.pending["default"] = [
        {"metadata": {"name": f"wl-{p}", "namespace": hub.namespace}, "priority": p, "positionInLocalQueue": i}
        for i, p in enumerate(priorities)
    ]


def _merge(target: dict[str, Any], patch: dict[str, Any]) -> None:
    """RFC 7386 merge patch."""
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
