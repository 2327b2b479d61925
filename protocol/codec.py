"""Encoding, decoding and validation of protocol v1 messages.

Theory of operation: a connection negotiates one subprotocol; its :class:`Codec`
turns frames into message dicts (``decode``) and back (``encode``).  A frame that is
not valid msgpack/JSON raises :class:`DecodeError` (the session closes with 1007); a
frame that decodes but is not a valid message raises :class:`ProtocolError` with a
stable code (the session replies ``error`` and keeps the connection).

The door (``decode``, then ``validate_inbound``) is strict so that nothing a client
sends can later fail to encode for anyone: JSON is RFC 8259 (no NaN/Infinity), and
every decoded value must be one both subprotocols carry -- well-formed Unicode strings
(no lone surrogates), finite numbers, integers in msgpack's range, no binary or
extension values -- nested at most ``MAX_DEPTH`` deep and at most ``MAX_VALUES``
values in all (the work one message may cost).  ``encode`` raises
:class:`EncodeError` instead of handing the transport a frame it cannot send.

Validation uses the JSON Schema files of ``protocol/v1``, compiled once to Python code
by ``fastjsonschema`` (the schemas keep to keywords common to drafts 7 and 2020-12);
compiled validation costs ~3 µs a message against ~45 µs interpreted, and inbound
validation was 12% of the hub's CPU under load.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
import msgpack

V1_DIR = Path(__file__).parent / "v1"
PROTOCOL_VERSION = 1

Message = dict[str, Any]


class ProtocolError(Exception):
    """A decodable message that breaks the protocol; ``code`` is the wire error code."""

    def __init__(self, code: str, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


class DecodeError(Exception):
    """The frame is not valid msgpack / JSON (close code 1007)."""


class EncodeError(Exception):
    """A server message that cannot be encoded (a server bug: never sent half-made)."""


@cache
def index() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((V1_DIR / "index.json").read_text())
    return data


@cache
def _schema_texts() -> dict[str, bytes]:
    """Every schema file under ``v1/`` (``games/`` included) by its path relative to
    ``v1/`` with ``/`` separators -- the name the hub serves it under."""
    return {p.relative_to(V1_DIR).as_posix(): p.read_bytes() for p in V1_DIR.rglob("*.json")}


@cache
def schema_fingerprint() -> str:
    """16 hex digits of SHA-256 over every schema file (name + bytes, sorted by name)."""
    digest = hashlib.sha256()
    texts = _schema_texts()
    for name in sorted(texts):
        digest.update(name.encode() + b"\0" + texts[name] + b"\0")
    return digest.hexdigest()[:16]


Validator = Callable[[Any], Any]


@cache
def _validators() -> dict[str, Validator]:
    out = {}
    for name, meta in index()["messages"].items():
        schema = json.loads((V1_DIR / meta["schema"]).read_text())
        out[name] = fastjsonschema.compile(schema)
    return out


@cache
def message_types(direction: str) -> frozenset[str]:
    """Message types sent in ``direction`` (client_to_server | server_to_client)."""
    messages = index()["messages"]
    return frozenset(name for name, meta in messages.items() if meta["direction"] == direction)


MAX_DEPTH: int = index()["limits"]["max_depth"]
"""Deepest nesting of maps and lists a client message may have (the message itself is 1)."""
MAX_VALUES: int = index()["limits"]["max_values_per_message"]
"""Most values (maps, lists, strings, numbers…) one client message may hold."""
MAX_ID_LENGTH = 64
MAX_SAFE_INTEGER = 2**53 - 1
_INT_RANGE = (-(2**63), 2**64 - 1)
"""Integers msgpack can carry; a client value outside them could not be sent back."""


def _number(text: str) -> int | float:
    """A JSON number with a fraction or exponent: the integer it equals when it is whole
    (``2.0`` is 2), else the float."""
    number = float(text)
    return int(number) if number.is_integer() else number


def _whole_numbers(value: Any) -> Any:
    """``value`` with every whole float (2.0) replaced by the integer it equals, in place
    (a freshly decoded message); containers deeper than the protocol allows are left to
    :func:`value_problem` to refuse."""
    if type(value) is float:
        return int(value) if value.is_integer() else value
    if type(value) is not dict and type(value) is not list:
        return value
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        container, depth = stack.pop()
        if depth > MAX_DEPTH:
            continue
        items = container.items() if type(container) is dict else enumerate(container)
        for key, child in list(items):
            kind = type(child)
            if kind is float and child.is_integer():
                container[key] = int(child)
            elif kind is dict or kind is list:
                stack.append((child, depth + 1))
    return value


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _well_formed(text: str) -> bool:
    """True unless ``text`` holds a lone surrogate (which no UTF-8 encoder accepts)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def value_problem(value: Any) -> str | None:
    """Why ``value`` is not a protocol value (see the module docstring), or None.

    Walks containers only, checking their children by exact type (a hot path: every
    inbound message passes here); stops as soon as the value budget is spent."""
    budget = MAX_VALUES - 1
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        container, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"a message may nest at most {MAX_DEPTH} levels deep"
        if type(container) is dict:
            children: Any = container.values()
            budget -= 2 * len(container)
            for key in container:
                if type(key) is not str:
                    return "a map key is not a text"
                if not key.isascii() and not _well_formed(key):
                    return _ILL_FORMED
        else:
            children = container
            budget -= len(container)
        if budget < 0:
            return f"a message may hold at most {MAX_VALUES} values"
        kinds = set(map(type, children))
        if kinds == _INTS:  # a list of numbers: checked at C speed
            if min(children) < _INT_RANGE[0] or max(children) > _INT_RANGE[1]:
                return "an integer is out of range"
            continue
        for child in children:
            kind = type(child)
            if kind is str:
                if not child.isascii() and not _well_formed(child):
                    return _ILL_FORMED
            elif kind is int:
                if not _INT_RANGE[0] <= child <= _INT_RANGE[1]:
                    return "an integer is out of range"
            elif kind is dict or kind is list:
                stack.append((child, depth + 1))
            elif kind is float:
                if not math.isfinite(child):
                    return "a number is not finite"
            elif kind is not bool and child is not None:
                return "binary and extension values are not part of the protocol"
    return None


