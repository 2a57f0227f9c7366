"""What the read service serves: one entry per key, with the cache it is computed from and the right a caller needs
to read it directly (the service authorizes each key with a SubjectAccessReview for that right: it never widens
anyone's rights). Imported by the workbench side too (cluster/remote.py), so it imports nothing heavy."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServedKey:
    key: str  # the name on the wire, and the workbench's cache key
    cache: str  # the read service's own cache (cluster/identity_caches.py) it is computed from
    group: str  # the caller must be allowed to list this, cluster-wide
    resource: str
    what: str  # for sentences


KUEUE = "kueue.x-k8s.io"
KEYS: tuple[ServedKey, ...] = (
    ServedKey("nodes", "nodes", "", "nodes", "nodes"),
    # summed from every bound, unfinished pod: the pods themselves are not served
    ServedKey("allocations", "allpods", "", "pods", "what the pods on each node hold"),
    ServedKey("clusterqueues", "clusterqueues", KUEUE, "clusterqueues", "ClusterQueues"),
    ServedKey("cohorts", "cohorts", KUEUE, "cohorts", "Cohorts"),
    ServedKey("resourceflavors", "resourceflavors", KUEUE, "resourceflavors", "ResourceFlavors"),
    ServedKey("workloadpriorityclasses", "workloadpriorityclasses", KUEUE, "workloadpriorityclasses",
              "WorkloadPriorityClasses"),
)  # fmt: skip
BY_KEY = {k.key: k for k in KEYS}
# The admin's policy for the per-node allocated sums (--allocations-for): by default a caller must be allowed to
# list every pod, as if summing them itself; "nodes" serves them to anyone who may list nodes, since the sums name
# no pod and no namespace (a tier-b workbench then sees free accelerators). Off unless the admin says so.
ALLOCATIONS_POLICIES: dict[str, tuple[str, str]] = {"pods": ("", "pods"), "nodes": ("", "nodes")}
# the caches a workbench that uses the service does not open itself
REPLACED_CACHES = frozenset(k.cache for k in KEYS)
