"""The load generator cuts a hub's ``batch`` frame into the very frames the hub would
have sent one by one (the worker's decode cache and verifier memo key on them)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from tablehub.loadtest.batches import split
from tablehub.protocol import SUBPROTOCOLS, Codec
from tablehub.server.sessions.batching import batch_frame

MESSAGES: list[dict[str, Any]] = [
    {"t": "ok", "id": 7, "version": 3},
    {"t": "patch", "table": "t1", "from": 2, "to": 3, "ops": [], "hash": "ab" * 8},
    {"t": "event", "table": "t1", "version": 3, "events": [{"type": "placed", "x": -1}]},
    {"t": "presence", "table": "t1", "seats": [{"name": "Zoë", "bot": False}], "spectators": 0},
]


@pytest.mark.parametrize("codec", list(SUBPROTOCOLS.values()), ids=list(SUBPROTOCOLS))
def test_a_batch_splits_into_the_plain_frames_in_order(codec: Codec) -> None:
    plain = [codec.encode(m) for m in MESSAGES]
    parts = split(codec, batch_frame(codec, plain), codec.decode)
    assert [frame for frame, _ in parts] == plain
    assert [msg for _, msg in parts] == MESSAGES
    alone = split(codec, plain[1], codec.decode)
    assert alone == [(plain[1], MESSAGES[1])]


def test_a_batch_laid_out_otherwise_still_splits() -> None:
    codec = SUBPROTOCOLS["tablehub.v1.msgpack"]
    frame = msgpack.packb({"m": MESSAGES, "t": "batch"})  # keys in another order
    assert [msg for _, msg in split(codec, frame, codec.decode)] == MESSAGES
