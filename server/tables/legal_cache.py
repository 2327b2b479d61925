"""A table's ``legal`` replies, kept for the version they were asked at (issue 33).

Theory of operation: ``legal`` is decided by the table's actor like an act, in order
with the commands queued before it (protocol/README.md "Order of replies and pushes"),
and its answer is a function of the table's version, the seat and the partial action.
So each actor keeps a :class:`LegalCache`: the replies given at its current version, by
``(seat, partial, form)``.  A second ask at that version -- a client asking again, a retry,
the staged form walked back with ``back`` -- is a dictionary lookup; the first ask
after a commit starts a new cache (the version is recognised by the record object
itself, so a version decided in a batch but never stored is never answered from).

A reply is a :class:`LegalReply`: the plain map the core decided (a forwarded answer
is packed as one), which also keeps its encoding.  :func:`ok_frame` writes the ``ok``
reply for a request: the map's fields are encoded once per subprotocol and spliced
after the request's ``t`` and ``id`` -- the same bytes ``Codec.encode`` writes for
``{"t": "ok", "id": id, **reply}``, without encoding a list of hundreds of actions
again for each ask.
"""

from __future__ import annotations

from typing import Any

import msgpack

from tablehub.protocol import Codec
from tablehub.server.tables.core import Decision, Legal, Table, handle
from tablehub.server.tables.record import TableRecord

FIXMAP_MAX = 15
"""The most entries a msgpack map header of one byte (fixmap) counts."""


class LegalReply(dict[str, Any]):
    """A ``legal`` reply (``actions`` or the staged fields, and ``version``), with its
    fields encoded at most once per subprotocol."""

    __slots__ = ("_bodies",)

    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__(fields)
        self._bodies: dict[str, bytes | str] = {}

    def body(self, codec: Codec) -> bytes | str:
        """The reply's fields as ``codec`` encodes this map (EncodeError as it raises)."""
        body = self._bodies.get(codec.name)
        if body is None:
            body = self._bodies[codec.name] = codec.encode(self)
        return body


def ok_frame(reply: dict[str, Any], codec: Codec, request_id: Any) -> bytes | str:
    """``codec.encode({"t": "ok", "id": request_id, **reply})``, reusing the encoded
    fields of a :class:`LegalReply` (EncodeError as ``Codec.encode`` raises it)."""
    if not isinstance(reply, LegalReply) or not reply or len(reply) + 2 > FIXMAP_MAX:
        return codec.encode({"t": "ok", "id": request_id, **reply})
    head = codec.encode({"t": "ok", "id": request_id})
    body = reply.body(codec)
    if isinstance(head, bytes) and isinstance(body, bytes):
        # two fixmaps: one header counting both, then the entries of each
        return bytes((0x80 | (len(reply) + 2),)) + head[1:] + body[1:]
    assert isinstance(head, str) and isinstance(body, str)
    return f"{head[:-1]},{body[1:]}"


class LegalCache:
    """The ``legal`` replies given at one version of a table, by seat, partial and form."""

    __slots__ = ("_record", "_replies")

    def __init__(self) -> None:
        self._record: TableRecord | None = None
        self._replies: dict[tuple[int, bytes | None, bool], LegalReply] = {}

    def decide(self, table: Table, command: Legal, now: int) -> Decision:
        """``handle(table, command, now)``, answered from the replies given at this
        version when the same seat asked the same before."""
        if table.record is not self._record:
            self._record = table.record
            self._replies = {}
        key = _key(command)
        if key is None:
            return handle(table, command, now)
        known = self._replies.get(key)
        if known is not None:
            return Decision(reply=known)
        decision = handle(table, command, now)
        if decision.reply is None:
            return decision
        reply = self._replies[key] = LegalReply(decision.reply)
        return Decision(reply=reply)


def _key(command: Legal) -> tuple[int, bytes | None, bool] | None:
    """The seat, the partial action as bytes (True and 1 are one dict key, not one
    partial action) and the form; None for a partial that does not pack (answered, not
    kept)."""
    if command.partial is None:
        return command.seat, None, command.compact
    try:
        return command.seat, msgpack.packb(command.partial, use_bin_type=True), False
    except (TypeError, ValueError, OverflowError):
        return None
