"""`python -m jupyter_accel.readservice`: the caches, the publisher, the authorizer and the HTTP server, wired.

In a pod the service account is the identity (in-cluster); elsewhere a kubeconfig. Its account needs list and
watch on nodes, pods and Kueue's cluster-scoped objects, and create on tokenreviews and subjectaccessreviews
(examples/read-service/). It keeps no state: a restart lists again, and clients refetch on the new `instance`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import ssl
import uuid

from tornado import web
from tornado.httpserver import HTTPServer

from ..cluster.gil import share_with_event_loop
from ..cluster.identity_caches import IdentityCaches
from ..cluster.session import resolve
from ..config import AccelConfig
from .auth import Authorizer
from .handlers import BaseHandler, Refusal, Streams, routes
from .keys import ALLOCATIONS_POLICIES, REPLACED_CACHES
from .publish import Publisher

log = logging.getLogger("jupyter_accel.readservice")


class NotFound(BaseHandler):
    def prepare(self) -> None:
        raise Refusal(404, f"No such path: {self.request.path[:200]!r}; see docs/rest-api.md.", "Not found")


class Service:
    """One running read service. `start` runs on the event loop that serves it."""

    def __init__(
        self, api, *, interval: float = 1.0, request_timeout: float = 10.0, allocations_for: str = "pods"
    ) -> None:
        self.instance = uuid.uuid4().hex[:12]
        self.streams = Streams()
        self.allocations_for = allocations_for
        self.auth = Authorizer(api, request_timeout, policy={"allocations": ALLOCATIONS_POLICIES[allocations_for]})
        self._loop: asyncio.AbstractEventLoop | None = None
        # the cluster-scoped caches only; "default" is the namespace the hub's permission probe asks about
        self.hub = IdentityCaches(
            api, "default", self._on_change, request_timeout=request_timeout, only=REPLACED_CACHES
        )
        self.publisher = Publisher(self.hub, self.instance, interval, self._published)

    def _on_change(self, key: str) -> None:
        self.publisher.on_change(key)

    def _published(self, changed: set[str]) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.streams.publish, changed)

    def app(self) -> web.Application:
        return web.Application(routes(), service=self, default_handler_class=NotFound)  # type: ignore[arg-type]

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.hub.start()
        self.publisher.start()

    def stop(self) -> None:
        self.publisher.stop()
        self.hub.stop()
        self.auth.pool.shutdown(wait=False, cancel_futures=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m jupyter_accel.readservice", description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument(
        "--address",
        default="127.0.0.1",
        help="address to listen on; default loopback only: in a pod, 0.0.0.0 (and --certfile / --keyfile for HTTPS)",
    )
    ap.add_argument("--kubeconfig", default="", help="a kubeconfig; default: in-cluster in a pod, else $KUBECONFIG")
    ap.add_argument("--certfile", default="", help="serve HTTPS with this certificate (PEM) ...")
    ap.add_argument("--keyfile", default="", help="... and this key (e.g. an OpenShift serving-cert Secret)")
    ap.add_argument(
        "--interval",
        type=float,
        default=1.0,
        help="at most one revision per this many seconds under churn (a lone change: at once)",
    )
    ap.add_argument("--request-timeout", type=float, default=10.0, help="seconds per Kubernetes call")
    ap.add_argument(
        "--allocations-for",
        choices=sorted(ALLOCATIONS_POLICIES),
        default="pods",
        help="who may read per-node allocated sums (no pod names, no namespaces): those who may list every pod "
        "(default), or anyone who may list nodes, so tier-b workbenches see free accelerators",
    )
    ap.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = ap.parse_args(argv)
    if bool(args.certfile) != bool(args.keyfile):
        ap.error("--certfile and --keyfile go together")
    return args


def api_client(kubeconfig: str, timeout: float):
    """The service's own identity, resolved as the workbench resolves its own (cluster/session.py)."""
    cfg = AccelConfig(identity="kubeconfig" if kubeconfig else "auto", kubeconfig=kubeconfig, request_timeout=timeout)
    resolved = resolve(cfg)
    if resolved.api_client is None:
        raise SystemExit(f"read service: no Kubernetes identity: {resolved.message}")
    return resolved.api_client


async def serve(args: argparse.Namespace) -> None:
    service = Service(api_client(args.kubeconfig, args.request_timeout), interval=args.interval,
                      request_timeout=args.request_timeout, allocations_for=args.allocations_for)  # fmt: skip
    ssl_ctx = None
    if args.certfile:
        ssl_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ssl_ctx.load_cert_chain(args.certfile, args.keyfile)
    server = HTTPServer(service.app(), ssl_options=ssl_ctx, idle_connection_timeout=3600)
    server.listen(args.port, args.address)
    share_with_event_loop()  # its caches' and publisher's threads beside the loop that serves (cluster/gil.py)
    service.start()
    scheme = "https" if ssl_ctx else "http"
    log.info("read service %s listening on %s://%s:%d; allocations for those who may list %s", service.instance,
             scheme, args.address, args.port, args.allocations_for)  # fmt: skip
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stopped.set)
    await stopped.wait()
    log.info("read service stopping")
    server.stop()
    await loop.run_in_executor(None, service.stop)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(args))
    return 0
