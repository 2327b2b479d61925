"""Keeping finished games on a real local Redis Cluster (3 masters + 3 replicas): the
commit that finishes a game sets the retention on every key of the table inside its
own script on the table's master, keeps one snapshot, and the table's listing shard
forgets entries older than the retention -- as on one Redis
(tests/server/store/test_retention.py).  The game's record still verifies."""

from __future__ import annotations

import secrets
import time

import pytest
from redis.asyncio.cluster import ClusterNode, RedisCluster

from tablehub.loadtest.topology import RedisClusterNodes
from tablehub.server.store import open_store
from tablehub.server.store.redis_cluster import RedisClusterStore
from tablehub.server.store.redis_url import startup_nodes
from tablehub.server.store.retention import FINISHED_KEYS
from tablehub.server.tables.gamerecord import build, verify
from tablehub.server.tables.record import TableStatus
from tests.server.store.test_retention import commits_of_a_game

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it


async def test_a_finished_game_expires_on_a_redis_cluster(
    redis_cluster: RedisClusterNodes,
) -> None:
    store = open_store(redis_cluster.url)
    assert isinstance(store, RedisClusterStore)
    store.keep_finished_s = 3600
    await store.start()
    nodes = [ClusterNode(host, port) for host, port in startup_nodes(redis_cluster.url)]
    admin = RedisCluster(startup_nodes=nodes)
    try:
        commits = await commits_of_a_game(store, seed=3)
        t = commits[0].record.table
        listing = store._index("tables", t)
        stale, playing = f"stale-{secrets.token_hex(4)}", f"playing-{secrets.token_hex(4)}"
        await admin.zadd(listing, {stale: 1000, playing: int(time.time() * 1000)})
        for commit in commits[:-1]:
            await store.commit(commit.record, commit.entry, commit.record.version - 1)
        assert await admin.ttl(f"th:{{{t}}}:meta") == -1  # a game on never expires
        last = commits[-1]
        await store.commit(last.record, last.entry, last.record.version - 1)

        for name in FINISHED_KEYS:
            ttl = await admin.ttl(f"th:{{{t}}}:{name}")
            assert ttl == -2 or 3000 < ttl <= 3600, (name, ttl)  # -2: never written
        for name in ("meta", "ver", "epoch", "log", "snap", "snaps"):
            assert await admin.ttl(f"th:{{{t}}}:{name}") > 3000, name
        assert await admin.llen(f"th:{{{t}}}:snaps") == 1
        assert await admin.llen(f"th:{{{t}}}:log") == last.record.version
        assert await admin.zscore(listing, stale) is None
        assert await admin.zscore(listing, playing) is not None
        loaded = await store.load(t)
        assert loaded is not None and loaded.status is TableStatus.FINISHED
        assert verify(build(loaded, await store.log(t))) == last.record.version
        await admin.zrem(listing, playing)
        await store.delete(t)
    finally:
        await admin.aclose()
        await store.close()
