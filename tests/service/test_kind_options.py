"""What a kind's spec learnt from the cluster's copy of its API (KindSpec.build_options, via discovery) reaches its
builder: a TrainJob submitted to a Trainer 2.1 cluster carries podTemplateOverrides, to 2.2+ runtimePatches."""

from __future__ import annotations

from memory_cluster import MemoryHub, MemoryWriter

from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.domain.builders.trainjob import POD_OVERRIDES
from jupyter_accel.domain.kinds import spec_of_kind
from jupyter_accel.models import JobKind, JobRequest
from jupyter_accel.services.jobs import JobSettings, JobsService

TRAINER_2_1 = {"properties": {"spec": {"properties": {"podTemplateOverrides": {}}}}}


def submit_trainjob(options: dict) -> dict:
    hub = MemoryHub(options=options)
    for key in ("trainjobs", "pods", "events", "workloads", "nodes"):
        hub.caches[key] = []
    service = JobsService(hub, MemoryWriter(hub), AcceleratorRegistry(), JobSettings())
    request = JobRequest.model_validate({"kind": "trainjob", "name": "tj", "script": {"text": "print(1)"}})
    service.submit(request)
    [obj] = hub.caches["trainjobs"]
    return obj["spec"]


def test_a_trainer_2_1_cluster_gets_pod_template_overrides():
    build_options = spec_of_kind(JobKind.trainjob).build_options
    assert build_options is not None
    spec = submit_trainjob({"trainjob": dict(build_options(TRAINER_2_1))})
    assert "runtimePatches" not in spec
    [override] = spec["podTemplateOverrides"]
    assert override["targetJobs"] == [{"name": "node"}]
    assert override["spec"]["volumes"][0]["configMap"] == {"name": "tj-script"}


def test_without_options_the_current_shape_is_written():
    spec = submit_trainjob({})
    assert "podTemplateOverrides" not in spec and spec["runtimePatches"][0]["manager"] == "jupyter-accel.io/launcher"
    spec = submit_trainjob({"trainjob": {POD_OVERRIDES: "runtimePatches"}})
    assert "podTemplateOverrides" not in spec and spec["runtimePatches"]
