"""What the cluster serves: API groups and versions of the kinds jupyter-accel uses."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubernetes.client import ApiClient

from . import rest

# preference order per group: the first served version wins
PREFERRED: dict[str, tuple[str, ...]] = {
    "kueue.x-k8s.io": ("v1beta2", "v1beta1"),
    "visibility.kueue.x-k8s.io": ("v1beta2", "v1beta1"),
    "ray.io": ("v1",),
    "kubeflow.org": ("v1",),
    "trainer.kubeflow.org": ("v1alpha1",),
    "infrastructure.opendatahub.io": ("v1", "v1alpha1"),
    "dashboard.opendatahub.io": ("v1", "v1alpha"),
}


@dataclass
class Discovery:
    versions: dict[str, str] = field(default_factory=dict)  # group -> chosen version
    resources: dict[str, set[str]] = field(default_factory=dict)  # "group/version" -> plurals served

    def version(self, group: str) -> str | None:
        return self.versions.get(group)

    def serves(self, group: str, plural: str) -> bool:
        v = self.versions.get(group)
        return v is not None and plural in self.resources.get(f"{group}/{v}", set())


def discover(api: ApiClient, timeout: float = 10.0) -> Discovery:
    """Blocking: one GET /apis, then one GET per group we care about that is served."""
    groups = rest.request(api, "GET", "/apis", timeout=timeout).get("groups") or []
    served = {g["name"]: [v["version"] for v in g.get("versions") or []] for g in groups}
    d = Discovery()
    for group, prefs in PREFERRED.items():
        chosen = next((v for v in prefs if v in served.get(group, [])), None)
        if chosen is None:
            continue
        d.versions[group] = chosen
        listing = rest.request(api, "GET", f"/apis/{group}/{chosen}", timeout=timeout)
        d.resources[f"{group}/{chosen}"] = {r["name"] for r in listing.get("resources") or [] if "/" not in r["name"]}
    return d
