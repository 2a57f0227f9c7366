"""A real workbench on the real node: the jupyter-accel wheel in a JupyterLab image, run as OpenShift AI runs one.

- **Image.** The base layer (workbench-image.sh: Debian, JupyterLab and jupyter-server at OpenShift AI's pins, the
  wheel's requirements, Ray's client) is cached by build.sh; the wheel is laid on top as a second layer, installed
  into the venv by `installer` (PyPA's wheel installer), so a new wheel costs seconds, not a rebuild. The OCI
  archive is imported into the node's containerd; no registry.
- **Objects.** A Notebook (the CRD written here; no notebook controller is served, so this module does what
  ODH's controller would: a StatefulSet owned by the Notebook, a Service), the ServiceAccount, and the RBAC tier
  files of examples/workbench/rbac/ with the project and account filled in. ServiceAccount admission is off in
  devcluster, so the pod mounts its token, CA and namespace explicitly, at the path every in-cluster client reads.
  The pod reaches the API server at the node address (pki.POD_API_PORT, a relay inside the node).
- **Reaching it.** Jupyter serves under NB_PREFIX, as on the platform; the host reaches it through the API server:
  `kubectl port-forward` on loopback.

Usage: python -m devcluster workbench --wheel dist/jupyter_accel-*.whl [--run-dir DIR]
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import yaml
from installer import install
from installer.destinations import SchemeDictionaryDestination
from installer.sources import WheelFile
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from . import pki
from .node import node_exec, pid1_of
from .oci_archive import write_archive
from .rest import ApiError
from .versions import HERE, built, versions

NAMESPACE = "team-a"
NAME = "workbench"
NB_PREFIX = f"/notebook/{NAMESPACE}/{NAME}"
PORT = 8888
VENV = "/opt/venv"
RBAC = HERE.parent / "examples" / "workbench" / "rbac"
# devcluster keeps its hardware profiles in team-a; OpenShift AI keeps them in the dashboard's namespace
PROFILES_NAMESPACE = "team-a"

# The server's settings on the platform's command line (ODH's start script), plus galata's in-browser helper so the
# browser tests can drive this JupyterLab: it is in JupyterLab's own package, nothing else is installed for it.
SERVER_CONFIG = f"""\
import os
from jupyterlab.galata import configure_jupyter_server
configure_jupyter_server(c)
c.ServerApp.ip = "0.0.0.0"
c.ServerApp.port = {PORT}
c.ServerApp.base_url = os.environ["NB_PREFIX"]
c.ServerApp.root_dir = os.environ["HOME"]
c.ServerApp.allow_origin = "*"
c.ServerApp.quit_button = False
"""


def _python_minor() -> str:
    """The base image's Python (its venv's site-packages directory name): the Debian suite's Python."""
    return {"bookworm": "python3.11", "trixie": "python3.13"}[versions()["NODE_IMAGE_SUITE"]]


def check_requirements(wheel: Path, freeze: str) -> None:
    """The wheel's requirements (no extras) must be in the base layer; else say which, and to rebuild it."""
    have = {}
    for line in freeze.splitlines():
        if "==" in line:
            name, version = line.split("==", 1)
            have[canonicalize_name(name)] = version.strip()
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        lines = z.read(meta).decode().splitlines()
    missing = []
    for line in lines:
        if not line.startswith("Requires-Dist:"):
            continue
        req = Requirement(line.split(":", 1)[1].strip())
        if req.marker is not None and "extra" in str(req.marker):
            continue
        version = have.get(canonicalize_name(req.name))
        if version is None or not req.specifier.contains(version, prereleases=True):
            missing.append(f"{req} (base has {version or 'none'})")
    if missing:
        raise RuntimeError(
            "the workbench base layer lacks the wheel's requirements: " + "; ".join(missing)
            + " — add them to devcluster/workbench-image.sh (build.sh rebuilds the base when it changes)"
        )  # fmt: skip


def wheel_layer(wheel: Path, out: Path, python: str) -> Path:
    """The wheel installed into the image's venv, as a layer tar (owner root): what `pip install` would write."""
    with tempfile.TemporaryDirectory(prefix="ja-wheel-layer.") as tmp:
        site = f"{VENV}/lib/{python}/site-packages"
        scheme = {"purelib": site, "platlib": site, "headers": f"{VENV}/include", "scripts": f"{VENV}/bin",
                  "data": VENV}  # fmt: skip
        dest = SchemeDictionaryDestination(
            scheme, interpreter=f"{VENV}/bin/python", script_kind="posix", destdir=tmp, bytecode_optimization_levels=()
        )
        with WheelFile.open(wheel) as source:
            install(source, dest, {"INSTALLER": b"devcluster"})

        def root(info: tarfile.TarInfo) -> tarfile.TarInfo:
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            return info

        with tarfile.open(out, "w") as tar:
            for top in sorted(Path(tmp).iterdir()):
                tar.add(top, arcname=top.name, filter=root)
    return out


