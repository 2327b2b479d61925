"""Limits and settings of one hub process (defaults mirror protocol/v1/index.json limits)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
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
    X-Forwarded-For and is one of :attr:`Access.trusted_proxies`, the real client
    address is the one counted."""
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


PRIVATE_NETWORKS = (
    "127.0.0.0/8",
    "::1/128",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "fc00::/7",
)
"""Loopback and the private ranges: where a hub's operators, its peers and a metrics
scraper sit in the compose topology."""


@dataclass(frozen=True)
class Access:
    """Who may use what on a hub's public port (README "Deployment").

    * ``trusted_proxies``: the balancers whose ``X-Forwarded-For`` is believed
      (uvicorn's ``forwarded_allow_ips`` form: comma-separated addresses or networks,
      ``*`` for any).  Every other peer's header is ignored and its own address is the
      client's;
    * ``operators``: networks whose clients (the real client, as above) get ``/metrics``
      and the whole ``/healthz``; everyone else gets 404 for ``/metrics`` and only
      ``{"ok": true}`` from ``/healthz``;
    * ``allowed_origins``: browser pages on other origins allowed to open ``/ws``
      (``scheme://host[:port]``); a page of the hub's own origin always may, and a
      client that sends no ``Origin`` (not a browser) is not asked."""

    trusted_proxies: str = "127.0.0.1"
    operators: tuple[str, ...] = PRIVATE_NETWORKS
    allowed_origins: tuple[str, ...] = ()
    _networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = field(
        init=False, repr=False, compare=False
    )
    _origins: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Parsed once; a malformed network raises ValueError (a usage error)."""
        networks = tuple(ipaddress.ip_network(n.strip(), strict=False) for n in self.operators)
        object.__setattr__(self, "_networks", networks)
        object.__setattr__(
            self, "_origins", frozenset(normal_origin(o) for o in self.allowed_origins)
        )

    def is_operator(self, host: str | None) -> bool:
        """Whether the client at ``host`` may read the operator endpoints."""
        if host is None:
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self._networks)

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """Whether a WebSocket handshake with this ``Origin`` header, sent to this
        ``Host``, may open: no Origin (not a browser), the page's own host, or one of
        :attr:`allowed_origins`."""
        if origin is None:
            return True
        normal = normal_origin(origin)
        if host is not None and urlsplit(normal).netloc == _normal_host(host):
            return True
        return normal in self._origins


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def normal_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case, without the scheme's default port."""
    parts = urlsplit(origin.strip().lower())
    if not parts.scheme or not parts.hostname:
        return origin.strip().lower()  # "null" and the like: compared as they are
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    try:
        port = parts.port
    except ValueError:
        return origin.strip().lower()
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme):
        host = f"{host}:{port}"
    return f"{parts.scheme}://{host}"


def _normal_host(host: str) -> str:
    """A ``Host`` header as an origin's host part: lower case, default ports dropped."""
    host = host.strip().lower()
    for suffix in (":80", ":443"):
        if host.endswith(suffix):
            return host[: -len(suffix)]
    return host


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


def redacted(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for logs and ``/healthz``)."""
    parts = urlsplit(url)
    userinfo, at, hosts = parts.netloc.rpartition("@")
    if not at:
        return url
    user, colon, _ = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=f"{user}{colon and ':***'}@{hosts}"))
