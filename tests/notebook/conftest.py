"""A real Jupyter server with the extension, run as a subprocess (as in a workbench), and real kernels on it.

The server binds 127.0.0.1 on a free port with a token, in a temporary root dir with its own runtime dir, so
discovery tests can find its jpserver-*.json file. Cluster-backed variants point its kubeconfig at devcluster.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from polling import poll_until

from jupyter_accel.notebook import AccelClient

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120.0  # a loaded 2-core machine can take a while to import jupyter_server


@dataclass
class JupyterServer:
    url: str
    token: str
    root_dir: Path
    runtime_dir: Path
    process: subprocess.Popen
    log: Path

    def env(self) -> dict[str, str]:
        """Environment of a kernel that should reach this server through JUPYTER_ACCEL_URL/TOKEN."""
        return {**kernel_env(), "JUPYTER_ACCEL_URL": self.url, "JUPYTER_ACCEL_TOKEN": self.token}


def kernel_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER_ACCEL_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    tmp: Path, accel_config: dict, extra_env: dict[str, str] | None = None, server_config: dict | None = None
) -> JupyterServer:
    """`server_config`: more traitlets sections (e.g. MCPExtensionApp) and jpserver_extensions to turn on."""
    root, runtime, config, data = (tmp / n for n in ("root", "runtime", "config", "data"))
    for d in (root, runtime, config, data):
        d.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(16)
    port = _free_port()
    env = {
        **kernel_env(),
        "JUPYTER_RUNTIME_DIR": str(runtime),
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_DATA_DIR": str(data),
        **(extra_env or {}),
    }
    more = dict(server_config or {})
    # jupyter-server-mcp is installed for the agent tests and turns itself on: only the servers that ask get it
    extensions = {"jupyter_accel": True, "jupyter_server_mcp": False, **more.pop("jpserver_extensions", {})}
    (config / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": extensions}, "AccelConfig": accel_config, **more})
    )
    log = tmp / "server.log"
    cmd = [
        sys.executable,
        "-m",
        "jupyter_server",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",
        "--allow-root",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
    ]
    process = subprocess.Popen(cmd, env=env, cwd=root, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter server exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            req = urllib.request.Request(url + "accel/v1/info", headers={"Authorization": f"token {token}"})
            with urllib.request.urlopen(req, timeout=5):
                break
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(
                    f"jupyter server did not answer in {START_TIMEOUT}s:\n{log.read_text()[-3000:]}"
                ) from None
            time.sleep(0.3)
    return JupyterServer(url, token, root, runtime, process, log)


def stop_server(server: JupyterServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(20)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


@pytest.fixture(scope="session")
def jupyter_server(tmp_path_factory) -> Iterator[JupyterServer]:
    """A server whose extension has no cluster (identity none): the not-configured state."""
    server = start_server(tmp_path_factory.mktemp("jupyter"), {"identity": "none"})
    yield server
    stop_server(server)


class Kernel:
    """A real IPython kernel driven over ZMQ (jupyter_client); run() returns the outputs of one cell."""

    def __init__(self, env: dict[str, str], cwd: Path):
        from jupyter_client import KernelManager

        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel(env=env, cwd=str(cwd))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)

    def run(self, code: str, timeout: float = 120) -> CellResult:
        outputs: list[dict] = []
        reply = self.kc.execute_interactive(
            code, timeout=timeout, output_hook=outputs.append, stdin_hook=self._stdin, allow_stdin=True
        )
        return CellResult(reply["content"], outputs)

    stdin_answers: list[str]

    def _stdin(self, msg: dict) -> None:
        self.kc.input(self.stdin_answers.pop(0))

    def shutdown(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


@dataclass
class CellResult:
    reply: dict
    outputs: list[dict]

    @property
    def ok(self) -> bool:
        return self.reply["status"] == "ok"

    def stream(self, name: str = "stdout") -> str:
        return "".join(
            o["content"]["text"] for o in self.outputs if o["msg_type"] == "stream" and o["content"]["name"] == name
        )

    def data(self, mime: str) -> list[str]:
        return [
            o["content"]["data"][mime]
            for o in self.outputs
            if o["msg_type"] in ("execute_result", "display_data", "update_display_data")
            and mime in o["content"].get("data", {})
        ]

    @property
    def error(self) -> dict | None:
        for o in self.outputs:
            if o["msg_type"] == "error":
                return o["content"]
        return None


@pytest.fixture(scope="module")
def kernel(jupyter_server) -> Iterator[Kernel]:
    k = Kernel(jupyter_server.env(), jupyter_server.root_dir)
    k.stdin_answers = []
    yield k
    k.shutdown()


CLUSTER_NAMESPACE = "team-a"
CLUSTER_IDENTITY = "queue-viewer"  # the notebook user's rights plus node and quota reads: the fit check has numbers


def _connected_server(
    devcluster,
    tmp: Path,
    extra_config: dict | None = None,
    identity: str | None = None,
    server_config: dict | None = None,
) -> JupyterServer:
    """A server whose extension talks to devcluster as a team-a user, from a workbench named by NB_PREFIX."""
    config = {
        "identity": "kubeconfig",
        "kubeconfig": str(devcluster.kubeconfig(identity or CLUSTER_IDENTITY)),
        "namespace": CLUSTER_NAMESPACE,
        **(extra_config or {}),
    }
    server = start_server(tmp, config, {"NB_PREFIX": "/notebook/team-a/notebook-tests"}, server_config)
    client = AccelClient(server.url, server.token)
    deadline = time.monotonic() + 60
    while client.info().connection.state != "connected":
        if time.monotonic() > deadline:
            stop_server(server)
            raise RuntimeError(f"the extension did not connect to devcluster:\n{server.log.read_text()[-3000:]}")
        time.sleep(0.5)
    return server


@pytest.fixture(scope="session")
def cluster_server(devcluster, tmp_path_factory) -> Iterator[JupyterServer]:
    server = _connected_server(devcluster, tmp_path_factory.mktemp("jupyter-cluster"))
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def real_node_server(devcluster, tmp_path_factory) -> Iterator[JupyterServer]:
    """Configured as `make demo` is: jobs go to devcluster's real node (LocalQueue `real-node`) in the image
    devcluster built, so their code really runs."""
    image = devcluster.node_image()
    if image is None:
        pytest.fail("the real node is declared present in devcluster/components.toml but is not running")
    kinds = ("ray-cluster", "ray-job", "pytorch", "trainjob")
    extra = {"default_images": dict.fromkeys(kinds, image), "default_queue": "real-node"}
    if devcluster.components.get("prometheus", {}).get("state") == "running":
        extra["metrics_url"] = devcluster.metrics_url  # as `make demo` has it: the node's devices, Kueue's queues
    server = _connected_server(devcluster, tmp_path_factory.mktemp("jupyter-real-node"), extra)
    yield server
    stop_server(server)


def _extension_kernel(server: JupyterServer) -> Iterator[Kernel]:
    """A kernel reaching `server`, with the extension loaded; shut down at the end."""
    k = Kernel(server.env(), server.root_dir)
    k.stdin_answers = []
    result = k.run("%load_ext jupyter_accel")
    assert result.ok, result.error
    yield k
    k.shutdown()


@pytest.fixture(scope="module")
def node_kernel(real_node_server) -> Iterator[Kernel]:
    """A kernel of the server configured as `make demo` is (jobs on the real node)."""
    yield from _extension_kernel(real_node_server)


@pytest.fixture
def start_unconnected_server() -> Iterator[Callable[..., JupyterServer]]:
    """Start servers of no cluster, `(tmp, accel_config, server_config=None) -> server`; all stop at the end."""
    started: list[JupyterServer] = []

    def start(tmp: Path, accel_config: dict, server_config: dict | None = None) -> JupyterServer:
        started.append(start_server(tmp, accel_config, server_config=server_config))
        return started[-1]

    yield start
    for server in started:
        stop_server(server)


@pytest.fixture
def start_connected_server(devcluster) -> Iterator[Callable[..., JupyterServer]]:
    """Start servers connected to devcluster (`(tmp, extra_config) -> server`); all of them stop at the end."""
    started: list[JupyterServer] = []

    def start(tmp: Path, extra: dict | None = None, **kw: Any) -> JupyterServer:
        started.append(_connected_server(devcluster, tmp, extra, **kw))
        return started[-1]

    yield start
    for server in started:
        stop_server(server)


@pytest.fixture(scope="module")
def cluster_kernel(cluster_server) -> Iterator[Kernel]:
    yield from _extension_kernel(cluster_server)


@pytest.fixture
def cluster_client(cluster_server) -> AccelClient:
    return AccelClient(cluster_server.url, cluster_server.token)


@pytest.fixture
def unique() -> Callable[[str], str]:
    return lambda prefix: f"{prefix}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def wait_until() -> Callable[..., Any]:
    return poll_until
