"""How a hub process runs under uvicorn: one configuration for ``tablehub serve`` and
the tests (so the tests exercise production's settings).

* uvicorn serves HTTP (Starlette) and hands every WebSocket upgrade to the hub's own
  protocol class, :class:`~tablehub.server.transport.connection.HubConnection` (websockets'
  sans-I/O framing driving the session straight from ``data_received``: no ASGI queue or
  task per connection).  uvicorn is pinned (pyproject.toml): the hand-over -- the
  ``ws=`` class constructed with ``config``, ``server_state`` and ``app_state``,
  ``connection_made`` then ``data_received`` with the request, ``shutdown()`` on exit --
  is checked by tests/server/transport/test_uvicorn_contract.py;
* no per-message deflate (it triples memory per connection, 10–17 µs a message);
* frames over the protocol's ``max_frame_bytes`` are refused (close 1009);
* ``X-Forwarded-For`` is believed only from ``Access.trusted_proxies`` (uvicorn's
  ``forwarded_allow_ips``): the per-address limits, ``/metrics`` and the whole
  ``/healthz`` see the real client behind the balancer, and nobody else can claim one;
* bounded send buffers: the kernel's send buffer of each accepted socket is fixed at
  ``Limits.socket_send_buffer`` (Linux otherwise grows it to ~4 MB, enough to hide a
  whole backlog from the session's bounded outbox, so the slow-reader rule never
  fired) and the transport pauses writes above ``Limits.transport_write_buffer``.
"""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass

import uvicorn

from tablehub.server.transport.app import HubApp
from tablehub.server.transport.connection import HubConnection


def hub_config(
    app: HubApp,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    loop: str = "uvloop",
) -> uvicorn.Config:
    """The uvicorn configuration of a hub (``loop`` only matters when uvicorn makes it)."""
    protocol = type("HubConnection", (HubConnection,), {"endpoint": app.ws, "__slots__": ()})
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        loop=loop,
        ws=protocol,
        ws_per_message_deflate=False,
        proxy_headers=True,
        forwarded_allow_ips=app.access.trusted_proxies,
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


async def serve_in_process(app: HubApp, log_level: str = "warning") -> InProcessHub:
    """Serve ``app`` on a free loopback port in this event loop; returns once it listens."""
    # proto=IPPROTO_TCP matters: asyncio only sets TCP_NODELAY on accepted sockets of a
    # listening socket created with it (without it every second frame waits ~40 ms for
    # the peer's delayed ACK).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(hub_config(app, port=port, log_level=log_level))
    server.config.setup_event_loop = lambda: None  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        # uvicorn offers no start-up callback; poll its flag between loop iterations.
        await asyncio.sleep(0.01)
    return InProcessHub(app, server, port, task)
