"""What the cluster serves: API groups and versions of the kinds jupyter-accel uses, and what each job kind learns
from the cluster's copy of its API (KindSpec.build_options).

The choices are pure functions of the API server's answers (choose_versions, served_plurals, kind_schema), and read()
takes its GETs as a function: discover() passes the Kubernetes client's, tests recorded answers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from kubernetes.client import ApiClient

from ..domain.kinds import GROUP_VERSIONS, KINDS, KindSpec
from ..models import JobKind
from . import rest

log = logging.getLogger(__name__)

# the groups read besides the job kinds' (each kind's spec names its own versions), preferred version first
OTHER_GROUPS: dict[str, tuple[str, ...]] = {
    "kueue.x-k8s.io": ("v1beta2", "v1beta1"),
    "visibility.kueue.x-k8s.io": ("v1beta2", "v1beta1"),
    "infrastructure.opendatahub.io": ("v1", "v1alpha1"),
    "dashboard.opendatahub.io": ("v1", "v1alpha"),
}


def preference_table(
    kinds: Mapping[str, tuple[str, ...]], other: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """Every group read, with its versions in preference order; a group in both would have two orders."""
    if twice := sorted(set(kinds) & set(other)):
        raise ValueError(f"API groups listed twice: {twice}")
    return {**other, **kinds}


# preference order per group: the first served version wins
PREFERRED: dict[str, tuple[str, ...]] = preference_table(GROUP_VERSIONS, OTHER_GROUPS)


@dataclass
class Discovery:
    versions: dict[str, str] = field(default_factory=dict)  # group -> chosen version
    resources: dict[str, set[str]] = field(default_factory=dict)  # "group/version" -> plurals served
    # served job kind -> what its spec's build_options said about the cluster's copy of its API
    options: dict[JobKind, Mapping[str, Any]] = field(default_factory=dict)
    # job kind -> the OpenAPI document (its URL carries a content hash) `options` were read from: not read again
    # while the hash stays
    schema_sources: dict[JobKind, str] = field(default_factory=dict)
    # served job kind -> the names in its runtime catalogue (KindSpec.runtimes); absent: none, or not readable
    runtimes: dict[JobKind, list[str]] = field(default_factory=dict)

    def version(self, group: str) -> str | None:
        return self.versions.get(group)

    def serves(self, group: str, plural: str) -> bool:
        v = self.versions.get(group)
        return v is not None and plural in self.resources.get(f"{group}/{v}", set())

    def build_options(self, kind: JobKind) -> Mapping[str, Any]:
        return self.options.get(kind, {})


def choose_versions(apis: Mapping[str, Any], preferred: Mapping[str, tuple[str, ...]] = PREFERRED) -> dict[str, str]:
    """group -> the first of its preferred versions that an /apis answer (APIGroupList) serves; groups the
    cluster serves in none of them are left out."""
    served = {g.get("name"): {v.get("version") for v in g.get("versions") or []} for g in apis.get("groups") or []}
    chosen: dict[str, str] = {}
    for group, prefs in preferred.items():
        version = next((v for v in prefs if v in served.get(group, ())), None)
        if version is not None:
            chosen[group] = version
    return chosen


def served_plurals(listing: Mapping[str, Any]) -> set[str]:
    """The resources of an /apis/<group>/<version> answer (APIResourceList), subresources left out."""
    return {r["name"] for r in listing.get("resources") or [] if "/" not in r["name"]}


def kind_schema(doc: Mapping[str, Any], spec: KindSpec, version: str) -> Mapping[str, Any] | None:
    """A kind's schema in the OpenAPI v3 document of its group/version. The API server names a CRD's model after its
    reversed group, version and kind (org.kubeflow.trainer.v1alpha1.TrainJob) and marks it with its GVK."""
    schemas = (doc.get("components") or {}).get("schemas") or {}
    found = schemas.get(".".join([*reversed(spec.group.split(".")), version, spec.cr_kind]))
    if isinstance(found, Mapping):
        return found
    gvk = {"group": spec.group, "version": version, "kind": spec.cr_kind}
    return next(
        (
            s
            for s in schemas.values()
            if isinstance(s, Mapping) and gvk in (s.get("x-kubernetes-group-version-kind") or [])
        ),
        None,
    )


# GET path (with query) -> the decoded JSON answer; raises what rest.request raises
Get = Callable[[str, Mapping[str, str]], Mapping[str, Any]]


def discover(
    api: ApiClient, timeout: float = 10.0, previous: Discovery | None = None, *, build_options: bool = True
) -> Discovery:
    """Blocking: see read(); every GET goes through rest.request."""

    def get(path: str, query: Mapping[str, str]) -> Mapping[str, Any]:
        return rest.request(api, "GET", path, query=dict(query), timeout=timeout)

    return read(get, previous, build_options=build_options)


def read(get: Get, previous: Discovery | None = None, *, build_options: bool = True) -> Discovery:
    """One GET /apis, then one GET per group we care about that is served. With `build_options`, the served job
    kinds that have them get theirs: the OpenAPI v3 index, and their group's document where its hash changed since
    `previous`."""
    d = Discovery(versions=choose_versions(get("/apis", {})))
    for group, version in d.versions.items():
        d.resources[f"{group}/{version}"] = served_plurals(get(f"/apis/{group}/{version}", {}))
    if build_options:
        _read_build_options(get, d, previous or Discovery())
        _read_runtimes(get, d)
    return d


def _read_runtimes(get: Get, d: Discovery) -> None:
    """The names in each served kind's runtime catalogue (metadata only). Many accounts may not list the cluster's
    runtimes; the kind then offers none by name and a request keeps the server's default."""
    for spec in KINDS:
        if spec.runtimes is None or not d.serves(spec.group, spec.plural) or not d.serves(spec.group, spec.runtimes):
            continue
        try:
            listing = get(f"/apis/{spec.group}/{d.versions[spec.group]}/{spec.runtimes}", {})
        except Exception as exc:  # refused or failing: not offered by name
            log.debug("jupyter_accel: %s not readable: %s", spec.runtimes, exc)
            continue
        d.runtimes[spec.kind] = sorted(
            str(n) for item in listing.get("items") or [] if (n := (item.get("metadata") or {}).get("name"))
        )


