"""Bad input over the socket: each gets the right error or close code, and the table's
state is unchanged (docs/design.md "What bad input gets")."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from tablehub.clients.cli.connection import Connection, ServerError
from tests.conftest import RunningHub

MSGPACK = "tablehub.v1.msgpack"


async def raw(hub: RunningHub, subprotocol: str = MSGPACK) -> ClientConnection:
    return await websockets.connect(hub.url, subprotocols=[subprotocol], compression=None)  # type: ignore[list-item]


async def call(ws: ClientConnection, msg: Any) -> dict[str, Any]:
    await ws.send(msgpack.packb(msg))
    reply: dict[str, Any] = msgpack.unpackb(await ws.recv())
    return reply


async def hello(ws: ClientConnection) -> None:
    assert (await call(ws, {"t": "hello", "id": 0, "v": 1, "name": "raw"}))["t"] == "ok"


async def closed_with(ws: ClientConnection) -> int | None:
    with pytest.raises(websockets.ConnectionClosed):
        while True:
            await ws.recv()
    return ws.close_code


@pytest.fixture
async def game(hub: RunningHub) -> AsyncIterator[tuple[str, Connection, Connection]]:
    """A 2-seat 9-tower table in play; yields (table, seat 0, seat 1)."""
    ann, bo, table = await hub.two_seated(seed=9)
    await ann.wait_for(table, lambda m: m.view["status"] == "playing")
    yield table, ann, bo
    await ann.close()
    await bo.close()


def table_state(hub: RunningHub, table: str) -> tuple[int, Any]:
    record = hub.hub.live[table].record
    return record.version, record.state


async def test_unknown_or_missing_subprotocol_is_refused_at_the_handshake(hub: RunningHub) -> None:
    for offered in (["tablehub.v9.cbor"], None):
        with pytest.raises(websockets.InvalidStatus) as info:
            await websockets.connect(hub.url, subprotocols=offered)  # type: ignore[arg-type]
        assert info.value.response.status_code == 403


async def test_garbage_bytes_close_1007(hub: RunningHub) -> None:
    ws = await raw(hub)
    await ws.send(b"\xc1\xc1\xc1 not msgpack")
    assert await closed_with(ws) == 1007


async def test_invalid_json_closes_1007_and_wrong_frame_type_1003(hub: RunningHub) -> None:
    ws = await raw(hub, "tablehub.v1.json")
    await ws.send("{not json")
    assert await closed_with(ws) == 1007
    ws = await raw(hub)
    await ws.send('{"t": "ping", "id": 1}')  # text frame on the msgpack subprotocol
    assert await closed_with(ws) == 1003


async def test_oversize_frame_closes_1009(hub: RunningHub) -> None:
    ws = await raw(hub)
    await hello(ws)
    await ws.send(msgpack.packb({"t": "ping", "id": 1, "pad": "x" * 70_000}))
    assert await closed_with(ws) == 1009


async def test_messages_before_hello_get_hello_required(hub: RunningHub) -> None:
    ws = await raw(hub)
    reply = await call(ws, {"t": "list_games", "id": 7})
    assert (reply["t"], reply["id"], reply["code"]) == ("error", 7, "hello_required")
    await hello(ws)
    assert (await call(ws, {"t": "ping", "id": 8}))["t"] == "ok"


@pytest.mark.parametrize(
    ("msg", "code", "fragment"),
    [
        ([1, 2, 3], "bad_message", "map"),
        ({"id": 1}, "bad_message", "'t'"),
        ({"t": "fly", "id": 1}, "unknown_type", "fly"),
        ({"t": "act", "id": 1, "table": "x", "action": "place"}, "bad_message", "action"),
        ({"t": "create_table", "id": 1, "game": "nmbr9", "seats": "two"}, "bad_message", "seats"),
        ({"t": "join", "id": 1, "table": "../etc"}, "bad_message", "table"),
        ({"t": "create_table", "id": 1, "game": "chess", "seats": 2}, "unknown_game", "chess"),
        ({"t": "create_table", "id": 1, "game": "nmbr9", "seats": 9}, "bad_options", "1–4"),
        ({"t": "join", "id": 1, "table": "nosuchtable"}, "unknown_table", "nosuchtable"),
    ],
)
async def test_malformed_messages_get_an_error_and_the_connection_stays(
    hub: RunningHub, msg: Any, code: str, fragment: str
) -> None:
    ws = await raw(hub)
    await hello(ws)
    reply = await call(ws, msg)
    assert reply["t"] == "error"
    assert reply["code"] == code
    assert fragment in reply["message"]
    assert (await call(ws, {"t": "ping", "id": 99}))["t"] == "ok"


async def test_json_subprotocol_speaks_the_same_messages(hub: RunningHub) -> None:
    ws = await raw(hub, "tablehub.v1.json")
    await ws.send(json.dumps({"t": "hello", "id": "a", "v": 1, "name": "js"}))
    reply = json.loads(await ws.recv())
    assert reply["t"] == "ok" and reply["id"] == "a" and len(reply["schema"]) == 16
    await ws.send(json.dumps({"t": "hello", "id": "b", "v": 1, "name": "js"}))
    assert json.loads(await ws.recv())["code"] == "bad_message"


async def test_wrong_protocol_version(hub: RunningHub) -> None:
    ws = await raw(hub)
    reply = await call(ws, {"t": "hello", "id": 1, "v": 2, "name": "future"})
    assert reply["code"] == "unsupported_version"


async def test_acting_for_another_seat_or_with_a_forged_token_is_refused(
    hub: RunningHub, game: tuple[str, Connection, Connection]
) -> None:
    table, ann, _ = game
    before = table_state(hub, table)
    action = (await ann.legal(table))[0]
    with pytest.raises(ServerError) as info:
        await ann.request("act", table=table, action=action, seat=1)
    assert info.value.code == "unauthorized"
    intruder = await hub.connect("mallory")
    with pytest.raises(ServerError) as info:
        await intruder.act(table, action)
    assert info.value.code == "unauthorized"
    with pytest.raises(ServerError) as info:
        await intruder.join(table, seat=1)
    assert info.value.code == "seat_taken"
    with pytest.raises(ServerError) as info:
        await intruder.join(table, token="forged-token-000000")
    assert info.value.code == "unauthorized"
    with pytest.raises(ServerError) as info:
        await intruder.join(table)
    assert info.value.code == "table_full"
    assert table_state(hub, table) == before
    await intruder.close()


async def test_out_of_turn_and_illegal_placements_leave_the_table_unchanged(
    hub: RunningHub, game: tuple[str, Connection, Connection]
) -> None:
    table, ann, _ = game
    await ann.act(table, (await ann.legal(table))[0])
    before = table_state(hub, table)
    with pytest.raises(ServerError) as info:  # ann already placed this round
        await ann.act(table, {"type": "place", "x": 50, "y": 50, "rot": 0})
    assert info.value.code == "not_your_turn"
    assert table_state(hub, table) == before

    bo = game[2]
    await bo.act(table, (await bo.legal(table))[0])  # round 2 starts
    before = table_state(hub, table)
    attempts: list[tuple[dict[str, Any], str]] = [
        ({"type": "place", "x": 40, "y": 40, "rot": 0}, "illegal_action"),  # not touching
        ({"type": "place", "x": 0, "y": 0, "rot": 7}, "bad_action"),
        ({"type": "jump"}, "bad_action"),
    ]
    for action, code in attempts:
        with pytest.raises(ServerError) as info:
            await ann.act(table, action)
        assert info.value.code == code
        assert info.value.message
        assert table_state(hub, table) == before


async def test_acting_before_the_table_starts(hub: RunningHub) -> None:
    ann = await hub.connect("ann")
    table = await ann.create_table("nmbr9", 2)
    await ann.join(table)
    with pytest.raises(ServerError) as info:
        await ann.act(table, {"type": "place", "x": 0, "y": 0, "rot": 0})
    assert info.value.code == "not_started"
    await ann.close()


async def test_a_flood_is_rate_limited_then_closed_1008(hub: RunningHub) -> None:
    ws = await raw(hub)
    await hello(ws)
    codes: list[str] = []
    for i in range(600):
        await ws.send(msgpack.packb({"t": "ping", "id": i}))
    with pytest.raises(websockets.ConnectionClosed):
        while True:
            reply = msgpack.unpackb(await ws.recv())
            codes.append(reply.get("code", "ok"))
    assert "rate_limited" in codes
    assert codes.count("ok") <= 210, "the burst is bounded"
    assert ws.close_code == 1008


async def test_a_connection_that_never_says_hello_is_closed() -> None:
    from tablehub.server.config import Limits
    from tests.conftest import start_hub, stop_hub

    running = await start_hub(limits=Limits(hello_timeout_s=0.2))
    try:
        ws = await raw(running)
        assert await closed_with(ws) == 1008
    finally:
        await stop_hub(running)
