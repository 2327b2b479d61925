"""Prometheus metrics of one hub process (served at /metrics)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

CONNECTIONS = Gauge("tablehub_connections", "Open WebSocket connections")
TABLES = Gauge("tablehub_tables", "Live tables in this process", ["game", "status"])
MESSAGES_IN = Counter("tablehub_messages_in_total", "Frames received and decoded")
ACTS = Counter("tablehub_acts_total", "act requests")
FORWARDED = Counter(
    "tablehub_forwarded_total",
    "Commands sent on to a table's owner in another process (see rooms in protocol/README.md)",
)
ACT_LATENCY = Histogram(
    "tablehub_act_seconds",
    "act request to reply, in the hub",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
)
PUSHES = Counter("tablehub_pushes_total", "Table pushes written to sockets", ["kind"])
ERRORS = Counter("tablehub_errors_total", "error replies by code", ["code"])
SNAPSHOT_FALLBACKS = Counter(
    "tablehub_snapshot_fallbacks_total", "Outbound queue overflows replaced by a snapshot"
)
_COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
COMMIT_LATENCY = Histogram(
    "tablehub_commit_seconds",
    "Store commit latency, from the table's request to its resumption",
    buckets=_COMMIT_BUCKETS,
)
COMMIT_PHASE = Histogram(
    "tablehub_commit_phase_seconds",
    "Group commits by phase: 'queued' from the first commit's request to the send,"
    " 'redis' from the send to the reply",
    ["phase"],
    buckets=_COMMIT_BUCKETS,
)
GC_PAUSE = Histogram(
    "tablehub_gc_pause_seconds",
    "Cyclic garbage collector pauses by generation",
    ["generation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5),
)
GC_PAUSE_MAX = Gauge(
    "tablehub_gc_pause_max_seconds",
    "The longest cyclic garbage collector pause since the process started, by generation",
    ["generation"],
)

GC_PAUSE_CPU_MAX = Gauge(
    "tablehub_gc_pause_cpu_max_seconds",
    "The most CPU time one cyclic garbage collection took, by generation (a pause whose "
    "wall time is far longer was the process waiting for a CPU, not the collector working)",
    ["generation"],
)
GC_TRACKED = Gauge(
    "tablehub_gc_tracked_objects",
    "Objects the cyclic garbage collector tracks (frozen ones included), read at each scrape",
)


LOOP_LAG = Histogram(
    "tablehub_loop_lag_seconds",
    "How late the event loop ran a callback posted by the loop watch thread",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
BOT_THINK = Histogram(
    "tablehub_bot_think_seconds",
    "Bot moves thought in a worker process, from asking to the answer (queueing included)",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
LEASES_LOST = Counter("tablehub_leases_lost_total", "Table leases found taken or expired")
STORE_UP = Gauge(
    "tablehub_store_up", "1 when the store (Redis) answered the last health probe, else 0"
)
REFUSED = Counter(
    "tablehub_shed_total",
    "Requests (acts, legal, new tables) refused as overloaded (loop late, or moves queued)",
)

_CHILDREN: dict[tuple[int, str], Counter] = {}


def counter_child(counter: Counter, label: str) -> Counter:
    """``counter.labels(label)``, looked up once per label (the lookup takes a lock and
    builds a tuple key: noticeable per message on the hot path)."""
    key = (id(counter), label)
    child = _CHILDREN.get(key)
    if child is None:
        child = _CHILDREN[key] = counter.labels(label)
    return child


CLIENT_FAULTS = Counter(
    "tablehub_client_faults_total",
    "Frames from clients that broke the protocol (the connection was closed), by kind",
    ["kind"],
)
STORE_UNREACHABLE = Counter(
    "tablehub_store_unreachable_total",
    "Store calls that could not reach Redis, by the part of the hub that made them",
    ["where"],
)
