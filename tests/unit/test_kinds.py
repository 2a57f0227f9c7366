"""The registry of job kinds: every wire kind has one spec, and what iterates over it covers every kind."""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_accel.cluster.identity_caches import CUSTOM
from jupyter_accel.cluster.permissions import CHECKS
from jupyter_accel.cluster.writes import PLURALS
from jupyter_accel.domain.kinds import KINDS, kind_info, kinds_taking, log_pod, pod_role, spec_of_kind, spec_of_object
from jupyter_accel.models import JobKind
from jupyter_accel.notebook.client import JOB_KINDS
from jupyter_accel.push import TOPICS


def pod(name: str, **labels: str) -> dict:
    return {"metadata": {"name": name, "labels": labels}}


def test_every_wire_kind_has_one_spec_in_wire_order():
    assert [s.kind for s in KINDS] == list(JobKind)
    assert len({(s.group, s.cr_kind) for s in KINDS}) == len(KINDS)
    assert tuple(k.value for k in JobKind) == JOB_KINDS  # the kernel's copy (it must not import pydantic early)


def test_caches_permissions_topics_and_writes_cover_every_kind():
    for s in KINDS:
        assert (s.cache_key, s.plural, True) in CUSTOM[s.group]
        assert ("create", s.group, s.plural, True) in CHECKS
        assert TOPICS[s.cache_key] == ("jobs",)
        assert PLURALS[s.cr_kind] == s.plural


