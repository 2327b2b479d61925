"""Limits and settings of one hub process (defaults mirror protocol/v1/index.json limits)."""

from __future__ import annotations

from dataclasses import dataclass

from tablehub.protocol.codec import index


def _limit(name: str) -> int:
    value: int = index()["limits"][name]
    return value


@dataclass(frozen=True)
class Limits:
    max_frame_bytes: int = _limit("max_frame_bytes")
    messages_per_second: float = _limit("messages_per_second")
    burst: int = _limit("burst")
    max_errors_per_minute: int = _limit("max_errors_per_minute")
    max_tables_per_connection: int = _limit("max_tables_per_connection")
    outbound_queue: int = 256
    """Pending pushes per connection before they are replaced by fresh snapshots."""
    control_queue: int = 1000
    """Replies waiting to be written before the connection is closed as a slow consumer."""
    max_overflows_per_minute: int = 10
    """A reader this slow is closed (4000) instead of being sent snapshot after snapshot."""
    hello_timeout_s: float = 10.0
