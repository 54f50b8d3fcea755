"""Serve a port of a sandbox that has no network: ``python3 relay.py SOCKET PORT``.

Waits until something accepts connections on 127.0.0.1:PORT inside the sandbox, then listens
on the Unix socket SOCKET (a path the host sees too) and bridges every connection to the port.
The socket exists only once the server is ready, so connecting to it is the readiness probe.
Standard library only: it runs with whichever Python the sandbox has.
"""

import asyncio
import sys

POLL = 0.01
"""Seconds between attempts to reach the port before the server is ready."""


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass  # the other side went away: close our side too
    finally:
        writer.close()


async def bridge(port: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        writer.close()
        return
    await asyncio.gather(pump(reader, upstream_writer), pump(upstream_reader, writer))


async def main(path: str, port: int) -> None:
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            break
        except OSError:
            await asyncio.sleep(POLL)
    server = await asyncio.start_unix_server(lambda r, w: bridge(port, r, w), path)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
