"""Create, patch and delete objects: the only write path to Kubernetes, run off the event loop by callers.

Which writes may be repeated after an answer that failed or came too late (retry.py): merge patches (the same patch
twice gives the same object), deletes (a repeat's 404 counts as done), dry runs, and creates that carry a client
request id (the jobs service resolves a repeat's AlreadyExists to the job of that id). Any write is repeated after a
429 or a connection that could not be opened: the API server did nothing then."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from ..domain.kinds import KINDS
from ..domain.labels import REQUEST_ID
from . import rest

# kind -> plural, for the kinds jupyter-accel writes
PLURALS = {"ConfigMap": "configmaps", "Workload": "workloads", **{s.cr_kind: s.plural for s in KINDS}}


@dataclass(frozen=True)
class Ref:
    group: str
    version: str
    plural: str
    namespace: str
    name: str

    @classmethod
    def of(cls, obj: dict[str, Any], namespace: str | None = None) -> Ref:
        group, _, version = obj["apiVersion"].rpartition("/")
        meta = obj.get("metadata") or {}
        return cls(group, version, PLURALS[obj["kind"]], namespace or meta.get("namespace", ""), meta.get("name", ""))

    def path(self, with_name: bool = True, subresource: str | None = None) -> str:
        return rest.resource_path(
            self.group, self.version, self.plural, self.namespace, self.name if with_name else None, subresource
        )


class WriteError(Exception):
    """An API server refusal, with its HTTP status and the server's own message and causes."""

    def __init__(
        self, status: int, message: str, causes: list[dict[str, str]] | None = None, reason: str | None = None
    ):
        self.status = status
        self.message = message
        self.causes: list[dict[str, str]] = causes or []
        self.reason = reason
        super().__init__(message)

    @classmethod
    def of(cls, exc: ApiException) -> WriteError:
        return cls(exc.status or 500, rest.error_message(exc), rest.error_causes(exc), rest.error_reason(exc))


def create(
    api: ApiClient, obj: dict[str, Any], namespace: str, *, dry_run: bool = False, timeout: float = 10.0
) -> dict[str, Any]:
    ref = Ref.of(obj, namespace)
    body = {**obj, "metadata": {**(obj.get("metadata") or {}), "namespace": namespace}}
    identified = REQUEST_ID in (body["metadata"].get("annotations") or {})
    try:
        return rest.request(
            api,
            "POST",
            ref.path(with_name=False),
            body=body,
            query={"dryRun": "All" if dry_run else None, "fieldValidation": "Strict"},
            timeout=timeout,
            safe=dry_run or identified,
        )
    except ApiException as exc:
        raise WriteError.of(exc) from None


def merge_patch(
    api: ApiClient, ref: Ref, patch: dict[str, Any], *, subresource: str | None = None, timeout: float = 10.0
) -> dict[str, Any]:
    return _patch(api, ref, patch, "application/merge-patch+json", subresource=subresource, timeout=timeout)


def json_patch(
    api: ApiClient, ref: Ref, ops: list[dict[str, Any]], *, dry_run: bool = False, timeout: float = 10.0
) -> dict[str, Any]:
    """RFC 6902 ops; with `test` ops it fails (422) rather than change what moved meanwhile. A dry run is checked
    by the API server (permissions, schema, admission) and changes nothing."""
    # a repeated "remove" fails once the first try applied: such a patch is not retried after a lost answer
    safe = dry_run or all(op.get("op") != "remove" for op in ops)
    return _patch(api, ref, ops, "application/json-patch+json", dry_run=dry_run, timeout=timeout, safe=safe)


def _patch(
    api: ApiClient,
    ref: Ref,
    body: Any,
    content_type: str,
    *,
    subresource: str | None = None,
    dry_run: bool = False,
    timeout: float = 10.0,
    safe: bool = True,
) -> dict[str, Any]:
    try:
        return rest.request(
            api,
            "PATCH",
            ref.path(subresource=subresource),
            body=body,
            query={"dryRun": "All" if dry_run else None},
            content_type=content_type,
            timeout=timeout,
            safe=safe,
        )
    except ApiException as exc:
        raise WriteError.of(exc) from None


def delete(
    api: ApiClient, ref: Ref, *, propagation: str = "Background", timeout: float = 10.0
) -> dict[str, Any] | None:
    """Delete with dependents (pods, services, the Workload) collected by the garbage collector. The answer: the
    object as deleted (or marked for deletion), None when it was gone already or the server sent a Status."""
    try:
        answer = rest.request(
            api, "DELETE", ref.path(), body={"propagationPolicy": propagation}, timeout=timeout, safe=True
        )
    except ApiException as exc:
        if exc.status != 404:
            raise WriteError.of(exc) from None
        return None
    return answer if isinstance(answer, dict) and answer.get("kind") != "Status" else None


