"""cluster/metrics.py, what it sends and how it reads refusals, against a loopback HTTP server that records the
request (the real Prometheus answers the integration tests); and the sentences a refusal becomes."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

from jupyter_accel.cluster.metrics import MetricsClient, MetricsError
from jupyter_accel.services.utilization import refusal


@pytest.fixture
def server():
    seen: list[dict] = []
    answer = {"status": 200}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"])).decode()
            seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "form": parse_qs(body)})
            doc = (
                {"status": "success", "data": {"resultType": "matrix", "result": [{"metric": {}, "values": []}]}}
                if answer["status"] == 200
                else {"status": "error", "error": "forbidden by policy"}
            )
            data = json.dumps(doc).encode()
            self.send_response(answer["status"])
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen, answer
    httpd.shutdown()


def test_a_range_query_is_posted_with_the_users_token_only_when_there_is_one(server):
    url, seen, _ = server
    assert MetricsClient(url, token=lambda: "user-token").query_range("up", 0, 60, 30) == [{"metric": {}, "values": []}]
    MetricsClient(url).query_range("up", 0, 60, 30)
    assert [s["auth"] for s in seen] == ["Bearer user-token", None]
    assert seen[0]["path"] == "/api/v1/query_range"
    assert seen[0]["form"] == {"query": ["up"], "start": ["0.000"], "end": ["60.000"], "step": ["30"]}


def test_refusals_and_unreachable_apis_keep_their_status_and_read_as_sentences(server):
    url, _, answer = server
    answer["status"] = 403
    with pytest.raises(MetricsError) as refused:
        MetricsClient(url).query_range("up", 0, 60, 30)
    assert refused.value.status == 403 and refused.value.message == "forbidden by policy"
    assert refusal(url, refused.value).endswith("its figures are not visible to your account.")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(MetricsError) as down:
        MetricsClient(closed, timeout=2).query_range("up", 0, 60, 30)
    assert down.value.status == 0 and refusal(closed, down.value).startswith(f"The metrics API at {closed} cannot")
