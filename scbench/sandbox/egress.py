"""The only way out of a contained sandbox: a CONNECT proxy on the host that opens TLS tunnels to an allowlist.

A sandbox that needs the network (a track's set-up fetching packages, an agent calling its API) still runs in
its own network namespace with nothing but a loopback. Inside, ``relay.py --outbound`` listens on
``127.0.0.1:PORT`` and forwards every connection to this proxy's Unix socket, which the host listens on; the
sandbox's ``HTTPS_PROXY`` names that port. The proxy accepts ``CONNECT host:443`` for the allowed host names
only, resolves them on the host and refuses any that resolve to a loopback, link-local, multicast or
unspecified address (the host's own services and cloud metadata endpoints), then copies bytes both ways: TLS is
end to end between the tool and the registry. Anything else (another host or port, a plain-HTTP request) is
answered 403 and recorded. This is the proxy-and-namespace design of Anthropic's sandbox-runtime and of
Codex's cloud sandboxes; requests are parsed by the standard library's :mod:`http.server`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import socketserver
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from scbench.sandbox.relay import pump

TLS_PORT = 443
CONNECT_TIMEOUT_S = 30.0


def _unsafe(address: str) -> bool:
    """Whether a resolved address is one a tunnel must never reach: the host itself, its link, a multicast
    group, or no address at all."""
    ip = ipaddress.ip_address(address.split("%")[0])
    return ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_unspecified


class _Tunnel(BaseHTTPRequestHandler):
    """One client connection: a ``CONNECT`` to an allowed host becomes a tunnel; anything else a 403."""

    server: EgressProxy
    rbufsize = 0
    """Unbuffered: a client's first bytes after its CONNECT (a TLS hello sent early) must reach the tunnel, not
    stay in a read buffer."""

    def do_CONNECT(self) -> None:  # noqa: N802 (http.server's naming)
        host, _, port = self.path.rpartition(":")
        why = self.server.refusal(host.lower(), port)
        if why:
            self.server.record(f"refused CONNECT {self.path}: {why}")
            self.send_error(403, why)
            return
        try:
            upstream = self.server.open(host.lower())
        except OSError as error:
            self.server.record(f"refused CONNECT {self.path}: {error}")
            self.send_error(502, str(error))
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        back = threading.Thread(target=pump, args=(upstream, self.connection), daemon=True)
        back.start()
        pump(self.connection, upstream)
        back.join()
        upstream.close()
        self.close_connection = True

    def _refuse(self) -> None:
        self.server.record(f"refused {self.command} {self.path}: only CONNECT tunnels to allowed hosts")
        self.send_error(403, "only CONNECT tunnels to allowed hosts (HTTPS)")

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def address_string(self) -> str:
        return "sandbox"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's signature)
        """Quiet: what matters (refusals) is recorded by the handlers themselves."""


class EgressProxy(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The proxy listening on the Unix socket ``path`` for tunnels to ``hosts`` (names, port 443), each refusal
    passed to ``record``; it serves in a thread from :meth:`start` to :meth:`stop`."""

    daemon_threads = True

    def __init__(self, path: Path, hosts: tuple[str, ...], record: Callable[[str], None]):
        self.hosts = frozenset(host.lower() for host in hosts)
        self.record = record
        super().__init__(str(path), _Tunnel)

    def refusal(self, host: str, port: str) -> str:
        """Why a tunnel to ``host:port`` is refused (``""``: it is allowed)."""
        if port != str(TLS_PORT):
            return f"only port {TLS_PORT} is allowed"
        if host not in self.hosts:
            return f"{host} is not an allowed host ({', '.join(sorted(self.hosts)) or 'none'})"
        return ""

    def open(self, host: str) -> socket.socket:
        """A TCP connection to ``host``'s TLS port. Raises ``OSError`` when it does not resolve, resolves to an
        address a tunnel must not reach, or does not answer."""
        addresses = [info[4][0] for info in socket.getaddrinfo(host, TLS_PORT, type=socket.SOCK_STREAM)]
        unsafe = [address for address in addresses if _unsafe(address)]
        if unsafe:
            raise OSError(f"{host} resolves to {', '.join(unsafe)}, which a sandbox may not reach")
        upstream = socket.create_connection((addresses[0], TLS_PORT), timeout=CONNECT_TIMEOUT_S)
        upstream.settimeout(None)  # the address checked is the one connected to (no second resolution)
        return upstream

    def start(self) -> EgressProxy:
        """Serve in a thread; returns the proxy."""
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving (tunnels open now end with their sandbox) and remove the socket."""
        self.shutdown()
        self.server_close()
        with contextlib.suppress(FileNotFoundError):
            Path(self.server_address).unlink()
