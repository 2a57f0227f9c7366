"""mitmproxy addon (run by mitmdump, Debian's Python: imports nothing of the project): answers matching requests to
the Kubernetes API server with an injected status, or delays them, as a rules file says; logs every request.

Options: `--set faults=RULES.json --set fault_log=LOG.jsonl`. The rules file is read again whenever it changes:
a JSON list of rules, the first that matches a request wins:

    {"id": "r1", "method": "POST", "path": "regex searched in path?query", "status": 429, "retry_after": "2",
     "after": false, "times": 2, "delay": 0.0, "percent": 100}

- `status`: answer this instead of the API server (`after: true`: forward first, then replace the API server's
  answer — the work is done, the client sees the error);
- `delay`: seconds to hold the request before it goes on (with or without a status);
- `times`: only the first N matching requests (no limit without it); `percent`: that share of them, at random.

Each line of the log: {"t": monotonic seconds, "method", "path", "rule": id or null, "status": what the client got}.
CLOCK_MONOTONIC is the machine's, so the tests compare these times with their own.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import time

from mitmproxy import ctx, http

STREAMING = re.compile(r"[?&](watch=(true|1)|follow=(true|1))")


class Faults:
    def __init__(self) -> None:
        self.rules: list[dict] = []
        self.mtime = 0.0
        self.counts: dict[str, int] = {}

    def load(self, loader) -> None:
        loader.add_option("faults", str, "", "JSON rules file")
        loader.add_option("fault_log", str, "", "JSONL log of every request")

    def _rules(self) -> list[dict]:
        path = ctx.options.faults
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return []
        if mtime != self.mtime:
            with open(path) as f:
                self.rules, self.mtime, self.counts = json.load(f), mtime, {}
        return self.rules

    def _match(self, flow: http.HTTPFlow) -> dict | None:
        for rule in self._rules():
            if rule.get("method") and rule["method"] != flow.request.method:
                continue
            if not re.search(rule.get("path", ""), flow.request.path):
                continue
            n = self.counts.get(rule["id"], 0)
            if rule.get("times") is not None and n >= rule["times"]:
                continue
            if random.uniform(0, 100) >= rule.get("percent", 100):
                continue
            self.counts[rule["id"]] = n + 1
            return rule
        return None

    def _log(self, flow: http.HTTPFlow, rule: dict | None, status: int) -> None:
        line = {
            "t": time.monotonic(),
            "method": flow.request.method,
            "path": flow.request.path,
            "rule": rule["id"] if rule else None,
            "status": status,
        }
        with open(ctx.options.fault_log, "a") as f:
            f.write(json.dumps(line) + "\n")

    def _answer(self, rule: dict) -> http.Response:
        status = int(rule["status"])
        body = {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "message": f"injected by the fault proxy ({rule['id']})",
            "reason": "TooManyRequests" if status == 429 else "InternalError",
            "code": status,
        }
        headers = {"Content-Type": "application/json"}
        if rule.get("retry_after") is not None:
            headers["Retry-After"] = str(rule["retry_after"])
        return http.Response.make(status, json.dumps(body).encode(), headers)

    async def request(self, flow: http.HTTPFlow) -> None:
        rule = self._match(flow)
        flow.metadata["fault"] = rule
        if rule is None:
            return
        if rule.get("delay"):
            await asyncio.sleep(float(rule["delay"]))
        if rule.get("status") and not rule.get("after"):
            flow.response = self._answer(rule)
            self._log(flow, rule, flow.response.status_code)
            flow.metadata["logged"] = True

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        if STREAMING.search(flow.request.path):
            flow.response.stream = True  # watches and followed logs pass through as they come
            self._log(flow, flow.metadata.get("fault"), flow.response.status_code)
            flow.metadata["logged"] = True

    def response(self, flow: http.HTTPFlow) -> None:
        if flow.metadata.get("logged"):
            return
        rule = flow.metadata.get("fault")
        if rule and rule.get("status") and rule.get("after"):
            flow.response = self._answer(rule)
        self._log(flow, rule, flow.response.status_code)

    def error(self, flow: http.HTTPFlow) -> None:
        if not flow.metadata.get("logged"):
            self._log(flow, flow.metadata.get("fault"), 0)


addons = [Faults()]
