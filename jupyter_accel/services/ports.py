"""What the jobs service needs from outside, as protocols and plain settings: the caches it reads, the writer it
writes through, and the admin's settings. The server passes the IdentityCaches and ClusterWriter; tests pass plain dicts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..cluster.writes import Ref


class Caches(Protocol):
    """What the service reads: the IdentityCaches' snapshot of one namespace (cluster/identity_caches.py), or plain dicts in tests."""

    # read-only members: the hub's own are dicts, which a mutable Mapping member would refuse (invariance)
    @property
    def namespace(self) -> str: ...
    @property
    def informers(self) -> Mapping[str, Any]: ...  # the cache keys that exist (their kinds are served)
    @property
    def pending(self) -> Mapping[str, list[dict[str, Any]]]: ...  # LocalQueue name -> visibility items

    def items(self, key: str) -> list[dict[str, Any]]: ...
    def get(self, key: str, name: str, namespace: str | None = None) -> dict[str, Any] | None: ...
    def readable(self, key: str) -> bool: ...
    def version(self, group: str) -> str | None: ...
    def build_options(self, kind: Any) -> Mapping[str, Any]: ...  # a JobKind's (KindSpec.build_options); {}: none


class Writer(Protocol):
    """The write path (cluster/writes.ClusterWriter); raises WriteError with the API server's status."""

    def create(self, obj: dict[str, Any], namespace: str, *, dry_run: bool = False) -> dict[str, Any]: ...
    def merge_patch(self, ref: Ref, patch: dict[str, Any], *, subresource: str | None = None) -> dict[str, Any]: ...
    def json_patch(self, ref: Ref, ops: list[dict[str, Any]], *, dry_run: bool = False) -> dict[str, Any]: ...
    def delete(self, ref: Ref) -> None: ...
    def list_objects(self, ref: Ref, label_selector: str) -> list[dict[str, Any]]: ...
    def get(self, ref: Ref) -> dict[str, Any] | None: ...
    def read_path(self, path: str) -> Any: ...
    def send_path(self, method: str, path: str, body: bytes, content_type: str) -> tuple[int, bytes]: ...
    def metadata(self, ref: Ref) -> dict[str, Any] | None: ...
    def list_metadata(self, ref: Ref) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class JobSettings:
    """The admin's settings the service obeys (AccelConfig), and where this workbench is."""

    read_only: bool = False
    default_queue: str = ""
    default_images: Mapping[str, str] = field(default_factory=dict)  # per kind, over the kinds' own
    workbench_prefix: str | None = None  # the annotation value jobs are marked with
    workbench_label: str | None = None  # the label value "mine" selects on; None: every managed job
    api_base: str = "/accel/v1/"  # where dashboard paths start
    default_max_run_seconds: Mapping[str, int] = field(default_factory=dict)  # per kind, over the kinds' own
    max_run_seconds_limit: int = 0  # the longest a request may ask for (0: no ceiling)
    files_root: str | None = None  # the Jupyter server's root folder: a request's working dir must lie in it

    def image_for(self, kind: Any, vendor: str | None = None) -> str | None:
        """The image a request of `kind` (a JobKind) gets when it names none, for its accelerators' `vendor` (None:
        CPU only): the admin's for the kind and vendor ("pytorch@amd"), else the admin's for the kind, else the
        kind's own for the vendor, else the kind's own; None (or an admin's ''): it must name one."""
        from ..domain.kinds import spec_of_kind

        spec = spec_of_kind(kind)
        if vendor and f"{kind.value}@{vendor}" in self.default_images:
            return self.default_images[f"{kind.value}@{vendor}"] or None
        if kind.value in self.default_images:
            return self.default_images[kind.value] or None
        if vendor and vendor in spec.vendor_images:
            return spec.vendor_images[vendor]
        return spec.default_image

    def max_run_seconds_for(self, kind: Any) -> int | None:
        """The time limit a request of `kind` gets when it sets none: the admin's, else the kind's own; None (or an
        admin's 0): no limit."""
        from ..domain.kinds import spec_of_kind

        return self.default_max_run_seconds.get(kind.value, spec_of_kind(kind).default_max_run_seconds) or None

    def default_limit(self, kind: Any) -> int | None:
        """What a request of `kind` without a time limit gets: its default, cut to the ceiling."""
        default = self.max_run_seconds_for(kind)
        return min(default, self.max_run_seconds_limit) if default and self.max_run_seconds_limit else default
