"""The typed door: every field of every client message, and every field of every game's
actions, sent with whole floats (``2.0``), fractions, huge numbers, wrong types and
missing, over both subprotocols, gets a documented answer -- ``ok`` or an error of the
catalogue, never ``internal_error`` and never a close (protocol/README.md "What the
server accepts": a whole number is the integer it equals, whichever way it is written).

The fields are read from the schemas (``protocol/v1``), so a field added later is
driven too."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from tablehub.protocol.codec import V1_DIR, index
from tablehub.server.config import Limits
from tests.conftest import RunningHub, start_hub, stop_hub

SUBPROTOCOLS = ("tablehub.v1.msgpack", "tablehub.v1.json")
GAMES = tuple(index()["games"])
CATALOGUE = set(index()["error_catalogue"])


class Client:
    def __init__(self, ws: ClientConnection, binary: bool) -> None:
        self.ws = ws
        self.binary = binary
        self.ids = 0

    @classmethod
    async def open(cls, running: RunningHub, subprotocol: str) -> Client:
        ws = await websockets.connect(
            running.url,
            subprotocols=[subprotocol],  # type: ignore[list-item]
            compression=None,
        )
        return cls(ws, subprotocol.endswith("msgpack"))

    async def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg`` (its id replaced by a fresh one); its reply."""
        self.ids += 1
        msg = {**msg, "id": self.ids}
        await self.ws.send(msgpack.packb(msg) if self.binary else json.dumps(msg))
        while True:
            frame = await self.ws.recv()
            reply: dict[str, Any] = (
                msgpack.unpackb(frame) if isinstance(frame, bytes) else json.loads(frame)
            )
            if reply["t"] in ("ok", "error") and reply.get("id") == self.ids:
                return reply


def schema_of(kind: str) -> dict[str, Any]:
    meta = index()["messages"][kind]
    schema: dict[str, Any] = json.loads((V1_DIR / meta["schema"]).read_text())
    return schema


def is_integer(field: dict[str, Any]) -> bool:
    kinds = field.get("type")
    return kinds == "integer" or (isinstance(kinds, list) and "integer" in kinds)


