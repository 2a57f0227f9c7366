"""The real node's device exporter: NVIDIA DCGM exporter's metric names for the node's devices, which are NOT GPUs.

The node's device plugin (kubelet/deviceplugin) advertises devices that are only names. This exporter publishes,
for each, what dcgm-exporter would: utilization, graphics-engine activity and framebuffer memory, with the `pod`,
`namespace` and `container` labels of the container the kubelet gave it to (read from the kubelet's own device
checkpoint), and values taken from that container's real use: its CPU time per second (cgroup cpuacct) as the
utilization, its memory (cgroup memory) as the framebuffer used. Every series carries
`devcluster_simulated="cpu-use"` and the model name says so too, as kwok's nodes say they are fake.

Host side, on loopback only: `python -m devcluster.device_exporter --port P --node-dir D --cgroup-root R --node N
--server URL --pki DIR`. Prometheus scrapes /metrics.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .rest import Rest, tls_context

CGROUPS = Path("/sys/fs/cgroup")
QOS_DIRS = ("", "burstable", "besteffort")  # the cgroupfs driver's pod parents under kubepods
DEVICE_MEMORY_MIB = 16384  # what each simulated device claims to hold
MODEL = "devcluster simulated device (values are CPU and memory use, not a GPU)"
SIMULATED = 'devcluster_simulated="cpu-use"'
SAMPLE_SECONDS = 2.0
HELP = {
    "DCGM_FI_DEV_GPU_UTIL": ("gauge", "GPU utilization (in %). devcluster: the container's CPU use."),
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": ("gauge", "Ratio of time the graphics engine is active. devcluster: CPU use."),
    "DCGM_FI_DEV_FB_USED": ("gauge", "Framebuffer memory used (in MiB). devcluster: the container's memory."),
    "DCGM_FI_DEV_FB_FREE": ("gauge", "Framebuffer memory free (in MiB). devcluster: of a simulated 16 GiB."),
}


@dataclass(frozen=True)
class Holder:
    pod: str
    namespace: str
    container: str
    uid: str
    container_id: str


def device_owners(checkpoint: dict[str, Any], resource: str) -> dict[str, tuple[str, str]]:
    """device ID -> (pod UID, container name), from the kubelet's device-manager checkpoint."""
    out: dict[str, tuple[str, str]] = {}
    for entry in (checkpoint.get("Data") or {}).get("PodDeviceEntries") or []:
        if entry.get("ResourceName") != resource:
            continue
        ids = entry.get("DeviceIDs") or []
        if isinstance(ids, dict):  # by NUMA node since Kubernetes 1.20
            ids = [i for group in ids.values() for i in group or []]
        for device in ids:
            out[device] = (entry.get("PodUID", ""), entry.get("ContainerName", ""))
    return out


def registered(checkpoint: dict[str, Any], resource: str) -> list[str]:
    return sorted(((checkpoint.get("Data") or {}).get("RegisteredDevices") or {}).get(resource) or [])


def holders(pods: list[dict[str, Any]]) -> dict[tuple[str, str], Holder]:
    """(pod UID, container name) -> its running container, from the API server's pod list."""
    out = {}
    for pod in pods:
        meta = pod.get("metadata") or {}
        for status in (pod.get("status") or {}).get("containerStatuses") or []:
            cid = (status.get("containerID") or "").partition("://")[2]
            if cid and "running" in (status.get("state") or {}):
                holder = Holder(meta.get("name", ""), meta.get("namespace", ""), status["name"], meta["uid"], cid)
                out[(holder.uid, holder.container)] = holder
    return out


def cgroup_dir(hierarchy: str, root: str, uid: str, container_id: str) -> Path | None:
    for qos in QOS_DIRS:
        d = CGROUPS / hierarchy / root.lstrip("/") / "kubepods" / qos / f"pod{uid}" / container_id
        if d.is_dir():
            return d
    return None


