"""Hostile clients (issue 19): every message answered or closed as documented, nobody
else affected, limits refused with documented errors (protocol/README.md "Close codes",
"Limits", "Settled points")."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import msgpack
import pytest
import websockets
from websockets.frames import Close

from tablehub.clients.cli.connection import ServerError
from tablehub.protocol import SUBPROTOCOLS
from tablehub.protocol.codec import EncodeError, value_problem
from tablehub.server.config import Limits
from tablehub.server.hub import Hub
from tablehub.server.hub import janitor as hub_module
from tablehub.server.hub.janitor import FORGET_UNUSED_MS
from tablehub.server.sessions.session import Session
from tablehub.server.store.memory import MemoryStore
from tablehub.server.tables.core import Join
from tablehub.server.tables.errors import TableError
from tests.conftest import RunningHub, start_hub, stop_hub
from tests.server.sessions.plain import PlainLink, taken, until
from tests.server.transport.test_bad_input import call, closed_with, hello, raw
from tests.server.transport.test_slow_reader import StalledPeer

JSON = "tablehub.v1.json"


def _nested_lists(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


async def json_call(ws: Any, text: str) -> dict[str, Any]:
    await ws.send(text)
    reply: dict[str, Any] = json.loads(await ws.recv())
    return reply


async def json_hello(hub: RunningHub) -> Any:
    ws = await raw(hub, JSON)
    assert (await json_call(ws, '{"t":"hello","id":0,"v":1,"name":"j"}'))["t"] == "ok"
    return ws


# -- strings: nothing a client names can break encoding for anyone ---------------------------


async def test_a_lone_surrogate_id_is_answered_with_id_null_and_the_connection_lives_on(
    hub: RunningHub,
) -> None:
    ws = await json_hello(hub)
    reply = await json_call(ws, '{"t":"ping","id":"i\\udc00"}')
    assert (reply["t"], reply["id"], reply["code"]) == ("error", None, "bad_message")
    assert (await json_call(ws, '{"t":"ping","id":2}'))["t"] == "ok"


async def test_names_with_lone_surrogates_or_control_characters_are_refused_at_the_door(
    hub: RunningHub,
) -> None:
    lobby = await hub.connect("lobby")
    await lobby.request("subscribe_tables")
    ws = await json_hello(hub)
    for text in (
        '{"t":"create_table","id":1,"game":"nmbr9","seats":2,"name":"t\\ud800"}',
        '{"t":"create_table","id":1,"game":"nmbr9","seats":2,"name":"bell\\u0007"}',
        '{"t":"subscribe_tables","id":1,"pad":"x\\udfff"}',
    ):
        reply = await json_call(ws, text)
        assert (reply["id"], reply["code"]) == (1, "bad_message")
        assert "\\u" not in reply["message"] and "pattern" not in reply["message"]
    bad_name = await raw(hub, JSON)
    reply = await json_call(bad_name, '{"t":"hello","id":1,"v":1,"name":"\\udc00mallory"}')
    assert reply["code"] == "bad_message"
    # Everyone else still gets the lobby and pings.
    assert isinstance((await lobby.request("list_tables"))["tables"], list)
    assert (await lobby.request("ping"))["t"] == "ok"
    await lobby.close()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"a": [1, "b", None, True, 1.5, {"c": []}]}, None),
        ({"a": "名前 🂡"}, None),
        ({"a": ["x", "\ud800"]}, "Unicode"),
        ({"\udc00": 1}, "Unicode"),
        ({"a": float("inf")}, "finite"),
        ({"a": [1, 2**64]}, "range"),
        ({"a": [1, "x", -(2**63) - 1]}, "range"),
        ({"a": b"bytes"}, "binary"),
        ({"a": list(range(2000))}, "values"),
        ({"a": _nested_lists(31)}, None),  # the message is level 1: 32 levels in all
        ({"a": _nested_lists(32)}, "nest"),
    ],
)
def test_the_door_checks_every_value(value: Any, problem: str | None) -> None:
    found = value_problem(value)
    assert found is None if problem is None else (found is not None and problem in found)


async def test_strict_json_nan_and_infinity_close_1007(hub: RunningHub) -> None:
    for text in ('{"t":"ping","id":NaN}', '{"t":"ping","id":1,"x":-Infinity}'):
        ws = await json_hello(hub)
        await ws.send(text)
        assert await closed_with(ws) == 1007


async def test_non_finite_and_binary_msgpack_values_get_bad_message(hub: RunningHub) -> None:
    ws = await raw(hub)
    await hello(ws)
    for msg in ({"t": "ping", "id": 1, "x": float("nan")}, {"t": "ping", "id": 1, "x": b"\0"}):
        reply = await call(ws, msg)
        assert (reply["id"], reply["code"]) == (1, "bad_message")


@pytest.mark.parametrize("depth", [33, 500, 5000])
async def test_deep_nesting_is_answered_not_dropped(hub: RunningHub, depth: int) -> None:
    ws = await json_hello(hub)
    reply = await json_call(ws, '{"t":"ping","id":5,"x":' + "[" * depth + "]" * depth + "}")
    assert reply["code"] == "bad_message" and "nest" in reply["message"]
    assert reply["id"] == (5 if depth < 900 else None)  # too deep to decode: no id to echo
    assert (await json_call(ws, '{"t":"list_tables","id":6}'))["t"] == "ok"
    mp = await raw(hub)
    await hello(mp)
    await mp.send(b"\x83\xa1t\xa4ping\xa2id\x05\xa1x" + b"\x91" * 3000 + b"\xc0")
    reply = msgpack.unpackb(await mp.recv())
    assert (reply["id"], reply["code"]) == (None, "bad_message")


@pytest.mark.parametrize("bad_id", [2**53, -1, "x" * 65, 1.5, True, [1], {"a": 1}])
async def test_ids_outside_the_schema_are_answered_with_id_null(
    hub: RunningHub, bad_id: Any
) -> None:
    ws = await raw(hub)
    await hello(ws)
    reply = await call(ws, {"t": "ping", "id": bad_id})
    assert (reply["t"], reply["id"], reply["code"]) == ("error", None, "bad_message")


async def test_before_hello_everything_gets_hello_required(hub: RunningHub) -> None:
    ws = await raw(hub)
    for msg, expected_id in (([1, 2], None), ({"t": "fly", "id": 3}, 3), ({"id": 2**60}, None)):
        reply = await call(ws, msg)
        assert (reply["code"], reply["id"]) == ("hello_required", expected_id)
    await hello(ws)


async def test_an_unencodable_reply_becomes_an_internal_error_reply() -> None:
    hub = Hub(MemoryStore())
    await hub.start()
    codec = SUBPROTOCOLS[JSON]
    with pytest.raises(EncodeError):
        codec.encode({"t": "ok", "id": 1, "name": "\ud800"})
    link = PlainLink()
    session = Session(hub, codec, Limits(), link)
    try:
        session.reply(1, name="\ud800")
        session.reply(2)
        first, second = taken(session)
        assert (first["id"], first["code"]) == (1, "internal_error")
        assert second == {"t": "ok", "id": 2}
        assert link.closed is None
    finally:
        await hub.stop()


# -- settled points: seats, bots, leave --------------------------------------------------------


async def test_one_live_connection_per_seat_the_older_is_told_and_closed_4001(
    hub: RunningHub,
) -> None:
    ann = await hub.connect("ann")
    table = await ann.create_table("nmbr9", 2, seed=3)
    await ann.join(table)
    token = ann.tokens[table]
    again = await hub.connect("ann again")
    assert await again.join(table, token=token) == 0
    code, reason = await asyncio.wait_for(ann.closed, 10)
    assert code == 4001 and "taken over" in reason
    bo = await hub.connect("bo")
    await bo.join(table)
    await again.wait_for(table, lambda m: m.view["status"] == "playing")
    assert await again.act(table, (await again.legal(table))[0]) > 0
    await again.close()
    await bo.close()


async def test_only_the_creator_or_a_seated_player_may_add_bots(hub: RunningHub) -> None:
    creator, stranger, player = [await hub.connect(n) for n in ("c", "s", "p")]
    table = await creator.create_table("completto", 4)
    with pytest.raises(ServerError) as info:
        await stranger.request("add_bot", table=table)
    assert info.value.code == "unauthorized"
    assert (await creator.request("add_bot", table=table))["seat"] == 0
    await player.join(table)
    assert (await player.request("add_bot", table=table))["seat"] == 2
    for conn in (creator, stranger, player):
        await conn.close()


async def test_leave_keeps_the_seat_for_its_token(hub: RunningHub) -> None:
    ann, mallory = await hub.connect("ann"), await hub.connect("mallory")
    table = await ann.create_table("nmbr9", 2)
    seat = await ann.join(table)
    await ann.request("leave", table=table)
    with pytest.raises(ServerError) as info:
        await mallory.join(table, seat=seat)
    assert info.value.code == "seat_taken"
    assert await ann.join(table, token=ann.tokens[table]) == seat
    await ann.close()
    await mallory.close()


# -- limits ------------------------------------------------------------------------------------


async def test_unused_tables_per_connection_are_limited_and_forgotten_later() -> None:
    running = await start_hub(limits=Limits(max_unused_tables_per_connection=3))
    try:
        conn = await running.connect("maker")
        tables = [await conn.create_table("nmbr9", 2) for _ in range(3)]
        with pytest.raises(ServerError) as info:
            await conn.create_table("nmbr9", 2)
        assert info.value.code == "limit_reached"
        await conn.join(tables[0])  # used now: one more may be created
        await conn.create_table("nmbr9", 2)
        await conn.close()
        hub = running.hub
        later = hub.clock_ms() + FORGET_UNUSED_MS
        forgotten = await hub.forget_unused(later)
        assert set(tables[1:]) <= set(forgotten) and tables[0] not in forgotten
    finally:
        await stop_hub(running)


async def test_tables_nobody_sat_at_are_capped_per_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hub_module, "MAX_UNUSED_TABLES", 3)
    hub = Hub(MemoryStore())
    await hub.start()
    try:
        tables = [await hub.create_table("nmbr9", 2, {}) for _ in range(3)]
        with pytest.raises(TableError) as info:
            await hub.create_table("nmbr9", 2, {})
        assert info.value.code == "overloaded"
        await hub.submit(tables[0], Join("ann", None, None))
        await hub.create_table("nmbr9", 2, {})  # one of the three is used now
    finally:
        await hub.stop()


async def test_tables_followed_per_connection_are_refused_with_limit_reached() -> None:
    running = await start_hub(limits=Limits(max_tables_per_connection=2))
    try:
        host = await running.connect("host")
        tables = [await host.create_table("nmbr9", 2) for _ in range(3)]
        watcher = await running.connect("watcher")
        for table in tables[:2]:
            await watcher.spectate(table)
        with pytest.raises(ServerError) as info:
            await watcher.spectate(tables[2])
        assert info.value.code == "limit_reached"
        await watcher.request("leave", table=tables[0])
        await watcher.spectate(tables[2])
        await host.close()
        await watcher.close()
    finally:
        await stop_hub(running)


async def test_connections_per_address_are_limited_4002() -> None:
    running = await start_hub(limits=Limits(max_connections_per_address=2, limit_local=True))
    try:
        first, second = await raw(running), await raw(running)
        third = await raw(running)
        assert await closed_with(third) == 4002
        await first.close()
        await first.wait_closed()
        await hello(second)  # a round trip more: the server has finished with ``first``
        fourth = await raw(running)
        await hello(fourth)  # a slot was freed
        await second.close()
    finally:
        await stop_hub(running)


async def test_pending_requests_per_connection_are_limited() -> None:
    hub = Hub(MemoryStore())
    await hub.start()
    link = PlainLink()
    session = Session(
        hub, SUBPROTOCOLS["tablehub.v1.msgpack"], Limits(max_pending_requests=2), link
    )
    try:
        session.receive(msgpack.packb({"t": "hello", "id": 0, "v": 1, "name": "x"}))
        create = {"t": "create_table", "id": 1, "game": "completto", "seats": 4}
        session.receive(msgpack.packb(create))
        table = (await until(session, link, 2))[1]["table"]
        await hub.table(table)  # loaded: the add_bots below go to its actor at once
        for i in range(2, 7):  # five at once, none answered yet
            session.receive(msgpack.packb({"t": "add_bot", "id": i, "table": table}))
        answers = [m for m in await until(session, link, 5) if m["t"] != "snapshot"]
        codes = {r["id"]: r.get("code", "ok") for r in answers if "id" in r}
        assert sorted(codes.values()) == [
            "ok",
            "ok",
            "rate_limited",
            "rate_limited",
            "rate_limited",
        ]
    finally:
        await hub.stop()


# -- slow readers ------------------------------------------------------------------------------


async def test_a_peer_that_stops_reading_is_closed_4000_not_1011() -> None:
    limits = Limits(ping_interval_s=0.2, ping_timeout_s=0.3)
    running = await start_hub(limits=limits)
    try:
        peer = await asyncio.to_thread(StalledPeer, running.port)
        await asyncio.to_thread(peer.send, {"t": "hello", "id": 0, "v": 1, "name": "mute"})
        while not isinstance(message := await asyncio.to_thread(peer.next_message), Close):
            assert message["t"] == "ok"  # the hello's reply; then nothing until the close
        assert message.code == 4000 and "slow consumer" in message.reason
        peer.close()
    finally:
        await stop_hub(running)


async def test_flood_from_one_client_leaves_another_clients_latency_bounded(
    hub: RunningHub,
) -> None:
    """One client floods for one second (pings past its rate limit, deep and surrogate
    frames); another pings throughout.  The bound is loose (an order of magnitude above
    normal); the figure is printed."""
    victim = await hub.connect("victim")
    stop = asyncio.Event()
    junk = [
        '{"t":"ping","id":1}',
        '{"t":"ping","id":"i\\udc00"}',
        '{"t":"ping","id":2,"x":' + "[" * 3000 + "]" * 3000 + "}",
        '{"t":"list_tables","id":3}',
    ]

    async def flood() -> int:
        sent = 0
        while not stop.is_set():
            ws = await raw(hub, JSON)
            await ws.send('{"t":"hello","id":0,"v":1,"name":"flood"}')
            try:
                while not stop.is_set():
                    await ws.send(junk[sent % len(junk)])
                    sent += 1
                    if sent % 50 == 0:
                        await asyncio.sleep(0)  # let the client's own reader drain replies
            except websockets.ConnectionClosed:
                continue  # closed 1008 for abuse: come back
            finally:
                await ws.close()
        return sent

    flooder = asyncio.create_task(flood())
    rtts = []
    deadline = time.perf_counter() + 1.0
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        await victim.request("ping")
        rtts.append(time.perf_counter() - started)
    stop.set()
    sent = await flooder
    rtts.sort()
    p99 = rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))]
    print(f"\nflood: {sent} frames; victim {len(rtts)} pings, p99 {p99 * 1000:.1f} ms")
    assert p99 < 1.0
    await victim.close()
