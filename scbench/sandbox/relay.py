"""Bridge a sandbox that has no network to the host, through a Unix socket both see.

``python3 -S relay.py SOCKET PORT`` serves a port of the sandbox: it waits until something accepts
connections on 127.0.0.1:PORT inside the sandbox, then listens on the Unix socket SOCKET and bridges
every connection to the port. The socket exists only once the server is ready, so connecting to it
is the readiness probe.

``python3 -S relay.py --outbound PORT SOCKET`` is the way out (``egress.py``): it listens on
127.0.0.1:PORT inside the sandbox and bridges every connection to the host's proxy on SOCKET. It
returns once it listens (a forked child serves), so a command started after it finds the port ready.

Standard library only, sockets and threads (cheap to start): it runs with whichever Python
the sandbox has.
"""

import os
import socket
import sys
import threading
import time

POLL = 0.002
"""Seconds between attempts to reach the port before the server is ready."""


def pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until ``source`` ends, then pass the end on (half-close ``sink``).

    When ``sink`` stops taking data (a server that answered early, e.g. 413 for a request too large,
    and closed), the rest of ``source`` is read and discarded until it ends: closing it instead would
    reset the connection, and the answer the other direction still carries would be lost."""
    try:
        while data := source.recv(65536):
            sink.sendall(data)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        discard(source)


def discard(source: socket.socket) -> None:
    """Read ``source`` until it ends or fails, keeping nothing."""
    try:
        while source.recv(65536):
            pass
    except OSError:
        return


def connect(port: int) -> socket.socket:
    """A TCP connection to the port with Nagle's algorithm off: a client's request comes in
    several writes (headers, then body), and with it on every write after the first waits for
    the server's delayed ACK (40 ms on Linux) before it is passed on. Raises ``OSError``."""
    upstream = socket.create_connection(("127.0.0.1", port))
    upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return upstream


def unix(path: str) -> socket.socket:
    """A connection to the Unix socket ``path``. Raises ``OSError``."""
    upstream = socket.socket(socket.AF_UNIX)
    try:
        upstream.connect(path)
    except OSError:
        upstream.close()
        raise
    return upstream


def bridge(client: socket.socket, upstream_of, address) -> None:
    """Connect ``client`` to ``upstream_of(address)`` (closing it if nothing listens any more)."""
    try:
        upstream = upstream_of(address)
    except OSError:
        client.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def main(path: str, port: int) -> None:
    while True:
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            break
        except OSError:
            time.sleep(POLL)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(64)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=bridge, args=(client, connect, port), daemon=True).start()


def outbound(port: int, path: str) -> None:
    listener = socket.create_server(("127.0.0.1", port))
    if os.fork():
        os._exit(0)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=bridge, args=(client, unix, path), daemon=True).start()


if __name__ == "__main__":
    if sys.argv[1] == "--outbound":
        outbound(int(sys.argv[2]), sys.argv[3])
    else:
        main(sys.argv[1], int(sys.argv[2]))
