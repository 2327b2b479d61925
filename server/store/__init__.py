"""Table persistence and the coordination bus, chosen by URL (docs/design.md).

``memory://`` is the embedded default (one process, the single-process bus);
``redis://`` keeps state and log in Redis and coordinates several hub processes over
it (``store.bus``); ``redis+cluster://`` does the same on Redis Cluster.  Passwords
and TLS (``rediss://``, ``rediss+cluster://``): redis_url.py.  Backends are imported
lazily.
"""

from __future__ import annotations

from tablehub.server.config import redacted
from tablehub.server.store.base import Store
from tablehub.server.store.redis_url import is_cluster


def open_store(url: str) -> Store:
    if url.startswith("memory://"):
        from tablehub.server.store.memory import MemoryStore

        return MemoryStore()
    if url.startswith(("redis://", "rediss://", "unix://")):
        from tablehub.server.store.redis import RedisStore

        return RedisStore(url)
    if is_cluster(url):
        from tablehub.server.store.redis_cluster import RedisClusterStore

        return RedisClusterStore(url)
    raise ValueError(
        f"unknown store URL {redacted(url)!r} (use memory://, redis://host:port/db or "
        "redis+cluster://host:port,host:port)"
    )


__all__ = ["Store", "open_store"]
