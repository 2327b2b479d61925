"""How a hub process runs under uvicorn: one configuration for ``tablehub serve`` and
the tests (so the tests exercise production's settings).

* ``websockets-sansio``: measured at about bare-``websockets`` speed, twice the legacy
  implementation's;
* no per-message deflate (it triples memory per connection, 10–17 µs a message);
* frames over the protocol's ``max_frame_bytes`` are refused by uvicorn (close 1009);
* bounded send buffers (:class:`HubWebSocketProtocol`): the kernel's send buffer of each
  accepted socket is fixed at ``Limits.socket_send_buffer`` (Linux otherwise grows it to
  ~4 MB, enough to hide a whole backlog from the session's bounded queue, so the
  slow-reader rule never fired) and the transport pauses writes above
  ``Limits.transport_write_buffer``;
* keepalive: a ping every ``Limits.ping_interval_s``; a peer that has not answered it
  ``Limits.ping_timeout_s`` later is closed with 4000 (slow consumer) -- the ping waits
  behind everything not yet read, so an unanswered ping means a reader that stopped
  reading (or a dead peer), not a server error (uvicorn's own code for it is 1011).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from dataclasses import dataclass
from typing import Any

import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from tablehub.server.config import Limits
from tablehub.server.transport.app import FORCE_CLOSE_EXTENSION, WRITE_NOW_EXTENSION, HubApp


class HubWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol with bounded send buffers, a force-close
    for peers that do not read, and the slow-consumer code for an unanswered ping.

    Relies on the internals of uvicorn 0.54 (pinned in pyproject.toml)."""

    limits = Limits()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # The HTTP protocol that upgraded this connection (the transport's protocol
        # until the upgrade completes): its parser cycle is broken when we are done.
        self._upgraded_from: Any = transport.get_protocol()
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.socket_send_buffer)
        high = self.limits.transport_write_buffer
        self.transport.set_write_buffer_limits(high=high, low=high // 4)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # websockets' parser generator and its protocol reference each other, and a
        # refused frame leaves its exception (traceback, partial payload) behind: such
        # cycles wait for a full collection, rare under the hub's GC settings, and 640
        # aborted connections with large frames held ~45 MiB.  Free the buffers now.
        self.conn.parser.close()
        self.conn.parser_exc = None
        self.conn.reader.buffer.clear()
        self.frames = []
        scope = getattr(self, "scope", None)
        if scope is not None:  # the methods in the scope are cycles too
            scope["extensions"].pop(FORCE_CLOSE_EXTENSION, None)
            scope["extensions"].pop(WRITE_NOW_EXTENSION, None)
        # uvicorn's HTTP protocol drops its parser (a cycle with it) in its own
        # connection_lost, which an upgraded connection never reaches: do it here.
        if hasattr(self._upgraded_from, "parser"):
            self._upgraded_from.parser = None
        self._upgraded_from = None

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][FORCE_CLOSE_EXTENSION] = self.force_close
            scope["extensions"][WRITE_NOW_EXTENSION] = self.write_now

    def write_now(self, frame: bytes | str) -> bool:
        """``websocket.send`` of one data frame without awaiting (WRITE_NOW_EXTENSION):
        done at once when the connection is open and the transport is not paused;
        False (nothing written) otherwise."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        try:
            if isinstance(frame, bytes):
                self.conn.send_binary(frame)
            else:
                self.conn.send_text(frame.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    def force_close(self, code: int, reason: str) -> None:
        if self.close_sent or self.transport.is_closing():
            return
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        self.conn.fail(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)
        self.transport.close()  # after the buffered data; the timer covers a peer that never reads

    def keepalive_timeout(self) -> None:
        self.pong_timer = None
        self.pending_ping_payload = None
        self.force_close(4000, "slow consumer: a keepalive ping went unanswered")


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
    protocol = type("HubWebSocketProtocol", (HubWebSocketProtocol,), {"limits": limits})
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        loop=loop,
        ws=protocol,
        ws_max_size=limits.max_frame_bytes,
        ws_ping_interval=limits.ping_interval_s,
        ws_ping_timeout=limits.ping_timeout_s,
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
