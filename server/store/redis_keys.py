"""Key names and msgpack encoding shared by the Redis store and the Redis bus (the key
layout is described in ``redis.py``)."""

from __future__ import annotations

from typing import Any

import msgpack


def key(table: str, name: str) -> str:
    """``th:{T}:name``: every key of one table shares the hash tag ``{T}``."""
    return f"th:{{{table}}}:{name}"


def table_of(name: str) -> str:
    """The table id inside a key or channel name (its hash tag)."""
    return name[name.index("{") + 1 : name.index("}")]


def pack(value: Any) -> bytes:
    out: bytes = msgpack.packb(value, use_bin_type=True)
    return out


def unpack(blob: bytes) -> Any:
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)
