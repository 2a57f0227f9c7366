"""The real node: a kubelet with containerd + runc, CNI bridge networking, cluster DNS and a device plugin.

Everything of the node lives in namespaces devcluster creates and owns (devcluster/node_init.py is their PID 1):
- network: `lo` and a port-less bridge `node0` with the node's private address; pods get private addresses on the CNI bridge
  `cni0`. There is no route out of it. The host reaches in only through the explicit relays (the API server's
  egress relay, devcluster/egress.py); the node reaches the host only through the API server's UNIX-socket bridge.
- mount: a private /var/lib/kubelet (the device-plugin socket path is hard-coded there), /var/log/containers and
  /etc/resolv.conf (cluster DNS), so several dev clusters can each run a node.
- pid: stopping PID 1 ends every process of the node, containerd's shims and the containers included.

Pods run the image devcluster builds (node-image.sh), imported into containerd with `ctr images import`.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from . import pki
from .oci_archive import write_archive
from .versions import DATA, NODE_PARTS, Built

if TYPE_CHECKING:
    from .cluster import Cluster

__all__ = ["NODE_PARTS", "RealNode", "cgroup_root", "remove_cgroups", "runtime_image_ref"]
POD_CIDR = "10.88.0.0/16"
NODE_NET = "10.89.0.0/24"
CLUSTER_DOMAIN = "cluster.local"
DEVICE_RESOURCE = "nvidia.com/gpu"
DEVICE_COUNT = 4
# How the node is told apart: Kueue's real-node flavors select it by this label and tolerate its taint, so only
# workloads sent to the `real-node` LocalQueue land here (the kwok nodes keep every other test's pods).
NODE_LABELS = {
    "devcluster.jupyter-accel.io/real-node": "true",
    "nvidia.com/gpu.product": "DEVCLUSTER-CPU-BACKED",
    "nvidia.com/gpu.present": "true",
}
NODE_TAINT = "devcluster.jupyter-accel.io/real-node=true:NoSchedule"
KUBELET_PORT = 10250
DNS_READY_PORT = 8181
PAUSE_IMAGE = "devcluster.local/jupyter-accel/pause:3.10"


def runtime_image_ref(image_dir: Path) -> str:
    return (image_dir / "runtime-image.ref").read_text().strip()


def cgroup_root(run: Path) -> str:
    """The node's --cgroup-root, one per dev cluster run (several clusters may each run a node)."""
    return f"/ja-devcluster-{run.name.replace('.', '-')}"


def remove_cgroups(run: Path, wait: float = 10.0) -> None:
    """After the node's processes are gone: its cgroups in every hierarchy, deepest first. A cgroup whose last
    process the kernel is still taking down refuses rmdir (EBUSY) for a moment after PID 1 ended: tried again for
    up to `wait` s, then left."""
    roots = [h / cgroup_root(run).lstrip("/") for h in Path("/sys/fs/cgroup").iterdir() if h.is_dir()]
    deadline = time.monotonic() + wait
    while True:
        for root in roots:
            for d in [*sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)), root]:
                with contextlib.suppress(OSError):  # busy, or already gone (none there: nothing is listed)
                    d.rmdir()
        roots = [r for r in roots if r.is_dir()]
        if not roots or time.monotonic() > deadline:
            return
        time.sleep(0.1)


def pid1_of(unshare_pid: int) -> int:
    """The host pid of the node's PID 1: the child `unshare --fork` started."""
    for _ in range(100):
        kids = Path(f"/proc/{unshare_pid}/task/{unshare_pid}/children").read_text().split()
        if kids:
            return int(kids[0])
        time.sleep(0.05)
    raise RuntimeError("node namespaces: unshare started no child")


