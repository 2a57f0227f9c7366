"""What this identity may do, asked with SelfSubjectAccessReviews (one per check, a few dozen at most)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from ..domain.kinds import KINDS
from ..models import Permission
from . import rest

# (verb, group, resource, namespaced): what the panel's features need
CHECKS: list[tuple[str, str, str, bool]] = [
    ("list", "", "nodes", False),
    ("list", "", "pods", True),
    ("list", "", "pods", False),  # every namespace: needed for allocated-accelerator figures
    ("get", "", "pods/log", True),
    ("list", "", "events", True),
    ("list", "kueue.x-k8s.io", "localqueues", True),
    ("list", "kueue.x-k8s.io", "clusterqueues", False),
    ("list", "kueue.x-k8s.io", "resourceflavors", False),
    ("list", "kueue.x-k8s.io", "cohorts", False),
    ("list", "kueue.x-k8s.io", "workloads", True),
    ("list", "kueue.x-k8s.io", "workloadpriorityclasses", False),
    *(("create", s.group, s.plural, True) for s in KINDS),
    ("create", "", "configmaps", True),
    ("get", "", "services/proxy", True),
    ("list", "infrastructure.opendatahub.io", "hardwareprofiles", True),
]


def _review(api: ApiClient, namespace: str, check: tuple[str, str, str, bool], timeout: float) -> Permission:
    verb, group, resource, namespaced = check
    res, _, sub = resource.partition("/")
    attrs = {"verb": verb, "group": group, "resource": res}
    if sub:
        attrs["subresource"] = sub
    if namespaced:
        attrs["namespace"] = namespace
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attrs},
    }
    try:
        out = rest.request(
            api,
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            body=body,
            timeout=timeout,
            safe=True,  # a review changes nothing
        )
        status = out.get("status") or {}
        return Permission(
            verb=verb,
            group=group,
            resource=resource,
            namespaced=namespaced,
            allowed=bool(status.get("allowed")),
            reason=status.get("reason") or None,
        )
    except ApiException as exc:
        return Permission(
            verb=verb,
            group=group,
            resource=resource,
            namespaced=namespaced,
            allowed=False,
            reason=rest.error_message(exc),
        )


def review_all(api: ApiClient, namespace: str, timeout: float = 10.0) -> list[Permission]:
    """Blocking; the reviews run a few at a time so a large list stays quick."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda c: _review(api, namespace, c, timeout), CHECKS))


def allowed(perms: list[Permission], verb: str, resource: str, group: str = "") -> bool:
    return any(p.allowed for p in perms if p.verb == verb and p.resource == resource and p.group == group)