def build_image(wheel: Path, work: Path) -> tuple[Path, str]:
    """The workbench's OCI archive (base layer + the wheel's layer) and its reference, named by both."""
    base = built("workbench-image")
    rootfs, freeze = base.binary("workbench-base.tar"), base.binary("workbench-base.freeze")
    check_requirements(wheel, freeze.read_text())
    layer = wheel_layer(wheel, work / "wheel-layer.tar", _python_minor())
    tag = hashlib.sha256(wheel.read_bytes() + str(base.bin_dir).encode()).hexdigest()[:12]
    ref = f"devcluster.local/jupyter-accel/workbench:{tag}"
    env = [f"PATH={VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/opt/app-root/src"]
    archive = work / "workbench-image.tar"
    write_archive([rootfs, layer], archive, ref, env, ["jupyter", "lab"],
                  history=["devcluster/workbench-image.sh (mmdebstrap + pip)", f"the wheel {wheel.name} (installer)"])  # fmt: skip
    return archive, ref


def import_image(cluster: Any, archive: Path, timeout: float = 300) -> None:
    """`ctr images import` in the node's containerd (the path is the host's: the node shares its files)."""
    pid1 = pid1_of(cluster.recorded["node"].pid)
    ctr = built("containerd").binary("ctr")
    sock = cluster.run / "node" / "containerd.sock"
    res = node_exec(pid1, [str(ctr), f"--address={sock}", "-n", "k8s.io", "images", "import",
                           "--platform=linux/amd64", str(archive)], timeout)  # fmt: skip
    if res.returncode != 0:
        raise RuntimeError(f"importing the workbench image failed: {res.stderr.strip()[-2000:]}")


def rbac_objects(namespace: str = NAMESPACE, account: str = NAME) -> list[dict[str, Any]]:
    """The RBAC tier files of examples/workbench/rbac/, for this project and account (what an admin applies)."""
    out = []
    for path in sorted(RBAC.glob("tier-*.yaml")):
        text = path.read_text().replace("my-project", namespace).replace("my-workbench", account)
        text = text.replace("redhat-ods-applications", PROFILES_NAMESPACE)
        out += [d for d in yaml.safe_load_all(text) if d]
    return out


# fmt: off
def pod_spec(image: str) -> dict[str, Any]:
    sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount"
    return {
        "serviceAccountName": NAME,
        # ServiceAccount admission is off here: the token, CA and namespace, where every in-cluster client reads them
        "automountServiceAccountToken": False,
        "nodeSelector": {"kubernetes.io/hostname": "devcluster-node"},
        "tolerations": [{"key": "devcluster.jupyter-accel.io/real-node", "operator": "Exists", "effect": "NoSchedule"}],
        "securityContext": {"runAsUser": 1001, "runAsGroup": 0, "fsGroup": 0},
        "containers": [{
            "name": NAME,
            "image": image,
            "imagePullPolicy": "Never",
            "command": [f"{VENV}/bin/jupyter", "lab", "--config=/etc/workbench/jupyter_server_config.py"],
            "workingDir": "/opt/app-root/src",
            "env": [
                {"name": "NB_PREFIX", "value": NB_PREFIX},
                {"name": "HOME", "value": "/opt/app-root/src"},
                {"name": "KUBERNETES_SERVICE_HOST", "value": pki.NODE_IP},
                {"name": "KUBERNETES_SERVICE_PORT", "value": str(pki.POD_API_PORT)},
            ],
            "ports": [{"name": "notebook-port", "containerPort": PORT}],
            "resources": {"requests": {"cpu": "100m", "memory": "512Mi"}, "limits": {"memory": "2Gi"}},
            "readinessProbe": {"httpGet": {"path": f"{NB_PREFIX}/api", "port": PORT}, "periodSeconds": 1,
                               "failureThreshold": 600},
            "volumeMounts": [
                {"name": "token", "mountPath": sa_dir, "readOnly": True},
                {"name": "config", "mountPath": "/etc/workbench", "readOnly": True},
                {"name": "home", "mountPath": "/opt/app-root/src"},
            ],
        }],
        "volumes": [
            {"name": "token", "projected": {"sources": [
                {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}]}},
            ]}},
            {"name": "config", "configMap": {"name": f"{NAME}-config"}},
            {"name": "home", "emptyDir": {}},
        ],
    }