_ILL_FORMED = "a text is not valid Unicode (lone surrogate)"
_INTS = {int}


def valid_request_id(request_id: Any) -> bool:
    """An id the ``ok``/``error`` schemas allow: 0 ≤ int ≤ 2^53−1, or a text ≤ 64 chars."""
    if isinstance(request_id, int) and not isinstance(request_id, bool):
        return 0 <= request_id <= MAX_SAFE_INTEGER
    return (
        isinstance(request_id, str)
        and len(request_id) <= MAX_ID_LENGTH
        and (request_id.isascii() or _well_formed(request_id))
    )


def request_id_of(msg: Any) -> Any:
    """The message's id if it is one a reply may echo, else None (the reply's ``id: null``)."""
    request_id = msg.get("id") if isinstance(msg, dict) else None
    return request_id if valid_request_id(request_id) else None


def validate_inbound(msg: Any) -> Message:
    """Check a decoded client message against its schema; raise ProtocolError if not valid."""
    if not isinstance(msg, dict):
        raise ProtocolError("bad_message", "a message must be a map with a 't' field")
    request_id = request_id_of(msg)
    problem = value_problem(msg)
    if problem is not None:
        raise ProtocolError("bad_message", problem, request_id)
    if "id" in msg and request_id is None:
        raise ProtocolError(
            "bad_message",
            f"id must be an integer 0…2^53−1 or a text of at most {MAX_ID_LENGTH} characters",
        )
    kind = msg.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a string field 't'", request_id)
    if kind not in message_types("client_to_server"):
        raise ProtocolError("unknown_type", f"unknown message type {kind[:32]!r}", request_id)
    try:
        _validators()[kind](msg)
    except fastjsonschema.JsonSchemaValueException as error:
        text = error.message.removeprefix("data.").removeprefix("data ")
        if error.rule == "pattern":  # the regex means nothing to a person
            field = str(error.name).removeprefix("data.").removeprefix("data")
            text = f"{field or 'a text'} holds characters that are not allowed there"
        raise ProtocolError("bad_message", f"{kind}: {text[:200]}", request_id) from None
    return msg


def validate_outbound(msg: Message) -> None:
    """Schema check of a server message (tests and clients; raises ValueError)."""
    _validators()[msg["t"]](msg)


GAME_SCHEMA_KINDS = ("action", "player_view", "spectator_view", "event", "options")
"""What ``index.json`` ``games.<id>`` names a schema for (docs: protocol/README.md)."""


def _schema_at(ref: str) -> dict[str, Any]:
    """The schema a reference like ``games/brix/view.json#/$defs/player`` names.

    A fragment keeps the whole file (its ``$defs`` stay resolvable) and points the
    root ``$ref`` at the fragment: in draft 7, which fastjsonschema compiles, a
    ``$ref`` overrides its sibling keywords.  The files' ``$ref`` are all local
    (``#/$defs/...``); their relative ``$id`` is dropped because fastjsonschema would
    resolve those local references against it as a remote URL."""
    name, _, fragment = ref.partition("#")
    schema: dict[str, Any] = json.loads(_schema_texts()[name])
    schema.pop("$id", None)
    if fragment:
        schema["$ref"] = f"#{fragment}"
    return schema


@cache
def _game_validator(game: str, kind: str) -> Validator | None:
    """The compiled schema of ``kind`` for ``game`` (None for a game the index does not
    name); compiled on first use, so the hub compiles only the action schemas."""
    if kind == "table_view":
        return fastjsonschema.compile(_schema_at(index()["table_view"]))
    refs = index()["games"].get(game)
    return None if refs is None else fastjsonschema.compile(_schema_at(refs[kind]))


