"""JobRequest: wire syntax (pydantic, field paths) and semantic checks (domain/job_request.py)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from jupyter_accel.domain.builders.script import MAX_SCRIPT_BYTES
from jupyter_accel.domain.job_request import validate_job_request
from jupyter_accel.models import JobKind, JobRequest

KNOWN = ["nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "habana.ai/gaudi"]


def errors_of(body: dict) -> dict[tuple, str]:
    with pytest.raises(ValidationError) as info:
        JobRequest.model_validate(body)
    return {e["loc"]: e["msg"] for e in info.value.errors()}


def semantic(body: dict, **kw) -> dict[str, str]:
    kw.setdefault("known_accelerators", KNOWN)
    kw.setdefault("default_image", "rayproject/ray:2.52.0-gpu")
    return {e.field: e.message for e in validate_job_request(JobRequest.model_validate(body), **kw)}


def test_minimal_requests_are_valid_for_every_kind():
    assert semantic({"kind": "ray-cluster"}) == {}
    assert semantic({"kind": "ray-job", "entrypoint": "python -c 'print(1)'"}) == {}
    assert semantic({"kind": "pytorch", "command": ["torchrun", "train.py"], "workers": 3}) == {}
    assert semantic({"kind": "trainjob", "script": {"text": "print(1)"}}) == {}


def test_syntax_errors_carry_field_paths_and_say_what_is_allowed():
    errs = errors_of(
        {
            "kind": "spark",
            "name": "My_Job",
            "cpu": "two",
            "memory": "4GB",
            "workers": 65,
            "accelerators": {"resource": "gpu", "count": 0},
            "env": {"1BAD": "x"},
            "labels": {"team": "a b", "Bad_Prefix/x": "y"},
            "queue": "q/1",
            "bogus": 1,
        }
    )
    assert "ray-cluster" in errs[("kind",)]
    assert "job name" in errs[("name",)] and "47" in errs[("name",)]
    assert "quantity" in errs[("cpu",)]
    assert "quantity" in errs[("memory",)]
    assert ("workers",) in errs
    assert "extended resource" in errs[("accelerators", "resource")]
    assert ("accelerators", "count") in errs
    assert "environment variable" in errs[("env", "1BAD", "[key]")]
    assert "label value" in errs[("labels", "team")]
    assert "prefix" in errs[("labels", "Bad_Prefix/x", "[key]")]
    assert ("queue",) in errs
    assert ("bogus",) in errs  # unknown fields are refused (typos)


def test_quantities_accept_json_numbers_and_k8s_suffixes():
    r = JobRequest.model_validate({"kind": "ray-cluster", "cpu": 2, "memory": "16Gi", "head": {"cpu": 0.5}})
    assert (r.cpu, r.memory, r.head.cpu, r.head.memory) == ("2", "16Gi", "0.5", "4Gi")
    for ok in ("500m", "1.5", "1e3", "128Mi", "2G"):
        assert JobRequest.model_validate({"kind": "ray-cluster", "cpu": ok}).cpu == ok


def test_name_length_leaves_room_for_operator_suffixes():
    assert JobRequest.model_validate({"kind": "ray-cluster", "name": "a" * 47}).name == "a" * 47
    assert ("name",) in errors_of({"kind": "ray-cluster", "name": "a" * 48})
    assert ("name",) in errors_of({"kind": "ray-cluster", "name": "1abc"})  # DNS-1035: starts with a letter


def test_unknown_accelerator_is_rejected_with_the_known_list():
    errs = semantic({"kind": "ray-cluster", "accelerators": {"resource": "amd.com/gpu", "count": 1}})
    assert "'amd.com/gpu'" in errs["accelerators.resource"]
    for name in KNOWN:
        assert name in errs["accelerators.resource"]
    errs = semantic({"kind": "ray-cluster", "accelerators": {"resource": "amd.com/gpu"}}, known_accelerators=[])
    assert "offers: none" in errs["accelerators.resource"]


def test_kind_specific_fields():
    assert "only for kind ray-job" in semantic({"kind": "ray-cluster", "entrypoint": "x"})["entrypoint"]
    assert (
        "only for kind ray-job"
        in semantic({"kind": "pytorch", "command": ["x"], "runtime_env": {"pip": ["numpy"]}})["runtime_env"]
    )
    assert "pytorch or trainjob" in semantic({"kind": "ray-job", "entrypoint": "x", "command": ["x"]})["command"]
    assert "trainjob" in semantic({"kind": "pytorch", "command": ["x"], "runtime": "torch-distributed"})["runtime"]
    assert (
        "ray-job or pytorch"
        in semantic({"kind": "trainjob", "command": ["x"], "ttl_seconds_after_finished": 5})[
            "ttl_seconds_after_finished"
        ]
    )
    assert "script" in semantic({"kind": "ray-cluster", "script": {"text": "print(1)"}})
    assert "head" in semantic({"kind": "pytorch", "command": ["x"], "head": {"cpu": "2"}})


def test_exactly_one_of_entrypoint_command_script():
    assert "exactly one" in semantic({"kind": "ray-job"})["entrypoint"]
    assert "exactly one" in semantic({"kind": "ray-job", "entrypoint": "x", "script": {"text": "y"}})["entrypoint"]
    assert "exactly one" in semantic({"kind": "pytorch"})["command"]
    assert "exactly one" in semantic({"kind": "trainjob", "command": ["x"], "script": {"text": "y"}})["command"]


def test_training_needs_a_node_ray_may_have_none():
    assert "at least 1" in semantic({"kind": "pytorch", "command": ["x"], "workers": 0})["workers"]
    assert semantic({"kind": "ray-cluster", "workers": 0}) == {}


def test_accelerators_and_profile_are_exclusive_and_profile_must_exist():
    errs = semantic(
        {"kind": "ray-cluster", "hardware_profile": "gpu-small", "accelerators": {"resource": "nvidia.com/gpu"}},
        profile={"requests": {}},
    )
    assert "not both" in errs["accelerators"]
    errs = semantic({"kind": "ray-cluster", "hardware_profile": "gpu-small"}, profile=None)
    assert "'gpu-small'" in errs["hardware_profile"]
    assert semantic({"kind": "ray-cluster", "hardware_profile": "gpu-small"}, profile={"requests": {}}) == {}


def test_script_size_limit_and_interpreter():
    big = "x" * (MAX_SCRIPT_BYTES + 1)
    errs = semantic({"kind": "ray-job", "script": {"text": big}})
    assert str(MAX_SCRIPT_BYTES + 1) in errs["script.text"] and str(MAX_SCRIPT_BYTES) in errs["script.text"]
    assert semantic({"kind": "ray-job", "script": {"text": "x" * MAX_SCRIPT_BYTES}}) == {}
    # multi-byte characters count as bytes, which is what the ConfigMap stores
    assert "script.text" in semantic({"kind": "ray-job", "script": {"text": "é" * (MAX_SCRIPT_BYTES // 2 + 1)}})
    errs = semantic({"kind": "ray-job", "script": {"text": "x", "interpreter": "torchrun"}})
    assert "torchrun" in errs["script.interpreter"]


def test_zero_quantities_and_missing_image():
    errs = semantic({"kind": "ray-cluster", "cpu": "0", "head": {"memory": "0Gi"}})
    assert set(errs) == {"cpu", "head.memory"}
    errs = semantic({"kind": "ray-cluster"}, default_image=None)
    assert "no default image" in errs["image"]
    assert semantic({"kind": "ray-cluster", "image": "my/ray:1"}, default_image=None) == {}


def test_reserved_label_keys_are_refused():
    errs = semantic(
        {
            "kind": "ray-cluster",
            "labels": {
                "kueue.x-k8s.io/queue-name": "q",
                "app.kubernetes.io/managed-by": "me",
                "ray.io/cluster": "x",
                "jupyter-accel.io/kind": "x",
                "node.kubernetes.io/foo": "x",
                "team": "a",
                "example.com/owner": "b",
            },
        }
    )
    assert set(errs) == {
        "labels.kueue.x-k8s.io/queue-name",
        "labels.app.kubernetes.io/managed-by",
        "labels.ray.io/cluster",
        "labels.jupyter-accel.io/kind",
        "labels.node.kubernetes.io/foo",
    }


def test_all_errors_are_reported_at_once():
    errs = semantic(
        {"kind": "ray-cluster", "entrypoint": "x", "workers": 2, "cpu": "0", "accelerators": {"resource": "x.io/tpu"}},
        default_image=None,
    )
    assert {"entrypoint", "cpu", "accelerators.resource", "image"} <= set(errs)


def test_kind_enum_values():
    assert [k.value for k in JobKind] == ["ray-cluster", "ray-job", "pytorch", "trainjob"]


def test_autoscaling_and_worker_groups_are_checked_field_by_field():
    body = {
        "kind": "ray-cluster",
        "workers": 2,
        "max_workers": 1,
        "worker_groups": [
            {"name": "workers", "workers": 1},
            {"name": "cpu", "workers": 3, "max_workers": 2, "cpu": "0"},
            {"name": "cpu", "accelerators": {"resource": "amd.com/gpu"}},
        ],
    }
    assert semantic(body) == {
        "max_workers": "at least workers (2): the workers scale between the two",
        "worker_groups[0].name": "'workers' is taken (the head and the first group); choose another",
        "worker_groups[1].max_workers": "at least workers (3)",
        "worker_groups[1].cpu": "must be more than 0",
        "worker_groups[2].name": "'cpu' names another group of this job already",
        "worker_groups[2].accelerators.resource": (
            "unknown accelerator; this cluster offers: habana.ai/gaudi, nvidia.com/gpu, nvidia.com/mig-1g.5gb"
        ),
    }
    # a RayJob's cluster takes groups but does not autoscale; the training kinds take neither
    job = {"kind": "ray-job", "entrypoint": "true", "worker_groups": [{"name": "cpu", "max_workers": 4}]}
    assert semantic(job) == {
        "worker_groups[0].max_workers": "only for kind ray-cluster (an interactive cluster autoscales)"
    }
    assert set(semantic({"kind": "ray-job", "entrypoint": "true", "max_workers": 4})) == {"max_workers"}
    torch = {"kind": "pytorch", "command": ["true"], "max_workers": 2, "worker_groups": [{"name": "cpu"}]}
    assert set(semantic(torch)) == {"max_workers", "worker_groups"}
    assert ("worker_groups", 0, "name") in errors_of({"kind": "ray-cluster", "worker_groups": [{"name": "Head"}]})
