"""Manifests read at run time: upstream CRDs and Kueue webhooks from the Go module cache (never committed),
rewritten for a loopback-only cluster, plus the project's own data files and rendered configs."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import yaml

from .versions import DATA, module_dir

# libyaml parses the multi-MB upstream CRDs ~10x faster than the pure-Python loader
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Kueue hooks to keep: Kueue's own API group plus the integrations enabled in kueue_config(). Hooks for
# pods/deployments/statefulsets would block every such create while Kueue is down, so they are dropped.
KUEUE_FRAMEWORKS = ["batch/job", "kubeflow.org/pytorchjob", "ray.io/rayjob", "ray.io/raycluster"]
_ENABLED = {("batch", "jobs"), ("ray.io", "rayjobs"), ("ray.io", "rayclusters"), ("kubeflow.org", "pytorchjobs")}
KUEUE_WEBHOOK_CONFIGS = ("kueue-mutating-webhook-configuration", "kueue-validating-webhook-configuration")
VISIBILITY_API_VERSIONS = ("v1beta2", "v1beta1")


def load_all(path: Path) -> list[dict]:
    with open(path) as f:
        return [d for d in yaml.load_all(f, Loader=_Loader) if d]


def data(name: str) -> list[dict]:
    return load_all(DATA / name)


def kueue_crds(port: int | None, ca_pem: bytes) -> list[dict]:
    """Kueue's CRD bases; those its kustomization gives a conversion webhook get one at 127.0.0.1:<port>
    (only when Kueue runs: without a converter the CRDs must stay `conversion: None`)."""
    root = module_dir("kueue") / "config/components/crd"
    text = (root / "kustomization.yaml").read_text()
    converted = set(re.findall(r"^- path: patches/webhook_in_([a-z]+)\.yaml$", text, flags=re.M))
    crds = []
    for path in sorted((root / "bases").glob("kueue.x-k8s.io_*.yaml")):
        for crd in load_all(path):
            if port is not None and crd["spec"]["names"]["plural"] in converted:
                crd["spec"]["conversion"] = {
                    "strategy": "Webhook",
                    "webhook": {
                        "clientConfig": {
                            "url": f"https://127.0.0.1:{port}/convert",
                            "caBundle": base64.b64encode(ca_pem).decode(),
                        },
                        "conversionReviewVersions": ["v1"],
                    },
                }
            crds.append(crd)
    return crds


def ray_crds() -> list[dict]:
    base = module_dir("kuberay") / "config/crd/bases"
    # All three: ray-operator always sets up the RayCluster, RayJob and RayService controllers.
    return [c for n in ("rayclusters", "rayjobs", "rayservices") for c in load_all(base / f"ray.io_{n}.yaml")]


def training_crds() -> list[dict]:
    return load_all(module_dir("training-operator") / "manifests/base/crds/kubeflow.org_pytorchjobs.yaml")


def trainer_crds() -> list[dict]:
    """Kubeflow Trainer v2's CRDs (TrainJob, TrainingRuntime, ClusterTrainingRuntime) from the pinned module: the
    API server validates TrainJobs against the real schema; no controller runs them (components.toml)."""
    base = module_dir("trainer") / "manifests/base/crds"
    return [c for p in sorted(base.glob("trainer.kubeflow.org_*.yaml")) for c in load_all(p)]


def project_crds() -> list[dict]:
    return [c for p in sorted((DATA / "crds").glob("*.yaml")) for c in load_all(p)]


def _keep(hook: dict) -> bool:
    for rule in hook.get("rules", []):
        for group in rule.get("apiGroups", []):
            for res in rule.get("resources", []):
                if group == "kueue.x-k8s.io" or (group, res) in _ENABLED:
                    return True
    return False


def kueue_webhooks(port: int, ca_pem: bytes) -> list[dict]:
    """Kueue's webhook configurations pointed at https://127.0.0.1:<port>, limited to what runs here."""
    docs = load_all(module_dir("kueue") / "config/components/webhook/manifests.yaml")
    ca = base64.b64encode(ca_pem).decode()
    for doc in docs:
        doc["metadata"]["name"] = "kueue-" + doc["metadata"]["name"]
        doc["webhooks"] = [h for h in doc["webhooks"] if _keep(h)]
        for hook in doc["webhooks"]:
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca}
    assert {d["metadata"]["name"] for d in docs} == set(KUEUE_WEBHOOK_CONFIGS), docs
    return docs