def node_exec(pid1: int, argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    """Run a command inside the node's network, mount and pid namespaces."""
    return subprocess.run(
        ["nsenter", f"--target={pid1}", "--net", "--mount", "--pid", "--", *argv],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


class RealNode:
    def __init__(self, cluster: Cluster, parts: dict[str, Built]) -> None:
        self.c = cluster
        self.parts = parts
        self.dir = cluster.run / "node"
        self.cgroup = cgroup_root(cluster.run)
        self.pid1: int | None = None
        self.image = runtime_image_ref(parts["node-image"].bin_dir)

    def bin(self, part: str, exe: str) -> str:
        return str(self.parts[part].binary(exe))

    @property
    def sock(self) -> Path:
        return self.dir / "containerd.sock"

    # ---- host side, before the API server: the outer half of its egress relay --------------------------

    def egress_config(self) -> Path:
        """The API server's EgressSelectorConfiguration: `cluster` traffic over the relay's UNIX socket."""
        path = self.c.run / "egress-selector.json"
        path.write_text(json.dumps({
            "apiVersion": "apiserver.k8s.io/v1beta1",
            "kind": "EgressSelectorConfiguration",
            "egressSelections": [{
                "name": "cluster",
                "connection": {"proxyProtocol": "HTTPConnect",
                               "transport": {"uds": {"udsName": str(self.c.run / "egress.sock")}}},
            }],
        }))  # fmt: skip
        return path

    def start_egress(self) -> None:
        run = self.c.run
        nets = f"{POD_CIDR},{NODE_NET}"
        self.c._spawn(
            "egress-relay",
            [
                sys.executable,
                "-m",
                "devcluster.egress",
                "outer",
                str(run / "egress.sock"),
                str(run / "node-egress.sock"),
                nets,
            ],
            {"PYTHONPATH": str(DATA.parent.parent)},
        )
        self.c._wait("egress relay socket", (run / "egress.sock").exists, ("egress-relay",), 10)

    # ---- the node, once the API server answers ---------------------------------------------------------

    def start(self, timeout: float) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self._cgroup_root()
        c = self.c
        c._spawn("node", [
            "unshare", "--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
            sys.executable, "-m", "devcluster.node_init", str(self.dir), str(c.run), str(c.ports["apiserver"]),
            pki.NODE_IP, f"{POD_CIDR},{NODE_NET}",
        ], {"PYTHONPATH": str(DATA.parent.parent)})  # fmt: skip
        c._wait("node namespaces", (self.dir / "ready").exists, ("node",), 20)
        self.pid1 = pid1_of(c.recorded["node"].pid)
        self._write_configs()
        self._enter("containerd", [self.bin("containerd", "containerd"), f"--config={self.dir / 'containerd.toml'}"])
        c._wait("containerd socket", self.sock.exists, ("containerd",), 30)
        for image in (self.parts["node-image"].binary("runtime-image.tar"), self.dir / "pause-image.tar"):
            self._ctr(["images", "import", "--platform=linux/amd64", str(image)], timeout=300)
        self._enter("coredns", [self.bin("coredns", "coredns"), "-conf", str(self.dir / "Corefile")])
        self._enter("kubelet", [
            self.bin("kubelet", "kubelet"), f"--config={self.dir / 'kubelet.yaml'}",
            f"--kubeconfig={c.pki_dir / 'kubelet.kubeconfig'}", f"--hostname-override={pki.NODE_NAME}",
            f"--node-ip={pki.NODE_IP}", "--node-labels=" + ",".join(f"{k}={v}" for k, v in NODE_LABELS.items()),
            f"--register-with-taints={NODE_TAINT}", "--v=1",
        ])  # fmt: skip
        # The kubelet empties its device-plugin directory when it starts: register only once its socket is there.
        c._wait("kubelet device-plugin socket", (self.dir / "kubelet/device-plugins/kubelet.sock").exists,
                ("kubelet",), timeout)  # fmt: skip
        self._enter("device-plugin", [
            self.bin("kubelet", "deviceplugin"), f"--resource={DEVICE_RESOURCE}", f"--count={DEVICE_COUNT}",
        ])  # fmt: skip

    def _ready(self) -> bool:
        node = self.c.admin.get(f"/api/v1/nodes/{pki.NODE_NAME}")
        conds = {x["type"]: x["status"] for x in node.get("status", {}).get("conditions", [])}
        alloc = node.get("status", {}).get("allocatable", {})
        return conds.get("Ready") == "True" and alloc.get(DEVICE_RESOURCE) == str(DEVICE_COUNT)

    def wait_ready(self, timeout: float) -> None:
        self.c._wait(
            f"real node {pki.NODE_NAME} Ready with {DEVICE_COUNT} {DEVICE_RESOURCE}",
            self._ready,
            ("node", "containerd", "kubelet", "device-plugin", "coredns"),
            timeout,
        )

    def _enter(self, name: str, argv: list[str]) -> None:
        """Start a node component inside the node's namespaces (it shows up as a devcluster process)."""
        self.c._spawn(name, ["nsenter", f"--target={self.pid1}", "--net", "--mount", "--pid", "--", *argv])

    def relay(self, name: str, ip: str, port: int, sock: Path) -> None:
        """Serve ip:port inside the node (pods dial it) from a host-side UNIX socket: one explicit relay."""
        self._enter(name, ["socat", f"TCP-LISTEN:{port},bind={ip},reuseaddr,fork", f"UNIX-CONNECT:{sock}"])

    def _ctr(self, args: list[str], timeout: float = 60) -> str:
        res = node_exec(
            self.pid1, [self.bin("containerd", "ctr"), f"--address={self.sock}", "-n", "k8s.io", *args], timeout
        )
        if res.returncode != 0:
            raise RuntimeError(f"ctr {' '.join(args)} failed: {res.stderr.strip()[-2000:]}")
        return res.stdout

    def _cgroup_root(self) -> None:
        """The kubelet's --cgroup-root must exist in every v1 hierarchy; cpuset needs its cpus/mems filled."""
        base = Path("/sys/fs/cgroup")
        for h in sorted(p for p in base.iterdir() if p.is_dir() and (p / "cgroup.procs").exists()):
            d = h / self.cgroup.lstrip("/")
            d.mkdir(exist_ok=True)
            if (h / "cpuset.cpus").exists():
                for f in ("cpuset.cpus", "cpuset.mems"):
                    (d / f).write_text((h / f).read_text())

    def _write_configs(self) -> None:
        d, p = self.dir, self.c.pki_dir
        (d / "cni").mkdir(exist_ok=True)
        (d / "cni" / "10-devcluster.conflist").write_text(json.dumps({
            "cniVersion": "1.0.0", "name": "devcluster",
            "plugins": [{
                "type": "bridge", "bridge": "cni0", "isGateway": True, "ipMasq": False, "hairpinMode": True,
                "ipam": {"type": "host-local", "ranges": [[{"subnet": POD_CIDR}]], "routes": [{"dst": "0.0.0.0/0"}],
                         "dataDir": str(d / "cni-ipam")},
            }],
        }))  # fmt: skip
        runc = self.bin("runc", "runc")
        cni_bin = str(self.parts["cni-plugins"].bin_dir)
        (d / "containerd.toml").write_text(f"""version = 3
root = "{d / "containerd-root"}"
state = "{d / "containerd-state"}"
[grpc]
  address = "{self.sock}"
[ttrpc]
  address = "{self.sock}.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "{d / "containerd-opt"}"
[plugins."io.containerd.nri.v1.nri"]
  disable = true
[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "{PAUSE_IMAGE}"
[plugins."io.containerd.cri.v1.runtime"]
  netns_mounts_under_state_dir = true
  # This sandbox withholds CAP_SYS_RESOURCE, so no process may lower its OOM score (the kubelet asks -998 for
  # sandboxes and -997 for Guaranteed pods): containerd then keeps each at least at its own score.
  restrict_oom_score_adj = true
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = "{runc}"
        SystemdCgroup = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["{cni_bin}"]
    conf_dir = "{d / "cni"}"
[plugins."io.containerd.grpc.v1.cri"]
  disable_tcp_service = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
""")
        (d / "Corefile").write_text(f""".:53 {{
    bind {pki.NODE_IP}
    errors
    ready 127.0.0.1:{DNS_READY_PORT}
    kubernetes {CLUSTER_DOMAIN} {{
        kubeconfig {p / "coredns.kubeconfig"}
        pods insecure
    }}
    cache 5
}}
""")
        (d / "kubelet.yaml").write_text(json.dumps({
            "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
            # This sandbox's cgroups are v1: 1.35+ needs the explicit opt-in, with the cgroupfs driver.
            "failCgroupV1": False, "cgroupDriver": "cgroupfs", "cgroupRoot": self.cgroup, "cgroupsPerQOS": True,
            "failSwapOn": False,
            "containerRuntimeEndpoint": f"unix://{self.sock}",
            "address": pki.NODE_IP, "port": KUBELET_PORT, "readOnlyPort": 0,
            "healthzBindAddress": "127.0.0.1", "healthzPort": 10248,
            "tlsCertFile": str(p / "kubelet-serving.crt"), "tlsPrivateKeyFile": str(p / "kubelet-serving.key"),
            "authentication": {"anonymous": {"enabled": False}, "webhook": {"enabled": True},
                               "x509": {"clientCAFile": str(p / "ca.crt")}},
            "authorization": {"mode": "Webhook"},
            "clusterDNS": [pki.NODE_IP], "clusterDomain": CLUSTER_DOMAIN,
            "resolvConf": str(d / "resolv.conf"),
            "podLogsDir": str(d / "pod-logs"),
            "maxPods": 40, "serializeImagePulls": False,
            # Images cannot be pulled again here: never collect them, and evict only on real exhaustion.
            "imageGCHighThresholdPercent": 100, "imageGCLowThresholdPercent": 99,
            "evictionHard": {"memory.available": "200Mi", "nodefs.available": "1%", "imagefs.available": "1%"},
            "protectKernelDefaults": False, "enableServer": True,
            "rotateCertificates": False, "serverTLSBootstrap": False,
            "containerLogMaxSize": "10Mi",
        }, indent=1))  # fmt: skip
        self._pause_image()

    def _pause_image(self) -> None:
        """The CRI sandbox ('pause') image: Kubernetes' own build/pause/linux/pause.c, built static by build.sh."""
        layer = self.dir / "pause-rootfs.tar"
        with tarfile.open(layer, "w") as tar:
            tar.add(self.parts["kubelet"].binary("pause"), arcname="pause")
        write_archive(layer, self.dir / "pause-image.tar", PAUSE_IMAGE, [], ["/pause"])
        layer.unlink()
