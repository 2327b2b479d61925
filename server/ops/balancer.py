"""A small TCP load balancer for local multi-process runs (``tablehub balance``).

Round-robin over hub backends; a backend that refuses the connection is skipped, so
clients that reconnect after a hub died land on a live one.  It splices bytes, so
WebSocket upgrades pass through untouched.  Production uses nginx/HAProxy
(``deploy/``); this exists so the same topology runs here without Docker.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging

log = logging.getLogger("tablehub.balancer")


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


class Balancer:
    def __init__(self, backends: list[tuple[str, int]]) -> None:
        self.backends = backends
        self._next = itertools.cycle(range(len(backends)))

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        last: Exception | None = None
        for _ in range(len(self.backends)):
            host, port = self.backends[next(self._next)]
            try:
                return await asyncio.open_connection(host, port)
            except OSError as err:
                last = err
        raise ConnectionError(f"no backend answered: {last}")

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await self._connect()
        except ConnectionError as err:
            log.warning("%s", err)
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    async def serve(self, host: str, port: int) -> asyncio.Server:
        return await asyncio.start_server(self.handle, host, port)


async def run_balancer(host: str, port: int, backends: list[tuple[str, int]]) -> None:
    server = await Balancer(backends).serve(host, port)
    async with server:
        await server.serve_forever()


def parse_backend(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)
