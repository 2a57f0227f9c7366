"""Finding the kernel's Jupyter server: env overrides, jpserver-*.json runtime files, JupyterHub."""

from __future__ import annotations

import json
import os

import pytest

from jupyter_accel.notebook import AccelClient, DiscoveryError, find_server
from jupyter_accel.notebook.discovery import ENV_TOKEN, ENV_URL


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in (ENV_URL, ENV_TOKEN, "JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_API_TOKEN", "JUPYTERHUB_SERVICE_URL"):
        monkeypatch.delenv(name, raising=False)
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    return runtime


def _write(runtime, name, root, port, token="tok", pid=None):
    info = {
        "url": f"http://localhost:{port}/",
        "base_url": "/",
        "token": token,
        "root_dir": str(root),
        "pid": pid or os.getpid(),
        "port": port,
    }
    (runtime / f"jpserver-{name}.json").write_text(json.dumps(info))


def test_the_running_server_is_found_from_its_runtime_file(jupyter_server, monkeypatch):
    for name in (ENV_URL, ENV_TOKEN, "JUPYTERHUB_API_TOKEN", "JUPYTERHUB_SERVICE_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(jupyter_server.runtime_dir))
    sub = jupyter_server.root_dir / "project"
    sub.mkdir(exist_ok=True)
    monkeypatch.chdir(sub)
    endpoint = find_server()
    assert endpoint.token == jupyter_server.token
    assert endpoint.token not in repr(endpoint)
    assert AccelClient().info().connection.state == "not_configured"  # and it really is that server


def test_root_containing_cwd_wins_longest_first(clean_env, tmp_path):
    outer, inner = tmp_path / "home", tmp_path / "home" / "team"
    (inner / "nb").mkdir(parents=True)
    _write(clean_env, "1", outer, 8001)
    _write(clean_env, "2", inner, 8002)
    _write(clean_env, "3", tmp_path / "elsewhere", 8003)
    assert find_server(inner / "nb").url == "http://localhost:8002/"
    assert find_server(outer).url == "http://localhost:8001/"


def test_only_server_is_used_even_outside_its_root(clean_env, tmp_path):
    _write(clean_env, "1", tmp_path / "a", 8001)
    assert find_server(tmp_path).url == "http://localhost:8001/"


def test_ambiguous_servers_name_the_override(clean_env, tmp_path):
    _write(clean_env, "1", tmp_path / "a", 8001)
    _write(clean_env, "2", tmp_path / "b", 8002)
    with pytest.raises(DiscoveryError, match=ENV_URL):
        find_server(tmp_path / "c")


def test_dead_servers_are_ignored(clean_env, tmp_path):
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _write(clean_env, "dead", tmp_path, 8009, pid=dead.pid)
    with pytest.raises(DiscoveryError, match="No running Jupyter server"):
        find_server(tmp_path)


def test_environment_overrides_runtime_files(clean_env, tmp_path, monkeypatch):
    _write(clean_env, "1", tmp_path, 8001)
    monkeypatch.setenv(ENV_URL, "http://127.0.0.1:9999/base")
    monkeypatch.setenv(ENV_TOKEN, "explicit")
    endpoint = find_server(tmp_path)
    assert (endpoint.url, endpoint.token, endpoint.source) == ("http://127.0.0.1:9999/base/", "explicit", "environment")


def test_jupyterhub_single_user_environment(clean_env, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/user/alice/")
    monkeypatch.setenv("JUPYTERHUB_SERVICE_URL", "http://0.0.0.0:8888/user/alice/")
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "hubtoken")
    endpoint = find_server(tmp_path)
    assert (endpoint.url, endpoint.token) == ("http://127.0.0.1:8888/user/alice/", "hubtoken")
    # a runtime file without a token (Hub auth) takes the Hub API token
    _write(clean_env, "1", tmp_path, 8001, token="")
    assert find_server(tmp_path).token == "hubtoken"
