"""``/ws``: each WebSocket connection is one ``asyncio.Protocol`` that drives its session.

Theory of operation: uvicorn parses HTTP and hands an upgrade request to the WebSocket
protocol class it was configured with (``uvicorn.Config(ws=...)``, server/runner.py);
ours is :class:`HubConnection`, built on websockets' sans-I/O ``ServerProtocol`` for the
handshake and the framing.  From there on there is no ASGI queue, no task and no future
per connection or per message: ``data_received`` parses the frames and hands each
message to the sans-I/O :class:`~tablehub.server.sessions.session.Session`, which runs
it (an act on a table this process owns is decided, committed and answered within the
same pass) and queues what to send in its outbox; one callback at the end of the loop
turn (:meth:`HubConnection.wake`) writes everything queued in one ``transport.write``.

Backpressure comes from the transport: while its buffer is over
``Limits.transport_write_buffer`` (``pause_writing``) nothing more is written and the
session's bounded outbox takes the backlog (the slow-reader rules);
``resume_writing`` writes again.  A transport paused for ``Limits.stale_after_s``
means a reader slower than its tables: its pending pushes become a fresh snapshot.
Fairness: at most ``FRAMES_PER_TURN`` messages of one connection are handled in a row;
the rest wait for the next loop turn with reading paused.  Keepalive and the ``hello``
deadline are checked for every connection by one timer of the :class:`WsEndpoint` (a
ping every ``Limits.ping_interval_s``; unanswered for ``ping_timeout_s``: close 4000 --
the ping waits behind everything not yet read, so an unanswered ping means a reader
that stopped reading or a dead peer).

Transport only: subprotocol negotiation, the page's ``Origin`` (config.Access), frames
in and out, close codes, connections per client address.  Every connection ends with a
close frame: a failure in the session is logged and closed with 1011, never a dropped
socket (protocol/README.md "Close codes").
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import struct
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, cast

from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.server import ServerState
from websockets.exceptions import InvalidState
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol

from tablehub.protocol import Codec, codec_for
from tablehub.server import metrics
from tablehub.server.config import Access, Limits
from tablehub.server.ops.faults import client_fault
from tablehub.server.sessions.hub_api import HubApi
from tablehub.server.sessions.session import SeatHolders, Session, SessionState
from tablehub.server.transport import evacuation

log = logging.getLogger("tablehub.transport")

FRAMES_PER_TURN = 16
"""Messages of one connection handled back to back before the others get a turn."""
TICK_S = 1.0
"""How often the endpoint checks every connection's keepalive and hello deadline."""
WS_PATH = "/ws"


