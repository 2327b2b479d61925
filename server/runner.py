"""How a hub process runs under uvicorn: one configuration for ``tablehub serve`` and
the tests (so the tests exercise production's settings).

* ``websockets-sansio``: measured at about bare-``websockets`` speed, twice the legacy
  implementation's;
* no per-message deflate (it triples memory per connection, 10–17 µs a message);
* frames over the protocol's ``max_frame_bytes`` are refused by uvicorn (close 1009).
"""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass

import uvicorn

from tablehub.server.config import Limits
from tablehub.server.transport.app import HubApp


def hub_config(
    app: HubApp,
    limits: Limits,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    loop: str = "uvloop",
) -> uvicorn.Config:
    """The uvicorn configuration of a hub (``loop`` only matters when uvicorn makes it)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        loop=loop,
        ws="websockets-sansio",
        ws_max_size=limits.max_frame_bytes,
        ws_per_message_deflate=False,
        log_level=log_level,
        lifespan="on",
    )


@dataclass
class InProcessHub:
    """A hub served by uvicorn inside the running event loop (tests, benchmarks)."""

    app: HubApp
    server: uvicorn.Server
    port: int
    task: asyncio.Task[None]

    async def stop(self) -> None:
        self.server.should_exit = True
        await self.task


async def serve_in_process(app: HubApp, limits: Limits, log_level: str = "warning") -> InProcessHub:
    """Serve ``app`` on a free loopback port in this event loop; returns once it listens."""
    # proto=IPPROTO_TCP matters: asyncio only sets TCP_NODELAY on accepted sockets of a
    # listening socket created with it (without it every second frame waits ~40 ms for
    # the peer's delayed ACK).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(hub_config(app, limits, port=port, log_level=log_level))
    server.config.setup_event_loop = lambda: None  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        # uvicorn offers no start-up callback; poll its flag between loop iterations.
        await asyncio.sleep(0.01)
    return InProcessHub(app, server, port, task)
