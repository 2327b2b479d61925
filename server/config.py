"""Limits and settings of one hub process (defaults mirror protocol/v1/index.json limits)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

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
    """Tables one connection may watch or play at once (refused with limit_reached)."""
    max_unused_tables_per_connection: int = _limit("max_unused_tables_per_connection")
    """Tables a connection created that nobody has sat at yet (refused with limit_reached)."""
    max_pending_requests: int = _limit("max_pending_requests")
    """Requests of one connection waiting for a table's answer (refused with rate_limited)."""
    max_connections_per_address: int = _limit("max_connections_per_address")
    """Open connections from one client address (refused with close 4002)."""
    limit_local: bool = False
    """Whether loopback and private-network clients count against
    ``max_connections_per_address``: a balancer (nginx in deploy/) or a load generator
    connects from there with many clients' connections.  Behind a balancer that sets
    X-Forwarded-For and is trusted by uvicorn (FORWARDED_ALLOW_IPS), the real client
    address is counted."""
    outbound_queue: int = 256
    """Pending pushes per connection before they are replaced by fresh snapshots."""
    control_queue: int = 1000
    """Replies waiting to be written before the connection is closed as a slow consumer."""
    max_overflows_per_minute: int = 10
    """A reader this slow is closed (4000) instead of being sent snapshot after snapshot."""
    hello_timeout_s: float = 10.0
    ping_interval_s: float = _limit("ping_interval_seconds")
    ping_timeout_s: float = _limit("ping_timeout_seconds")
    """A ping unanswered this long closes the connection with 4000
    (server/transport/connection.py)."""
    close_timeout_s: float = 10.0
    """After the server's close frame (written behind the last replies, even to a reader
    whose buffers are full), how long the peer has to answer before the socket is
    dropped."""
    socket_send_buffer: int = 16 * 1024
    """SO_SNDBUF of every accepted socket (Linux doubles it); bounds what a slow reader
    can hold in the kernel, so its queue overflows and the slow-reader rule fires."""
    transport_write_buffer: int = 16 * 1024
    """Bytes buffered by the transport before writing stops (pause_writing) and pushes
    wait in the session's bounded outbox."""
    stale_after_s: float = 3.0
    """A connection whose transport stays paused this long (its reader is slower than
    the table) has its pending pushes replaced by a fresh snapshot, as on an overflow
    (protocol/README.md "Slow readers": how far behind a slow reader can fall)."""


DURABILITIES = ("memory", "replica")
"""What an ``ok`` to a commit means on a Redis store: ``memory`` -- the Redis master
has it; ``replica`` -- a replica has it too (``WAIT``), so a failover keeps it."""


def with_durability(store_url: str, durability: str) -> str:
    """``store_url`` carrying ``durability`` as its ``durability=`` query parameter
    (Redis stores only: ``memory://`` keeps everything in the one process)."""
    if durability not in DURABILITIES:
        raise ValueError(f"durability must be one of {', '.join(DURABILITIES)}, not {durability!r}")
    if store_url.startswith("memory://"):
        if durability != "memory":
            raise ValueError("--durability replica needs a Redis store (--store redis://…)")
        return store_url
    parts = urlsplit(store_url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "durability"]
    if durability != "memory":
        query.append(("durability", durability))
    return urlunsplit(parts._replace(query=urlencode(query)))
