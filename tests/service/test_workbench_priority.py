"""A change of the workbench's hardware profile, in memory: the workbench's Workload gets the profile's
WorkloadPriorityClass (the label, as the platform's webhook writes it on a new workbench), and the fit check judges
it at that class's value, as it does a job's."""

from __future__ import annotations

from memory_cluster import MemoryHub, MemoryWriter, queue_with_pending

from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.models.workbench import WorkbenchProfileRequest
from jupyter_accel.services.workbench import WorkbenchService

PRIORITY = "kueue.x-k8s.io/priority-class"


def _profile(name: str, priority_class: str | None) -> dict:
    kueue = {"localQueueName": "default", **({"priorityClass": priority_class} if priority_class else {})}
    return {
        "metadata": {"name": name, "namespace": "team-a"},
        "spec": {
            "identifiers": [{"displayName": "CPU", "identifier": "cpu", "minCount": 1, "defaultCount": 2}],
            "scheduling": {"type": "Queue", "kueue": kueue},
        },
    }


def _hub() -> MemoryHub:
    hub = MemoryHub()
    for key in ("workloads", "events", "nodes", "pods", "acceleratorprofiles"):
        hub.caches[key] = []
    hub.caches["notebooks"] = [
        {
            "metadata": {"name": "wb", "namespace": "team-a", "labels": {"kueue.x-k8s.io/queue-name": "default"}},
            "spec": {"template": {"spec": {"containers": [{"name": "wb", "image": "wb"}]}}},
        }
    ]
    hub.caches["namespaces"] = [{"metadata": {"name": "team-a", "labels": {"kueue.openshift.io/managed": "true"}}}]
    hub.caches["hardwareprofiles"] = [_profile("urgent-cpu", "urgent"), _profile("plain-cpu", None)]
    queue_with_pending(hub, priorities=(100, 10), classes={"urgent": 50})
    return hub


def test_a_workbench_is_judged_at_its_profiles_priority_class_and_gets_its_label():
    hub = _hub()
    svc = WorkbenchService(hub, MemoryWriter(hub), AcceleratorRegistry.from_config([]), "wb", read_only=False)

    def change(profile: str):
        out = svc.change_profile(WorkbenchProfileRequest(hardware_profile=profile, dry_run=True))
        labels = {op["path"]: op.get("value") for op in out.patch if op["path"].startswith("/metadata/labels")}
        not_visible = any("urgent is not visible" in n for n in out.fit.notes)
        return (
            sorted(a.name for a in out.fit.ahead),
            labels.get("/metadata/labels/kueue.x-k8s.io~1priority-class"),
            not_visible,
        )

    assert change("urgent-cpu") == (["wl-100"], "urgent", False)  # the lower-priority workload is not ahead
    assert change("plain-cpu") == (["wl-10", "wl-100"], None, False)
    hub.caches["notebooks"][0]["metadata"]["labels"][PRIORITY] = "urgent"  # named on the Notebook already: kept
    assert change("plain-cpu") == (["wl-100"], None, False)
    del hub.caches["notebooks"][0]["metadata"]["labels"][PRIORITY]
    hub.unreadable.add("workloadpriorityclasses")
    assert change("urgent-cpu") == (["wl-10", "wl-100"], "urgent", True)  # judged at 0, and said
