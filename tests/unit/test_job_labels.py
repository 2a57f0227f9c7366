"""Label / annotation keys written on the objects we create."""

from __future__ import annotations

from jupyter_accel.domain import labels as L


def test_workbench_name_from_nb_prefix():
    assert L.workbench_name("/notebook/team-a/alice-wb") == "alice-wb"
    assert L.workbench_name("/notebook/team-a/alice-wb/") == "alice-wb"
    assert L.workbench_name("/notebook/team-a/Alice@Lab") == "Alice-Lab"
    assert L.workbench_name("/notebook/ns/" + "x" * 80) == "x" * 63
    assert L.workbench_name(None) is None and L.workbench_name("") is None and L.workbench_name("/@@/") is None


def test_job_labels_and_annotations():
    labels = L.job_labels(
        kind="ray-job",
        workbench="/notebook/ns/wb",
        queue="q",
        priority_class="high",
        request_id="r1",
        user={"team": "a", L.MANAGED_BY: "x"},
    )
    assert labels == {
        "team": "a",
        L.MANAGED_BY: "jupyter-accel",
        L.KIND: "ray-job",
        L.WORKBENCH: "wb",
        L.QUEUE_NAME: "q",
        L.PRIORITY_CLASS: "high",
        L.REQUEST_ID: "r1",
    }
    assert L.job_labels(kind="pytorch", workbench=None, queue=None, priority_class=None, request_id=None) == {
        L.MANAGED_BY: "jupyter-accel",
        L.KIND: "pytorch",
    }
    assert L.job_annotations(workbench="/notebook/ns/wb", request_id="r1") == {
        L.WORKBENCH_PREFIX: "/notebook/ns/wb",
        L.REQUEST_ID: "r1",
    }
    assert L.QUEUE_NAME == "kueue.x-k8s.io/queue-name" and L.PRIORITY_CLASS == "kueue.x-k8s.io/priority-class"


def test_selectors_and_ownership():
    assert L.managed_selector() == "app.kubernetes.io/managed-by=jupyter-accel"
    assert (
        L.managed_selector("/notebook/ns/wb")
        == "app.kubernetes.io/managed-by=jupyter-accel,jupyter-accel.io/workbench=wb"
    )
    assert L.is_managed({"metadata": {"labels": {L.MANAGED_BY: "jupyter-accel"}}})
    assert not L.is_managed({"metadata": {"labels": {L.MANAGED_BY: "/notebook/ns/wb"}}})  # CodeFlare's convention
    assert not L.is_managed({"metadata": {}})


def test_reserved_keys():
    for key in (
        "kueue.x-k8s.io/queue-name",
        "ray.io/cluster",
        L.MANAGED_BY,
        L.KIND,
        "kubernetes.io/arch",
        "node.kubernetes.io/instance-type",
        "jobset.sigs.k8s.io/jobset-name",
    ):
        assert L.is_reserved(key), key
    for key in ("team", "example.com/owner", "app.kubernetes.io/name"):
        assert not L.is_reserved(key), key
