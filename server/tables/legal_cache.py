"""A table's ``legal`` replies, kept for the version they were asked at (issue 33).

Theory of operation: ``legal`` is decided by the table's actor like an act, in order
with the commands queued before it (protocol/README.md "Order of replies and pushes"),
and its answer is a function of the table's version, the seat and the partial action.
So each actor keeps a :class:`LegalCache`: the replies given at its current version, by
``(seat, partial, form)``.  A second ask at that version -- a client asking again, a retry,
the staged form walked back with ``back`` -- is a dictionary lookup; the first ask
after a commit starts a new cache (the version is recognised by the record object
itself, so a version decided in a batch but never stored is never answered from).

A game may also say what a seat's legal actions depend on (``Game.legal_basis``: for
9-tower, whether the seat must place, the card and the seat's own layout), so the
plain, compact, grid and layered replies are also kept across versions, the last one
per seat and form: when the table moved on but the seat's basis is equal (another seat
placed), the kept reply is given again at the new version, not computed again -- a
client that asks on every update while the others play gets it as a lookup.  At most four replies a
seat (one per form) are kept this way, each with the state it was decided in (the bases
are compared only when the seat asks again), and only until the seat acts
(:meth:`LegalCache.forget`, called by the actor): a client that asks once before each
move computes no basis and leaves nothing kept behind it (a reply is a few hundred
values and a few dozen objects the collector tracks; a table may seat a thousand).

A reply is a :class:`LegalReply`: the plain map the core decided (a forwarded answer
is packed as one), which also keeps the encoding of its fields but ``version`` (the
last one), shared by the same reply at other versions.  :func:`ok_frame` writes the
``ok`` reply for a request: the first ask in a subprotocol encodes the whole message at
once (most replies are asked for once: nothing is kept for an ask that never comes);
from the second on, the fields encoded once per subprotocol, spliced after the request's
``t`` and ``id`` and before the version -- the same bytes ``Codec.encode`` writes for
``{"t": "ok", "id": id, **reply}``, without encoding a list of hundreds of actions again
for each ask.
"""

from __future__ import annotations

from typing import Any

import msgpack

from tablehub.protocol import Codec
from tablehub.protocol.legal import FORMS, PLAIN
from tablehub.server.games.base import State
from tablehub.server.tables.core import Decision, Legal, Table, game_of, handle
from tablehub.server.tables.record import TableRecord

FIXMAP_MAX = 15
"""The most entries a msgpack map header of one byte (fixmap) counts."""

VERSION = "version"
FIRST = b""
"""A reply's body in a subprotocol asked for once (no body encodes to nothing)."""


class LegalReply(dict[str, Any]):
    """A ``legal`` reply (``actions`` or the staged fields, then ``version``), with its
    fields but ``version`` encoded at most once per subprotocol."""

    __slots__ = ("_bodies",)

    def __init__(self, fields: dict[str, Any], bodies: dict[str, bytes | str] | None = None):
        super().__init__(fields)
        self._bodies: dict[str, bytes | str] = {} if bodies is None else bodies

    def at(self, version: int) -> LegalReply:
        """The same reply at another version (its fields' encodings shared)."""
        return LegalReply({**self, VERSION: version}, self._bodies)

    def body(self, codec: Codec) -> bytes | str | None:
        """The reply's fields but ``version`` as ``codec`` encodes a map of them
        (EncodeError as it raises); None when ``codec`` is asked for the first time
        (the next ask encodes and keeps them)."""
        body = self._bodies.get(codec.name)
        if body is None:
            self._bodies[codec.name] = FIRST
            return None
        if body is FIRST:
            fields = {name: value for name, value in self.items() if name != VERSION}
            body = self._bodies[codec.name] = codec.encode(fields)
        return body


def ok_frame(reply: dict[str, Any], codec: Codec, request_id: Any) -> bytes | str:
    """``codec.encode({"t": "ok", "id": request_id, **reply})``, reusing the encoded
    fields of a :class:`LegalReply` (EncodeError as ``Codec.encode`` raises it)."""
    if (
        not isinstance(reply, LegalReply)
        or not 2 <= len(reply) <= FIXMAP_MAX - 2
        or next(reversed(reply)) != VERSION
        or (body := reply.body(codec)) is None  # asked once so far: encoded whole
    ):
        return codec.encode({"t": "ok", "id": request_id, **reply})
    head = codec.encode({"t": "ok", "id": request_id})
    tail = codec.encode({VERSION: reply[VERSION]})
    if isinstance(head, bytes) and isinstance(body, bytes) and isinstance(tail, bytes):
        # three fixmaps: one header counting all, then the entries of each
        return bytes((0x80 | (len(reply) + 2),)) + head[1:] + body[1:] + tail[1:]
    assert isinstance(head, str) and isinstance(body, str) and isinstance(tail, str)
    return f"{head[:-1]},{body[1:-1]},{tail[1:]}"


class LegalCache:
    """The ``legal`` replies given at one version of a table, by seat, partial and form;
    and the last reply of each seat in each form without ``partial``, with the state it was decided
    in (states are never changed once made: the basis is read from it only when the
    seat asks again)."""

    __slots__ = ("_kept", "_record", "_replies")

    def __init__(self) -> None:
        self._record: TableRecord | None = None
        self._replies: dict[tuple[int, bytes | None, str], LegalReply] = {}
        self._kept: dict[tuple[int, str], tuple[State, LegalReply]] = {}

    def decide(self, table: Table, command: Legal, now: int) -> Decision:
        """``handle(table, command, now)``, answered from the replies given at this
        version when the same seat asked the same before, or from the seat's kept reply
        when its basis is the same."""
        record = table.record
        if record is not self._record:
            self._record = record
            self._replies = {}
        key = _key(command)
        if key is None:
            return handle(table, command, now)
        known = self._replies.get(key)
        if known is not None:
            return Decision(reply=known)
        seat, keep = command.seat, False
        if command.partial is None and 0 <= seat < len(record.seats):
            legal_basis = game_of(record).legal_basis
            keep = legal_basis is not None
            kept = self._kept.get((seat, command.form))
            if (
                legal_basis is not None
                and kept is not None
                and legal_basis(kept[0], seat) == legal_basis(record.state, seat)
            ):
                reply = self._replies[key] = kept[1].at(record.version)
                return Decision(reply=reply)
        decision = handle(table, command, now)
        if decision.reply is None:
            return decision
        reply = self._replies[key] = LegalReply(decision.reply)
        if keep:
            self._kept[(seat, command.form)] = (record.state, reply)
        return Decision(reply=reply)

    def forget(self, seat: int) -> None:
        """Drop the replies kept for ``seat`` across versions (it acted: its own move
        changes what it may do next)."""
        if self._kept:
            for form in FORMS:
                self._kept.pop((seat, form), None)


def _key(command: Legal) -> tuple[int, bytes | None, str] | None:
    """The seat, the partial action as bytes (True and 1 are one dict key, not one
    partial action) and the form; None for a partial that does not pack (answered, not
    kept)."""
    if command.partial is None:
        return command.seat, None, command.form
    try:
        return command.seat, msgpack.packb(command.partial, use_bin_type=True), PLAIN
    except (TypeError, ValueError, OverflowError):
        return None