def list_objects(api: ApiClient, ref: Ref, label_selector: str, *, timeout: float = 10.0) -> list[dict[str, Any]]:
    """Objects of ref's kind in ref's namespace matching a label selector (ref.name is ignored)."""
    try:
        found = rest.request(
            api, "GET", ref.path(with_name=False), query={"labelSelector": label_selector}, timeout=timeout
        )
    except ApiException as exc:
        raise WriteError.of(exc) from None
    return found.get("items") or []


def list_metadata(api: ApiClient, ref: Ref, *, timeout: float = 10.0) -> list[dict[str, Any]]:
    """The metadata of every object of ref's kind in ref's namespace (PartialObjectMetadataList: a Secret's values
    never come back)."""
    accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
    try:
        resp = rest.stream(api, ref.path(with_name=False), accept=accept, timeout=timeout)
    except ApiException as exc:
        raise WriteError.of(exc) from None
    raw = getattr(resp, "response", resp)
    try:
        return json.loads(raw.read() or b"{}").get("items") or []
    finally:
        with contextlib.suppress(Exception):
            raw.release_conn()


def get(api: ApiClient, ref: Ref, *, timeout: float = 10.0) -> dict[str, Any] | None:
    try:
        return rest.request(api, "GET", ref.path(), timeout=timeout)
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise WriteError.of(exc) from None


# told of every write that changed something: (what was written, the API server's answer, whether it was a delete)
OnWritten = Callable[[Ref, "dict[str, Any] | None", bool], None]


def metadata(api: ApiClient, ref: Ref, *, timeout: float = 10.0) -> dict[str, Any] | None:
    """The object's metadata only (PartialObjectMetadata: a Secret's values never come back), None when it does
    not exist."""
    accept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
    try:
        resp = rest.stream(api, ref.path(), accept=accept, timeout=timeout)
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise WriteError.of(exc) from None
    raw = getattr(resp, "response", resp)  # the client's wrapper, or the urllib3 response itself
    try:
        return json.loads(raw.read() or b"{}")
    finally:
        with contextlib.suppress(Exception):
            raw.release_conn()


@dataclass(frozen=True)
class ClusterWriter:
    """The write functions bound to one client and timeout: the jobs service's Writer. `on_written` (the hub's
    write log) hears of each write, so the reads that follow it wait for the caches to see it (written.py)."""

    api: ApiClient
    timeout: float = 10.0
    on_written: OnWritten | None = None

    def create(self, obj: dict[str, Any], namespace: str, *, dry_run: bool = False) -> dict[str, Any]:
        made = create(self.api, obj, namespace, dry_run=dry_run, timeout=self.timeout)
        if not dry_run:
            name = (made.get("metadata") or {}).get("name", "")
            self._written(replace(Ref.of(obj, namespace), name=name), made, False)
        return made

    def merge_patch(self, ref: Ref, patch: dict[str, Any], *, subresource: str | None = None) -> dict[str, Any]:
        patched = merge_patch(self.api, ref, patch, subresource=subresource, timeout=self.timeout)
        self._written(ref, patched, False)
        return patched

    def json_patch(self, ref: Ref, ops: list[dict[str, Any]], *, dry_run: bool = False) -> dict[str, Any]:
        patched = json_patch(self.api, ref, ops, dry_run=dry_run, timeout=self.timeout)
        if not dry_run:
            self._written(ref, patched, False)
        return patched

    def delete(self, ref: Ref) -> None:
        self._written(ref, delete(self.api, ref, timeout=self.timeout), True)

    def _written(self, ref: Ref, answer: dict[str, Any] | None, deleted: bool) -> None:
        if self.on_written is not None:
            self.on_written(ref, answer, deleted)

    def list_objects(self, ref: Ref, label_selector: str) -> list[dict[str, Any]]:
        return list_objects(self.api, ref, label_selector, timeout=self.timeout)

    def get(self, ref: Ref) -> dict[str, Any] | None:
        return get(self.api, ref, timeout=self.timeout)

    def read_path(self, path: str) -> Any:
        """GET any API server path (a Ray dashboard through the service proxy); raises WriteError on a refusal."""
        try:
            return rest.request(self.api, "GET", path, timeout=self.timeout, attempts=1)
        except ApiException as exc:
            raise WriteError.of(exc) from None

    def send_path(self, method: str, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
        """Send bytes to any API server path (a Ray head's Jobs API through the service proxy), once (not safe to
        repeat); the status and answer as they came, the proxy's refusals included."""
        try:
            status, _type, answer = rest.forward(
                self.api, method, path, body=body, content_type=content_type, timeout=self.timeout
            )
        except ApiException as exc:
            raise WriteError.of(exc) from None
        return status, answer

    def metadata(self, ref: Ref) -> dict[str, Any] | None:
        return metadata(self.api, ref, timeout=self.timeout)

    def list_metadata(self, ref: Ref) -> list[dict[str, Any]]:
        return list_metadata(self.api, ref, timeout=self.timeout)