class WsEndpoint:
    """What every connection of one hub shares: the hub, the limits, the seat holders,
    the connections by address, and the one timer that keeps them alive."""

    def __init__(
        self,
        hub: HubApi,
        limits: Limits,
        cut_off: Callable[[], bool] = lambda: False,
        access: Access | None = None,
    ) -> None:
        self.hub = hub
        self.limits = limits
        self.cut_off = cut_off
        self.access = access or Access()
        self.holders = SeatHolders()
        self.connections: set[HubConnection] = set()
        self.per_address: Counter[str] = Counter()
        self.tasks: set[asyncio.Task[None]] = set()
        """Requests that wait for I/O (a table to load, the lobby's listing)."""
        self._tick: asyncio.TimerHandle | None = None
        self._trusted: _TrustedHosts | None = None

    def start(self) -> None:
        self._tick = asyncio.get_running_loop().call_later(TICK_S, self._check)

    def stop(self) -> None:
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        for task in list(self.tasks):
            task.cancel()

    def _check(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        for connection in list(self.connections):
            try:
                connection.check(now)
            except Exception:
                log.exception("keepalive check failed")
        self._tick = loop.call_later(TICK_S, self._check)

    def evacuate(self, code: int, reason: str) -> None:
        """Close every connection on the server's behalf (evacuation.py)."""
        for connection in list(self.connections):
            if connection.session is not None:
                connection.session.close(code, reason)

    def run(self, work: Callable[[], Awaitable[None]]) -> None:
        task = asyncio.get_running_loop().create_task(_run(work))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def client_address(self, config: Config, peer: Any, request: Request) -> str | None:
        """The client's address: the peer's, or X-Forwarded-For's when the peer is a
        trusted proxy (uvicorn's ``forwarded_allow_ips``)."""
        host = str(peer[0]) if isinstance(peer, tuple) and peer else None
        forwarded = request.headers.get_all("X-Forwarded-For")
        if host is None or not forwarded or not config.proxy_headers:
            return host
        if self._trusted is None:
            self._trusted = _TrustedHosts(config.forwarded_allow_ips)
        if host not in self._trusted:
            return host
        real, _ = self._trusted.get_trusted_client_address(", ".join(forwarded))
        return real or host

    def counted_address(self, host: str | None) -> str | None:
        """The address the per-address connection limit counts (None: not counted)."""
        if host is None:
            return None
        if not self.limits.limit_local:
            with contextlib.suppress(ValueError):
                if ipaddress.ip_address(host).is_private:  # includes loopback
                    return None
        return host


async def _run(work: Callable[[], Awaitable[None]]) -> None:
    await work()


class HubConnection(asyncio.Protocol):
    """One WebSocket connection: websockets' sans-I/O protocol for the framing, a
    :class:`Session` for the messages.  Subclassed per app by ``server/runner.py``
    (``endpoint`` set), constructed by uvicorn when it upgrades a connection."""

    endpoint: WsEndpoint

    __slots__ = (
        "_address",
        "_backlog",
        "_close_timer",
        "_connections",
        "_flush_due",
        "_fragments",
        "_opened_at",
        "_paused",
        "_paused_at",
        "_ping",
        "_ping_sent_at",
        "_reading_paused",
        "_receiving",
        "_upgraded_from",
        "config",
        "session",
        "transport",
        "ws",
    )

    def __init__(
        self, config: Config, server_state: ServerState, app_state: dict[str, Any], **_: Any
    ) -> None:
        self.config = config
        self._connections = server_state.connections
        self.transport: asyncio.Transport | None = None
        self.ws = ServerProtocol(max_size=self.endpoint.limits.max_frame_bytes, logger=log)
        self.session: Session | None = None
        self._address: str | None = None
        self._backlog: list[Any] | None = None
        self._close_timer: asyncio.TimerHandle | None = None
        self._flush_due = False
        self._fragments: list[bytes] | None = None
        self._opened_at = 0.0
        self._paused = False
        self._paused_at = 0.0
        self._ping: bytes | None = None
        self._ping_sent_at = 0.0
        self._reading_paused = False
        self._receiving = False
        self._upgraded_from: Any = None

    # -- asyncio.Protocol --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass
        # The HTTP protocol that upgraded this connection: its parser cycle is broken
        # when we are done.
        self._upgraded_from = transport.get_protocol()
        self._connections.add(self)  # type: ignore[arg-type]
        limits = self.endpoint.limits
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, limits.socket_send_buffer)
        high = limits.transport_write_buffer
        self.transport.set_write_buffer_limits(high=high, low=high // 4)
        self._opened_at = asyncio.get_running_loop().time()

    def connection_lost(self, exc: Exception | None) -> None:
        self._connections.discard(self)
        if self._close_timer is not None:
            self._close_timer.cancel()
            self._close_timer = None
        session, self.session = self.session, None
        if session is not None:
            self.endpoint.connections.discard(self)
            metrics.CONNECTIONS.dec()
            session.closed()
            session.link = _GONE
        if self._address is not None:
            per_address = self.endpoint.per_address
            per_address[self._address] -= 1
            if per_address[self._address] <= 0:
                del per_address[self._address]
            self._address = None
        # websockets' parser generator and its protocol reference each other, and a
        # refused frame leaves its exception (traceback, partial payload) behind: free
        # them now rather than at the next (rare) full collection.
        self.ws.parser.close()
        self.ws.parser_exc = None
        self.ws.reader.buffer.clear()
        self._backlog = self._fragments = None
        # uvicorn's HTTP protocol drops its parser (a cycle with it) in its own
        # connection_lost, which an upgraded connection never reaches: here, or as
        # soon as the handshake is done (_release_http).
        self._release_http()
        # asyncio's own selector transport keeps a bound method of itself for reading
        # (a cycle per connection: the default loop in tests; uvloop's have none)
        if hasattr(self.transport, "_read_ready_cb"):
            self.transport._read_ready_cb = None  # type: ignore[union-attr]
        self.transport = None

    def pause_writing(self) -> None:
        self._paused = True
        self._paused_at = asyncio.get_running_loop().time()

    def resume_writing(self) -> None:
        self._paused = False
        self.wake()

    def data_received(self, data: bytes) -> None:
        self.ws.receive_data(data)
        events = self.ws.events_received()
        if self._backlog:
            self._backlog.extend(events)
        else:
            self._backlog = events
        self._handle_events()

    def eof_received(self) -> bool | None:
        self.ws.receive_eof()
        self._handle_events()
        return None

    # -- inbound -------------------------------------------------------------------------

    def _handle_events(self) -> None:
        """Handle the parsed events, at most ``FRAMES_PER_TURN`` messages in a row; what
        they queued is written before returning (see :meth:`wake`)."""
        self._receiving = True
        try:
            self._handle_backlog()
        finally:
            self._receiving = False
            if self._flush_due:
                self._flush()

    def _handle_backlog(self) -> None:
        backlog = self._backlog
        handled = 0
        while backlog and self.transport is not None:
            if handled >= FRAMES_PER_TURN:
                if not self._reading_paused:
                    self._reading_paused = True
                    self.transport.pause_reading()
                asyncio.get_running_loop().call_soon(self._handle_events)
                self._write_protocol_data()
                return
            event = backlog.pop(0)
            if isinstance(event, Request):
                self._handshake(event)
            elif isinstance(event, Frame):
                handled += self._frame(event)
        self._backlog = None
        if self._reading_paused and self.transport is not None:
            self._reading_paused = False
            self.transport.resume_reading()
        self._write_protocol_data()

    def _frame(self, frame: Frame) -> int:
        """Handle one frame; 1 when it completed a message."""
        opcode = frame.opcode
        if opcode is Opcode.PONG:
            if self._ping is not None and bytes(frame.data) == self._ping:
                self._ping = None
            return 0
        if opcode not in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            return 0  # a ping is answered, a close echoed, by the websockets protocol
        if opcode is not Opcode.CONT:
            if frame.fin:
                self._fragments = None
                self._message(opcode is Opcode.TEXT, bytes(frame.data))
                return 1
            self._fragments = [b"T" if opcode is Opcode.TEXT else b"B", bytes(frame.data)]
            return 0
        if self._fragments is None:
            return 0
        self._fragments.append(bytes(frame.data))
        if not frame.fin:
            return 0
        kind, *parts = self._fragments
        self._fragments = None
        self._message(kind == b"T", b"".join(parts))
        return 1

    def _message(self, text: bool, data: bytes) -> None:
        session = self.session
        if session is None:
            return
        frame: bytes | str = data
        if text:
            try:
                frame = data.decode()
            except UnicodeDecodeError:
                client_fault("sent invalid UTF-8", "a text frame")
                session.close(1007, "a text frame that is not valid UTF-8")
                return
        try:
            session.receive(frame)
        except Exception:  # a server bug: logged, and a close frame, never a dropped socket
            log.exception("session %d failed", session.id)
            session.close(1011, "server error")

    def _handshake(self, request: Request) -> None:
        endpoint = self.endpoint
        path = request.path.partition("?")[0]
        offered = [
            token.strip()
            for header in request.headers.get_all("Sec-WebSocket-Protocol")
            for token in header.split(",")
        ]
        codec = codec_for(offered)
        if path != WS_PATH or codec is None:
            self._refuse(403, "")
            return
        origins = request.headers.get_all("Origin")
        hosts = request.headers.get_all("Host")
        if len(origins) > 1 or not endpoint.access.origin_allowed(
            origins[0] if origins else None, hosts[0] if len(hosts) == 1 else None
        ):
            self._refuse(403, "this page's origin may not open game connections here")
            return
        if endpoint.cut_off():  # a balancer tries the next hub (evacuation.py)
            self._refuse(503, evacuation.REFUSAL.decode())
            return
        response = self.ws.accept(request)
        if response.status_code != 101:
            self.ws.send_response(response)
            self._write_protocol_data()
            self._close_transport()
            return
        response.headers["Sec-WebSocket-Protocol"] = codec.name
        self.ws.send_response(response)
        self._forget_handshake()
        # uvicorn's HTTP protocol is done once it handed us the upgrade (this call is
        # still inside it): let it go at the next turn, its parser cycle broken.
        asyncio.get_running_loop().call_soon(self._release_http)
        assert self.transport is not None
        host = endpoint.client_address(
            self.config, self.transport.get_extra_info("peername"), request
        )
        self._start(codec, endpoint.counted_address(host))

    def _forget_handshake(self) -> None:
        """websockets' server parser keeps the request it parsed (headers and all) in
        its generator's frame for the connection's life; when no byte of a frame has
        been read yet, start the frame parser afresh without it (a dozen tracked
        objects a connection; tests/server/test_no_cycles.py counts them)."""
        ws = self.ws
        if ws.reader.buffer or ws.state is not State.OPEN:
            return
        handshake, ws.parser = ws.parser, Protocol.parse(ws)
        next(ws.parser)
        handshake.close()

    def _release_http(self) -> None:
        if hasattr(self._upgraded_from, "parser"):
            self._upgraded_from.parser = None
        self._upgraded_from = None

    def _start(self, codec: Codec, address: str | None) -> None:
        endpoint = self.endpoint
        if address is not None:
            if endpoint.per_address[address] >= endpoint.limits.max_connections_per_address:
                self._send_close(4002, "too many connections from your address")
                return
            endpoint.per_address[address] += 1
            self._address = address
        self._ping_sent_at = asyncio.get_running_loop().time()
        self.session = Session(endpoint.hub, codec, endpoint.limits, self, endpoint.holders)
        endpoint.connections.add(self)
        metrics.CONNECTIONS.inc()

    def _refuse(self, status: int, text: str) -> None:
        """Refuse the handshake with an HTTP answer."""
        self.ws.send_response(self.ws.reject(status, text))
        self._write_protocol_data()
        self._close_transport()

    # -- outbound (the session's Link) ---------------------------------------------------

    def wake(self) -> None:
        """Something was queued: write it at the end of this loop turn -- or, queued
        while this connection's frames are handled (a reply decided at once: ``ping``,
        ``legal`` at an idle table, a refusal), once they are, in the same turn: a
        request's reply then costs no second turn of the loop (no callback, no extra
        poll of the sockets)."""
        if not self._flush_due and self.transport is not None:
            self._flush_due = True
            if not self._receiving:
                asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        """Write what the session queued, as long as the transport takes it."""
        self._flush_due = False
        session, transport = self.session, self.transport
        if session is None or transport is None or session.closing is not None:
            return
        out = session.out
        fresh = session.fresh_snapshot
        budget = self.endpoint.limits.transport_write_buffer
        try:
            while out.pending and not self._paused:
                written = 0
                while out.pending and written < budget:
                    frame = out.take(fresh)
                    if frame is not None:
                        written += len(frame)
                        self._frame_out(frame)
                transport.write(b"".join(self.ws.data_to_send()))
        except InvalidState:
            return  # the connection is closing
        except Exception:
            log.exception("session %d: a push could not be written", session.id)
            session.close(1011, "server error: a message could not be written")

    def close(self, code: int, reason: str) -> None:
        """The session closes: its queued replies, then the close frame (written even
        to a reader whose buffer is full: both are bounded)."""
        session = self.session
        if session is not None and self.transport is not None:
            with contextlib.suppress(InvalidState):
                while (frame := session.out.take_control()) is not None:
                    self._frame_out(frame)
        self._send_close(code, reason)

    def _frame_out(self, frame: bytes | str) -> None:
        """Frame one encoded message for the websockets protocol: a msgpack frame as a
        binary message, a JSON text as a text message."""
        if isinstance(frame, bytes):
            self.ws.send_binary(frame)
        else:
            self.ws.send_text(frame.encode())

    def run(self, work: Callable[[], Awaitable[None]]) -> None:
        self.endpoint.run(work)

    def _send_close(self, code: int, reason: str) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        with contextlib.suppress(InvalidState):
            self.ws.send_close(code, reason)
        self._write_protocol_data()

    def _write_protocol_data(self) -> None:
        """Write what the websockets protocol has to send (handshake, pongs, close
        frames); close the socket when the closing handshake is over."""
        transport = self.transport
        if transport is None:
            return
        data = self.ws.data_to_send()
        if data:
            transport.write(b"".join(data))
        # the websockets protocol asks for EOF with an empty chunk: the closing
        # handshake is over (or a frame broke the protocol), the server closes TCP
        if self.ws.parser_exc is not None:  # a frame broke the protocol: closed already
            if self.session is not None:
                client_fault("broke the WebSocket framing", str(self.ws.parser_exc)[:100])
            self.ws.parser_exc = None  # counted once
            self._close_transport()
        elif data and data[-1] == b"":
            self._close_transport()
        elif self.ws.close_expected() and self._close_timer is None:
            self._close_timer = asyncio.get_running_loop().call_later(
                self.endpoint.limits.close_timeout_s, self._abort
            )
            if self.ws.state is State.CLOSED:
                self._close_transport()

    def _close_transport(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _abort(self) -> None:
        self._close_timer = None
        if self.transport is not None:
            self.transport.abort()

    # -- keepalive -----------------------------------------------------------------------

    def check(self, now: float) -> None:
        """The endpoint's timer: hello deadline, keepalive ping and its answer."""
        session = self.session
        if session is None or session.closing is not None:
            return
        limits = self.endpoint.limits
        if self._paused and now - self._paused_at >= limits.stale_after_s:
            self._paused_at = now  # once per stale_after_s while it stays paused
            session.fell_behind()
        if session.state is SessionState.OPEN and now - self._opened_at > limits.hello_timeout_s:
            session.close(1008, "no hello")
            return
        if self._ping is not None:
            if now - self._ping_sent_at > limits.ping_timeout_s:
                self._ping = None
                # written even to a reader whose buffer is full; dropped if it never reads
                session.close(4000, "slow consumer: a keepalive ping went unanswered")
            return
        if now - self._ping_sent_at >= limits.ping_interval_s:
            self._ping = struct.pack("!I", id(self) & 0xFFFF_FFFF ^ int(now * 1000) & 0xFFFF_FFFF)
            self._ping_sent_at = now
            with contextlib.suppress(InvalidState):
                self.ws.send_ping(self._ping)
            self._write_protocol_data()

    def shutdown(self) -> None:
        """uvicorn stops: close with 1012 (service restart: reconnect)."""
        if self.session is not None:
            self.session.closing = (1012, "server restarting")
        self._send_close(1012, "server restarting")
        self._close_transport()


class _Gone:
    """The link of a session whose connection is gone: nothing to write any more."""

    def wake(self) -> None:
        pass

    def close(self, code: int, reason: str) -> None:
        pass

    def run(self, work: Callable[[], Awaitable[None]]) -> None:
        pass


_GONE = _Gone()