def read_int(path: Path | None, name: str) -> int | None:
    try:
        return int((path / name).read_text().strip()) if path is not None else None
    except (OSError, ValueError):
        return None


class Exporter:
    def __init__(self, rest: Rest, node: str, node_dir: Path, cgroup_root: str, resource: str) -> None:
        self.rest, self.node, self.node_dir, self.root, self.resource = rest, node, node_dir, cgroup_root, resource
        self.lock = threading.Lock()
        self.last: dict[str, tuple[float, int]] = {}  # container ID -> (monotonic time, CPU nanoseconds)
        self.util: dict[str, float] = {}  # container ID -> CPU use, % of one CPU, capped at 100
        self.text = ""

    def sample(self) -> None:
        checkpoint = json.loads((self.node_dir / "kubelet/device-plugins/kubelet_internal_checkpoint").read_text())
        pods = self.rest.get(f"/api/v1/pods?fieldSelector=spec.nodeName%3D{self.node}")["items"]
        by_container = holders(pods)
        owners = device_owners(checkpoint, self.resource)
        now = time.monotonic()
        lines: list[str] = []
        for index, device in enumerate(registered(checkpoint, self.resource)):
            labels = f'gpu="{index}",UUID="{device}",device="nvidia{index}",modelName="{MODEL}",Hostname="{self.node}"'
            holder = by_container.get(owners.get(device, ("", "")))
            util, used = 0.0, 0
            if holder is not None:
                labels += f',pod="{holder.pod}",namespace="{holder.namespace}",container="{holder.container}"'
                cpu = read_int(cgroup_dir("cpuacct", self.root, holder.uid, holder.container_id), "cpuacct.usage")
                mem = read_int(
                    cgroup_dir("memory", self.root, holder.uid, holder.container_id), "memory.usage_in_bytes"
                )
                util = self._rate(holder.container_id, now, cpu)
                used = (mem or 0) >> 20
            labels += f",{SIMULATED}"
            lines += [
                f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {round(util)}",
                f"DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{labels}}} {util / 100:.4f}",
                f"DCGM_FI_DEV_FB_USED{{{labels}}} {used}",
                f"DCGM_FI_DEV_FB_FREE{{{labels}}} {max(0, DEVICE_MEMORY_MIB - used)}",
            ]
        body = []
        for name, (kind, text) in HELP.items():
            body += [f"# HELP {name} {text}", f"# TYPE {name} {kind}", *(x for x in lines if x.startswith(name + "{"))]
        with self.lock:
            self.text = "\n".join(body) + "\n"

    def _rate(self, container_id: str, now: float, cpu_ns: int | None) -> float:
        if cpu_ns is None:
            return 0.0
        before = self.last.get(container_id)
        self.last[container_id] = (now, cpu_ns)
        if before is not None and now > before[0]:
            self.util[container_id] = min(100.0, 100.0 * (cpu_ns - before[1]) / ((now - before[0]) * 1e9))
        return max(0.0, self.util.get(container_id, 0.0))

    def run(self) -> None:
        while True:
            try:
                self.sample()
            except Exception as exc:  # the node may be starting or going; the next round tries again
                print(f"device-exporter: sample failed: {exc!r}", flush=True)
            time.sleep(SAMPLE_SECONDS)


def serve(exporter: Exporter, port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] != "/metrics":
                self.send_error(404)
                return
            with exporter.lock:
                body = exporter.text.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    for flag in ("--node-dir", "--cgroup-root", "--node", "--server", "--pki", "--resource"):
        p.add_argument(flag, required=True)
    p.add_argument("--port", type=int, required=True)
    a = p.parse_args()
    pki = Path(a.pki)
    rest = Rest(a.server, tls_context(pki / "ca.crt", pki / "admin.crt", pki / "admin.key"))
    exporter = Exporter(rest, a.node, Path(a.node_dir), a.cgroup_root, a.resource)
    threading.Thread(target=exporter.run, daemon=True, name="sampler").start()
    serve(exporter, a.port)


if __name__ == "__main__":
    main()
