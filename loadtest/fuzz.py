"""Hostile-client fuzzer: seeded hostile messages over real sockets, outcomes checked.

``python -m tablehub.loadtest.fuzz --messages 100000`` starts a hub (``tablehub serve``,
memory store) in a subprocess, sets up real tables of every game, runs a legitimate
two-player 9-tower game and a lobby subscriber beside the fuzzer, and prints the
outcome of every hostile message per category, the hub's RSS before and after, and
the legitimate clients' p99 (``--pool`` distinct messages are drawn, then replayed in
seeded random batches: drawing costs ~4 ms a message).  The test suite runs a short version
(``tests/server/transport/test_hostile_fuzz.py``).

Theory of operation: hypothesis strategies (``hostile_batch``) describe a connection's
worth of messages -- mostly well-formed requests with hostile fields (forged tokens,
other people's tables, huge numbers, lone surrogates, control characters, deep
nesting, NaN, binary values, extra junk), some raw garbage frames -- and probes of
every integer field that the message schemas and the games' action and option schemas
declare (read from ``protocol/v1``, so a field added later is probed too): a request
or action well-formed but for that one field, which holds a whole float (``2.0``), a
fraction, the schema's minimum-1, minimum, maximum, maximum+1, 0, -1, 2^53, 2^63, 2^64
or 1e300 (``integer_fields``, ``hostile_numbers``).  Half the connections first
create a table of their own, sit at it and maybe seat a bot, so that probes of ``act``,
``legal.partial``, ``join``, ``add_bot`` and ``resync`` reach the handlers and the
games' engines rather than stop at ``unauthorized``.  ``draw_batches``
draws them with a fixed seed (same seed, same messages).  Each batch is one
connection: messages are sent one at a time and the next ``ok``/``error`` (pushes are
skipped) is that message's answer, or the connection closes.  Every message must end
in exactly one documented outcome (protocol/README.md "Close codes"): a reply whose
code is in ``index.json`` ``error_codes`` (never ``internal_error``) and whose ``id`` is
the sent one when the schema allows it, else null; or a close with a documented code
other than 1011 -- never silence, never a dropped socket (1006).  And a probe whose
number is a fraction where the schema declares an integer is never answered ``ok``
(protocol/README.md "What the server accepts"; ``legal.partial``, which declares no
fields, excepted).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

import msgpack
import websockets
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from websockets.typing import Subprotocol

from tablehub.clients.cli.connection import Connection, TableMirror
from tablehub.loadtest.procstat import read_proc
from tablehub.protocol.codec import V1_DIR, index, valid_request_id, validate_outbound

GAMES = tuple(index()["games"])
"""The games the protocol has schemas for (``index.json``), as a client knows them."""
ANSWER_TIMEOUT_S = 5.0
ROUNDS_PER_S = 40
"""Pace of the legitimate 9-tower players (each round: legal + act per player)."""
JSON_PROTOCOL = "tablehub.v1.json"
MSGPACK_PROTOCOL = "tablehub.v1.msgpack"


@dataclass(frozen=True)
class Raw:
    """A frame sent as is (garbage, a wrong frame type, hand-written JSON)."""

    frame: bytes | str


Item = dict[str, Any] | Raw


# -- strategies ---------------------------------------------------------------------------

_nasty_text = st.sampled_from(
    [
        "",
        "i\udc00",
        "\ud800",
        "a\x00b",
        "bell\x07",
        "\u202eevil",
        "x" * 65,
        "y" * 10_000,
        "名前",
        "🂡",
        "../etc",
        "null",
    ]
)
_nasty_int = st.sampled_from([-1, 0, 1, 2**31, 2**53 - 1, 2**53, 2**63, -(2**63), 2**64 - 1])
_scalar = st.one_of(
    st.none(),
    st.booleans(),
    _nasty_int,
    st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    _nasty_text,
    st.text(max_size=12),
    st.binary(max_size=8),
)


def _nested(depth: int, leaf: Any = 0) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


_deep = st.sampled_from([8, 30, 31, 32, 33, 200, 500]).map(_nested)
"""Depths both encoders still write (the deeper ones are raw frames in ``_garbage``)."""
_junk = st.recursive(
    _scalar,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
    max_leaves=8,
)
_any_value = st.one_of(_scalar, _junk, _deep)
_request_id = st.one_of(st.integers(0, 10**6), _nasty_int, _nasty_text, st.floats(), st.none())

_TYPES = (
    "hello",
    "list_games",
    "list_tables",
    "subscribe_tables",
    "create_table",
    "join",
    "add_bot",
    "spectate",
    "act",
    "legal",
    "resync",
    "leave",
    "ping",
)


_FIELDS: dict[str, dict[str, Any]] = {
    "hello": {
        "v": lambda t: st.sampled_from([1, 1, 2, "1"]),
        "name": lambda t: _nasty_text | st.just("fuzz"),
    },
    "create_table": {
        "game": lambda t: st.sampled_from((*GAMES, "chess")),
        "seats": lambda t: st.sampled_from([1, 2, 4, 0, 1000, 10**9]),
        "name": lambda t: _nasty_text,
    },
    "join": {
        "table": lambda t: t,
        "token": lambda t: st.sampled_from(["forged-token-0", "x" * 128]),
    },
    "add_bot": {"table": lambda t: t},
    "spectate": {"table": lambda t: t},
    "act": {
        "table": lambda t: t,
        "action": lambda t: st.fixed_dictionaries({"type": _nasty_text, "x": _any_value}),
    },
    "legal": {"table": lambda t: t},
    "resync": {"table": lambda t: t, "version": lambda t: _nasty_int},
    "leave": {"table": lambda t: t},
    "subscribe_tables": {"unsubscribe": lambda t: st.booleans()},
}
"""Per request type: field -> (table strategy -> the field's strategy)."""


@st.composite
def _request(draw: st.DrawFn, tables: list[str]) -> dict[str, Any]:
    kind = draw(st.sampled_from((*_TYPES, "fly", "")))
    msg: dict[str, Any] = {"t": kind}
    if draw(st.integers(0, 9)) != 9:
        msg["id"] = draw(_request_id) if draw(st.integers(0, 3)) == 0 else draw(st.integers(0, 999))
    table = st.sampled_from(tables) | _nasty_text | st.just("nosuchtable")
    fields = _FIELDS.get(kind, {})
    msg.update({name: draw(strategy(table)) for name, strategy in fields.items()})
    for _ in range(draw(st.integers(0, 2))):  # junk and overwritten fields
        msg[draw(st.sampled_from(["pad", "id", "table", "name", "seat", "options"]))] = draw(
            _any_value
        )
    return msg


_garbage = st.one_of(
    st.binary(min_size=1, max_size=64).map(Raw),
    st.sampled_from(
        [
            Raw('{"t":"ping","id":NaN}'),
            Raw('{"t":"ping","id":1,"x":Infinity}'),
            Raw('{"t":"ping","id":"i\\udc00"}'),
            Raw('{"t":"ping","id":1,"pad":' + "[" * 5000 + "]" * 5000 + "}"),
            Raw("[" * 100_000),
            Raw("{not json"),
            Raw(b"\x91" * 3000 + b"\xc0"),
            Raw(msgpack.packb({"t": "ping", "id": 1, "pad": "x" * 70_000})),
        ]
    ),
)


# -- integer fields, read from the schemas ---------------------------------------------------

Schema = dict[str, Any]
Build = Callable[[Any], Any]
OWN_TABLE = "<own table>"
"""Placeholder for the table this connection created last (``run_batch`` fills it in;
"nosuchtable" while it created none)."""


class Probe(dict[str, Any]):
    """A request well-formed but for one integer field, which holds a hostile number.

    ``fraction``: the number is a fraction where the schema declares an integer, so the
    answer must be a refusal, never ``ok``."""

    fraction: bool = False


@dataclass(frozen=True)
class IntegerField:
    """One integer field of a schema: ``build(number)`` is the value of the top-level
    field ``name`` (of a message, an action or the options) with ``number`` in place."""

    where: str
    name: str
    minimum: int | None
    maximum: int | None
    build: Build


def _is_integer(schema: Schema) -> bool:
    kinds = schema.get("type")
    return kinds == "integer" or (isinstance(kinds, list) and "integer" in kinds)


def _filler(schema: Schema) -> Any:
    """A value ``schema`` accepts (good enough for the fields beside a probed one)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _filler(schema[key][-1])  # the last branch: an enum before an integer
    if _is_integer(schema):
        return _inside(schema.get("minimum"))
    kind = schema.get("type")
    if kind == "array":
        return [_filler(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind == "object":
        props = schema.get("properties", {})
        return {name: _filler(props.get(name, {})) for name in schema.get("required", [])}
    if kind == "boolean":
        return False
    return "A1"  # a text: a table id, a slot, a blueprint...


def _inside(minimum: int | None) -> int:
    """A number an integer field accepts (no field here has a maximum below 0)."""
    return 0 if minimum is None or minimum <= 0 else minimum


def _itself(number: Any) -> Any:
    return number


def _in_list(build: Build, others: list[Any], number: Any) -> list[Any]:
    return [build(number), *others]


def _in_map(build: Build, base: dict[str, Any], key: str, number: Any) -> dict[str, Any]:
    return {**base, key: build(number)}


def _leaves(schema: Schema, where: str) -> list[tuple[str, int | None, int | None, Build]]:
    """Every integer inside ``schema``: (where, minimum, maximum, number -> the value)."""
    out: list[tuple[str, int | None, int | None, Build]] = []
    if _is_integer(schema):
        low, high = schema.get("minimum"), schema.get("maximum")
        if "enum" in schema:
            low, high = min(schema["enum"]), max(schema["enum"])
        out.append((where, low, high, _itself))
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, []):
            out += _leaves(branch, where)
    items = schema.get("items")
    if isinstance(items, dict):
        others = [_filler(items) for _ in range(max(0, schema.get("minItems", 1) - 1))]
        for inner, low, high, build in _leaves(items, f"{where}[]"):
            out.append((inner, low, high, partial(_in_list, build, others)))
    props = schema.get("properties", {})
    if schema.get("type") == "object" and props:
        base = _filler(schema)
        for name, prop in props.items():
            for inner, low, high, build in _leaves(prop, f"{where}.{name}"):
                out.append((inner, low, high, partial(_in_map, build, base, name)))
    return out


def _fields_of(properties: Schema, where: str) -> list[IntegerField]:
    return [
        IntegerField(inner, name, low, high, build)
        for name, prop in properties.items()
        if name != "t"
        for inner, low, high, build in _leaves(prop, f"{where}.{name}")
    ]


@cache
def _load(relative: str) -> Schema:
    schema: Schema = json.loads((V1_DIR / relative).read_text())
    return schema


def message_integer_fields() -> dict[str, list[IntegerField]]:
    """Per client message type, its integer fields (``id`` and ``create_table`` options
    are apart: see ``integer_fields``)."""
    out: dict[str, list[IntegerField]] = {}
    for kind, meta in index()["messages"].items():
        if meta["direction"] == "client_to_server":
            props = _load(meta["schema"]).get("properties", {})
            out[kind] = _fields_of({k: v for k, v in props.items() if k != "id"}, kind)
    return out


def _action_base(definition: Schema, name: str) -> dict[str, Any]:
    """An action of ``definition`` with its required fields, and those that the value of
    another field makes required when ``name`` is one of them (termite's queen cards)."""
    action: dict[str, Any] = _filler(definition)
    for rule in definition.get("allOf", []):
        needed = rule.get("then", {}).get("required", [])
        if name in needed:
            for key, cond in rule.get("if", {}).get("properties", {}).items():
                action[key] = cond["const"]
            props = definition["properties"]
            action.update({k: _filler(props[k]) for k in needed if k not in action})
            break
    return action


def action_integer_fields() -> dict[str, list[IntegerField]]:
    """Per game, the integer fields of its actions; ``build(number)`` is the whole action."""
    out: dict[str, list[IntegerField]] = {}
    for game, meta in index()["games"].items():
        fields: list[IntegerField] = []
        for kind, definition in _load(meta["action"]).get("$defs", {}).items():
            for f in _fields_of(definition.get("properties", {}), f"{game} {kind}"):
                base = _action_base(definition, f.name)
                fields.append(
                    IntegerField(
                        f.where,
                        f.name,
                        f.minimum,
                        f.maximum,
                        partial(_in_map, f.build, base, f.name),
                    )
                )
        out[game] = fields
    return out


def option_integer_fields() -> dict[str, list[IntegerField]]:
    """Per game, the integer fields of its ``create_table`` options."""
    out: dict[str, list[IntegerField]] = {}
    for game, meta in index()["games"].items():
        props = _load(meta["options"]).get("properties", {})
        out[game] = [
            IntegerField(
                f.where, f.name, f.minimum, f.maximum, partial(_in_map, f.build, {}, f.name)
            )
            for f in _fields_of(props, f"{game} options")
        ]
    return out


def integer_fields() -> list[str]:
    """Where every probed integer field is (for the report): messages, ids, actions, options."""
    return [
        *(f.where for fields in message_integer_fields().values() for f in fields),
        *(f"{kind}.id" for kind in message_integer_fields()),
        *(f.where for fields in action_integer_fields().values() for f in fields),
        *(f.where for fields in option_integer_fields().values() for f in fields),
    ]


_MESSAGE_FIELDS = message_integer_fields()
_ACTION_FIELDS = action_integer_fields()
_OPTION_FIELDS = option_integer_fields()
_ID_FIELD = _fields_of({"id": _load("ping.json")["properties"]["id"]}, "id")[0]
_FAR = (0, -1, 2**53, 2**63, 2**64, 1e300, -(2**63), -(2**63) - 1, -1e300)
"""Numbers every integer field is probed with besides its bounds (2^64 and -(2^63)-1
are no msgpack integer: that subprotocol sends them as floats)."""


def hostile_numbers(minimum: int | None, maximum: int | None) -> st.SearchStrategy[Any]:
    """Numbers for an integer field: its bounds and one past them, ``_FAR``, each also as
    a whole float, and fractions in and around the range."""
    exact: list[int | float] = [*_FAR]
    for bound in (minimum, maximum):
        if bound is not None:
            exact += [bound - 1, bound, bound + 1]
    whole = [float(n) for n in exact if isinstance(n, int)]
    low = minimum if minimum is not None else -5
    high = maximum if maximum is not None else low + 10
    fractions = [2.5, -0.5, low + 0.5, high - 0.5, low - 0.5, high + 0.5]
    return st.one_of(
        st.sampled_from([*exact, 2.0, *whole]),
        st.sampled_from(fractions),
        st.floats(low - 1, min(high, low + 2**20) + 1, allow_nan=False),
    )


_PROBE_KINDS = (
    *("act",) * 4,
    *("legal", "create_table") * 2,
    *("join", "add_bot") * 2,
    "resync",
    *("ping", "list_games", "list_tables", "subscribe_tables", "spectate", "leave"),
)
"""What a probe is (but a connection's first): mostly those with integer fields beside
``id``, most of all ``act`` with its actions' fields."""
_SEATED_KINDS = ("act", "legal")
"""Probed only by a connection with a table of its own (elsewhere: ``unauthorized``
before any number is read)."""
_BASES: dict[str, dict[str, Any]] = {
    "hello": {"v": 1, "name": "fuzz"},
    "create_table": {"seats": 2},
    "act": {"seat": 0},
    "add_bot": {"level": 1},
}
"""Besides ``t``, ``id`` and a table: the fields that make each probe well-formed but
for its number (``act``'s action and ``create_table``'s game are drawn per game)."""


def _fraction(number: Any) -> bool:
    return isinstance(number, float) and math.isfinite(number) and not number.is_integer()


@st.composite
def integer_probe(
    draw: st.DrawFn, tables: list[str], game: str | None, first: bool = False
) -> Probe:
    """One probe.  ``game``: the game of the connection's own table (None: it has
    none); ``first``: the connection's first message (the place for a hello probe)."""
    kinds = _PROBE_KINDS if game else tuple(k for k in _PROBE_KINDS if k not in _SEATED_KINDS)
    kind = draw(st.sampled_from(("hello",) if first else kinds))
    on = game if game is not None else draw(st.sampled_from(GAMES))
    others = st.sampled_from([*tables, "nosuchtable"])
    table = st.just(OWN_TABLE) if game and draw(st.integers(0, 3)) else others
    msg = Probe({"t": kind, "id": draw(st.integers(0, 999)), **_BASES.get(kind, {})})
    schema_props = _load(index()["messages"][kind]["schema"]).get("properties", {})
    if "table" in schema_props:
        msg["table"] = draw(table)
    if kind == "create_table":
        msg["game"] = on
    if kind == "act":
        some = draw(st.sampled_from(_ACTION_FIELDS[on]))
        msg["action"] = some.build(_inside(some.minimum))
    choices: list[tuple[str, IntegerField]] = [("", _ID_FIELD)]
    choices += [("", f) for f in _MESSAGE_FIELDS[kind]]
    if kind == "create_table":
        choices += [("options", f) for f in _OPTION_FIELDS[on]] * 3
    if kind in ("act", "legal"):
        choices += [("action" if kind == "act" else "partial", f) for f in _ACTION_FIELDS[on]] * 3
    inside, probed = draw(st.sampled_from(choices))
    number = draw(hostile_numbers(probed.minimum, probed.maximum))
    value = probed.build(number)
    if inside == "":
        msg[probed.name] = value
    else:
        msg[inside] = value
    msg.fraction = _fraction(number) and inside != "partial"
    return msg


def seated(game: str, with_bot: bool) -> list[Item]:
    """A connection's own table of ``game``: create it, sit at seat 0, maybe seat a bot
    (the weakest) so that the game starts."""
    items: list[Item] = [
        {"t": "create_table", "id": 900, "game": game, "seats": 2},
        {"t": "join", "id": 901, "table": OWN_TABLE},
    ]
    if with_bot:
        items.append({"t": "add_bot", "id": 902, "table": OWN_TABLE, "level": 1})
    return items


@st.composite
def hostile_batch(draw: st.DrawFn, tables: list[str]) -> tuple[str, list[Item]]:
    """One connection: (subprotocol, messages) -- usually a hello first."""
    subprotocol = draw(st.sampled_from([MSGPACK_PROTOCOL, JSON_PROTOCOL]))
    items: list[Item] = []
    if draw(st.integers(0, 9)) != 9:
        hello_probe = draw(st.integers(0, 9)) == 0
        hello = draw(integer_probe(tables, None, first=True)) if hello_probe else None
        items.append(hello or {"t": "hello", "id": 0, "v": 1, "name": "fuzz"})
    game = draw(st.sampled_from(GAMES)) if draw(st.booleans()) else None
    if game is not None:
        items += seated(game, draw(st.booleans()))
    for _ in range(draw(st.integers(1, 24))):
        # one frame in nine is garbage (most of those close the connection); of the
        # requests, one in three probes an integer field
        item: Item
        if draw(st.integers(0, 8)) == 8:
            item = draw(_garbage)
        elif draw(st.integers(0, 2)) == 0:
            item = draw(integer_probe(tables, game))
        else:
            item = draw(_request(tables))
        items.append(item)
    return subprotocol, items


def draw_batches(seed: int, messages: int, tables: list[str]) -> list[tuple[str, list[Item]]]:
    """Batches holding at least ``messages`` messages, the same for the same seed."""
    out: list[tuple[str, list[Item]]] = []
    count = 0

    @hypothesis_seed(seed)
    @settings(
        max_examples=max(1, messages // 6),
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(hostile_batch(tables))
    def collect(batch: tuple[str, list[Item]]) -> None:
        nonlocal count
        if count < messages:
            out.append(batch)
            count += len(batch[1])

    while count < messages:
        collect()
        seed += 1
        collect = hypothesis_seed(seed)(collect)
    return out


# -- sending and checking -----------------------------------------------------------------


def _frame(item: Item, subprotocol: str) -> bytes | str:
    if isinstance(item, Raw):
        return item.frame
    if subprotocol == MSGPACK_PROTOCOL:
        try:
            packed: bytes = msgpack.packb(item, use_bin_type=True, unicode_errors="surrogatepass")
        except OverflowError:  # 2^64, -(2^63)-1: no msgpack integer, a float64 then
            packed = msgpack.packb(
                _as_floats(item), use_bin_type=True, unicode_errors="surrogatepass"
            )
        return packed
    # ensure_ascii: a lone surrogate goes out as its \\u escape, the way a hostile peer sends it
    return json.dumps(item, default=lambda b: b.hex())


def _as_floats(value: Any) -> Any:
    """``value`` with every integer outside msgpack's range as the float nearest to it."""
    if isinstance(value, dict):
        return {k: _as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_floats(v) for v in value]
    if isinstance(value, int) and not -(2**63) <= value < 2**64:
        return float(value)
    return value


def _own(item: Item, own: str | None) -> Item:
    """``item`` with ``OWN_TABLE`` replaced by the connection's own table."""
    if isinstance(item, dict) and item.get("table") == OWN_TABLE:
        return {**item, "table": own or "nosuchtable"}
    return item


@dataclass
class Outcomes:
    """What every hostile message got, by category, and every rule broken."""

    counts: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    messages: int = 0
    connections: int = 0
    probes: Counter[str] = field(default_factory=Counter)
    """The outcomes of the integer-field probes (``Probe``), also counted in ``counts``."""

    def add(self, category: str, item: Item | None = None) -> None:
        self.counts[category] += 1
        if isinstance(item, Probe):
            self.probes[category] += 1

    def broken(self, what: str) -> None:
        if len(self.violations) < 50:
            self.violations.append(what)

    def unanswered(self) -> int:
        return self.counts["unanswered"] + self.counts["closed 1006"]


def _expected_id(item: Item, subprotocol: str) -> Any:
    """The id the reply must carry: the one sent (as the server decodes it), if valid."""
    if isinstance(item, Raw) or "id" not in item:
        return None
    sent = item["id"]
    if isinstance(sent, bytes) and subprotocol == JSON_PROTOCOL:
        sent = sent.hex()  # how _frame writes binary values in JSON
    if isinstance(sent, float) and math.isfinite(sent) and sent.is_integer():
        sent = int(sent)  # a whole float is the integer it equals (protocol/README.md)
    return sent if valid_request_id(sent) else None


async def _next_answer(ws: Any, codec_binary: bool) -> dict[str, Any] | None:
    """The next ok/error (pushes skipped); None if the connection closed."""
    while True:
        try:
            frame = await ws.recv()
        except websockets.ConnectionClosed:
            return None
        msg: dict[str, Any] = msgpack.unpackb(frame) if codec_binary else json.loads(frame)
        if msg.get("t") in ("ok", "error"):
            return msg


async def run_batch(url: str, subprotocol: str, items: list[Item], out: Outcomes) -> None:
    """One connection sending ``items`` one by one; every outcome is checked."""
    codes = index()
    ws = await websockets.connect(
        url,
        subprotocols=[Subprotocol(subprotocol)],
        compression=None,
        max_size=None,
        open_timeout=30,
    )
    out.connections += 1
    binary = subprotocol == MSGPACK_PROTOCOL
    own: str | None = None  # the table this connection created last
    try:
        for item in items:
            out.messages += 1
            sent = _own(item, own)
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send(_frame(sent, subprotocol))
            try:
                async with asyncio.timeout(ANSWER_TIMEOUT_S):
                    answer = await _next_answer(ws, binary)
            except TimeoutError:
                out.add("unanswered", item)
                out.broken(f"no answer and no close for {sent!r:.120}")
                return
            if answer is None:
                code = ws.close_code if ws.close_code is not None else 1006
                out.add(f"closed {code}", item)
                if str(code) not in codes["close_codes"] or code == 1011:
                    out.broken(f"closed {code} ({ws.close_reason}) after {sent!r:.300}")
                return
            _check_answer(item, sent, _expected_id(item, subprotocol), answer, out)
            if isinstance(sent, dict) and sent.get("t") == "create_table" and "table" in answer:
                own = answer["table"]
    finally:
        await ws.close()


def _check_answer(
    item: Item, sent: Item, expected_id: Any, answer: dict[str, Any], out: Outcomes
) -> None:
    code = answer.get("code", "ok")
    out.add(f"answered {code}", item)
    try:
        validate_outbound(answer)
    except ValueError as err:
        out.broken(f"reply outside its schema ({err}): {answer!r:.120}")
    if answer["t"] == "error" and (code not in index()["error_codes"] or code == "internal_error"):
        out.broken(f"error code {code}: {answer!r:.300} for {sent!r:.300}")
    if answer["id"] != expected_id:
        out.broken(f"reply id {answer['id']!r:.40} for {sent!r:.120}")
    if isinstance(item, Probe) and item.fraction and answer["t"] == "ok":
        out.broken(f"ok for a fraction where an integer is declared: {sent!r:.300}")


# -- the legitimate clients beside it -------------------------------------------------------


@dataclass
class Legit:
    """A lobby subscriber that pings, and two players of 9-tower playing game after game."""

    pings_ms: list[float] = field(default_factory=list)
    acts_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    games: int = 0

    def _watch_errors(self, conn: Connection) -> None:
        """Record every error a legitimate client gets (also to its unawaited resyncs),
        but those with ``retry_ms``: the client sends the request again as asked (a hub
        whose loop runs late refuses new tables so), and a request that still fails in
        the end raises where it is awaited."""

        def seen(msg: dict[str, Any]) -> None:
            if msg.get("t") == "error" and "retry_ms" not in msg:
                self.failures.append(f"{conn.name}: error {msg['code']} ({msg['message']})")

        conn.on_message = seen

    async def lobby(self, url: str, stop: asyncio.Event) -> None:
        conn = await Connection.connect(url, "lobby")
        self._watch_errors(conn)
        try:
            await conn.request("subscribe_tables")
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    async with asyncio.timeout(ANSWER_TIMEOUT_S):
                        await conn.request("ping")
                except Exception as err:  # any failure of a legitimate client is a finding
                    self.failures.append(f"lobby ping: {err!r}")
                    return
                self.pings_ms.append((time.perf_counter() - started) * 1000)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.1):
                        await stop.wait()
        finally:
            await conn.close()

    async def players(self, url: str, stop: asyncio.Event) -> None:
        ann, bo = await Connection.connect(url, "ann"), await Connection.connect(url, "bo")
        self._watch_errors(ann)
        self._watch_errors(bo)
        try:
            # Their tables are made first: the fuzzer's own create_table probes soon fill
            # the hub's cap of tables nobody has sat at (1,000), which then refuses new
            # ones with a 30 s retry_ms -- as documented, and no game for 30 s.
            # (8 each: a connection may hold 8 tables nobody has sat at)
            tables = [await p.create_table("nmbr9", 2) for p in (ann, bo) for _ in range(8)]
            for table in tables:
                if stop.is_set():
                    break
                await self._one_game(ann, bo, table, stop)
        except Exception as err:  # any failure of a legitimate client is a finding
            self.failures.append(f"players: {err!r}")
        finally:
            await ann.close()
            await bo.close()

    async def _one_game(
        self, ann: Connection, bo: Connection, table: str, stop: asyncio.Event
    ) -> None:
        await ann.join(table)
        await bo.join(table)
        await ann.wait_for(table, lambda m: m.view.get("status") == "playing")
        loop = asyncio.get_running_loop()
        next_round = loop.time()
        while not stop.is_set():
            # Pace: two requests per connection a round, at most ROUNDS_PER_S rounds a
            # second -- a legitimate client keeps under the rate limit (100/s).
            next_round = max(next_round + 1 / ROUNDS_PER_S, loop.time())
            await asyncio.sleep(next_round - loop.time())
            mirror = ann.tables[table]  # its status and version read together
            if mirror.view["status"] == "finished":
                break
            version, acted = mirror.version, False
            for player in (ann, bo):
                actions = await player.legal(table)
                if actions:
                    started = time.perf_counter()
                    await player.act(table, actions[0])
                    self.acts_ms.append((time.perf_counter() - started) * 1000)
                    acted = True
            if not acted:  # ann's view lags behind bo's last move: wait, do not spin
                await ann.wait_for(table, partial(_newer, version))
        for player in (ann, bo):
            mirror = player.tables[table]
            if mirror.mismatches:
                self.failures.append(f"{player.name}: {mirror.mismatches} hash mismatches")
            await player.request("leave", table=table)
        self.games += 1


def _newer(version: int, mirror: TableMirror) -> bool:
    return mirror.version > version


def p99(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


# -- a run ------------------------------------------------------------------------------------


@dataclass
class Setup:
    """Real tables of every game: one waiting, one in play (a bot and a host who left,
    the bot's move done), with the version each playing table must keep."""

    tables: list[str]
    playing: dict[str, int]


async def setup_tables(url: str) -> Setup:
    host = await Connection.connect(url, "host")
    setup = Setup([], {})
    try:
        for game in GAMES:
            waiting = await host.create_table(game, 2)
            playing = await host.create_table(game, 2)
            await host.request("add_bot", table=playing)
            seat = await host.join(playing)
            mirror = await host.wait_for(playing, partial(_waits_for, seat))
            setup.tables += [waiting, playing]
            setup.playing[playing] = mirror.version
    finally:
        await host.close()
    return setup


def _waits_for(seat: int, mirror: TableMirror) -> bool:
    return bool(mirror.view["to_act"] == [seat])


async def changed_tables(url: str, setup: Setup) -> list[str]:
    """The playing tables whose version moved: nobody the fuzzer could be may act there."""
    conn = await Connection.connect(url, "auditor")
    try:
        versions = {t: (await conn.request("spectate", table=t))["version"] for t in setup.playing}
    finally:
        await conn.close()
    return [t for t, version in versions.items() if version != setup.playing[t]]


async def fuzz(
    url: str,
    batches: list[tuple[str, list[Item]]],
    workers: int,
    legit: Legit | None,
    out: Outcomes | None = None,
) -> Outcomes:
    """Send every batch (``workers`` connections at a time) beside the legitimate clients.

    A batch's messages after its connection closed are not sent (``out.messages``
    counts those sent)."""
    out = out if out is not None else Outcomes()
    stop = asyncio.Event()
    side = []
    if legit is not None:
        side = [
            asyncio.create_task(legit.lobby(url, stop)),
            asyncio.create_task(legit.players(url, stop)),
        ]
    queue = list(reversed(batches))

    async def worker() -> None:
        while queue:
            subprotocol, items = queue.pop()
            await run_batch(url, subprotocol, items, out)

    try:
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        stop.set()
        await asyncio.gather(*side)
    return out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _wait_healthy(port: int, proc: subprocess.Popen[bytes]) -> None:
    while True:
        if proc.poll() is not None:
            raise RuntimeError("the hub exited at start-up")
        with contextlib.suppress(OSError):
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        await asyncio.sleep(0.1)  # polling a starting process: no event to wait on


def report(out: Outcomes, legit: Legit, rss: tuple[int, int], seconds: float) -> str:
    lines = [
        f"{out.messages} hostile messages over {out.connections} connections in {seconds:.0f} s",
        "outcomes:",
    ]
    for category, count in sorted(out.counts.items()):
        lines.append(f"  {category:<28} {count}")
    lines.append(
        f"of which integer-field probes ({len(integer_fields())} integer fields read from "
        f"the schemas): {sum(out.probes.values())}"
    )
    for category, count in sorted(out.probes.items()):
        lines.append(f"  {category:<28} {count}")
    lines += [
        f"unanswered (no reply, no close frame): {out.unanswered()}",
        f"rule violations: {len(out.violations)}",
        *(f"  {v}" for v in out.violations[:20]),
        f"hub RSS: {rss[0] / 1024:.0f} MiB before, {rss[1] / 1024:.0f} MiB after "
        f"(+{(rss[1] - rss[0]) / 1024:.0f} MiB)",
        f"legitimate lobby: {len(legit.pings_ms)} pings, p99 {p99(legit.pings_ms):.1f} ms",
        f"legitimate 9-tower: {legit.games} games, {len(legit.acts_ms)} acts, "
        f"act p99 {p99(legit.acts_ms):.1f} ms",
        f"legitimate client failures: {len(legit.failures)}",
        *(f"  {f}" for f in legit.failures[:10]),
    ]
    return "\n".join(lines)


def start_hub_process(port: int) -> subprocess.Popen[bytes]:
    """``tablehub serve`` (memory store, production settings) on ``port``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "tablehub.server.cli", "serve", "--port", str(port)]
    return subprocess.Popen([*command, "--log-level", "warning"], env=env)


async def attack(args: argparse.Namespace) -> int:
    """The attacker process: the hostile messages only; prints its Outcomes as JSON.

    Drawing costs hypothesis ~4 ms a message: a long run replays a pool of
    ``args.pool`` drawn messages in seeded random order, in rounds (a close cuts a
    batch short, so rounds go on until ``args.messages`` were sent)."""
    tables = args.tables.split(",")
    pool = draw_batches(args.seed, min(args.pool, args.messages), tables)
    rng = random.Random(args.seed)
    out = Outcomes()
    while out.messages < args.messages:
        batches = [rng.choice(pool) for _ in range(2_000)]
        await fuzz(args.attack, batches, args.workers, None, out)
    summary = {
        "counts": dict(out.counts),
        "violations": out.violations,
        "messages": out.messages,
        "connections": out.connections,
        "probes": dict(out.probes),
    }
    print(json.dumps(summary), flush=True)
    return 0


async def main_async(args: argparse.Namespace) -> int:
    """Hub, attacker and legitimate clients each in their own process (so the
    legitimate clients' latency is the hub's, not the attacker's event loop)."""
    port = _free_port()
    proc = start_hub_process(port)
    try:
        await _wait_healthy(port, proc)
        url = f"ws://127.0.0.1:{port}/ws"
        setup = await setup_tables(url)
        before = read_proc(proc.pid)
        legit = Legit()
        stop = asyncio.Event()
        side = [
            asyncio.create_task(legit.lobby(url, stop)),
            asyncio.create_task(legit.players(url, stop)),
        ]
        started = time.perf_counter()
        attacker = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tablehub.loadtest.fuzz",
            *("--attack", url, "--tables", ",".join(setup.tables)),
            *("--messages", str(args.messages), "--pool", str(args.pool)),
            *("--seed", str(args.seed), "--workers", str(args.workers)),
            stdout=asyncio.subprocess.PIPE,
        )
        output, _ = await attacker.communicate()
        seconds = time.perf_counter() - started
        stop.set()
        await asyncio.gather(*side)
        after = read_proc(proc.pid)
        summary = json.loads(output.decode().strip().splitlines()[-1])
        out = Outcomes(
            Counter(summary["counts"]),
            summary["violations"],
            summary["messages"],
            summary["connections"],
            Counter(summary["probes"]),
        )
        rss = (before.rss_kib if before else 0, after.rss_kib if after else 0)
        for table in await changed_tables(url, setup):
            out.broken(f"table {table} changed although the fuzzer holds no seat there")
        print(report(out, legit, rss, seconds), flush=True)
        return 1 if out.violations or out.unanswered() or legit.failures else 0
    finally:
        proc.terminate()
        proc.wait(10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--pool", type=int, default=10_000, help="distinct messages drawn")
    parser.add_argument("--workers", type=int, default=16, help="connections at a time")
    parser.add_argument("--attack", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--tables", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    return asyncio.run(attack(args) if args.attack else main_async(args))


if __name__ == "__main__":
    sys.exit(main())
