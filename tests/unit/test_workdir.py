"""services/workdir.py and the builders: a project folder packed by the server (excludes, bounds, refusals naming the
field) and unpacked in every pod before its program runs there."""

from __future__ import annotations

import io
import os
import tarfile

import pytest

from jupyter_accel.domain.builders import build
from jupyter_accel.domain.builders.common import WORKDIR, WORKDIR_ARCHIVE, BuildContext
from jupyter_accel.models import JobRequest
from jupyter_accel.services import workdir
from jupyter_accel.services.errors import Invalid


def project(root):
    proj = root / "proj"
    (proj / "pkg").mkdir(parents=True)
    (proj / "pkg" / "__init__.py").write_text("")
    (proj / "pkg" / "model.py").write_text("def size():\n    return 3\n")
    (proj / "train.py").write_text("from pkg.model import size\nprint(size())\n")
    (proj / "config.yaml").write_text("epochs: 2\n")
    for junk in (".git/HEAD", ".ipynb_checkpoints/x.ipynb", "pkg/__pycache__/model.cpython-311.pyc",
                 "checkpoints/last.pt", "data/big.bin", "notes.tmp"):  # fmt: skip
        (proj / junk).parent.mkdir(parents=True, exist_ok=True)
        (proj / junk).write_text("x")
    (proj / ".accelignore").write_text("data/\n*.tmp\n")
    return proj


def names(packed: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
        return sorted(tar.getnames())


def test_the_project_is_packed_without_hidden_folders_caches_checkpoints_or_ignored_files(tmp_path):
    project(tmp_path)
    packed = workdir.pack(str(tmp_path), "proj", 1 << 20)
    assert names(packed) == ["config.yaml", "pkg/__init__.py", "pkg/model.py", "train.py"]
    assert workdir.pack(str(tmp_path), str(tmp_path / "proj"), 1 << 20) == packed  # absolute, and the same bytes


def test_a_folder_outside_the_root_or_a_symlink_out_of_it_is_refused_naming_the_field(tmp_path):
    root = tmp_path / "root"
    proj = project(root)
    for path in ("..", "/etc", "nope"):
        with pytest.raises(Invalid) as refused:
            workdir.pack(str(root), path, 1 << 20)
        assert refused.value.field == "workdir"
    os.symlink("/etc/passwd", proj / "passwd")
    with pytest.raises(Invalid, match="symlink that leads out of the folder") as out:
        workdir.pack(str(root), "proj", 1 << 20)
    assert out.value.field == "workdir"
    (proj / "passwd").unlink()
    os.symlink(proj / "config.yaml", proj / "same.yaml")  # inside: sent as the file
    assert "same.yaml" in names(workdir.pack(str(root), "proj", 1 << 20))


def test_a_folder_over_the_limit_is_refused_with_what_to_do_instead(tmp_path):
    proj = project(tmp_path)
    (proj / "weights.npy").write_bytes(os.urandom(300_000))
    with pytest.raises(Invalid) as refused:
        workdir.pack(str(tmp_path), "proj", 200_000)
    assert refused.value.field == "workdir"
    assert "over the 195 KiB a job can carry" in refused.value.message and "PVC" in refused.value.message


def test_every_pod_unpacks_the_folder_and_runs_its_program_there():
    request = JobRequest.model_validate(
        {
            "kind": "pytorch",
            "name": "t",
            "workers": 2,
            "image": "img",
            "command": ["python", "train.py"],
            "workdir": "p",
        }
    )
    built = build(request, BuildContext(namespace="team-a", workdir_archive=b"packed"))
    job, cm = built.objects
    for replica in job["spec"]["pytorchReplicaSpecs"].values():
        pod = replica["template"]["spec"]
        (c,) = pod["containers"]
        assert c["command"][:2] == ["sh", "-c"] and c["command"][3:] == [WORKDIR, "python", "train.py"]
        assert {m["mountPath"] for m in c["volumeMounts"]} == {WORKDIR, "/opt/jupyter-accel/script"}
        assert {"name": "jupyter-accel-workdir", "emptyDir": {}} in pod["volumes"]
    assert cm["kind"] == "ConfigMap" and cm["binaryData"][WORKDIR_ARCHIVE] == "cGFja2Vk"


def test_a_ray_cluster_takes_no_working_dir():
    from jupyter_accel.domain.job_request import validate_job_request

    request = JobRequest.model_validate({"kind": "ray-cluster", "workers": 1, "workdir": "proj"})
    errors = validate_job_request(request, known_accelerators=[], default_image="img")
    assert [e.field for e in errors] == ["workdir"]
