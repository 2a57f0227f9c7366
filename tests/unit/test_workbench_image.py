"""The real workbench's image and objects (devcluster/workbench.py), without a cluster: the wheel's layer, the
two-layer OCI archive, the requirement check against the base layer, and what the pod is given."""

from __future__ import annotations

import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from devcluster import pki
from devcluster import workbench as wb
from devcluster.oci_archive import write_archive


def make_wheel(tmp: Path, requires: list[str]) -> Path:
    """A small real wheel: a module, a console script, a data file, as a build backend writes them."""
    path = tmp / "demo_pkg-1.0-py3-none-any.whl"
    dist = "demo_pkg-1.0.dist-info"
    meta = "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {
        "demo_pkg/__init__.py": "def main():\n    return 0\n",
        "demo_pkg-1.0.data/data/etc/jupyter/jupyter_server_config.d/demo_pkg.json": "{}",
        f"{dist}/METADATA": meta,
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/entry_points.txt": "[console_scripts]\ndemo-pkg = demo_pkg:main\n",
    }
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr(f"{dist}/RECORD", "".join(f"{n},,\n" for n in files) + f"{dist}/RECORD,,\n")
    return path


def test_the_wheel_layer_is_what_pip_would_write_into_the_venv(tmp_path):
    layer = wb.wheel_layer(make_wheel(tmp_path, []), tmp_path / "layer.tar", "python3.11")
    with tarfile.open(layer) as tar:
        members = {m.name: m for m in tar.getmembers()}
        script = tar.extractfile(members["opt/venv/bin/demo-pkg"]).read().decode()  # type: ignore[union-attr]
    assert "opt/venv/lib/python3.11/site-packages/demo_pkg/__init__.py" in members
    assert "opt/venv/etc/jupyter/jupyter_server_config.d/demo_pkg.json" in members  # the wheel's data files
    assert script.startswith("#!/opt/venv/bin/python")  # the image's interpreter, not this machine's
    assert {(m.uid, m.gid) for m in members.values()} == {(0, 0)}


def test_requirements_missing_from_the_base_layer_are_named(tmp_path):
    wheel = make_wheel(tmp_path, ["kubernetes>=31", "pydantic<3,>=2.7", 'ipywidgets<9,>=8; extra == "widgets"'])
    wb.check_requirements(wheel, "kubernetes==33.1.0\npydantic==2.11.0\n")  # extras are not the base's business
    with pytest.raises(RuntimeError) as err:
        wb.check_requirements(wheel, "kubernetes==30.0.0\n")
    assert "kubernetes>=31 (base has 30.0.0)" in str(err.value) and "pydantic" in str(err.value)
    assert "workbench-image.sh" in str(err.value)


def test_an_archive_of_two_layers_lists_both_in_order(tmp_path):
    lower, upper = tmp_path / "a.tar", tmp_path / "b.tar"
    for path, name in ((lower, "x"), (upper, "y")):
        (tmp_path / name).write_text(name)
        with tarfile.open(path, "w") as tar:
            tar.add(tmp_path / name, arcname=name)
    out = tmp_path / "image.tar"
    write_archive([lower, upper], out, "example.local/img:1", [], ["sh"], history=["base", "wheel"])
    with tarfile.open(out) as tar:
        index = json.load(tar.extractfile("index.json"))  # type: ignore[arg-type]
        manifest = json.load(tar.extractfile("blobs/sha256/" + index["manifests"][0]["digest"][7:]))  # type: ignore[arg-type]
        config = json.load(tar.extractfile("blobs/sha256/" + manifest["config"]["digest"][7:]))  # type: ignore[arg-type]
        names = set(tar.getnames())
    digests = [layer["digest"] for layer in manifest["layers"]]
    assert len(digests) == 2 and config["rootfs"]["diff_ids"] == digests
    assert all("blobs/sha256/" + d[7:] in names for d in digests)
    assert [h["created_by"] for h in config["history"]] == ["base", "wheel"]


def test_the_rbac_tiers_are_applied_for_the_workbench_account():
    objs = wb.rbac_objects()
    text = json.dumps(objs)
    assert "my-project" not in text and "my-workbench" not in text
    subjects = [s for o in objs for s in o.get("subjects", [])]
    assert subjects and all(
        s == {"kind": "ServiceAccount", "name": "workbench", "namespace": "team-a"} for s in subjects
    )
    rules = [r for o in objs if o["kind"] == "Role" for r in o["rules"]]
    assert {"apiGroups": ["kubeflow.org"], "resources": ["notebooks"], "verbs": ["get"]} in rules


def test_the_pod_reads_its_identity_where_in_cluster_clients_do():
    sts = next(o for o in wb.objects("img:1") if o["kind"] == "StatefulSet")
    spec = sts["spec"]["template"]["spec"]
    container = spec["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["KUBERNETES_SERVICE_HOST"] == pki.NODE_IP and env["NB_PREFIX"] == "/notebook/team-a/workbench"
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    token = next(v for v in spec["volumes"] if v["name"] == mounts["/var/run/secrets/kubernetes.io/serviceaccount"])
    kinds = [next(iter(s)) for s in token["projected"]["sources"]]
    assert kinds == ["serviceAccountToken", "configMap", "downwardAPI"]
    assert spec["serviceAccountName"] == "workbench" and container["image"] == "img:1"