def action_problem(game: str, action: Any) -> str | None:
    """Why ``action`` does not fit ``game``'s action schema (words for the player, e.g.
    "action has fields this game does not know: junk"), or None when it fits.

    The hub asks before an action reaches the engine or the log: an action with
    fields the game does not know is refused as ``bad_action``.  A game without a
    schema (none today) is left to its engine."""
    validator = _game_validator(game, "action")
    if validator is None:
        return None
    try:
        validator(action)
    except fastjsonschema.JsonSchemaValueException as error:
        return _in_words(error)[:200]
    return None


def _in_words(error: fastjsonschema.JsonSchemaValueException) -> str:
    """fastjsonschema's complaint about an action, without Python reprs of lists."""
    where = "action" + (error.name or "data").removeprefix("data")
    definition = error.definition or {}
    if error.rule == "additionalProperties" and isinstance(error.value, dict):
        known = definition.get("properties", {})
        extra = sorted(str(key)[:32] for key in error.value if key not in known)
        return f"{where} has fields this game does not know: {', '.join(extra)}"
    if error.rule == "required" and isinstance(error.value, dict):
        missing = [key for key in definition.get("required", []) if key not in error.value]
        return f"{where} needs the field(s): {', '.join(missing)}"
    if error.rule == "enum":
        return f"{where} must be one of: {', '.join(map(str, definition.get('enum', [])))}"
    return "action" + error.message.removeprefix("data")


def validate_game_value(game: str, kind: str, value: Any) -> None:
    """Check ``value`` against ``game``'s schema of ``kind`` (one of GAME_SCHEMA_KINDS),
    or the table view with ``kind="table_view"`` (any ``game``); raises ValueError (also
    for a game without schemas)."""
    validator = _game_validator(game, kind)
    if validator is None:
        raise ValueError(f"no schemas for game {game!r}")
    validator(value)


_PACKERS = threading.local()


def packed(value: Any) -> bytes:
    """``msgpack.packb(value, use_bin_type=True)``, through one ``Packer`` per thread kept
    for the next value: ``packb`` makes a new one, with its buffer, for every value (a
    small reply then costs twice as much).  A value that fails to pack leaves the
    packer empty."""
    packer = getattr(_PACKERS, "packer", None)
    if packer is None:
        packer = _PACKERS.packer = msgpack.Packer(use_bin_type=True)
    out: bytes = packer.pack(value)
    return out


class Codec:
    """One subprotocol's framing: msgpack in binary frames or JSON in text frames."""

    def __init__(self, name: str, binary: bool) -> None:
        self.name = name
        self.binary = binary

    def encode(self, msg: Message) -> bytes | str:
        """The frame of ``msg``; raises EncodeError (never a frame the socket cannot send)."""
        try:
            if self.binary:
                return packed(msg)
            text = json.dumps(msg, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
            if not text.isascii():
                text.encode()  # the transport sends UTF-8: a lone surrogate must fail here
            return text
        except (ValueError, TypeError, OverflowError) as err:  # UnicodeEncodeError is a ValueError
            raise EncodeError(f"cannot encode a {msg.get('t')!r} message: {err}") from err

    def decode(self, frame: bytes | str) -> Any:
        """The frame's value.  DecodeError when it is not msgpack / strict JSON;
        ProtocolError (bad_message) when it nests too deep for the decoder."""
        try:
            if self.binary:
                if not isinstance(frame, bytes):
                    raise DecodeError("text frame on the msgpack subprotocol")
                value = msgpack.unpackb(frame, raw=False, strict_map_key=True)
                if b"\xcb" in frame or b"\xca" in frame:  # a float may be in there
                    value = _whole_numbers(value)
                return value
            if not isinstance(frame, str):
                raise DecodeError("binary frame on the json subprotocol")
            return json.loads(frame, parse_constant=_not_json, parse_float=_number)
        except DecodeError:
            raise
        except (RecursionError, msgpack.StackError):
            raise ProtocolError(
                "bad_message", f"a message may nest at most {MAX_DEPTH} levels deep"
            ) from None
        except (ValueError, msgpack.ExtraData, msgpack.FormatError) as err:
            raise DecodeError(f"frame is not valid {'msgpack' if self.binary else 'JSON'}") from err


SUBPROTOCOLS: dict[str, Codec] = {
    "tablehub.v1.msgpack": Codec("tablehub.v1.msgpack", binary=True),
    "tablehub.v1.json": Codec("tablehub.v1.json", binary=False),
}


def codec_for(offered: list[str]) -> Codec | None:
    """The first subprotocol the client offered that we speak, or None."""
    for name in offered:
        if name in SUBPROTOCOLS:
            return SUBPROTOCOLS[name]
    return None


class Frames:
    """One server message encoded at most once per subprotocol.

    A patch goes to every socket of an audience; this is how the same bytes are
    reused for all of them (docs/design.md: encode once per audience).
    """

    __slots__ = ("_encoded", "msg")

    def __init__(self, msg: Message) -> None:
        self.msg = msg
        self._encoded: dict[str, bytes | str] = {}

    def encoded(self, codec: Codec) -> bytes | str:
        frame = self._encoded.get(codec.name)
        if frame is None:
            frame = self._encoded[codec.name] = codec.encode(self.msg)
        return frame
