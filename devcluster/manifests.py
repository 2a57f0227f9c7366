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
KUEUE_FRAMEWORKS = [
    "batch/job",
    "kubeflow.org/pytorchjob",
    "ray.io/rayjob",
    "ray.io/raycluster",
    "trainer.kubeflow.org/trainjob",
]
_ENABLED = {
    ("batch", "jobs"),
    ("ray.io", "rayjobs"),
    ("ray.io", "rayclusters"),
    ("kubeflow.org", "pytorchjobs"),
    ("trainer.kubeflow.org", "trainjobs"),
}
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
    """Kubeflow Trainer v2's CRDs (TrainJob, TrainingRuntime, ClusterTrainingRuntime) from the pinned module."""
    base = module_dir("trainer") / "manifests/base/crds"
    return [c for p in sorted(base.glob("trainer.kubeflow.org_*.yaml")) for c in load_all(p)]


def jobset_crds() -> list[dict]:
    """JobSet's CRD: Trainer runs a TrainJob as a JobSet, and Kueue's TrainJob integration watches JobSets."""
    return load_all(module_dir("jobset") / "config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml")


# Upstream's runtimes whose image the local one replaces: torch runs any program (a script reads the PET_* variables
# Trainer injects; the local image has no torch, see node-image.sh), so it is the one that can run on the real node.
TRAINER_RUNTIMES = ("torch_distributed.yaml",)


def trainer_runtimes(image: str | None) -> list[dict]:
    """Trainer's own ClusterTrainingRuntimes, their trainer image replaced by the real node's runtime image (pods
    there can use no other); without a real node the upstream images stay (kwok pretends to run them)."""
    out = []
    for name in TRAINER_RUNTIMES:
        for rt in load_all(module_dir("trainer") / "manifests/base/runtimes" / name):
            if image:
                for rj in rt["spec"]["template"]["spec"]["replicatedJobs"]:
                    pod = rj["template"]["spec"]["template"]["spec"]
                    # named, as ServiceAccount admission (off here: no token controller runs) would default it:
                    # the kubelet projects the status server's token for it
                    pod.setdefault("serviceAccountName", "default")
                    for c in pod.get("containers", []):
                        c["image"] = image
                        c["imagePullPolicy"] = "Never"
                rt["metadata"].setdefault("annotations", {})["devcluster.jupyter-accel.io/image"] = image
            out.append(rt)
    return out


TRAINER_NAMESPACE = "kubeflow-system"  # Trainer's operator namespace: its status server's Service and CA Secret
TRAINER_SERVICE = "kubeflow-trainer-controller-manager"
TRAINER_SECRET = "kubeflow-trainer-webhook-cert"
TRAINER_STATUS_PORT = 10443


def trainer_config(ports: dict[str, int]) -> dict:
    """Trainer's controller in its sandbox: no cert rotation (devcluster's CA signs its serving pair), its probes on
    the sandbox's loopback, and its runtime status server on (the TrainJobStatus gate, alpha in 2.3): training
    code POSTs progress there and the controller writes it to status.trainerStatus."""
    return {
        "apiVersion": "config.trainer.kubeflow.org/v1alpha1",
        "kind": "Configuration",
        "webhook": {"host": "127.0.0.1", "port": ports["webhook"]},
        "health": {"healthProbeBindAddress": f"127.0.0.1:{ports['health']}"},
        "metrics": {"bindAddress": "0"},
        "certManagement": {"enable": False, "webhookServiceName": TRAINER_SERVICE, "webhookSecretName": TRAINER_SECRET},
        "leaderElection": {"leaderElect": False},
        "statusServer": {"port": TRAINER_STATUS_PORT},
        "featureGates": {"TrainJobStatus": True},
    }


def trainer_status_objects(ca_pem: bytes, node_ip: str) -> list[dict]:
    """What makes Trainer's status server reachable from TrainJob pods on the real node: its CA (Trainer copies it
    into each TrainJob's pods), the controller's ServiceAccount (whose token tells it the issuer), and its Service
    name resolving, through a selector-less headless Service, to the node address where devcluster relays the
    port to the controller's sandbox (cluster.py)."""
    ns = {"namespace": TRAINER_NAMESPACE}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": TRAINER_NAMESPACE}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": TRAINER_SERVICE, **ns}},
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": TRAINER_SECRET, **ns},
            "data": {"ca.crt": base64.b64encode(ca_pem).decode()},
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": TRAINER_SERVICE, **ns},
            "spec": {"clusterIP": "None", "ports": [{"name": "status", "port": TRAINER_STATUS_PORT}]},
        },
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "name": f"{TRAINER_SERVICE}-relay",
                **ns,
                "labels": {"kubernetes.io/service-name": TRAINER_SERVICE},
            },
            "addressType": "IPv4",
            "endpoints": [{"addresses": [node_ip]}],
            "ports": [{"name": "status", "port": TRAINER_STATUS_PORT, "protocol": "TCP"}],
        },
    ]


def jobset_config(ports: dict[str, int], cert_dir: Path) -> dict:
    """JobSet's controller on the host's loopback, as Kueue: the API server must reach its webhooks (the
    defaulting one fills fields the controller dereferences), and it dials nothing but the API server."""
    return {
        "apiVersion": "config.jobset.x-k8s.io/v1alpha1",
        "kind": "Configuration",
        "webhook": {"host": "127.0.0.1", "port": ports["jobset-webhook"], "certDir": str(cert_dir)},
        "health": {"healthProbeBindAddress": f"127.0.0.1:{ports['jobset-health']}"},
        "metrics": {"bindAddress": "0"},
        "internalCertManagement": {"enable": False},
        "leaderElection": {"leaderElect": False},
    }


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


def jobset_webhooks(port: int, ca_pem: bytes) -> list[dict]:
    """JobSet's webhook configurations pointed at https://127.0.0.1:<port>. Its pod hooks get the objectSelector
    that upstream's kustomize patch adds, so that only JobSet pods wait on JobSet."""
    docs = load_all(module_dir("jobset") / "config/components/webhook/manifests.yaml")
    ca = base64.b64encode(ca_pem).decode()
    for doc in docs:
        doc["metadata"]["name"] = "jobset-" + doc["metadata"]["name"]
        for hook in doc["webhooks"]:
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca}
            if any("pods" in r.get("resources", []) for r in hook.get("rules", [])):
                hook["objectSelector"] = {
                    "matchExpressions": [{"key": "jobset.sigs.k8s.io/jobset-name", "operator": "Exists"}]
                }
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
        # HTTPS with Kueue's own authn/authz filter; Prometheus scrapes it with a token allowed /metrics
        "metrics": {"bindAddress": f"127.0.0.1:{ports['kueue-metrics']}", "enableClusterQueueResources": True},
        "webhook": {"host": "127.0.0.1", "port": ports["kueue-webhook"], "certDir": str(run / "kueue-webhook")},
        # Internal cert management would wait for cert-controller, which fails on our URL-based CRD conversion.
        "internalCertManagement": {"enable": False},
        "manageJobsWithoutQueueName": False,
        "visibilityServer": {"bindAddress": "127.0.0.1", "bindPort": ports["kueue-visibility"]},
        "integrations": {"frameworks": KUEUE_FRAMEWORKS},
        # Kueue 0.19: tiered QuotaReserved reasons (WaitingForQuota, NoMatchingFlavor, ...), which the status
        # model reads (jupyter_accel/status); off by default upstream, on in OpenShift AI 3.x.
        "featureGates": {"UnadmittedWorkloadsObservability": True},
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
