"""Label and annotation keys the extension writes on the objects it creates, and the checks around them.

Kubernetes is the source of truth: everything needed to rediscover a job after a server restart (that we made
it, from which workbench, for which client request) lives on the objects themselves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# Ours (the prefix is a name we own by convention, not a DNS domain we resolve).
PREFIX = "jupyter-accel.io/"
KIND = PREFIX + "kind"
WORKBENCH = PREFIX + "workbench"  # label: workbench name, label-safe
WORKBENCH_PREFIX = PREFIX + "workbench-prefix"  # annotation: NB_PREFIX verbatim (/notebook/<ns>/<name>)
REQUEST_ID = PREFIX + "client-request-id"  # label (selectable) and annotation (kept verbatim)
ROLE = PREFIX + "role"  # on pod templates: head / worker / submitter / master / node
MAX_RUN_EXTENDED = PREFIX + "max-run-seconds"  # annotation: a running job's limit after an extension

MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGED_BY_VALUE = "jupyter-accel"

# Kueue (kueue.x-k8s.io, pkg/controller/constants).
QUEUE_NAME = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS = "kueue.x-k8s.io/priority-class"
JOB_UID = "kueue.x-k8s.io/job-uid"  # set by Kueue on the Workload
MAX_EXEC_TIME = "kueue.x-k8s.io/max-exec-time-seconds"  # Kueue stops the job after this long admitted

# OpenShift AI traceability of an applied hardware profile.
HARDWARE_PROFILE_NAME = "opendatahub.io/hardware-profile-name"
HARDWARE_PROFILE_NAMESPACE = "opendatahub.io/hardware-profile-namespace"

# Label keys a user may not set: they belong to Kueue, the operators or us, and a wrong value breaks lookups.
RESERVED_PREFIXES = (
    PREFIX,
    "kueue.x-k8s.io/",
    "ray.io/",
    "training.kubeflow.org/",
    "trainer.kubeflow.org/",
    "jobset.sigs.k8s.io/",
    "kubernetes.io/",
    "k8s.io/",
)
RESERVED_KEYS = (MANAGED_BY,)


def is_reserved(key: str) -> bool:
    """Keys a user may not set. The recommended app.kubernetes.io/* labels stay free, except managed-by."""
    if key in RESERVED_KEYS:
        return True
    if key.startswith("app.kubernetes.io/"):
        return False
    prefix = key.split("/", 1)[0] if "/" in key else ""
    return key.startswith(RESERVED_PREFIXES) or prefix.endswith((".kubernetes.io", ".k8s.io"))


def workbench_name(nb_prefix: str | None) -> str | None:
    """The label-safe workbench name from NB_PREFIX (`/notebook/<ns>/<name>`), or None outside a workbench."""
    if not nb_prefix:
        return None
    last = nb_prefix.rstrip("/").rsplit("/", 1)[-1]
    # Keep label characters only and trim to 63; a name that sanitises to nothing is not worth a label.
    safe = re.sub(r"[^A-Za-z0-9_.-]", "-", last)[:63].strip("-_.")
    return safe or None


def ownership_labels(kind: str, workbench: str | None) -> dict[str, str]:
    """Labels that let the extension find its own objects and pods again (no queue label: see pod templates)."""
    labels = {MANAGED_BY: MANAGED_BY_VALUE, KIND: kind}
    name = workbench_name(workbench)
    if name:
        labels[WORKBENCH] = name
    return labels


def job_labels(
    *,
    kind: str,
    workbench: str | None,
    queue: str | None,
    priority_class: str | None,
    request_id: str | None,
    user: Mapping[str, str] | None = None,
    max_run_seconds: int | None = None,
) -> dict[str, str]:
    """All labels of a top-level object we create. User labels come first so ours always win."""
    labels = {**(user or {}), **ownership_labels(kind, workbench)}
    if queue:
        labels[QUEUE_NAME] = queue
    if priority_class:
        labels[PRIORITY_CLASS] = priority_class
    if request_id:
        labels[REQUEST_ID] = request_id
    if max_run_seconds:
        labels[MAX_EXEC_TIME] = str(max_run_seconds)
    return labels


def job_annotations(*, workbench: str | None, request_id: str | None) -> dict[str, str]:
    annotations: dict[str, str] = {}
    if workbench:
        annotations[WORKBENCH_PREFIX] = workbench
    if request_id:
        annotations[REQUEST_ID] = request_id
    return annotations


def managed_selector(workbench: str | None = None) -> str:
    """Label selector of the objects we created (optionally: from this workbench only)."""
    selector = f"{MANAGED_BY}={MANAGED_BY_VALUE}"
    name = workbench_name(workbench)
    return f"{selector},{WORKBENCH}={name}" if name else selector


def is_managed(obj: Mapping[str, Any]) -> bool:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(MANAGED_BY) == MANAGED_BY_VALUE


# the annotation of a node that kwok pretends to be: no code runs there, and its pods' logs are fixtures
SIMULATED_NODE = ("kwok.x-k8s.io/node", "fake")
