"""Start runs inside a container at a process's cost, not an engine round trip's.

``python3 -S spawner.py DIR`` is a container's main process (under its init): it listens on the Unix
socket ``DIR/spawner.sock`` (the name appears once it listens), in a directory the host shares with the
container (bound from inside ``DIR``, as the whole path may be longer than a socket address may be), and starts
one run per connection.
A connection carries one request, a JSON line ``{"argv": [...], "cwd": "...", "env": {...}}`` sent with
three file descriptors (the run's stdin, stdout and stderr: pipes the host made). The spawner starts
``argv`` in its own session with exactly those, answers ``{"pid": N}`` with a pidfd of the run attached
(the host waits for and signals the run through it, as for its own children), then ``{"exit": CODE}``
once it has reaped the run (negative: killed by that signal), or ``{"error": "..."}`` when the run could
not be started. A ``docker exec`` costs about 0.1 s of engine work and a dozen requests; this costs a fork.

Only the host is served: a connection whose peer has a pid in the container's PID namespace (a run's
process) is closed unanswered, since its peer pid reads as 0 only from outside. The spawner cannot be
traced or read through ``/proc`` by the runs, which have its uid (it is not dumpable), and the host
makes the socket's directory read-only to them once it listens, so none can take its place.

Standard library only: it runs with whichever Python the image has.
"""

import ctypes
import json
import os
import socket
import struct
import subprocess
import sys
import threading

PR_SET_DUMPABLE = 4
SOCKET = "spawner.sock"
"""The socket's name in the spawner's directory."""
LINE_LIMIT = 1 << 20
"""Bytes a message may take (a request: argv and environment)."""


def send_line(connection: socket.socket, message: dict, fds: tuple[int, ...] = ()) -> None:
    """Send ``message`` as one JSON line, with ``fds`` attached to its first byte."""
    data = json.dumps(message).encode() + b"\n"
    sent = socket.send_fds(connection, [data], list(fds))
    if sent < len(data):  # the peer may be gone once it has all it needs: nothing more is sent then
        connection.sendall(data[sent:])


def receive_line(connection: socket.socket, fds: int) -> tuple[dict, list[int]]:
    """The next JSON line of ``connection`` (up to :data:`LINE_LIMIT` bytes) and the up to ``fds`` file
    descriptors attached to it. Raises ``OSError`` when the connection ends (or times out) before it."""
    data, received, _, _ = socket.recv_fds(connection, 65536, fds)
    while data and not data.endswith(b"\n") and len(data) < LINE_LIMIT:
        data += connection.recv(65536)
    if not data.endswith(b"\n"):
        raise OSError("the connection to the container's spawner ended before a whole message")
    return json.loads(data), received


def serve(connection: socket.socket) -> None:
    """Start the run ``connection`` asks for and report on it (see the module docstring)."""
    with connection:
        request, fds = receive_line(connection, 3)
        try:
            run = subprocess.Popen(request["argv"], cwd=request["cwd"], env=request["env"], stdin=fds[0],
                                   stdout=fds[1], stderr=fds[2], start_new_session=True)
        except OSError as error:
            send_line(connection, {"error": f"{request['argv'][0]}: {error.strerror}"})
            return
        finally:
            for fd in fds:
                os.close(fd)
        pidfd = os.pidfd_open(run.pid)
        send_line(connection, {"pid": run.pid}, (pidfd,))
        os.close(pidfd)
        send_line(connection, {"exit": run.wait()})


def from_host(connection: socket.socket) -> bool:
    """Whether the peer of ``connection`` is outside this PID namespace (its pid reads 0 here)."""
    pid, _, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    return pid == 0


def main(directory: str) -> None:
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.chdir(directory)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # Bound under another name and renamed once it listens: the host takes the name's appearance for readiness,
    # and a connection between bind and listen would be refused.
    server.bind(f"{SOCKET}.binding")
    server.listen(64)
    os.rename(f"{SOCKET}.binding", SOCKET)
    while True:
        connection, _ = server.accept()
        if from_host(connection):
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        else:
            connection.close()


if __name__ == "__main__":
    main(sys.argv[1])
