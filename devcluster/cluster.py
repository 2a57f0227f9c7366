"""Start, seed, check and stop the dev cluster. Used by the CLI (`python -m devcluster`) and the pytest plugin.

Every process is started by this module in its own process group and recorded (pid + start time) in
<run>/state.json, so `down` in another shell stops exactly those processes and nothing else.

Why one ~660-line module: the start order (control plane, kwok, Kueue, operators, the real node) and the stop order
mirror each other and share the process table, and reading them in one place is what keeps them mirrored; the pieces
with a concern of their own live apart (pki, process, node, egress, manifests, seed, versions, quantity).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import manifests, pki, seed
from . import node as realnode
from .process import Process, Recorded, stop_together
from .quantity import same_amounts
from .rest import ApiError, Rest, insecure_context, tls_context
from .versions import DATA, Built, built, declared, versions

STATE_FILE = "state.json"
DEMO_RUN_DIR = Path.home() / ".local/state/jupyter-accel/devcluster"
# Host listeners (all on 127.0.0.1). --fixed-ports uses these; otherwise free ports are chosen at start.
FIXED_PORTS = {
    "etcd": 2379,
    "etcd-peer": 2380,
    "apiserver": 6443,
    "kube-controller-manager": 10257,
    "kube-scheduler": 10259,
    "kwok": 10247,
    "kueue-webhook": 19443,
    "kueue-health": 18081,
    "kueue-visibility": 18082,
    "jobset-webhook": 19444,
    "jobset-health": 18083,
    "kueue-metrics": 18084,
    "prometheus": 19090,
    "device-exporter": 19400,
}
# Listeners inside each operator's own network namespace (only `lo` exists there, so no collisions).
SANDBOX_PORTS = {"metrics": 8080, "health": 8081, "webhook": 9443}
OPERATORS = ("kuberay", "training-operator", "trainer-controller")
# Stop order, in stages stopped together: operators and kwok first (while the apiserver still answers),
# then the controllers, the apiserver, and the datastore last.
STOP_STAGES = (
    (
        "prometheus",
        "device-exporter",
        "trainer-status-relay",
        "trainer-controller",
        "jobset",
        "training-operator",
        "kuberay",
        "kueue",
        "apiserver-bridge",
        "kwok",
        "device-plugin",
        "kubelet",
        "coredns",
        "containerd",
        "node",
        "egress-relay",
    ),
    ("kube-scheduler", "kube-controller-manager"),
    ("kube-apiserver",),
    ("etcd",),
)
# Hard-coded certificate directories of upstream binaries (see pki.ensure_self_signed): Kueue's metrics and
# visibility certs, and the training operator's webhook certs, which in a pod a Secret volume would provide.
HOST_CERT_DIRS = {
    "kueue": {Path("/etc/kueue/metrics/certs"): "kueue-metrics", Path("/visibility"): "kueue-visibility"},
    "training-operator": {Path("/tmp/k8s-webhook-server/serving-certs"): "training-operator.kubeflow.svc"},
}


def free_ports(names: list[str]) -> dict[str, int]:
    """Distinct free loopback ports (all sockets held open until every port is chosen)."""
    socks = []
    try:
        for _ in names:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return {n: s.getsockname()[1] for n, s in zip(names, socks, strict=True)}
    finally:
        for s in socks:
            s.close()


def http_ok(url: str, ctx=None, timeout: float = 2) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=ctx) as resp:
            return resp.status == 200
    except OSError:
        return False


class StartError(RuntimeError):
    pass


class Cluster:
    """One dev cluster: a run directory with PKI, logs, etcd data and state.json, plus its processes."""

    def __init__(self, run_dir: Path | str | None = None, *, fixed_ports: bool = False) -> None:
        self.run = Path(run_dir) if run_dir else Path(tempfile.mkdtemp(prefix="ja-devcluster."))
        self.fixed_ports = fixed_ports
        self.ports: dict[str, int] = {}
        self.procs: dict[str, Process] = {}
        self.recorded: dict[str, Recorded] = {}
        self.components: dict[str, dict] = {}
        self.timings: dict[str, float] = {}
        self.started_at = 0.0
        self._admin: Rest | None = None
        self.node: realnode.RealNode | None = None
        self._owned = False  # True when this object started the processes (and must stop them)

    # ---- paths and clients ---------------------------------------------------------------------------

    @property
    def pki_dir(self) -> Path:
        return self.run / "pki"

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.ports['apiserver']}"

    def kubeconfig(self, identity: str = "notebook-user", token: bool = False) -> Path:
        """Path of the kubeconfig of an identity in pki.IDENTITIES (token=True: bearer-token variant)."""
        if identity not in pki.IDENTITIES:
            raise ValueError(f"identity {identity!r} unknown; allowed: {sorted(pki.IDENTITIES)}")
        if token and identity not in pki.TOKEN_USERS:
            raise ValueError(f"identity {identity!r} has no token; allowed: {list(pki.TOKEN_USERS)}")
        return self.pki_dir / f"{identity}{'-token' if token else ''}.kubeconfig"

    @property
    def live_log(self) -> Path:
        """The log file of the team-a pod `<manifests.LIVE_LOG_JOB>-master-0` (container pytorch), followed by
        kwok: append CRI-format lines (`<RFC3339Nano> stdout F <text>`) and a followed log stream shows them."""
        return self.run / manifests.LIVE_LOG_FILE

    @property
    def audit_log(self) -> Path:
        """The API server's audit log (JSON lines) at Metadata level: every watch, so a test can tell which account
        opened which watch (the open-watch gauge counts every account together), and every get and list of a
        resource (not leases, which every controller renews), so a benchmark can tell which client read what (the
        request counter has no client label; the user agent names the product)."""
        return self.run / "audit.log"

    def audit_events(self) -> Iterator[dict[str, Any]]:
        """The audit log's events, oldest first, the rotated file's before the current one's."""
        for path in [*sorted(self.run.glob("audit-*.log")), self.audit_log]:
            if path.exists():
                with path.open() as lines:
                    for line in lines:
                        if line.strip():
                            yield json.loads(line)

    def _audit_policy(self) -> Path:
        path = self.run / "audit-policy.json"
        rules = [
            {"level": "None", "nonResourceURLs": ["*"]},
            {"level": "None", "resources": [{"group": "coordination.k8s.io", "resources": ["leases"]}]},
            {"level": "Metadata", "verbs": ["watch", "get", "list"]},
            {"level": "None"},
        ]
        policy = {"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "omitStages": ["RequestReceived"], "rules": rules}
        path.write_text(json.dumps(policy))
        return path

    def api_client(self, identity: str = "notebook-user"):
        """A `kubernetes.client.ApiClient` authenticated as `identity`."""
        from kubernetes import config as kconfig  # only the tests and CLI users need the client library

        return kconfig.new_client_from_config(str(self.kubeconfig(identity)))

    def rest(self, identity: str = "admin") -> Rest:
        ctx = tls_context(self.pki_dir / "ca.crt", self.pki_dir / f"{identity}.crt", self.pki_dir / f"{identity}.key")
        return Rest(self.server, ctx)

    @property
    def admin(self) -> Rest:
        if self._admin is None:
            self._admin = self.rest("admin")
        return self._admin

    def node_image(self) -> str | None:
        """The real node's runtime image (every job kind's default image on that node), if the node runs.
        Kept in the state file: a test's environment (HOME, XDG_CACHE_HOME) may not see the build cache."""
        node = self.components.get("node-image", {})
        return node.get("image") if node.get("state") == "running" else None

    def pids(self) -> dict[str, int]:
        return {name: rec.pid for name, rec in self.recorded.items() if rec.alive()}

    def all_pids(self) -> list[int]:
        """Every process of the cluster: the recorded group leaders and all members of their groups."""
        groups = set(self.pids().values())
        out = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if os.getpgid(int(entry)) in groups:
                        out.append(int(entry))
                except OSError:
                    pass
        return sorted(out)

    def rss_bytes(self) -> int:
        total = 0
        for pid in self.all_pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            except OSError:
                pass
        return total

    # ---- state file ----------------------------------------------------------------------------------

    def _write_state(self, phase: str) -> None:
        state = {
            "phase": phase,
            "run_dir": str(self.run),
            "started_at": self.started_at,
            "ports": self.ports,
            "processes": {n: {"pid": r.pid, "ticks": r.ticks} for n, r in self.recorded.items()},
            "components": self.components,
            "timings": self.timings,
            "owner_pid": os.getpid(),
            "kubeconfigs": {n: str(self.kubeconfig(n)) for n in pki.IDENTITIES},
        }
        tmp = self.run / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps(state, indent=1))
        tmp.replace(self.run / STATE_FILE)

    @classmethod
    def attach(cls, run_dir: Path | str) -> Cluster:
        """A handle on a cluster started elsewhere (another shell or process), from its state file."""
        run = Path(run_dir)
        path = run / STATE_FILE
        if not path.is_file():
            raise FileNotFoundError(f"no dev cluster state at {path}")
        state = json.loads(path.read_text())
        self = cls(run)
        self.ports = state["ports"]
        self.components = state.get("components", {})
        self.timings = state.get("timings", {})
        self.started_at = state.get("started_at", 0.0)
        self.phase = state.get("phase")
        self.recorded = {n: Recorded(n, p["pid"], p["ticks"]) for n, p in state.get("processes", {}).items()}
        return self

    def is_healthy(self) -> bool:
        """All recorded processes alive and the API server ready."""
        if not self.recorded or not all(r.alive() for r in self.recorded.values()):
            return False
        try:
            return self.admin.get("/readyz?verbose=false") is not None
        except (OSError, ApiError):
            return False

    # ---- start ---------------------------------------------------------------------------------------

    def start(self, *, timeout: float = 120) -> None:
        """Start every declared component, seed the data files and wait until each part is ready."""
        t0 = self.started_at = time.time()
        self.run.mkdir(parents=True, exist_ok=True)
        (self.run / "logs").mkdir(exist_ok=True)
        self._owned = True
        try:
            self._start(timeout)
        except BaseException:
            self._write_state("failed")
            self.stop(remove=False)
            raise
        self.timings["total"] = round(time.time() - t0, 1)
        self._write_state("running")

    def _mark(self, what: str, t0: float) -> None:
        self.timings[what] = round(time.time() - t0, 1)

    def _preflight(self) -> dict[str, Built]:
        decl = declared()
        found: dict[str, Built] = {}
        problems = []
        for name, d in decl.items():
            b = built(name)
            ver = b.version
            if not d.present:
                self.components[name] = {"state": "absent", "version": ver, "detail": d.reason}
                continue
            if b.bin_dir is None:
                problems.append(f"{name}: declared present in components.toml but {b.error}")
                self.components[name] = {"state": "failed", "version": ver, "detail": b.error}
                continue
            found[name] = b
            self.components[name] = {"state": "starting", "version": ver, "detail": ""}
        parts = [n for n in realnode.NODE_PARTS if n in found]
        if parts and len(parts) < len(realnode.NODE_PARTS):
            missing = sorted(set(realnode.NODE_PARTS) - set(parts))
            problems.append(f"the real node needs all of {list(realnode.NODE_PARTS)}; not available: {missing}")
        for core in ("etcd", "kube-apiserver"):
            if core not in found:
                problems.append(f"{core} is required for any cluster")
        for name, dirs in HOST_CERT_DIRS.items():
            if name in found:
                for directory, cn in dirs.items():
                    pki.ensure_self_signed(directory, cn)
        if any(op in found for op in OPERATORS) and not shutil.which("socat"):
            problems.append("socat is needed for the operators' loopback sandbox (apt-get install socat)")
        if problems:
            raise StartError("dev cluster cannot start:\n  " + "\n  ".join(problems))
        return found

    def _spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> Process:
        proc = Process(name, argv, self.run / "logs", env)
        self.recorded[name] = proc.start()
        self.procs[name] = proc
        self._write_state("starting")
        return proc

    def restart(self, name: str, *, down_for: float = 2.0, timeout: float = 60) -> None:
        """Stop one component, keep it down for `down_for` seconds, start it again with the same command line and
        wait until the API server is ready (tests of watch recovery). Only a Cluster that started the processes
        knows their command lines."""
        proc = self.procs.get(name)
        if proc is None:
            raise RuntimeError(
                f"{name}: this Cluster object did not start it (attached to {self.run}); "
                "restart needs the owning process"
            )
        stop_together([self.recorded[name]])
        time.sleep(down_for)
        self.recorded[name] = proc.start()
        self._write_state("running")
        self._wait(f"{name} back", lambda: self.admin.get("/readyz"), (name,), timeout)

    def _wait(self, what: str, check, procs: tuple[str, ...], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name in procs:
                self.procs[name].check_alive()
            try:
                if check():
                    return
            except (OSError, ApiError):
                pass
            time.sleep(0.2)
        tails = "\n".join(f"--- {n}:\n{self.procs[n].tail()}" for n in procs)
        raise StartError(f"timed out after {timeout:.0f}s waiting for {what}\n{tails}")

    def _start(self, timeout: float) -> None:
        t0 = time.time()
        found = self._preflight()
        self.ports = dict(FIXED_PORTS) if self.fixed_ports else free_ports(list(FIXED_PORTS))
        pki.generate(self.pki_dir, self.server)
        self._mark("pki", t0)
        p = self.pki_dir
        run = self.run
        real = None
        if all(n in found for n in realnode.NODE_PARTS):
            real = realnode.RealNode(self, {n: found[n] for n in realnode.NODE_PARTS})
            real.start_egress()  # the API server dials kubelets, pods and Services only through it

        # 1. etcd (data on disk; --unsafe-no-fsync makes that fast enough and avoids small tmpfs limits)
        self._spawn("etcd", [
            str(found["etcd"].binary("etcd")), "--name=devcluster", f"--data-dir={run / 'etcd'}",
            f"--listen-client-urls=http://127.0.0.1:{self.ports['etcd']}",
            f"--advertise-client-urls=http://127.0.0.1:{self.ports['etcd']}",
            f"--listen-peer-urls=http://127.0.0.1:{self.ports['etcd-peer']}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{self.ports['etcd-peer']}",
            f"--initial-cluster=devcluster=http://127.0.0.1:{self.ports['etcd-peer']}",
            "--listen-metrics-urls=", "--unsafe-no-fsync=true", "--log-level=warn",
        ])  # fmt: skip

        # 2. kube-apiserver, with the aggregation layer configured (front-proxy CA) for Kueue's visibility API
        self._spawn("kube-apiserver", [
            str(found["kube-apiserver"].binary("kube-apiserver")),
            f"--etcd-servers=http://127.0.0.1:{self.ports['etcd']}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={self.ports['apiserver']}",
            f"--tls-cert-file={p / 'apiserver.crt'}", f"--tls-private-key-file={p / 'apiserver.key'}",
            f"--client-ca-file={p / 'ca.crt'}", f"--token-auth-file={p / 'tokens.csv'}",
            "--authorization-mode=Node,RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={p / 'sa.pub'}", f"--service-account-signing-key-file={p / 'sa.key'}",
            "--service-cluster-ip-range=10.0.0.0/24", "--allow-privileged=true",
            "--disable-admission-plugins=ServiceAccount",
            "--kubelet-preferred-address-types=InternalIP,Hostname",
            f"--kubelet-client-certificate={p / 'kubelet-client.crt'}",
            f"--kubelet-client-key={p / 'kubelet-client.key'}",
            f"--requestheader-client-ca-file={p / 'front-proxy-ca.crt'}",
            "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            f"--proxy-client-cert-file={p / 'front-proxy-client.crt'}",
            f"--proxy-client-key-file={p / 'front-proxy-client.key'}",
            # 1.37 refuses a loopback advertise address for the `kubernetes` Service endpoints; nothing in
            # this cluster dials that Service, so the reconciler is off.
            "--endpoint-reconciler-type=none",
            "--enable-priority-and-fairness=false", "--profiling=false", "--v=1",
            # ConfigMaps bypass the watch cache, so a watch from a compacted resourceVersion gets etcd's 410 Gone,
            # as a real cluster answers once its watch cache has moved past one (tests/integration/test_relist.py)
            "--watch-cache-sizes=configmaps#0",
            f"--audit-policy-file={self._audit_policy()}", f"--audit-log-path={self.audit_log}",
            "--audit-log-maxsize=64", "--audit-log-maxbackup=1",
            *([f"--egress-selector-config-file={real.egress_config()}"] if real else []),
        ])  # fmt: skip
        self._wait(
            "etcd /health",
            lambda: http_ok(f"http://127.0.0.1:{self.ports['etcd']}/health"),
            ("etcd",),
            timeout,
        )
        self._mark("etcd", t0)
        self._wait("kube-apiserver /readyz", lambda: self.admin.get("/readyz"), ("etcd", "kube-apiserver"), timeout)
        self._mark("kube-apiserver", t0)

        # 3. kube-controller-manager and kube-scheduler (readiness checked later, they start in parallel)
        self._start_controlplane(found)

        # 4. namespaces, RBAC, CRDs (Kueue conversion webhooks only when Kueue runs)
        for obj in manifests.data("namespaces.yaml") + manifests.data("rbac.yaml"):
            self.admin.apply(obj)
        self._mark("base-objects", t0)
        ca_pem = (p / "ca.crt").read_bytes()
        crds = manifests.kueue_crds(self.ports["kueue-webhook"] if "kueue" in found else None, ca_pem)
        crds += manifests.ray_crds() + manifests.training_crds() + manifests.trainer_crds() + manifests.jobset_crds()
        crds += manifests.project_crds()
        self._mark("crds-read", t0)
        for crd in crds:
            self.admin.apply(crd)
        self._mark("crds-applied", t0)

        # 5. kwok, then the fake nodes
        if "kwok" in found:
            self._start_kwok(found["kwok"])
            for node in manifests.data("nodes.yaml"):
                self.admin.apply(node)
                self.admin.apply_status(node)
            self._mark("nodes-applied", t0)

        def established() -> bool:
            for crd in crds:
                got = self.admin.get(
                    f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd['metadata']['name']}"
                )
                conds = {c["type"]: c["status"] for c in got.get("status", {}).get("conditions", [])}
                if conds.get("Established") != "True":
                    return False
            return True

        self._wait("CRDs Established", established, ("kube-apiserver",), timeout)
        self._mark("crds", t0)
        for obj in manifests.data("hardware-profiles.yaml") + manifests.data("workbench.yaml"):
            self.admin.apply(obj)
        for obj in manifests.trainer_runtimes(real.image if real else None):
            self.admin.apply(obj)

        # 6.-8. Kueue (needs every integration CRD first) and the operators in their sandboxes
        if "kueue" in found:
            self._start_kueue(found["kueue"])
        if any(op in found for op in OPERATORS) or real:
            sock = run / "apiserver.sock"
            self._spawn("apiserver-bridge", [
                "socat", f"UNIX-LISTEN:{sock},fork,mode=600", f"TCP:127.0.0.1:{self.ports['apiserver']}",
            ])  # fmt: skip
            self._wait("apiserver bridge socket", sock.exists, ("apiserver-bridge",), 10)
        if "kuberay" in found:
            self._start_sandboxed("kuberay", [
                str(found["kuberay"].binary("ray-operator")), f"--kubeconfig={p / 'kuberay.kubeconfig'}",
                "--enable-leader-election=false",
                f"--metrics-addr=127.0.0.1:{SANDBOX_PORTS['metrics']}",
                f"--health-probe-bind-address=127.0.0.1:{SANDBOX_PORTS['health']}",
                "--watch-namespace=team-a,team-b",
                # Ray dashboards (RayJob status) through the API server's service proxy: pods are reachable
                # only through its egress relay, never from the operator's sandbox directly.
                *(["--use-kubernetes-proxy"] if real else []),
            ], {})  # fmt: skip
        if "training-operator" in found:
            self._start_sandboxed("training-operator", [
                str(found["training-operator"].binary("training-operator.v1")),
                f"--kubeconfig={p / 'training-operator.kubeconfig'}", "--enable-scheme=pytorchjob",
                "--leader-elect=false",
                f"--metrics-bind-address=127.0.0.1:{SANDBOX_PORTS['metrics']}",
                f"--health-probe-bind-address=127.0.0.1:{SANDBOX_PORTS['health']}",
                f"--webhook-server-port={SANDBOX_PORTS['webhook']}",
                # workers wait for the master's DNS name in an init container: in the node's own image there
                *([f"--pytorch-init-container-image={real.image}"] if real else []),
            ], {"MY_POD_NAMESPACE": "kubeflow"})  # fmt: skip

        if "jobset" in found:
            self._start_jobset(found["jobset"], ca_pem)
        if "trainer-controller" in found:
            self._start_trainer(found["trainer-controller"], ca_pem, real is not None)

        if real:
            real.start(timeout)
            self.node = real
            if "trainer-controller" in found:
                real.relay("trainer-status-relay", pki.NODE_IP, manifests.TRAINER_STATUS_PORT,
                           self.run / "trainer-status.sock")  # fmt: skip
            # the API server for pods that use it in-cluster (the real workbench, devcluster/workbench.py): the
            # node address, on the host's UNIX-socket bridge; its serving certificate names that address
            real.relay("apiserver-pod-relay", pki.NODE_IP, pki.POD_API_PORT, self.run / "apiserver.sock")
            self._mark("node-started", t0)

        # readiness, in start order (they have all been coming up concurrently)
        for name in ("kube-controller-manager", "kube-scheduler"):
            if name in found:
                url = f"https://127.0.0.1:{self.ports[name]}/healthz"
                self._wait(f"{name} /healthz", lambda u=url: http_ok(u, insecure_context()), (name,), timeout)
                self._ready(name, t0)
        if "kwok" in found:
            self._wait("fake nodes Ready with their allocatable", self._nodes_ready, ("kwok",), timeout)
            self._ready("kwok", t0)
        if "kueue" in found:
            self._seed_kueue(timeout, t0)
        if "jobset" in found:
            health = f"http://127.0.0.1:{self.ports['jobset-health']}/readyz"
            self._wait("jobset /readyz", lambda: http_ok(health), ("jobset",), timeout)
            self._ready("jobset", t0)
        for op in OPERATORS:
            if op in found:
                self._wait(f"{op} /readyz (in its sandbox)", lambda o=op: self._sandbox_ready(o), (op,), timeout)
                self._ready(op, t0)
        if real:
            real.wait_ready(timeout)
            if "kueue" in found:
                seed.seed_real_node_queues(self.admin, self._wait, timeout)
            seed.seed_real_node_storage(self.admin, self.run, self._wait, timeout)
            self.components["node-image"]["image"] = real.image
            for n in realnode.NODE_PARTS:
                self._ready(n, t0)
            if "workbench-image" in found:  # built; a workbench runs when asked (`python -m devcluster workbench`)
                self._ready("workbench-image", t0)
        if "prometheus" in found:
            self._start_prometheus(found["prometheus"], real, timeout)
            self._ready("prometheus", t0)
        for name in ("etcd", "kube-apiserver"):
            self.components[name]["state"] = "running"
        self._write_state("running")

    def _ready(self, name: str, t0: float) -> None:
        self.components[name]["state"] = "running"
        self._mark(name, t0)
        self._write_state("starting")

    def _start_controlplane(self, found: dict[str, Built]) -> None:
        p = self.pki_dir
        for name, extra in (
            ("kube-controller-manager", [
                f"--root-ca-file={p / 'ca.crt'}", f"--service-account-private-key-file={p / 'sa.key'}",
                "--use-service-account-credentials=false", "--kube-api-qps=100", "--kube-api-burst=200",
            ]),
            ("kube-scheduler", []),
        ):  # fmt: skip
            if name not in found:
                continue
            kc = p / f"{name}.kubeconfig"
            self._spawn(name, [
                str(found[name].binary(name)), f"--kubeconfig={kc}",
                f"--authentication-kubeconfig={kc}", f"--authorization-kubeconfig={kc}",
                "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
                "--bind-address=127.0.0.1", f"--secure-port={self.ports[name]}", "--leader-elect=false",
                f"--cert-dir={self.run / name}", "--v=1", *extra,
            ])  # fmt: skip

    def _start_kwok(self, b: Built) -> None:
        p, port = self.pki_dir, self.ports["kwok"]
        configs = [f"--config={c}" for c in manifests.kwok_configs(self.run)]
        self._spawn("kwok", [
            str(b.binary("kwok")), f"--kubeconfig={p / 'kwok.kubeconfig'}", *configs,
            "--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
            # Node and pod IPs are loopback, so anything that ever dialled one would stay on this machine.
            "--node-name=localhost", "--node-ip=127.0.0.1", "--cidr=127.20.0.0/16",
            f"--node-port={port}", f"--server-address=127.0.0.1:{port}",
            f"--tls-cert-file={p / 'kwok.crt'}", f"--tls-private-key-file={p / 'kwok.key'}",
            "--node-lease-duration-seconds=40",
        ], {"KWOK_WORKDIR": str(self.run / "kwok-home")})  # fmt: skip

    def _nodes_ready(self) -> bool:
        want = {n["metadata"]["name"]: n["status"]["allocatable"] for n in manifests.data("nodes.yaml")}
        items = {n["metadata"]["name"]: n for n in self.admin.get("/api/v1/nodes")["items"]}
        for name, alloc in want.items():
            node = items.get(name)
            if node is None:
                return False
            conds = {c["type"]: c["status"] for c in node.get("status", {}).get("conditions", [])}
            got = node["status"].get("allocatable", {})
            # compare as quantities: the apiserver canonicalises (1024Gi comes back as 1Ti)
            if conds.get("Ready") != "True" or not same_amounts(got, alloc):
                return False
        return True

    def _start_kueue(self, b: Built) -> None:
        certs = self.run / "kueue-webhook"
        certs.mkdir(exist_ok=True)
        shutil.copy(self.pki_dir / "kueue-webhook.crt", certs / "tls.crt")
        shutil.copy(self.pki_dir / "kueue-webhook.key", certs / "tls.key")
        cfg = self.run / "kueue.yaml"
        cfg.write_text(json.dumps(manifests.kueue_config(self.run, self.ports), indent=1))
        self._spawn("kueue", [
            str(b.binary("kueue")), f"--kubeconfig={self.pki_dir / 'kueue.kubeconfig'}", f"--config={cfg}",
            "--zap-log-level=2",
        ])  # fmt: skip

    def _start_jobset(self, b: Built, ca_pem: bytes) -> None:
        certs = self.run / "jobset-webhook"
        certs.mkdir(exist_ok=True)
        shutil.copy(self.pki_dir / "jobset-webhook.crt", certs / "tls.crt")
        shutil.copy(self.pki_dir / "jobset-webhook.key", certs / "tls.key")
        for obj in manifests.jobset_webhooks(self.ports["jobset-webhook"], ca_pem):
            self.admin.apply(obj)
        cfg = self.run / "jobset.yaml"
        cfg.write_text(json.dumps(manifests.jobset_config(self.ports, certs), indent=1))
        self._spawn("jobset", [
            str(b.binary("jobset")), f"--kubeconfig={self.pki_dir / 'jobset.kubeconfig'}", f"--config={cfg}",
            "--zap-log-level=2",
        ])  # fmt: skip

    def _start_prometheus(self, b: Built, real: realnode.RealNode | None, timeout: float) -> None:
        """A real Prometheus on loopback: it scrapes Kueue's metrics (HTTPS, with a token allowed /metrics) and, with
        the real node, the node's device exporter (DCGM's names; the devices are not GPUs and every series says so)."""
        jobs: list[dict] = [{
            "job_name": "kueue", "scheme": "https",
            "authorization": {"credentials_file": str(self.pki_dir / "prometheus.token")},
            "tls_config": {"insecure_skip_verify": True},  # Kueue's self-signed metrics pair, on loopback
            "static_configs": [{"targets": [f"127.0.0.1:{self.ports['kueue-metrics']}"]}],
        }]  # fmt: skip
        if real:
            self._spawn("device-exporter", [
                sys.executable, "-m", "devcluster.device_exporter", f"--port={self.ports['device-exporter']}",
                f"--node-dir={real.dir}", f"--cgroup-root={real.cgroup}", f"--node={pki.NODE_NAME}",
                f"--server={self.server}", f"--pki={self.pki_dir}", f"--resource={realnode.DEVICE_RESOURCE}",
            ], {"PYTHONPATH": str(DATA.parent.parent)})  # fmt: skip
            # honor_labels: the exporter's pod / namespace / container name the workload, as dcgm-exporter's do
            jobs.append({"job_name": "dcgm-exporter", "honor_labels": True,
                         "static_configs": [{"targets": [f"127.0.0.1:{self.ports['device-exporter']}"]}]})  # fmt: skip
        config = self.run / "prometheus.yml"
        config.write_text(json.dumps({"global": {"scrape_interval": "5s", "scrape_timeout": "4s"},
                                      "scrape_configs": jobs}, indent=1))  # fmt: skip
        self._spawn("prometheus", [
            str(b.binary("prometheus")), f"--config.file={config}", f"--storage.tsdb.path={self.run / 'prometheus'}",
            f"--web.listen-address=127.0.0.1:{self.ports['prometheus']}", "--storage.tsdb.retention.time=1d",
            "--log.level=warn",
        ])  # fmt: skip
        self._wait("prometheus /-/ready", lambda: http_ok(f"{self.metrics_url}/-/ready"), ("prometheus",), timeout)

    @property
    def metrics_url(self) -> str:
        """The Prometheus HTTP API of this cluster (the product's `metrics_url`)."""
        return f"http://127.0.0.1:{self.ports['prometheus']}"

    def _seed_kueue(self, timeout: float, t0: float) -> None:
        health = f"http://127.0.0.1:{self.ports['kueue-health']}/readyz"
        self._wait("kueue /readyz", lambda: http_ok(health), ("kueue",), timeout)
        seed.seed_kueue(self.admin, self.ports, self.pki_dir / "ca.crt", self._wait, timeout)
        self._ready("kueue", t0)

    def _start_trainer(self, b: Built, ca_pem: bytes, real: bool) -> None:
        """Trainer's controller in its sandbox, as its Deployment would run: its serving pair, ServiceAccount token
        and namespace where it reads them (paths it hard-codes, so bound in a mount namespace of its own), and the
        API server also under the issuer's name, which its status server asks for the token keys. With the real
        node, its status server's port is relayed out through a UNIX socket (RealNode.relay takes it on)."""
        certs, sa = self.run / "trainer-certs", self.run / "trainer-sa"
        certs.mkdir(exist_ok=True)
        sa.mkdir(exist_ok=True)
        shutil.copy(self.pki_dir / "trainer-serving.crt", certs / "tls.crt")
        shutil.copy(self.pki_dir / "trainer-serving.key", certs / "tls.key")
        # its status server reads the token at start, real node or not (without one no pod can dial it)
        for obj in manifests.trainer_status_objects(ca_pem, pki.NODE_IP):
            self.admin.apply(obj)
        path = self.admin.path("v1", "ServiceAccount", manifests.TRAINER_NAMESPACE, manifests.TRAINER_SERVICE)
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                "spec": {"expirationSeconds": 7 * 86400}}  # fmt: skip
        token = self.admin.request("POST", f"{path}/token", body)["status"]["token"]
        pki.write(sa / "token", token.encode())
        pki.write(sa / "namespace", manifests.TRAINER_NAMESPACE.encode(), 0o644)
        hosts = self.run / "trainer-hosts"
        hosts.write_text("127.0.0.1 localhost kubernetes.default.svc.cluster.local kubernetes.default.svc\n")
        conf = self.run / "trainer.yaml"
        conf.write_text(json.dumps(manifests.trainer_config(SANDBOX_PORTS), indent=1))
        self._start_sandboxed(
            "trainer-controller",
            [str(b.binary("trainer-controller-manager")), f"--kubeconfig={self.pki_dir / 'trainer-controller.kubeconfig'}",
             f"--config={conf}", "--zap-log-level=2"],
            {},
            mounts={certs: "/tmp/k8s-webhook-server/serving-certs",
                    sa: "/var/run/secrets/kubernetes.io/serviceaccount", hosts: "/etc/hosts"},
            relays={443: None, manifests.TRAINER_STATUS_PORT: self.run / "trainer-status.sock"} if real else {443: None},
        )  # fmt: skip

    def _start_sandboxed(
        self,
        name: str,
        argv: list[str],
        env: dict[str, str],
        *,
        mounts: dict[Path, str] | None = None,
        relays: dict[int, Path | None] | None = None,
    ) -> None:
        """Run an operator in a network namespace of its own that has only `lo`: whatever it listens on or
        dials stays inside. A socat inside relays its API-server port to the host bridge's UNIX socket.
        `mounts` binds run-dir paths over the paths a binary hard-codes, in a mount namespace of its own;
        `relays` maps a port to the API server too (None), or a UNIX socket (a path) to the operator's own port."""
        port, sock = self.ports["apiserver"], self.run / "apiserver.sock"
        steps = ["ip link set lo up || exit 1"]
        for src, target in (mounts or {}).items():
            make = f"mkdir -p {shlex.quote(target)}" if src.is_dir() else f"test -e {shlex.quote(target)}"
            steps.append(f"{make} && mount --bind {shlex.quote(str(src))} {shlex.quote(target)} || exit 1")
        listening = [port]
        steps.append(f"socat TCP-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:{sock} &")
        for p, path in (relays or {}).items():
            if path is None:
                listening.append(p)
                steps.append(f"socat TCP-LISTEN:{p},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:{sock} &")
            else:
                steps.append(
                    f"socat UNIX-LISTEN:{shlex.quote(str(path))},fork,mode=600,unlink-early TCP:127.0.0.1:{p} &"
                )
        # the operator starts once its relays to the API server listen: Trainer's controller dials the API server
        # at start and exits on "connection refused" (a race with the socats above, seen in CI)
        for p in listening:
            steps.append(
                f"n=0; until ss -Hltn 'sport = :{p}' | grep -q .; do n=$((n+1)); [ $n -le 200 ] || exit 1; "
                "sleep 0.05; done"
            )
        script = " ".join(s if s.endswith("&") else s + ";" for s in steps) + ' exec "$@"'
        ns = ["--net", "--mount"] if mounts else ["--net"]
        self._spawn(name, ["unshare", *ns, "--fork", "--kill-child", "--", "sh", "-c", script, name, *argv], env)

    def node_exec(self, argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
        """Run a command inside the real node's namespaces (tests, debugging)."""
        if "node" not in self.recorded or not self.recorded["node"].alive():
            raise RuntimeError("the real node is not running in this dev cluster")
        return realnode.node_exec(realnode.pid1_of(self.recorded["node"].pid), argv, timeout)

    def sandbox_exec(self, name: str, argv: list[str], timeout: float = 10) -> subprocess.CompletedProcess:
        """Run a command inside an operator's network namespace (readiness probes, tests)."""
        return subprocess.run(
            ["nsenter", f"--target={self.recorded[name].pid}", "--net", "--", *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def _sandbox_ready(self, name: str) -> bool:
        url = f"http://127.0.0.1:{SANDBOX_PORTS['health']}/readyz"
        code = f"import urllib.request as u; u.urlopen({url!r}, timeout=2)"
        return self.sandbox_exec(name, [sys.executable, "-c", code]).returncode == 0

    # ---- stop ----------------------------------------------------------------------------------------

    def stop(self, *, remove: bool | None = None) -> None:
        """Delete Kueue's webhook configurations (so nothing stays blocked), then stop every process group in
        STOP_ORDER. The run directory is removed unless `remove` is False or JA_DEVCLUSTER_KEEP=1."""
        alive = {n for n, r in self.recorded.items() if r.alive()}
        if {"kube-apiserver", "etcd"} <= alive and (self.pki_dir / "admin.crt").exists():
            for name in manifests.KUEUE_WEBHOOK_CONFIGS:
                kind = "MutatingWebhookConfiguration" if "mutating" in name else "ValidatingWebhookConfiguration"
                with contextlib.suppress(OSError, ApiError):
                    self.admin.delete("admissionregistration.k8s.io/v1", kind, name)
        forward = self.run / "workbench-port-forward.pid"  # the real workbench's port-forward (cli workbench)
        if forward.is_file():
            with contextlib.suppress(OSError, ValueError):
                os.killpg(int(forward.read_text()), signal.SIGTERM)
        staged = {n for stage in STOP_STAGES for n in stage}
        stages = [[n for n in self.recorded if n not in staged], *STOP_STAGES]
        for stage in stages:
            stop_together([self.recorded[n] for n in stage if n in self.recorded], grace=10)
        if "node" in self.recorded:
            realnode.remove_cgroups(self.run)
        if (self.run / STATE_FILE).exists():
            self._write_state("stopped")
        if remove is None:
            remove = os.environ.get("JA_DEVCLUSTER_KEEP") != "1"
        if remove:
            shutil.rmtree(self.run, ignore_errors=True)

    def stop_on_exit(self) -> None:
        """Stop on interpreter exit and on SIGTERM/SIGHUP (e.g. an interrupted test run)."""
        atexit.register(self._stop_once)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            previous = signal.getsignal(sig)

            def handler(signum, frame, previous=previous):
                self._stop_once()
                if callable(previous):
                    previous(signum, frame)
                else:
                    raise SystemExit(128 + signum)

            signal.signal(sig, handler)

    def _stop_once(self) -> None:
        if self._owned:
            self._owned = False
            self.stop()

    def start_reaper(self) -> None:
        """A detached watchdog that stops this cluster if the owning process dies without cleaning up
        (SIGKILL, a crashed pytest). It exits by itself once the cluster is stopped."""
        subprocess.Popen(
            [sys.executable, "-m", "devcluster", "_reap", str(os.getpid()), str(self.run)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(self.run / "logs" / "reaper.log", "ab"),  # noqa: SIM115 - handed to the child
            start_new_session=True,
            cwd=str(DATA.parent.parent),
        )

    # ---- reporting -----------------------------------------------------------------------------------

    def describe(self) -> list[str]:
        v = versions()
        lines = [
            f"devcluster: run dir {self.run}  apiserver {self.server if self.ports else '-'}  k8s v{v['K8S_VERSION']}"
        ]
        parts = []
        for name, c in self.components.items():
            word = {"running": "real", "absent": "ABSENT", "failed": "FAILED"}.get(c["state"], c["state"])
            extra = " (netns sandbox)" if name in OPERATORS and c["state"] == "running" else ""
            parts.append(f"{name}=v{c['version']} {word}{extra}")
        lines.append("devcluster: " + "  ".join(parts))
        for name, c in self.components.items():
            if c["state"] in ("absent", "failed"):
                lines.append(f"devcluster:   {name} {c['state']}: {c['detail']}")
        return lines
