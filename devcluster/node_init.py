"""PID 1 of the real node's namespaces (network, mount, pid), started by `unshare` from devcluster/node.py.

It gives the node a private view of the paths the kubelet and its device plugins hard-code (/var/lib/kubelet,
/var/log/containers, /etc/resolv.conf), its own network (only `lo` and a port-less bridge `node0` carrying the node's
private address), and the two relays that connect it to the host: the API server (a TCP listener on the node's
loopback relayed to the host's UNIX-socket bridge) and the inner half of the API server's egress relay. Then it
reaps orphans (containerd shims re-parent to it) until it is told to stop; its exit ends every process of the node.
Usage: python -m devcluster.node_init NODE_DIR RUN_DIR APISERVER_PORT NODE_IP NETS
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BINDS = {"kubelet": "/var/lib/kubelet", "log-containers": "/var/log/containers", "resolv.conf": "/etc/resolv.conf"}


def sh(*argv: str) -> None:
    subprocess.run(argv, check=True)


def main(node: Path, run: Path, api_port: str, node_ip: str, nets: str) -> None:
    if os.getpid() != 1:
        sys.exit("node_init must run as PID 1 of a new pid namespace (unshare --pid --fork)")
    for name, target in BINDS.items():
        src = node / name
        if target.endswith(".conf"):
            src.write_text(f"nameserver {node_ip}\nsearch cluster.local\noptions ndots:1\n")
        else:
            src.mkdir(parents=True, exist_ok=True)
            if name == "kubelet":  # the device plugin may register before the kubelet made its socket dir
                (src / "device-plugins").mkdir(exist_ok=True)
            Path(target).mkdir(parents=True, exist_ok=True)  # an empty mount point on the host
        sh("mount", "--bind", str(src), target)
    sh("ip", "link", "set", "lo", "up")
    sh("ip", "link", "add", "node0", "type", "bridge")  # no port: only carries the node IP (no dummy driver here)
    sh("ip", "addr", "add", f"{node_ip}/32", "dev", "node0")
    sh("ip", "link", "set", "node0", "up")
    logs = run / "logs"
    children = [
        subprocess.Popen(
            ["socat", f"TCP-LISTEN:{api_port},bind=127.0.0.1,reuseaddr,fork", f"UNIX-CONNECT:{run / 'apiserver.sock'}"],
            stdout=open(logs / "node-apiserver-relay.log", "ab"),  # noqa: SIM115 - owned by the child
            stderr=subprocess.STDOUT,
        ),
        subprocess.Popen(
            [sys.executable, "-m", "devcluster.egress", "inner", str(run / "node-egress.sock"), nets],
            stdout=open(logs / "node-egress-inner.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
        ),
    ]
    (node / "ready").write_text(str(os.getpid()))

    def stop(signum, frame):
        for c in children:
            c.terminate()
        if os.getpid() == 1:  # PID 1 of the node's own pid namespace: kill(-1) reaches only the node
            os.kill(-1, signal.SIGKILL)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while True:
        try:
            os.wait()
        except ChildProcessError:
            time.sleep(0.5)


if __name__ == "__main__":
    a = sys.argv[1:]
    main(Path(a[0]), Path(a[1]), a[2], a[3], a[4])