def _read_build_options(get: Get, d: Discovery, previous: Discovery) -> None:
    wanting = [s for s in KINDS if s.build_options is not None and d.serves(s.group, s.plural)]
    if not wanting:
        return
    try:
        index: Mapping[str, Any] = get("/openapi/v3", {}).get("paths") or {}
    except Exception as exc:  # the schema is optional: without it a kind keeps what it had, else its defaults
        log.debug("jupyter_accel: no OpenAPI v3 index: %s", exc)
        index = {}
    docs: dict[str, Mapping[str, Any]] = {}
    for spec in wanting:
        assert spec.build_options is not None
        version = d.versions[spec.group]
        source = (index.get(f"apis/{spec.group}/{version}") or {}).get("serverRelativeURL")
        if source is not None and previous.schema_sources.get(spec.kind) == source:
            d.options[spec.kind], d.schema_sources[spec.kind] = previous.options[spec.kind], source
            continue
        schema = None
        if source is not None:
            try:
                if source not in docs:
                    path, _, query = source.partition("?")
                    docs[source] = get(path, dict(parse_qsl(query)))
                schema = kind_schema(docs[source], spec, version)
            except Exception as exc:
                log.debug("jupyter_accel: no OpenAPI v3 document %s: %s", source, exc)
        if schema is not None:
            d.options[spec.kind], d.schema_sources[spec.kind] = dict(spec.build_options(schema)), str(source)
        else:  # read again next time; meanwhile what was read before, else the kind's defaults
            d.options[spec.kind] = previous.options.get(spec.kind) or dict(spec.build_options(None))
