"""How long stores keep finished games (for replays and records; docs/design.md
"Keeping finished games").

* ``memory://`` keeps the last ``TABLEHUB_KEEP_FINISHED_GAMES`` finished games (default
  1,000): each is its final record, the record it was created with and its packed log
  (a few KB to a few hundred KB), so one process holds at most that many.
* Redis stores keep a finished game for ``TABLEHUB_KEEP_FINISHED_DAYS`` (default 30):
  the commit that finishes a table sets that expiry on every key of the table and
  keeps only the final snapshot (the log rebuilds every version) inside its own commit
  script (``store/redis.py``), so a finished game is never stored without its expiry:
  the commit and the expiry are one atomic step, done or not done together.  Beside
  it, the table listing drops its entries older than the retention (a listing trim
  lost with its connection is done by the next game that finishes) -- so Redis holds
  the games finished within the retention, each about the size of its log, and
  nothing older.
"""

from __future__ import annotations

import os

from tablehub.server.store.redis_keys import key
from tablehub.server.store.redis_link import RedisCommand

KEEP_FINISHED_GAMES = 1000
KEEP_FINISHED_DAYS = 30.0

FINISHED_KEYS = ("meta", "ver", "epoch", "log", "snap", "snaps", "keys", "pres")
"""The table keys that outlive its play (its lease expires by itself)."""


def finished_games() -> int:
    """Finished games the memory store keeps (env ``TABLEHUB_KEEP_FINISHED_GAMES``)."""
    return int(os.environ.get("TABLEHUB_KEEP_FINISHED_GAMES", KEEP_FINISHED_GAMES))


def finished_seconds() -> int:
    """Seconds a Redis store keeps a finished game (env ``TABLEHUB_KEEP_FINISHED_DAYS``)."""
    days = float(os.environ.get("TABLEHUB_KEEP_FINISHED_DAYS", KEEP_FINISHED_DAYS))
    return max(1, int(days * 86400))


def finished_keys(table: str) -> list[str]:
    """The keys of ``table`` that the commit finishing its game sets to expire."""
    return [key(table, name) for name in FINISHED_KEYS]


def listing_ops(listing: str, now_ms: int, keep_s: int) -> list[RedisCommand]:
    """Sent beside a finishing commit: the ``listing`` sorted set (the one that lists
    the table) forgets every table not updated within the retention."""
    return [("ZREMRANGEBYSCORE", listing, "-inf", now_ms - keep_s * 1000)]