def test_spec_of_reads_group_and_kind():
    assert spec_of_object({"apiVersion": "ray.io/v1", "kind": "RayJob"}) is spec_of_kind(JobKind.ray_job)
    assert spec_of_object({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"}).kind is JobKind.pytorch
    assert spec_of_object({"apiVersion": "batch/v1", "kind": "Job"}) is None
    assert spec_of_object({"apiVersion": "example.com/v1", "kind": "RayJob"}) is None


def test_roles_are_read_per_kind():
    rayjob, trainjob = spec_of_kind(JobKind.ray_job), spec_of_kind(JobKind.trainjob)
    assert pod_role(rayjob, pod("s", **{"job-name": "j"})) == "submitter"
    assert pod_role(rayjob, pod("h", **{"ray.io/node-type": "head"})) == "head"
    # a JobSet's pods carry job-name too (the Job controller's label): still the replicated job's role
    assert (
        pod_role(trainjob, pod("n", **{"job-name": "t-node-0", "jobset.sigs.k8s.io/replicatedjob-name": "node"}))
        == "node"
    )
    assert (
        pod_role(spec_of_kind(JobKind.pytorch), pod("m", **{"training.kubeflow.org/replica-type": "Master"}))
        == "master"
    )
    assert pod_role(None, pod("x", **{"jupyter-accel.io/role": "worker"})) == "worker"


def test_the_log_pod_is_the_first_role_then_by_name():
    rayjob = spec_of_kind(JobKind.ray_job)
    pods = [pod("w", **{"ray.io/node-type": "worker"}), pod("h", **{"ray.io/node-type": "head"})]
    assert log_pod(rayjob, pods) == "h"
    assert log_pod(rayjob, [*pods, pod("sub", **{"job-name": "x"})]) == "sub"
    master = pod("z-master", **{"training.kubeflow.org/replica-type": "Master"})
    worker = pod("a-worker", **{"training.kubeflow.org/replica-type": "Worker"})
    assert log_pod(spec_of_kind(JobKind.pytorch), [worker, master]) == "z-master"
    assert log_pod(spec_of_kind(JobKind.trainjob), [pod("b"), pod("a")]) == "a"
    assert log_pod(rayjob, []) is None


def test_request_fields_and_wire_info():
    assert [s.kind for s in kinds_taking("entrypoint")] == [JobKind.ray_job]
    assert {s.kind for s in kinds_taking("head")} == {JobKind.ray_cluster, JobKind.ray_job}
    info = kind_info(spec_of_kind(JobKind.ray_cluster), "v1")
    assert (info.label, info.badge, info.served, info.dashboard, info.roles[0]) == (
        "Ray cluster",
        "R",
        True,
        True,
        "head",
    )
    assert kind_info(spec_of_kind(JobKind.pytorch), None).served is False
    assert kind_info(spec_of_kind(JobKind.pytorch), None).dashboard is False


def test_suspend_patches_follow_each_operator():
    assert spec_of_kind(JobKind.pytorch).suspend_patch(True) == {"spec": {"runPolicy": {"suspend": True}}}
    assert spec_of_kind(JobKind.ray_job).suspend_patch(False) == {"spec": {"suspend": False}}


def test_the_front_end_fixture_is_the_registry_as_info_sends_it():
    fixture = Path(__file__).resolve().parents[2] / "labextension" / "src" / "__tests__" / "kinds.json"
    assert json.loads(fixture.read_text()) == [kind_info(s, "v1").model_dump(mode="json") for s in KINDS]


def test_a_kinds_defaults_live_on_its_spec_and_the_admin_overrides_them_per_kind():
    from jupyter_accel.domain.kinds import DEFAULT_KIND
    from jupyter_accel.services.ports import JobSettings

    assert [s.kind for s in KINDS if s.default] == [DEFAULT_KIND]
    plain = JobSettings()
    for s in KINDS:
        assert plain.image_for(s.kind) == s.default_image
        assert plain.max_run_seconds_for(s.kind) == s.default_max_run_seconds
    ray, pytorch = spec_of_kind(JobKind.ray_cluster), spec_of_kind(JobKind.pytorch)
    assert ray.default_max_run_seconds == 8 * 3600 and pytorch.default_max_run_seconds is None
    admin = JobSettings(
        default_images={"pytorch": "registry.example.com/pt:1", "ray-job": ""},
        default_max_run_seconds={"ray-cluster": 0, "pytorch": 7200},
    )
    assert admin.image_for(JobKind.pytorch) == "registry.example.com/pt:1"
    assert admin.image_for(JobKind.ray_job) is None  # '' removes the default: requests must name an image
    assert admin.image_for(JobKind.ray_cluster) == ray.default_image  # a kind left out keeps its own
    assert admin.max_run_seconds_for(JobKind.ray_cluster) is None and admin.max_run_seconds_for(JobKind.pytorch) == 7200


def test_the_default_image_follows_the_accelerators_vendor():
    from jupyter_accel.domain.job_request import request_vendor, validate_job_request
    from jupyter_accel.models import JobRequest
    from jupyter_accel.services.ports import JobSettings

    plain = JobSettings()
    assert plain.image_for(JobKind.ray_cluster) == "rayproject/ray:2.41.0"  # CPU only: Ray's CPU image
    assert plain.image_for(JobKind.ray_cluster, "nvidia") == "rayproject/ray:2.41.0-gpu"  # its CUDA image
    assert plain.image_for(JobKind.pytorch, "nvidia") == plain.image_for(JobKind.pytorch)  # CUDA, CPU too
    for vendor in ("amd", "habana", "intel"):  # a CUDA build drives none of them: no default
        assert plain.image_for(JobKind.pytorch, vendor) is None and plain.image_for(JobKind.ray_job, vendor) is None
    admin = JobSettings(default_images={"pytorch@amd": "reg.example/pt:rocm", "trainjob": "reg.example/tj:1"})
    assert admin.image_for(JobKind.pytorch, "amd") == "reg.example/pt:rocm"
    assert admin.image_for(JobKind.trainjob, "habana") == "reg.example/tj:1"  # the admin's per kind wins

    amd = JobRequest.model_validate({"kind": "pytorch", "accelerators": {"resource": "amd.com/gpu", "count": 1}})
    assert request_vendor(amd) == "amd"
    assert request_vendor(JobRequest.model_validate({"kind": "pytorch", "hardware_profile": "x"}),
                          {"limits": {"habana.ai/gaudi": "1"}, "requests": {"cpu": "4"}}) == "habana"  # fmt: skip
    errors = validate_job_request(amd, known_accelerators=["amd.com/gpu"], default_image=None, vendor="amd")
    image = next(e for e in errors if e.field == "image")
    assert "no default image for pytorch on amd accelerators" in image.message
    assert "default_images['pytorch@amd']" in image.message
