"""Tokens never leak (issue #19). One server logging at DEBUG (Jupyter's --debug, and the extension's, urllib3's and
the kubernetes client's loggers at DEBUG too) holds all three kinds of token a server meets:

- the configured one: its kubeconfig authenticates with a bearer token (devcluster's token kubeconfig);
- forwarded ones: an auth proxy's X-Forwarded-Access-Token header (good, foreign, refused, malformed, `Bearer `);
- pasted ones: `PUT /accel/v1/identity/token` at runtime (good, foreign, bad, malformed, oversized).

It serves reads, writes and errors with each; then every line of its log, and the status line, headers and body of
every response of the run, are searched for every token value, whole and in pieces."""

from __future__ import annotations

import http.client
import json
import secrets
import time

import pytest
import yaml
from reliability_report import note

from devcluster.jupyter_server import JupyterProcess

pytestmark = pytest.mark.cluster

HEADER = "X-Forwarded-Access-Token"
DEBUG_LOGGERS = {
    name: {"level": "DEBUG", "handlers": ["console"], "propagate": False}
    for name in ("jupyter_accel", "urllib3", "kubernetes", "tornado")
}


def _kubeconfig_token(path) -> str:
    return yaml.safe_load(path.read_text())["users"][0]["user"]["token"]


class Recorder:
    """Requests to the server, each whole response (status line, headers, body) kept for the search."""

    def __init__(self, server: JupyterProcess) -> None:
        self.server = server
        self.responses: list[str] = []

    def call(self, method: str, path: str, body=None, headers: dict | None = None) -> tuple[int, object]:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        try:
            conn.request(method, path, body=data, headers={**self.server.headers, **(headers or {})})
            resp = conn.getresponse()
            raw = resp.read()
            head = "\n".join(f"{k}: {v}" for k, v in resp.getheaders())
        finally:
            conn.close()
        text = raw.decode(errors="replace")
        self.responses.append(f"{resp.status} {resp.reason}\n{head}\n\n{text}")
        try:
            return resp.status, json.loads(text) if text else None
        except ValueError:
            return resp.status, text

    def until(self, path: str, check, headers: dict | None = None, timeout: float = 60) -> dict:
        deadline, body = time.monotonic() + timeout, None
        while time.monotonic() < deadline:
            code, body = self.call("GET", path, headers=headers)
            if code == 200 and check(body):
                return body
            time.sleep(0.3)
        raise AssertionError(f"{path} never as wanted: {body}")


