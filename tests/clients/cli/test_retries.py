"""The Python client retries what the server asks to retry (protocol/README.md
"Idempotent requests and retries") and takes ``batch`` frames apart.

A hub cannot be made busy on cue, so the peer here is a scripted WebSocket server on a
real socket: it answers as a busy or store-less hub would (``overloaded`` /
``unavailable`` with ``retry_ms``), and records every request it got.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from tablehub.clients.cli.connection import RETRY_TRIES, Connection, ServerError
from tablehub.clients.cli.errors import EXIT_UNREACHABLE
from tablehub.clients.cli.link import table_error

Answer = Callable[[dict[str, Any], int], list[dict[str, Any]]]
"""(request, how many of its kind came before) -> the frames to send back."""


class ScriptedHub:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self.url = ""

    async def handle(self, ws: ServerConnection) -> None:
        async for frame in ws:
            msg = json.loads(frame)
            earlier = sum(r["t"] == msg["t"] for r in self.requests)
            self.requests.append(msg)
            for out in self.answer(msg, earlier):
                await ws.send(json.dumps(out))


@pytest.fixture
async def scripted() -> AsyncIterator[Callable[[Answer], Any]]:
    servers = []

    async def start(answer: Answer) -> ScriptedHub:
        hub = ScriptedHub(answer)
        server = await serve(hub.handle, "127.0.0.1", 0, subprotocols=["tablehub.v1.json"])  # type: ignore[list-item]
        servers.append(server)
        port = next(iter(server.sockets)).getsockname()[1]
        hub.url = f"ws://127.0.0.1:{port}/ws"
        return hub

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()


def busy_then_ok(msg: dict[str, Any], earlier: int) -> list[dict[str, Any]]:
    kind, rid = msg["t"], msg["id"]
    if kind == "hello":
        return [{"t": "ok", "id": rid, "resumed": []}]
    if kind == "create_table" and earlier < 2:
        return [{"t": "error", "id": rid, "code": "overloaded", "message": "busy", "retry_ms": 5}]
    if kind == "create_table":
        return [{"t": "ok", "id": rid, "table": "t1"}]
    if kind == "join" and earlier == 0:
        message = "the store cannot be reached"
        return [{"t": "error", "id": rid, "code": "unavailable", "message": message, "retry_ms": 5}]
    if kind == "join":  # the reply and the snapshot in one frame
        view = {"status": "playing"}
        snapshot = {"t": "snapshot", "table": "t1", "version": 1, "view": view, "hash": "x"}
        batch = [{"t": "ok", "id": rid, "seat": 0, "token": "secret-token"}, snapshot]
        return [{"t": "batch", "m": batch}]
    return [{"t": "error", "id": rid, "code": "overloaded", "message": "busy", "retry_ms": 1}]


async def test_retryable_errors_are_retried_with_the_same_key_and_said_in_words(
    scripted: Callable[[Answer], Any],
) -> None:
    hub = await scripted(busy_then_ok)
    conn = await Connection.connect(hub.url, "ann", subprotocol="tablehub.v1.json")
    said: list[str] = []
    conn.on_wait = said.append
    assert await conn.create_table("nmbr9", 2) == "t1"
    assert await conn.join("t1") == 0
    assert conn.tokens["t1"] == "secret-token" and conn.tables["t1"].version == 1
    hello, *creates = [r for r in hub.requests if r["t"] in ("hello", "create_table")]
    assert hello["caps"] == ["batch"]
    joins = [r for r in hub.requests if r["t"] == "join"]
    assert len(creates) == 3 and len(joins) == 2
    for tries in (creates, joins):
        assert len({r["key"] for r in tries}) == 1, "a retry carries the first try's key"
        assert len({r["id"] for r in tries}) == len(tries)
    assert creates[0]["key"] != joins[0]["key"]
    assert said[0].startswith("the server is busy: creating the table again in ")
    assert said[2].startswith("the server cannot reach its storage right now: taking the seat")
    assert len(said) == 3 and all("None" not in s and "_" not in s for s in said)

    with pytest.raises(ServerError) as gave_up:  # always busy: stops after RETRY_TRIES
        await conn.act("t1", {"type": "place", "x": 0, "y": 0, "rot": 0})
    assert (gave_up.value.code, gave_up.value.retry_ms) == ("overloaded", 1)
    said_to_player = table_error(gave_up.value, hub.url, "t1")
    assert said_to_player.exit_code == EXIT_UNREACHABLE
    assert "stayed busy" in said_to_player.message and "overloaded" not in said_to_player.message
    acts = [r for r in hub.requests if r["t"] == "act"]
    assert len(acts) == RETRY_TRIES and len({r["key"] for r in acts}) == 1
    assert said[-1].endswith(f"(try {RETRY_TRIES} of {RETRY_TRIES})")
    await conn.close()
