"""A lean WebSocket connection for thousands of simulated clients.

Theory of operation: ``websockets``' sans-I/O client (``ClientProtocol``: the real
handshake, framing, masking, ping/pong and closing handshake) driven by a bare
``asyncio.Protocol``.  Bytes from the socket go into the protocol in
``data_received``; each complete message is handed to ``on_message`` right there, with
the arrival time taken once per read.  Sending encodes a frame and writes it to the
transport at once.  So a connection costs no task, no queue and no future per message
-- unlike ``websockets.asyncio``'s connection, which is built for one reader task per
socket (see ``loadtest/README.md`` for the measured difference).

Contract: ``on_message(frame, t)`` is called once per received data message (bytes for
binary frames, str for text frames), in order; ``on_closed(code, reason)`` is called
exactly once when the connection is over, whoever closed it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import cast

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from tablehub.clients.cli.connection import tls_for

OnMessage = Callable[[bytes | str, float], None]
OnClosed = Callable[[int | None, str], None]

MAX_MESSAGE = 2**26
"""Largest message accepted from the server (a 1000-seat snapshot is a few MB)."""


class WireError(ConnectionError):
    """The connection could not be opened (refused, handshake failed, timeout)."""


class Wire(asyncio.Protocol):
    """One client WebSocket connection; see the module docstring."""

    def __init__(self, url: str, subprotocol: str, on_message: OnMessage, on_closed: OnClosed):
        self.url = url
        self.subprotocol = subprotocol
        self.on_message = on_message
        self.on_closed = on_closed
        self.ws = ClientProtocol(
            parse_uri(url), subprotocols=[Subprotocol(subprotocol)], max_size=MAX_MESSAGE
        )
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.bytes_in = 0
        self._fragments: list[bytes] = []
        self._fragment_text = False
        self._closed_reported = False

    @classmethod
    async def open(
        cls,
        url: str,
        subprotocol: str,
        on_message: OnMessage,
        on_closed: OnClosed,
        timeout: float = 30.0,
    ) -> Wire:
        """Connect and complete the WebSocket handshake; raise WireError on failure."""
        wire = cls(url, subprotocol, on_message, on_closed)
        uri = wire.ws.uri
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                await loop.create_connection(lambda: wire, uri.host, uri.port, ssl=tls_for(url))
                await wire.opened
        except (OSError, TimeoutError) as err:
            wire.abort()
            raise WireError(f"cannot connect to {url}: {err!r}") from None
        return wire

    # -- asyncio.Protocol -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but behave as one.
        self.transport = cast(asyncio.Transport, transport)
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        self.bytes_in += len(data)
        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Frame):
                self._on_frame(event, now)
            elif isinstance(event, Response) and not self.opened.done():
                if self.ws.handshake_exc is not None:
                    self.opened.set_exception(WireError(f"handshake: {self.ws.handshake_exc}"))
                else:
                    self.opened.set_result(None)
        self._flush()
        if self.ws.close_expected() and self.transport is not None:
            # The server closes the TCP connection after the closing handshake;
            # do not wait forever for it.
            asyncio.get_running_loop().call_later(10, self.abort)

    def eof_received(self) -> bool | None:
        self.ws.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.ws.receive_eof()
        self.transport = None
        if not self.opened.done():
            self.opened.set_exception(WireError(f"connection lost during handshake: {exc!r}"))
        self._report_closed()

    # -- frames -----------------------------------------------------------------------------

    def _on_frame(self, frame: Frame, now: float) -> None:
        opcode = frame.opcode
        if opcode is Opcode.BINARY or opcode is Opcode.TEXT:
            if frame.fin:
                data = bytes(frame.data)
                self.on_message(data.decode() if opcode is Opcode.TEXT else data, now)
                return
            self._fragments = [bytes(frame.data)]
            self._fragment_text = opcode is Opcode.TEXT
        elif opcode is Opcode.CONT:
            self._fragments.append(bytes(frame.data))
            if frame.fin:
                data = b"".join(self._fragments)
                self._fragments = []
                self.on_message(data.decode() if self._fragment_text else data, now)

    # -- sending ----------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.ws.state is State.OPEN and self.transport is not None

    def send(self, frame: bytes | str) -> bool:
        """Send one message; False when the connection is no longer open."""
        if not self.is_open:
            return False
        if isinstance(frame, bytes):
            self.ws.send_binary(frame)
        else:
            self.ws.send_text(frame.encode())
        self._flush()
        return True

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Start the closing handshake (``on_closed`` follows when the server closes)."""
        if self.ws.state is State.OPEN and self.transport is not None:
            self.ws.send_close(code, reason)
            self._flush()
            asyncio.get_running_loop().call_later(10, self.abort)
        elif self.transport is None:
            self._report_closed()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def _flush(self) -> None:
        transport = self.transport
        if transport is None:
            return
        for data in self.ws.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()

    def _report_closed(self) -> None:
        if self._closed_reported:
            return
        self._closed_reported = True
        code = self.ws.close_rcvd.code if self.ws.close_rcvd is not None else None
        reason = self.ws.close_rcvd.reason if self.ws.close_rcvd is not None else ""
        self.on_closed(code, reason)
