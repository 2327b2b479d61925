"""Taking ``batch`` frames apart (protocol/README.md "Batching") for simulated clients.

A batch from the hub is one frame per client, but the messages inside are the same
bytes every client of a table gets -- which is what the worker's decode cache and the
:class:`~loadtest.mirror.Verifier` key on.  So a msgpack batch is cut into the exact
bytes of each message (``Unpacker.skip`` finds the boundaries without building
anything); each piece then goes through the same path a plain frame does.  A JSON
batch (the debugging subprotocol), or a batch laid out otherwise, is decoded whole and
its messages encoded again as the hub would have sent them alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack

from tablehub.protocol import Codec

CAPABILITY = "batch"
_MSGPACK_HEAD = b"\x82" + msgpack.packb("t") + msgpack.packb("batch") + msgpack.packb("m")


def split(
    codec: Codec, frame: bytes | str, decode: Callable[[bytes | str], Any]
) -> list[tuple[bytes | str, dict[str, Any]]]:
    """``(frame, message)`` for each message a frame holds: itself, or a batch's items."""
    if isinstance(frame, bytes) and frame.startswith(_MSGPACK_HEAD):
        head = len(_MSGPACK_HEAD)
        unpacker = msgpack.Unpacker(max_buffer_size=len(frame))
        unpacker.feed(frame[head:])
        count = unpacker.read_array_header()
        parts: list[tuple[bytes | str, dict[str, Any]]] = []
        start = head + unpacker.tell()
        for _ in range(count):
            unpacker.skip()
            end = head + unpacker.tell()
            piece = frame[start:end]
            parts.append((piece, decode(piece)))
            start = end
        return parts
    msg = decode(frame)
    if msg.get("t") != CAPABILITY:
        return [(frame, msg)]
    return [(codec.encode(item), item) for item in msg["m"] if item.get("t") != CAPABILITY]
