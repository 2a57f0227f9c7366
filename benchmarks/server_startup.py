"""How much the jupyter_accel server extension adds to Jupyter server start-up, measured side by side.

Each trial starts `jupyter server` (127.0.0.1, a token, a temporary root and runtime dir) and times it until it
answers /api/status, with the extension enabled and disabled in alternating trials. With the extension on, it
also records when /accel/v1/info first answers. The extension's configuration is the default (identity auto)
unless --kubeconfig points it at a cluster (e.g. the devcluster's queue-viewer.kubeconfig).

    python benchmarks/server_startup.py [--trials 5] [--kubeconfig PATH --namespace team-a]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET = 0.3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(url: str, token: str) -> bool:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers={"Authorization": f"token {token}"}), timeout=2
        ):
            return True
    except (urllib.error.URLError, OSError):
        return False


def trial(enabled: bool, accel_config: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root, runtime, config = (Path(tmp) / n for n in ("root", "runtime", "config"))
        for d in (root, runtime, config):
            d.mkdir()
        (config / "jupyter_server_config.json").write_text(
            json.dumps({"ServerApp": {"jpserver_extensions": {"jupyter_accel": enabled}}, "AccelConfig": accel_config})
        )
        token, port = secrets.token_hex(8), _free_port()
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "JUPYTER_RUNTIME_DIR": str(runtime),
            "JUPYTER_CONFIG_DIR": str(config),
        }
        base = f"http://127.0.0.1:{port}/"
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter_server",
                "--no-browser",
                "--allow-root",
                "--ip=127.0.0.1",
                f"--port={port}",
                "--port-retries=0",
                f"--ServerApp.root_dir={root}",
                f"--IdentityProvider.token={token}",
            ],
            env=env,
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            ready = info = None
            while time.perf_counter() - t0 < 120:
                if proc.poll() is not None:
                    raise RuntimeError(f"jupyter server exited with {proc.returncode}")
                if ready is None and _answers(base + "api/status", token):
                    ready = time.perf_counter() - t0
                if ready is not None and (not enabled or _answers(base + "accel/v1/info", token)):
                    info = time.perf_counter() - t0 if enabled else None
                    break
                time.sleep(0.02)
            if ready is None:
                raise RuntimeError("jupyter server did not answer in 120 s")
            return {"ready": ready, "info": info}
        finally:
            proc.terminate()
            proc.wait(20)


IMPORTS = """
import json, sys, time
import jupyter_server.serverapp, jupyterlab  # what a server has loaded before extensions
out = {}
t = time.perf_counter()
import jupyter_accel.app, jupyter_accel.api.routes
out["at load: jupyter_accel.app + api.routes"] = time.perf_counter() - t
t = time.perf_counter()
jupyter_accel.app._import_runtime()
out["after start, in a thread: kubernetes, pydantic, models, job ops"] = time.perf_counter() - t
print(json.dumps(out))
"""


def import_breakdown(trials: int) -> dict[str, float]:
    """Median import time of the extension's modules in a process that has jupyter_server loaded already."""
    runs = []
    for _ in range(trials):
        out = subprocess.run([sys.executable, "-c", IMPORTS], cwd=REPO, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    return {name: statistics.median(r[name] for r in runs) for name in runs[0]}


def _list(trials: list[dict]) -> str:
    return ", ".join(f"{t['ready']:.2f}" for t in trials)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--kubeconfig", help="connect the extension to this cluster (default: identity auto)")
    parser.add_argument("--namespace", default="")
    args = parser.parse_args()
    config: dict = {}
    if args.kubeconfig:
        config = {"identity": "kubeconfig", "kubeconfig": args.kubeconfig, "namespace": args.namespace}
    off, on = [], []
    for _ in range(args.trials):
        off.append(trial(False, config))
        on.append(trial(True, config))
    t_off = statistics.median(t["ready"] for t in off)
    t_on = statistics.median(t["ready"] for t in on)
    t_info = statistics.median(t["info"] for t in on)
    print(f"trials: {args.trials} of each, alternating; extension config: {config or 'default (identity auto)'}")
    print(f"server ready, extension off (median): {t_off:6.3f} s  (all: {_list(off)})")
    print(f"server ready, extension on  (median): {t_on:6.3f} s  (all: {_list(on)})")
    print(f"/accel/v1/info first answer (median): {t_info:6.3f} s  (the caches load after the server is ready)")
    print(f"added by the extension: {t_on - t_off:+.3f} s; ratio on/off: {t_on / t_off:.3f}")
    print("import cost inside a started server (median):")
    for name, seconds in import_breakdown(args.trials).items():
        print(f"  {seconds * 1000:7.1f} ms  {name}")
    ok = t_on - t_off < BUDGET
    print(f"budget {BUDGET:.1f} s: {'OK' if ok else 'EXCEEDED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
