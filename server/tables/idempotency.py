"""Idempotency keys (protocol/README.md "Idempotent requests and retries").

A client may put a ``key`` -- a random secret it chose -- on ``create_table``, ``join``
and ``act``; a retry with the same key gets the first attempt's answer.  The server
never keeps a key itself, only :func:`key_digest` of it:

* ``create_table``: the store maps (game, digest) to the table for the table's life;
* ``join``: the seat keeps the digest (``Seat.key_hash``), and the seat's token is
  derived from the key (:func:`seat_token`), so a retry gets the same token back
  although only a hash of the token is stored;
* ``act``: :class:`ActKeys`, per seat the last :data:`ACT_KEYS_PER_SEAT` digests and
  what each was answered, is part of the table record, so the owner that takes a
  table over after a failover answers retries like the one that failed.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Any

import msgpack

from tablehub.server.tables.errors import TableError

ACT_KEYS_PER_SEAT = 16
"""Act keys remembered per seat: a client retries one request at a time, a few at most."""
RETRYABLE = frozenset({"overloaded", "unavailable", "internal_error"})
"""Errors that do not settle a request: a retry with the same key runs it again."""

ActResult = tuple[str, int | str, str]
"""(digest, version, "") for an ``ok``, or (digest, code, message) for an ``error``."""


def key_digest(key: str) -> str:
    """What the server keeps of a client's key (32 hex digits of SHA-256)."""
    return hashlib.sha256(b"tablehub key\0" + key.encode()).hexdigest()[:32]


def seat_token(table: str, key: str) -> str:
    """The seat token a keyed ``join`` at ``table`` gets, the same on every retry.

    As secret as the key it is made from (the key never leaves its client)."""
    digest = hashlib.sha256(b"tablehub seat token\0" + table.encode() + b"\0" + key.encode())
    return base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")


@dataclass(frozen=True)
class ActKeys:
    """Per seat, the recent act keys and their answers (oldest first).  Immutable:
    :meth:`with_result` returns a new memory, so a record that is not committed
    changes nothing."""

    seats: dict[int, tuple[ActResult, ...]] = field(default_factory=dict)

    def answer(self, seat: int, digest: str) -> dict[str, Any] | None:
        """The ``ok`` fields remembered for this key; raises the remembered error;
        None when the key is new."""
        for known, outcome, message in self.seats.get(seat, ()):
            if known != digest:
                continue
            if isinstance(outcome, int):
                return {"version": outcome}
            raise TableError(outcome, message)
        return None

    def with_result(self, seat: int, digest: str, outcome: int | TableError) -> ActKeys:
        """Remember ``outcome`` (a version, or a settling error) for the key."""
        item: ActResult = (
            (digest, outcome, "")
            if isinstance(outcome, int)
            else (digest, outcome.code, outcome.message)
        )
        recent = (*self.seats.get(seat, ()), item)[-ACT_KEYS_PER_SEAT:]
        return ActKeys({**self.seats, seat: recent})

    def encoded(self, seat: int) -> bytes:
        """One seat's memory as the store keeps it (msgpack)."""
        packed: bytes = msgpack.packb([list(item) for item in self.seats.get(seat, ())])
        return packed

    @classmethod
    def decoded(cls, stored: dict[bytes, bytes]) -> ActKeys:
        """The memory from each seat's :meth:`encoded` form."""
        seats = {
            int(seat): tuple((d, o, m) for d, o, m in msgpack.unpackb(blob))
            for seat, blob in stored.items()
        }
        return cls(seats)
