"""A submit whose answer was lost after the job was made but before its script ConfigMap (the connection dropped, the
Jupyter server went away): the retry with the same client_request_id finds the job and makes what is missing,
once; against the in-memory hub (tests/reliability/test_apiserver_faults.py does it through a real API server)."""

from __future__ import annotations

import pytest
import urllib3
from memory_cluster import MemoryHub, MemoryWriter

from jupyter_accel.domain.accelerators import AcceleratorRegistry
from jupyter_accel.models import JobKind, JobRequest
from jupyter_accel.services.jobs import JobSettings, JobsService

IMAGES = {k.value: "runtime:1" for k in JobKind}
SCRIPT = "print('hello')\n"


class DropsConfigMapCreate(MemoryWriter):
    """The first real create of a ConfigMap loses its connection before the API server has it."""

    dropped = 0

    def create(self, obj, namespace, *, dry_run=False):
        if obj["kind"] == "ConfigMap" and not dry_run and not self.dropped:
            self.dropped += 1
            raise urllib3.exceptions.ProtocolError("Connection aborted.", ConnectionResetError(104, "reset"))
        return super().create(obj, namespace, dry_run=dry_run)


def _setup(**writer_fields) -> tuple[MemoryHub, MemoryWriter, JobsService]:
    hub = MemoryHub()
    for key in ("rayclusters", "rayjobs", "pytorchjobs", "trainjobs", "pods", "events", "workloads", "nodes"):
        hub.caches[key] = []
    hub.caches["localqueues"] = [{"metadata": {"name": "default", "namespace": "team-a"}, "spec": {}}]
    writer = DropsConfigMapCreate(hub, **writer_fields)
    return hub, writer, JobsService(hub, writer, AcceleratorRegistry(), JobSettings(default_images=IMAGES))


def _request(kind: str = "pytorch") -> JobRequest:
    return JobRequest.model_validate(
        {"kind": kind, "script": {"text": SCRIPT, "interpreter": "python"}, "client_request_id": "lost-1"}
    )


def _configmaps(hub: MemoryHub) -> list[dict]:
    return hub.caches.get("configmaps", [])


@pytest.mark.parametrize("lagging", [False, True], ids=["cached", "found-by-label"])
def test_a_retry_after_a_lost_answer_makes_the_missing_script_configmap_once(lagging):
    hub, writer, service = _setup()
    with pytest.raises(urllib3.exceptions.ProtocolError):
        service.submit(_request())
    [job] = hub.caches["pytorchjobs"]
    assert _configmaps(hub) == []  # the half the lost answer left: a job whose pods would wait for their script
    if lagging:  # the retry's own cache has not seen the job: it is found by its label at the API server
        hub.caches["pytorchjobs"] = []
        writer.list_objects = lambda ref, selector: [job] if ref.plural == "pytorchjobs" else []

    answer, status = service.submit(_request())
    name = job["metadata"]["name"]
    assert (status, answer.created, answer.job.name) == (200, False, name)
    assert answer.objects == [f"ConfigMap/{name}-script"]
    [cm] = _configmaps(hub)
    assert cm["metadata"]["name"] == f"{name}-script"
    assert list(cm["data"].values()) == [SCRIPT]
    owner = cm["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"]) == ("PyTorchJob", name, job["metadata"]["uid"])

    # idempotent: a further retry finds both and makes nothing
    again, status = service.submit(_request())
    assert (status, again.created, again.objects) == (200, False, [])
    assert len(_configmaps(hub)) == 1
    assert len(hub.caches["pytorchjobs"] or [job]) == 1
    assert [c for c in writer.calls if c[0] == "create" and c[1] == "PyTorchJob"] == [("create", "PyTorchJob", name)]


def test_a_retry_of_a_whole_submit_makes_nothing_more():
    hub, writer, service = _setup()
    writer.dropped = 1  # nothing is lost this time
    first, status = service.submit(_request("ray-job"))
    assert (status, first.created) == (201, True)
    assert [o.split("/")[0] for o in first.objects] == ["RayJob", "ConfigMap"]
    again, status = service.submit(_request("ray-job"))
    assert (status, again.created, again.objects) == (200, False, [])
    assert len(_configmaps(hub)) == 1 and len(hub.caches["rayjobs"]) == 1
