"""A fault-injecting reverse proxy between a Jupyter server and devcluster's API server: Debian's mitmproxy
(`mitmdump --mode reverse:`) on 127.0.0.1 with fault_proxy_addon.py.

mitmproxy ends the TLS of the Jupyter server with a certificate of its own CA (generated in its confdir on first
start) and opens its own TLS to the API server, checked against devcluster's CA. So the Jupyter server's identity
is a bearer token (devcluster's notebook-user token kubeconfig) and its kubeconfig trusts the proxy's CA: a client
certificate would end at the proxy.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

ADDON = Path(__file__).with_name("fault_proxy_addon.py")
MITMDUMP = shutil.which("mitmdump") or "/usr/bin/mitmdump"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FaultProxy:
    def __init__(self, devcluster, workdir: Path) -> None:
        self.cluster = devcluster
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.rules_path = self.dir / "rules.json"
        self.log_path = self.dir / "requests.jsonl"
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None
        self._rule_n = 0

    def start(self, timeout: float = 30) -> FaultProxy:
        self.rules_path.write_text("[]")
        self.log_path.write_text("")
        argv = [
            MITMDUMP,
            "--quiet",
            "--mode",
            f"reverse:https://127.0.0.1:{self.cluster.ports['apiserver']}",
            "--listen-host",
            "127.0.0.1",
            "--listen-port",
            str(self.port),
            "--set",
            f"confdir={self.dir / 'mitmproxy'}",
            "--set",
            f"ssl_verify_upstream_trusted_ca={self.cluster.pki_dir / 'ca.crt'}",
            "--set",
            "http2=false",
            "-s",
            str(ADDON),
            "--set",
            f"faults={self.rules_path}",
            "--set",
            f"fault_log={self.log_path}",
        ]
        out = (self.dir / "mitmdump.log").open("ab")
        self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mitmdump exited {self.proc.returncode}: {self.output()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                if self.ca_path.exists():
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise TimeoutError(f"mitmdump did not listen within {timeout}s: {self.output()[-2000:]}")

    @property
    def ca_path(self) -> Path:
        return self.dir / "mitmproxy" / "mitmproxy-ca-cert.pem"

    def output(self) -> str:
        path = self.dir / "mitmdump.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def kubeconfig(self, identity: str = "notebook-user") -> Path:
        """The identity's bearer-token kubeconfig, pointed at the proxy and trusting the proxy's CA."""
        conf = json.loads(self.cluster.kubeconfig(identity, token=True).read_text())
        ca = base64.b64encode(self.ca_path.read_bytes()).decode()
        for c in conf["clusters"]:
            c["cluster"]["server"] = f"https://127.0.0.1:{self.port}"
            c["cluster"]["certificate-authority-data"] = ca
            c["cluster"].pop("certificate-authority", None)
        path = self.dir / f"{identity}-via-proxy.kubeconfig"
        path.write_text(json.dumps(conf))
        os.chmod(path, 0o600)
        return path

    # -- faults ---------------------------------------------------------------------------------------------
    def inject(self, *rules: dict[str, Any]) -> list[str]:
        """Replace the rules (see fault_proxy_addon.py); returns their ids. The proxy reads them on its next request."""
        out = []
        for rule in rules:
            self._rule_n += 1
            rule.setdefault("id", f"r{self._rule_n}")
            out.append(rule["id"])
        tmp = self.rules_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(list(rules)))
        os.replace(tmp, self.rules_path)  # the proxy never reads half a file
        return out

    def clear(self) -> None:
        self.inject()

    def requests(self, since: float = 0.0) -> list[dict[str, Any]]:
        """Every request the proxy answered or forwarded (monotonic time `t`) since `since`."""
        lines = self.log_path.read_text().splitlines()
        return [r for r in map(json.loads, lines) if r["t"] >= since]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
