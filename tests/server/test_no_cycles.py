"""The hub makes no reference cycles (in the manner of numpy's ``assert_no_gc_cycles``).

A serving hub collects only young objects and freezes what survives
(``server/ops/gc_tuning.py``): a cycle that lives past a second is never collected.  So
each scenario here -- a connection's whole life (connect, hello, create, join, act,
legal, leave, close) on both subprotocols, a seat taken over by another connection, a
refused frame and a frame that closes the connection, a table closed under its watchers
-- runs with the collector off and ``gc.DEBUG_SAVEALL``, against a real hub on real
sockets, and must leave nothing in ``gc.garbage``.  The client is websockets' sans-I/O
protocol on a bare socket (itself cycle-free once its parser is closed), so what a
failure lists is the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.protocol import State
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from tablehub.server.hub.janitor import CLOSE_IDLE_MS
from tests.conftest import RunningHub


class Client:
    """A WebSocket client on a non-blocking socket, driven by the test's loop."""

    def __init__(self, port: int, subprotocol: str) -> None:
        self.port = port
        self.binary = subprotocol.endswith("msgpack")
        self.protocol = ClientProtocol(
            parse_uri(f"ws://127.0.0.1:{port}/ws"), subprotocols=[Subprotocol(subprotocol)]
        )
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.setblocking(False)
        self.frames: list[Frame] = []

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.sock_connect(self.sock, ("127.0.0.1", self.port))
        self.protocol.send_request(self.protocol.connect())
        await self._flush()
        while self.protocol.state is State.CONNECTING:
            await self._receive()

    async def _flush(self) -> None:
        data = b"".join(self.protocol.data_to_send())
        if data:
            await asyncio.get_running_loop().sock_sendall(self.sock, data)

    async def _receive(self) -> None:
        data = await asyncio.wait_for(asyncio.get_running_loop().sock_recv(self.sock, 65536), 10)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        self.frames += [e for e in self.protocol.events_received() if isinstance(e, Frame)]
        await self._flush()  # pongs, the close reply

    async def send(self, msg: dict[str, Any]) -> None:
        if self.binary:
            self.protocol.send_binary(msgpack.packb(msg))
        else:
            self.protocol.send_text(json.dumps(msg).encode())
        await self._flush()

    async def send_raw(self, data: bytes, text: bool) -> None:
        if text:
            self.protocol.send_text(data)
        else:
            self.protocol.send_binary(data)
        await self._flush()

    async def next(self) -> dict[str, Any] | Close:
        """The next message (or the close frame), pings skipped."""
        while True:
            while self.frames:
                frame = self.frames.pop(0)
                if frame.opcode is Opcode.CLOSE:
                    return Close.parse(frame.data)
                if frame.opcode in (Opcode.TEXT, Opcode.BINARY):
                    data = frame.data
                    loaded: dict[str, Any] = (
                        msgpack.unpackb(data) if self.binary else json.loads(bytes(data))
                    )
                    return loaded
            await self._receive()

    async def call(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a request; its reply (pushes before it are skipped)."""
        await self.send(msg)
        while True:
            got = await self.next()
            assert not isinstance(got, Close), got
            if got.get("id") == msg["id"] and got["t"] in ("ok", "error"):
                return got

    async def until(self, kind: str) -> dict[str, Any] | Close:
        while True:
            got = await self.next()
            if isinstance(got, Close) or got["t"] == kind:
                return got

    async def close(self) -> None:
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(1000)
            await self._flush()
        with contextlib.suppress(TimeoutError, OSError):
            while self.protocol.state is not State.CLOSED:
                await self._receive()
        self.sock.close()
        self.protocol.parser.close()  # the sans-I/O parser and its protocol: a cycle


@contextlib.contextmanager
def no_new_cycles() -> Iterator[None]:
    """Fail if the block leaves objects that only the cycle collector would free."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield
    finally:
        gc.collect()
        garbage = list(gc.garbage)
        gc.garbage.clear()
        gc.set_debug(0)
        if enabled:
            gc.enable()
    kinds = sorted({f"{type(o).__module__}.{type(o).__qualname__}" for o in garbage})
    assert not garbage, f"{len(garbage)} objects in reference cycles: {kinds}"


async def connected(running: RunningHub, subprotocol: str, name: str = "ann") -> Client:
    client = Client(running.port, subprotocol)
    await client.open()
    reply = await client.call({"t": "hello", "id": 0, "v": 1, "name": name})
    assert reply["t"] == "ok"
    return client


async def connections_left(running: RunningHub, left: int = 0) -> None:
    """Until the server has ``left`` connections (connection_lost ran for the others)."""
    for _ in range(1000):
        if len(running.app.ws.connections) == left:
            return
        await asyncio.sleep(0.001)
    raise AssertionError("connections still open")


async def whole_life(running: RunningHub, subprotocol: str) -> None:
    client = await connected(running, subprotocol)
    create = {"t": "create_table", "id": 1, "game": "nmbr9", "seats": 1}
    table = (await client.call({**create, "options": {"seed": 5}}))["table"]
    assert (await client.call({"t": "join", "id": 2, "table": table}))["t"] == "ok"
    for request_id in range(3, 9, 2):
        legal = await client.call({"t": "legal", "id": request_id, "table": table})
        act = {"t": "act", "id": request_id + 1, "table": table}
        reply = await client.call({**act, "action": legal["actions"][0]})
        assert reply["t"] == "ok"
    assert (await client.call({"t": "leave", "id": 10, "table": table}))["t"] == "ok"
    await client.close()
    await connections_left(running)


async def takeover(running: RunningHub) -> None:
    first = await connected(running, "tablehub.v1.msgpack")
    table = (await first.call({"t": "create_table", "id": 1, "game": "brix", "seats": 2}))["table"]
    token = (await first.call({"t": "join", "id": 2, "table": table}))["token"]
    second = await connected(running, "tablehub.v1.msgpack", "ann again")
    assert (await second.call({"t": "join", "id": 1, "table": table, "token": token}))["t"] == "ok"
    closed = await first.until("never")
    assert isinstance(closed, Close) and closed.code == 4001
    await first.close()
    await second.close()
    await connections_left(running)


async def refused(running: RunningHub) -> None:
    client = await connected(running, "tablehub.v1.json")
    reply = await client.call({"t": "act", "id": 1, "table": "nope", "action": {}})
    assert reply["t"] == "error"
    await client.send({"t": "no such thing", "id": 2})
    assert (await client.next())["t"] == "error"  # type: ignore[index]
    await client.send_raw(b"\xff\xfe not UTF-8", text=True)
    closed = await client.until("never")
    assert isinstance(closed, Close) and closed.code == 1007
    await client.close()
    await connections_left(running)


async def closed_table(running: RunningHub) -> None:
    hub = running.hub
    client = await connected(running, "tablehub.v1.msgpack")
    table = (await client.call({"t": "create_table", "id": 1, "game": "brix", "seats": 2}))["table"]
    await client.call({"t": "join", "id": 2, "table": table})
    await client.call({"t": "add_bot", "id": 3, "table": table})
    watcher = await connected(running, "tablehub.v1.msgpack", "watcher")
    await watcher.call({"t": "spectate", "id": 1, "table": table})
    await client.close()
    await connections_left(running, 1)
    assert table in await hub.tidy(hub.clock_ms() + CLOSE_IDLE_MS + 1000)
    closed = await watcher.until("table_closed")
    assert not isinstance(closed, Close) and closed["table"] == table
    await watcher.close()
    await connections_left(running)


@pytest.mark.parametrize("subprotocol", ["tablehub.v1.msgpack", "tablehub.v1.json"])
async def test_a_connections_whole_life_leaves_no_cycles(hub: RunningHub, subprotocol: str) -> None:
    await whole_life(hub, subprotocol)  # first: what is made once (compiled schemas)
    with no_new_cycles():
        await whole_life(hub, subprotocol)


async def test_a_seat_taken_over_leaves_no_cycles(hub: RunningHub) -> None:
    await takeover(hub)
    with no_new_cycles():
        await takeover(hub)


async def test_refused_frames_leave_no_cycles(hub: RunningHub) -> None:
    await refused(hub)
    with no_new_cycles():
        await refused(hub)


async def test_a_table_closed_under_its_watchers_leaves_no_cycles(hub: RunningHub) -> None:
    await closed_table(hub)
    with no_new_cycles():
        await closed_table(hub)
