"""How long stores keep finished games (for replays and records; docs/design.md
"Keeping finished games").

* ``memory://`` keeps the last ``TABLEHUB_KEEP_FINISHED_GAMES`` finished games (default
  1,000): each is its final record, the record it was created with and its packed log
  (a few KB to a few hundred KB), so one process holds at most that many.
* Redis stores keep a finished game for ``TABLEHUB_KEEP_FINISHED_DAYS`` (default 30):
  the commit that finishes a table sets that expiry on every key of the table, keeps
  only the final snapshot (the log rebuilds every version), and drops from the table
  listing the entries older than the retention -- so Redis holds the games finished
  within the retention, each about the size of its log, and nothing older.
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


def finished_ops(table: str, listing: str, now_ms: int, keep_s: int) -> list[RedisCommand]:
    """The commands that retire a table whose game just finished: its keys expire in
    ``keep_s`` seconds, one snapshot stays, and the ``listing`` sorted set (the one
    that lists this table) forgets every table not updated within the retention."""
    ops: list[RedisCommand] = [("EXPIRE", key(table, name), keep_s) for name in FINISHED_KEYS]
    ops.append(("LTRIM", key(table, "snaps"), 0, 0))
    ops.append(("ZREMRANGEBYSCORE", listing, "-inf", now_ms - keep_s * 1000))
    return ops
