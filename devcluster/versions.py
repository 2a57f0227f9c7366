"""Pinned versions, the binary cache and the committed component declaration (read-only helpers)."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

# Component name in components.toml -> (status-file name, binaries it provides, versions.env key).
BINARIES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "etcd": ("etcd", ("etcd",), "ETCD_VERSION"),
    "kube-apiserver": ("kube-apiserver", ("kube-apiserver", "kubectl"), "K8S_VERSION"),
    "kube-controller-manager": ("kube-controlplane", ("kube-controller-manager",), "K8S_VERSION"),
    "kube-scheduler": ("kube-controlplane", ("kube-scheduler",), "K8S_VERSION"),
    "kwok": ("kwok", ("kwok",), "KWOK_VERSION"),
    "kueue": ("kueue", ("kueue",), "KUEUE_VERSION"),
    "kuberay": ("kuberay", ("ray-operator",), "KUBERAY_VERSION"),
    "training-operator": ("training-operator", ("training-operator.v1",), "TRAINING_OPERATOR_VERSION"),
    # the real node (devcluster/node.py)
    "kubelet": ("kubelet", ("kubelet", "deviceplugin", "pause"), "K8S_VERSION"),
    "containerd": ("containerd", ("containerd", "containerd-shim-runc-v2", "ctr"), "CONTAINERD_VERSION"),
    "runc": ("runc", ("runc",), "RUNC_VERSION"),
    "cni-plugins": ("cni-plugins", ("bridge", "loopback", "host-local"), "CNI_PLUGINS_VERSION"),
    "coredns": ("coredns", ("coredns",), "COREDNS_VERSION"),
    "node-image": ("node-image", ("runtime-image.tar", "runtime-image.ref"), "RAY_VERSION"),
    # the real workbench's base layer (devcluster/workbench.py lays the wheel on it)
    "workbench-image": (
        "workbench-image",
        ("workbench-base.tar", "workbench-base.freeze"),
        "WORKBENCH_JUPYTERLAB_VERSION",
    ),
    "jobset": ("jobset", ("jobset",), "JOBSET_VERSION"),
    "trainer-controller": ("trainer-controller", ("trainer-controller-manager",), "TRAINER_VERSION"),
    "prometheus": ("prometheus", ("prometheus",), "PROMETHEUS_VERSION"),
}

# The real node's parts (devcluster/node.py): they run only as root, so for anyone else they count as absent.
NODE_PARTS = ("kubelet", "containerd", "runc", "cni-plugins", "coredns", "node-image")
NODE_NEEDS_ROOT = "the real node needs root (kubelet, containerd and runc manage cgroups, mounts and namespaces)"

# Go modules whose directories hold the CRDs and stage files read at run time (never committed).
MODULES = {
    "kwok": ("sigs.k8s.io/kwok", "KWOK_VERSION"),
    "kueue": ("sigs.k8s.io/kueue", "KUEUE_VERSION"),
    "kuberay": ("github.com/ray-project/kuberay/ray-operator", "KUBERAY_VERSION"),
    "training-operator": ("github.com/kubeflow/training-operator", "TRAINING_OPERATOR_VERSION"),
    "trainer": ("github.com/kubeflow/trainer/v2", "TRAINER_VERSION"),
    "jobset": ("sigs.k8s.io/jobset", "JOBSET_VERSION"),
}


def versions() -> dict[str, str]:
    """versions.env as a dict (plain KEY=VALUE lines; '#' starts a comment line)."""
    out = {}
    for line in (HERE / "versions.env").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def cache_root() -> Path:
    if env := os.environ.get("JA_DEVCLUSTER_CACHE"):
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "jupyter-accel" / "devcluster"


@dataclass(frozen=True)
class Declared:
    """One entry of components.toml: whether the component is meant to run, and why not if absent."""

    name: str
    present: bool
    reason: str = ""


def declared() -> dict[str, Declared]:
    """components.toml, or the file named by JA_DEVCLUSTER_COMPONENTS (e.g. a developer's reduced set)."""
    path = Path(os.environ.get("JA_DEVCLUSTER_COMPONENTS") or HERE / "components.toml")
    raw = tomllib.loads(path.read_text())
    out = {}
    for name, entry in raw.get("components", {}).items():
        if name not in BINARIES:
            raise ValueError(f"{path}: unknown component {name!r}; allowed: {sorted(BINARIES)}")
        present = bool(entry.get("present", True))
        reason = str(entry.get("reason", ""))
        if present and (name in NODE_PARTS or name == "workbench-image") and os.geteuid() != 0:
            present, reason = False, NODE_NEEDS_ROOT
        if not present and not reason:
            raise ValueError(f"{path}: component {name!r} is absent but has no 'reason'")
        out[name] = Declared(name, present, reason)
    missing = set(BINARIES) - set(out)
    if missing:
        raise ValueError(f"{path}: no entry for {sorted(missing)}")
    return out


@dataclass(frozen=True)
class Built:
    """What build.sh recorded for a component: a bin directory, or why the build failed."""

    name: str
    version: str
    bin_dir: Path | None
    error: str = ""

    def binary(self, exe: str) -> Path:
        if self.bin_dir is None:
            raise FileNotFoundError(f"{self.name} {self.version} is not built: {self.error}")
        path = self.bin_dir / exe
        if not path.is_file():
            raise FileNotFoundError(f"{self.name}: {path} missing")
        return path


def built(name: str) -> Built:
    """Read status/<name>.json written by build.sh and check its version against versions.env."""
    status_name, _, key = BINARIES[name]
    want = versions()[key]
    path = cache_root() / "status" / f"{status_name}.json"
    if not path.is_file():
        return Built(name, want, None, f"not built yet (no {path}); run: python -m devcluster build")
    rec = json.loads(path.read_text())
    if rec.get("version") != want:
        return Built(name, want, None, f"built version {rec.get('version')} != versions.env {want}")
    if rec.get("result") != "ok":
        tail = (rec.get("error_tail") or "").strip().splitlines()[-3:]
        return Built(name, want, None, "build failed: " + " | ".join(tail))
    bin_dir = Path(rec["dir"]) / "bin"
    if not (Path(rec["dir"]) / ".complete").is_file():
        return Built(name, want, None, f"cache entry {rec['dir']} incomplete")
    return Built(name, want, bin_dir)


def module_dir(component: str) -> Path:
    """The read-only module directory (in GOMODCACHE) of a pinned module, for its CRDs and stage files."""
    mod, key = MODULES[component]
    ver = "v" + versions()[key]
    moddirs = cache_root() / "status" / "moddirs.json"
    if moddirs.is_file():
        entry = json.loads(moddirs.read_text()).get(mod)
        if entry and entry.get("version") == ver and Path(entry["dir"]).is_dir():
            return Path(entry["dir"])
    # `go mod download -json` prints Dir; it only touches the module cache (and the proxy on a miss).
    res = subprocess.run(
        ["go", "mod", "download", "-json", f"{mod}@{ver}"],
        capture_output=True,
        text=True,
        cwd="/",
        check=False,
        env={**os.environ, "GOFLAGS": "-mod=mod"},
    )
    try:
        path = Path(json.loads(res.stdout)["Dir"])
    except (ValueError, KeyError) as exc:
        raise FileNotFoundError(f"go mod download {mod}@{ver} failed: {res.stderr.strip()}") from exc
    return path