def variants(schema: dict[str, Any], base: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(what, message) for every field of ``schema``: wrong type, missing, and for an
    integer field a whole float, a fraction and numbers far out of range."""
    out: list[tuple[str, dict[str, Any]]] = []
    properties: dict[str, Any] = schema.get("properties", {})
    for name, field in properties.items():
        if name in ("t", "id"):
            continue
        out.append((f"{name} of the wrong type", {**base, name: [1]}))
        if name in base:
            rest = {k: v for k, v in base.items() if k != name}
            out.append((f"{name} missing", rest))
        if is_integer(field):
            value = base.get(name, 1)
            value = value if isinstance(value, int) else 1
            out.append((f"{name} as a whole float", {**base, name: float(value)}))
            out.append((f"{name} as a fraction", {**base, name: value + 0.5}))
            for huge in (2**62, -(2**62), 1e300):
                out.append((f"{name} = {huge:g}", {**base, name: huge}))
    return out


def documented(what: str, reply: dict[str, Any]) -> None:
    if reply["t"] == "error":
        assert reply["code"] in CATALOGUE, (what, reply)
        assert reply["code"] != "internal_error", (what, reply)


@pytest.fixture
async def door() -> AsyncIterator[RunningHub]:
    limits = Limits(max_errors_per_minute=100_000, messages_per_second=100_000, burst=100_000)
    running = await start_hub(limits=limits)
    try:
        yield running
    finally:
        await stop_hub(running)


async def playing_table(client: Client, game: str) -> str:
    """A table of ``game`` in play, ``client`` at seat 0, bots at the others."""
    seats = index()["games"][game].get("min_players", 2)
    created = await client.ask({"t": "create_table", "game": game, "seats": max(2, seats)})
    assert created["t"] == "ok", created
    table: str = created["table"]
    assert (await client.ask({"t": "join", "table": table}))["t"] == "ok"
    while (await client.ask({"t": "add_bot", "table": table}))["t"] == "ok":
        pass
    return table


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
async def test_every_request_field_gets_a_documented_answer(
    door: RunningHub, subprotocol: str
) -> None:
    client = await Client.open(door, subprotocol)
    assert (await client.ask({"t": "hello", "v": 1, "name": "door"}))["t"] == "ok"
    table = await playing_table(client, "brix")
    other = await playing_table(client, "nmbr9")
    legal = await client.ask({"t": "legal", "table": table})
    action = (legal.get("actions") or [{"type": "resign"}])[0]
    bases: dict[str, dict[str, Any]] = {
        "list_games": {"t": "list_games"},
        "list_tables": {"t": "list_tables", "game": "brix"},
        "subscribe_tables": {"t": "subscribe_tables", "unsubscribe": True},
        "create_table": {
            "t": "create_table",
            "game": "nmbr9",
            "seats": 2,
            "options": {"seed": 3},
        },
        "join": {"t": "join", "table": other, "seat": 1},
        "add_bot": {"t": "add_bot", "table": other, "seat": 1, "level": "easy"},
        "spectate": {"t": "spectate", "table": other},
        "act": {"t": "act", "table": table, "action": action, "version": 0, "seat": 0},
        "legal": {"t": "legal", "table": table},
        "resync": {"t": "resync", "table": table, "version": 0},
        "leave": {"t": "leave", "table": other},
        "ping": {"t": "ping"},
    }
    for kind, base in bases.items():
        for what, msg in variants(schema_of(kind), base):
            documented(f"{kind}: {what}", await client.ask(msg))
    created = await client.ask({**bases["create_table"], "seats": 2.0})
    assert created["t"] == "ok", "a whole float is the integer it equals"
    await client.ws.close()


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
async def test_hello_fields_get_a_documented_answer(door: RunningHub, subprotocol: str) -> None:
    base = {"t": "hello", "v": 1, "name": "door"}
    for what, msg in variants(schema_of("hello"), base):
        client = await Client.open(door, subprotocol)
        documented(f"hello: {what}", await client.ask(msg))
        await client.ws.close()
    client = await Client.open(door, subprotocol)
    assert (await client.ask({**base, "v": 1.0}))["t"] == "ok"
    await client.ws.close()


def action_fields(action: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Variants of a legal action: each field whole-float, fractional, huge, of the
    wrong type, missing; each list of numbers with a whole float in it."""
    out: list[tuple[str, dict[str, Any]]] = []
    for name, value in action.items():
        if name == "type":
            continue
        out.append((f"{name} of the wrong type", {**action, name: {"x": 1}}))
        out.append((f"{name} missing", {k: v for k, v in action.items() if k != name}))
        if isinstance(value, int) and not isinstance(value, bool):
            out.append((f"{name} as a whole float", {**action, name: float(value)}))
            out.append((f"{name} as a fraction", {**action, name: value + 0.5}))
            out += [(f"{name} = {h:g}", {**action, name: h}) for h in (2**62, -(2**62), 1e300)]
        if isinstance(value, list) and value and isinstance(value[0], int):
            floats = [float(v) if isinstance(v, int) else v for v in value]
            out.append((f"{name} as whole floats", {**action, name: floats}))
    return out


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
@pytest.mark.parametrize("game", GAMES)
async def test_every_action_field_gets_a_documented_answer(
    door: RunningHub, subprotocol: str, game: str
) -> None:
    client = await Client.open(door, subprotocol)
    assert (await client.ask({"t": "hello", "v": 1, "name": "door"}))["t"] == "ok"
    table = await playing_table(client, game)
    legal = await client.ask({"t": "legal", "table": table})
    assert legal["t"] == "ok", legal
    actions = legal["actions"][:3]
    for action in actions:
        for what, mutated in action_fields(action):
            reply = await client.ask({"t": "act", "table": table, "action": mutated})
            documented(f"{game} {action['type']}: {what}", reply)
    if actions:  # the whole-float form of a legal action is that action
        whole = {k: float(v) if type(v) is int else v for k, v in actions[0].items()}
        fresh = await client.ask({"t": "legal", "table": table})
        if actions[0] in fresh.get("actions", []):
            reply = await client.ask({"t": "act", "table": table, "action": whole})
            assert reply["t"] == "ok", (whole, reply)
    await client.ws.close()