def kueue_visibility(port: int) -> list[dict]:
    """APIServices for Kueue's visibility server, routed by the aggregation layer to 127.0.0.1:<port>.

    Endpoints may not hold loopback addresses, but the aggregator resolves an ExternalName Service to
    <externalName>:<port> directly, so an ExternalName of 127.0.0.1 keeps the hop on loopback. TLS is not
    verified, as in Kueue's own manifests (its server cert sits in the hard-coded, host-wide /visibility).
    """
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "visibility-server", "namespace": "kueue-system"},
        "spec": {"type": "ExternalName", "externalName": "127.0.0.1", "ports": [{"name": "https", "port": port}]},
    }
    apis = [
        {
            "apiVersion": "apiregistration.k8s.io/v1",
            "kind": "APIService",
            "metadata": {"name": f"{v}.visibility.kueue.x-k8s.io"},
            "spec": {
                "group": "visibility.kueue.x-k8s.io",
                "version": v,
                "groupPriorityMinimum": 100,
                "versionPriority": 100 if v == "v1beta2" else 90,
                "insecureSkipTLSVerify": True,
                "service": {"name": "visibility-server", "namespace": "kueue-system", "port": port},
            },
        }
        for v in VISIBILITY_API_VERSIONS
    ]
    # The visibility server reads the aggregator's front-proxy CA from kube-system (delegated authn).
    reader = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "kueue-visibility-server-auth-reader", "namespace": "kube-system"},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": "extension-apiserver-authentication-reader",
        },
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "system:kueue"}],
    }
    return [svc, *apis, reader]


def kueue_config(run: Path, ports: dict[str, int]) -> dict:
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "namespace": "kueue-system",
        "leaderElection": {"leaderElect": False},
        "health": {"healthProbeBindAddress": f"127.0.0.1:{ports['kueue-health']}"},
        "metrics": {"bindAddress": "0"},  # "0" = metrics server off
        "webhook": {"host": "127.0.0.1", "port": ports["kueue-webhook"], "certDir": str(run / "kueue-webhook")},
        # Internal cert management would wait for cert-controller, which fails on our URL-based CRD conversion.
        "internalCertManagement": {"enable": False},
        "manageJobsWithoutQueueName": False,
        "visibilityServer": {"bindAddress": "127.0.0.1", "bindPort": ports["kueue-visibility"]},
        "integrations": {"frameworks": KUEUE_FRAMEWORKS},
    }


# The one pod whose log grows while it runs: the master of a PyTorchJob of this name in team-a. kwok follows
# LIVE_LOG_FILE (relative to the run directory); tests append CRI-format lines to it (Cluster.live_log).
LIVE_LOG_JOB = "live-log"
LIVE_LOG_FILE = "logs/live.log"


def kwok_logs(run: Path) -> Path:
    live = run / LIVE_LOG_FILE
    live.parent.mkdir(parents=True, exist_ok=True)
    live.touch()
    out = run / "kwok-logs.yaml"
    text = (DATA / "kwok-logs.yaml.tmpl").read_text()
    out.write_text(
        text.replace("@DATA@", str(DATA)).replace("@LIVE_LOG@", str(live)).replace("@LIVE_JOB@", LIVE_LOG_JOB)
    )
    return out


KWOK_UPSTREAM_STAGES = [
    "kustomize/stage/node/fast/node-initialize.yaml",
    "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
    "kustomize/stage/pod/general/pod-create.yaml",
    "kustomize/stage/pod/general/pod-init-container-running.yaml",
    "kustomize/stage/pod/general/pod-init-container-completed.yaml",
    "kustomize/stage/pod/general/pod-ready.yaml",
    "kustomize/stage/pod/general/pod-delete.yaml",
    "kustomize/stage/pod/chaos/pod-container-running-failed.yaml",
]


def kwok_configs(run: Path) -> list[Path]:
    kwok = module_dir("kwok")
    return [kwok / p for p in KWOK_UPSTREAM_STAGES] + [DATA / "kwok-pod-stages.yaml", kwok_logs(run)]
