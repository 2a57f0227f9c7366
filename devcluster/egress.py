"""The API server's explicit relay to the real node: an HTTP CONNECT relay on UNIX sockets, in two halves.

The API server reaches kubelets, pods and Services (logs, exec, the service proxy) through its egress selector
(`cluster` traffic, HTTPConnect over a UNIX socket). Pod and node addresses are private and exist only inside the
real node's network namespace, so:

- `outer` runs on the host, next to the API server. A CONNECT to a loopback address (kwok's kubelet API, Kueue's
  visibility server) is dialled directly; a CONNECT to the node's networks is handed, unchanged, to the inner half
  over a second UNIX socket; anything else is refused with 403. It never dials a non-loopback address.
- `inner` runs inside the node's network namespace and dials only the node's networks.

Usage: python -m devcluster.egress outer LISTEN.sock INNER.sock NET[,NET...]
       python -m devcluster.egress inner LISTEN.sock NET[,NET...]
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import sys

MAX_HEAD = 8192
OK = b"HTTP/1.1 200 Connection established\r\n\r\n"


def _target(head: bytes) -> tuple[str, int] | None:
    """(host, port) of a `CONNECT host:port HTTP/1.x` request head, or None."""
    try:
        method, target, _ = head.split(b"\r\n", 1)[0].decode("ascii").split(" ", 2)
        host, port = target.rsplit(":", 1)
        return (host.strip("[]"), int(port)) if method == "CONNECT" else None
    except ValueError:
        return None


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _splice(a: tuple, b: tuple) -> None:
    await asyncio.gather(_pipe(a[0], b[1]), _pipe(b[0], a[1]))


class Relay:
    def __init__(self, nets: list[ipaddress.IPv4Network], inner_sock: str | None) -> None:
        self.nets, self.inner_sock = nets, inner_sock

    def _in_nets(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return any(ip in n for n in self.nets)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        target = _target(head)
        try:
            ip = ipaddress.ip_address(target[0]) if target else None
        except ValueError:
            ip = None  # a name: never resolved here, so refused
        try:
            if ip is not None and self.inner_sock is not None and ip.is_loopback:
                upstream = await asyncio.open_connection(str(ip), target[1])
                writer.write(OK)
            elif ip is not None and self._in_nets(ip) and self.inner_sock is not None:
                upstream = await asyncio.open_unix_connection(self.inner_sock)
                upstream[1].write(head)  # the inner half answers the CONNECT itself
            elif ip is not None and self._in_nets(ip):
                upstream = await asyncio.open_connection(str(ip), target[1])
                writer.write(OK)
            else:
                writer.write(b"HTTP/1.1 403 Forbidden\r\n\r\nonly loopback and the dev cluster's node networks\n")
                writer.close()
                return
        except OSError as e:
            writer.write(f"HTTP/1.1 502 Bad Gateway\r\n\r\n{e}\n".encode())
            writer.close()
            return
        await _splice((reader, writer), upstream)


async def serve(sock_path: str, relay: Relay) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock_path)
    server = await asyncio.start_unix_server(relay.handle, path=sock_path, limit=MAX_HEAD)
    os.chmod(sock_path, 0o600)
    async with server:
        await server.serve_forever()


def main(argv: list[str]) -> None:
    mode = argv[0] if argv else ""
    if mode == "outer" and len(argv) == 4:
        listen, inner, nets = argv[1], argv[2], argv[3]
    elif mode == "inner" and len(argv) == 3:
        listen, inner, nets = argv[1], None, argv[2]
    else:
        sys.exit(__doc__)
    relay = Relay([ipaddress.ip_network(n) for n in nets.split(",")], inner)
    asyncio.run(serve(listen, relay))


if __name__ == "__main__":
    main(sys.argv[1:])
