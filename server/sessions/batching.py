"""The ``batch`` capability (protocol/README.md "Batching"): everything one socket has
to send at one flush goes out as one frame ``{"t": "batch", "m": [msg, …]}``.

Messages are encoded once per codec and shared by every socket that gets them
(``Frames``), so a batch is assembled from the frames already encoded -- msgpack
frames concatenated after a map and array header, JSON texts joined by commas --
never by decoding and encoding again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import msgpack

from tablehub.protocol import Codec

CAPABILITY = "batch"
BATCH_BYTES = 64 * 1024
"""A batch stops growing past this many bytes (the next message starts the next one)."""

_MSGPACK_HEAD = b"\x82" + msgpack.packb("t") + msgpack.packb("batch") + msgpack.packb("m")
_JSON_HEAD = '{"t":"batch","m":['


def collect(
    next_frame: Callable[[], bytes | str | None], pending: Callable[[], bool]
) -> list[bytes | str]:
    """Frames taken with ``next_frame`` (None: that item needs no frame) while
    ``pending()``, until the batch holds :data:`BATCH_BYTES`."""
    frames: list[bytes | str] = []
    size = 0
    while size < BATCH_BYTES and pending():
        frame = next_frame()
        if frame is not None:
            frames.append(frame)
            size += len(frame)
    return frames


def batch_frame(codec: Codec, frames: list[bytes | str]) -> bytes | str:
    """One frame carrying ``frames`` (each one encoded message of ``codec``) in order;
    a single frame is sent as it is."""
    if len(frames) == 1:
        return frames[0]
    if codec.binary:
        header: bytes = msgpack.Packer().pack_array_header(len(frames))
        return b"".join([_MSGPACK_HEAD, header, *cast("list[bytes]", frames)])
    return _JSON_HEAD + ",".join(cast("list[str]", frames)) + "]}"