def test_no_configured_forwarded_or_pasted_token_in_any_log_line_or_response(devcluster, tmp_path):
    configured = _kubeconfig_token(devcluster.kubeconfig("notebook-user", token=True))
    foreign = _kubeconfig_token(devcluster.kubeconfig("queue-viewer", token=True))
    refused = "fwd-" + secrets.token_urlsafe(32)  # the API server does not know it
    bad = "bad-" + secrets.token_urlsafe(32)
    spaced = "sp-" + secrets.token_urlsafe(12) + " " + secrets.token_urlsafe(12)
    huge = "huge-" + secrets.token_urlsafe(13000)[:16400]
    tokens = {"configured": configured, "forwarded": foreign, "refused": refused, "bad": bad, "spaced": spaced}
    tokens["huge"] = huge
    accel = {
        "identity": "kubeconfig",
        "kubeconfig": str(devcluster.kubeconfig("notebook-user", token=True)),
        "namespace": "team-a",
        "forwarded_token_header": HEADER,
    }
    server = JupyterProcess(
        tmp_path, accel, debug=True, extra={"ServerApp": {"logging_config": {"loggers": DEBUG_LOGGERS}}}
    ).start()
    r = Recorder(server)
    connected = lambda user: lambda b: b["connection"]["state"] == "connected" and b["connection"]["user"] == user  # noqa: E731
    try:
        # the configured token
        r.until("/accel/v1/info", connected("notebook-user"))
        assert r.call("GET", "/accel/v1/jobs")[0] == 200
        r.call("POST", "/accel/v1/fit", {"kind": "pytorch", "command": ["true"]})
        r.call("GET", "/accel/v1/jobs/pytorch/no-such-job")
        r.call("POST", "/accel/v1/jobs", {"kind": "pytorch", "command": ["true"], "queue": "no-such-queue"})
        r.call("GET", "/accel/v1/inventory")  # not visible to notebook-user: a state, with words

        # forwarded tokens, as an auth proxy adds them to every request
        fwd = {HEADER: foreign}
        info = r.until("/accel/v1/info", connected("queue-viewer"), headers=fwd)
        assert info["connection"]["identity"] == "forwarded", info
        for path in ("/accel/v1/inventory", "/accel/v1/queues", "/accel/v1/workloads", "/accel/v1/jobs"):
            assert r.call("GET", path, headers=fwd)[0] == 200, path
        r.call("POST", "/accel/v1/jobs", {"kind": "pytorch", "command": ["true"], "queue": "nope"}, headers=fwd)
        assert r.call("GET", "/accel/v1/info", headers={HEADER: f"Bearer {foreign}"})[0] == 200
        code, err = r.call("GET", "/accel/v1/info", headers={HEADER: f"two {foreign}"})
        assert code == 400 and err["field"] == f"header {HEADER}", err
        r.until("/accel/v1/info", lambda b: b["connection"]["state"] == "error", headers={HEADER: refused})
        for path in ("/accel/v1/jobs", "/accel/v1/inventory", "/accel/v1/info"):
            r.call("GET", path, headers={HEADER: refused})  # whatever it answers, its text is searched below
        r.call("POST", "/accel/v1/jobs", {"kind": "pytorch", "command": ["true"]}, headers={HEADER: refused})
        r.until("/accel/v1/info", connected("queue-viewer"), headers=fwd)

        # pasted tokens win over the forwarded one
        code, conn = r.call("PUT", "/accel/v1/identity/token", {"token": configured})
        assert code == 200 and conn["state"] == "connected" and conn["user"] == "notebook-user", conn
        assert r.call("GET", "/accel/v1/jobs")[0] == 200
        code, conn = r.call("PUT", "/accel/v1/identity/token", {"token": foreign})
        assert code == 200 and conn["user"] == "queue-viewer", conn
        r.call("GET", "/accel/v1/queues")
        code, conn = r.call("PUT", "/accel/v1/identity/token", {"token": bad})
        assert code == 200 and conn["state"] == "error", conn  # the API server refused it: a state, not a 500
        for path in ("/accel/v1/jobs", "/accel/v1/inventory", "/accel/v1/queues", "/accel/v1/info"):
            r.call("GET", path)
        r.call("POST", "/accel/v1/jobs", {"kind": "pytorch", "command": ["true"]})
        assert r.call("PUT", "/accel/v1/identity/token", {"token": spaced})[0] == 400
        assert r.call("PUT", "/accel/v1/identity/token", {"token": huge})[0] == 400
        assert r.call("PUT", "/accel/v1/identity/token", f'{{"token": "{bad}'.encode())[0] == 400  # cut-off JSON
        assert r.call("PUT", "/accel/v1/identity/token", {"token": bad, "extra": bad})[0] == 400
        assert r.call("PUT", "/accel/v1/identity/token", {"token": [bad]})[0] == 400
        assert r.call("PUT", "/accel/v1/identity/token", {"token": 5})[0] == 400
        # (not sent: a token in the URL. `?token=` is Jupyter's own login parameter, and Jupyter's XSRF warning
        # logs the whole URL; no client of this API puts a bearer token there.)
        code, conn = r.call("DELETE", "/accel/v1/identity/token", headers=fwd)
        assert code == 200, conn
        r.until("/accel/v1/info", connected("queue-viewer"), headers=fwd)  # back to the forwarded identity
    finally:
        server.stop()
    lines = server.log_text().splitlines()
    assert any("DEBUG" in line or "[D " in line for line in lines), "the server did not log at DEBUG"
    assert any("identity/token" in line for line in lines), "the token requests are not in the log"
    assert any(f"header {HEADER}" in line for line in lines), "the forwarded token was never taken"
    leaks = []
    for what, token in tokens.items():
        pieces = {token, *(p for p in token.split() if len(p) >= 12), token[:24], token[-24:]}
        for piece in pieces:
            leaks += [f"{what} in log line {i}: {line[:200]}" for i, line in enumerate(lines) if piece in line]
            leaks += [f"{what} in response {i}: {b[:200]}" for i, b in enumerate(r.responses) if piece in b]
    note(
        f"tokens: {len(tokens)} token values (configured, forwarded, pasted) searched in {len(lines)} DEBUG log "
        f"lines and {len(r.responses)} whole responses: {len(leaks)} found"
    )
    assert not leaks, leaks[:10]