def objects(image: str) -> list[dict[str, Any]]:
    """The Notebook first (the others are owned by it, as ODH's controller makes them), then what runs it."""
    labels = {"app": NAME, "notebook-name": NAME}
    notebook = {
        "apiVersion": "kubeflow.org/v1", "kind": "Notebook",
        "metadata": {"name": NAME, "namespace": NAMESPACE,
                     "labels": {"app": NAME, "opendatahub.io/dashboard": "true"},
                     "annotations": {"openshift.io/display-name": "real workbench (devcluster)"}},
        "spec": {"template": {"spec": pod_spec(image)}},
    }
    return [
        notebook,
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": NAME, "namespace": NAMESPACE}},
        *rbac_objects(),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{NAME}-config", "namespace": NAMESPACE},
         "data": {"jupyter_server_config.py": SERVER_CONFIG}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": labels},
         "spec": {"selector": {"statefulset": NAME}, "ports": [{"name": "http", "port": PORT, "targetPort": PORT}]}},
        {"apiVersion": "apps/v1", "kind": "StatefulSet",
         "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": labels},
         "spec": {"replicas": 1, "serviceName": NAME, "selector": {"matchLabels": {"statefulset": NAME}},
                  "template": {"metadata": {"labels": {"statefulset": NAME, **labels}}, "spec": pod_spec(image)}}},
    ]


# fmt: on


def deploy(cluster: Any, wheel: Path, timeout: float = 300) -> dict[str, Any]:
    """Build and import the image, apply the objects, wait for the pod to be Ready; the timings."""
    rest = cluster.admin
    timings: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ja-workbench.") as tmp:
        t0 = time.monotonic()
        archive, ref = build_image(wheel, Path(tmp))
        timings["image_archive_bytes"] = archive.stat().st_size
        timings["wheel_layer_s"] = round(time.monotonic() - t0, 1)
        t1 = time.monotonic()
        import_image(cluster, archive)
        timings["import_s"] = round(time.monotonic() - t1, 1)
    base = built("workbench-image").bin_dir
    if base is not None and (base.parent / "build-seconds").is_file():
        timings["base_build_s"] = int((base.parent / "build-seconds").read_text())
    timings["image"] = ref
    owned = None
    t2 = time.monotonic()
    for obj in objects(ref):
        if owned is not None and obj["kind"] in ("StatefulSet", "Service", "ConfigMap"):
            obj["metadata"]["ownerReferences"] = [owned]
        applied = rest.apply(obj)
        if obj["kind"] == "Notebook":
            owned = {"apiVersion": "kubeflow.org/v1", "kind": "Notebook", "name": NAME,
                     "uid": applied["metadata"]["uid"], "controller": True}  # fmt: skip
    pod = f"/api/v1/namespaces/{NAMESPACE}/pods/{NAME}-0"
    # a StatefulSet never replaces a pod that was not Ready once (kubernetes#67250): one of an older image goes
    try:
        old = rest.get(pod)
    except ApiError:  # none yet
        old = None
    if old is not None and old["spec"]["containers"][0]["image"] != ref:
        rest.delete("v1", "Pod", f"{NAME}-0", NAMESPACE)

    def ready() -> bool:
        try:
            p = rest.get(pod)
        except ApiError:  # not made yet
            return False
        if p is None:
            return False
        image = p["spec"]["containers"][0]["image"]
        return image == ref and any(
            c["type"] == "Ready" and c["status"] == "True" for c in p.get("status", {}).get("conditions", [])
        )

    rest.wait("the workbench pod Ready", ready, timeout=timeout, interval=0.5)
    timings["pod_ready_s"] = round(time.monotonic() - t2, 1)
    (cluster.run / "workbench.json").write_text(json.dumps(timings, indent=1))
    return timings


def port_forward(cluster: Any, timeout: float = 30) -> tuple[subprocess.Popen, str]:
    """`kubectl port-forward` to the workbench pod on a free loopback port; the process and the workbench's URL.
    Its output goes to a log file, never a pipe: it writes a line per connection, and a full pipe would stall it."""
    kubectl = built("kube-apiserver").binary("kubectl")
    path = cluster.run / "logs" / "workbench-port-forward.log"
    start = path.stat().st_size if path.exists() else 0
    with path.open("ab") as log:
        proc = subprocess.Popen(
            [str(kubectl), f"--kubeconfig={cluster.kubeconfig('admin')}", "-n", NAMESPACE, "port-forward",
             "--address=127.0.0.1", f"pod/{NAME}-0", f":{PORT}"],
            stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with path.open("rb") as f:
            f.seek(start)
            m = re.search(rb"Forwarding from 127\.0\.0\.1:(\d+)", f.read())
        if m:
            return proc, f"http://127.0.0.1:{int(m.group(1))}{NB_PREFIX}"
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"kubectl port-forward did not start (see {path})")
