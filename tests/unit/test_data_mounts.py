"""Data for a job (issue #26): PVCs of the namespace mounted (subPath, readOnly) and Secrets / connections given as
environment or files, by reference; bad paths refused naming the field."""

from __future__ import annotations

from jupyter_accel.domain.builders import build
from jupyter_accel.domain.builders.common import BuildContext
from jupyter_accel.domain.job_request import validate_job_request
from jupyter_accel.models import JobRequest


def request(**more) -> JobRequest:
    base = {"kind": "pytorch", "name": "t", "workers": 2, "image": "img", "command": ["python", "t.py"]}
    return JobRequest.model_validate({**base, **more})


def errors(req: JobRequest) -> dict[str, str]:
    return {e.field: e.message for e in validate_job_request(req, known_accelerators=[], default_image="img")}


def test_every_pod_mounts_the_claims_and_gets_the_secrets_by_reference():
    req = request(
        volumes=[
            {"claim": "datasets", "mount_path": "/data", "sub_path": "mnist", "read_only": True},
            {"claim": "scratch", "mount_path": "/checkpoints"},
        ],
        secrets=[{"name": "s3-connection"}, {"name": "tls", "mount_path": "/etc/tls"}],
    )
    assert errors(req) == {}
    job = build(req, BuildContext(namespace="team-a")).objects[0]
    for replica in job["spec"]["pytorchReplicaSpecs"].values():
        pod = replica["template"]["spec"]
        (c,) = pod["containers"]
        assert c["envFrom"] == [{"secretRef": {"name": "s3-connection"}}]
        assert c["volumeMounts"] == [
            {"name": "data-0", "mountPath": "/data", "readOnly": True, "subPath": "mnist"},
            {"name": "data-1", "mountPath": "/checkpoints", "readOnly": False},
            {"name": "secret-1", "mountPath": "/etc/tls", "readOnly": True},
        ]
        assert pod["volumes"] == [
            {"name": "data-0", "persistentVolumeClaim": {"claimName": "datasets", "readOnly": True}},
            {"name": "data-1", "persistentVolumeClaim": {"claimName": "scratch", "readOnly": False}},
            {"name": "secret-1", "secret": {"secretName": "tls"}},
        ]


def test_bad_mount_paths_are_refused_naming_the_field():
    req = request(
        volumes=[
            {"claim": "a", "mount_path": "/data/../etc"},
            {"claim": "b", "mount_path": "/opt/jupyter-accel/script"},
            {"claim": "c", "mount_path": "/same", "sub_path": "../up"},
        ],
        secrets=[{"name": "s", "mount_path": "/same"}],
    )
    found = errors(req)
    assert set(found) == {"volumes[0].mount_path", "volumes[1].mount_path", "volumes[2].sub_path",
                          "secrets[0].mount_path"}  # fmt: skip
    assert "already the mount path of volumes[2].mount_path" in found["secrets[0].mount_path"]


def test_a_kind_that_takes_no_data_says_so():
    req = JobRequest.model_validate(
        {
            "kind": "trainjob",
            "name": "t",
            "image": "img",
            "command": ["x"],
            "volumes": [{"claim": "a", "mount_path": "/d"}],
        }
    )
    assert "volumes" in errors(req)
