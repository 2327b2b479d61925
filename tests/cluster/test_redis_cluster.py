"""Hubs on a real local Redis Cluster (3 masters + 3 replicas, issue 18): games through
two hub processes, and ``kill -9`` of the master holding a table, ten times in one game,
with ``--durability replica``: no acknowledged move lost, none applied twice."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tablehub.clients.cli.connection import Connection, ServerError
from tablehub.loadtest.topology import LocalCluster, RedisClusterNodes
from tablehub.server.config import with_durability
from tablehub.server.store.redis_url import startup_nodes
from tests.cluster.test_cluster import assert_acked_exactly_once, play_to_the_end, read_log

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

LEASE_MS = 1000
RETRYABLE = ("unavailable", "overloaded")
CLIENT_BACKOFF_S = 0.2
"""How long the test's players wait before resending a refused request (a client's
backoff, as the protocol asks; not a synchronisation)."""

Acked = list[tuple[int, int, Any]]


def test_the_store_url_names_the_nodes_and_the_durability() -> None:
    url = with_durability("redis+cluster://10.0.0.1:7000,10.0.0.2:7001", "replica")
    assert url == "redis+cluster://10.0.0.1:7000,10.0.0.2:7001?durability=replica"
    assert startup_nodes(url) == [("10.0.0.1", 7000), ("10.0.0.2", 7001)]
    assert with_durability(url, "memory") == "redis+cluster://10.0.0.1:7000,10.0.0.2:7001"
    with pytest.raises(ValueError, match="host:port"):
        startup_nodes("redis+cluster://10.0.0.1")
    with pytest.raises(ValueError, match="needs a Redis store"):
        with_durability("memory://", "replica")


@pytest.fixture
def hubs_on_cluster(redis_cluster: RedisClusterNodes) -> Iterator[LocalCluster]:
    with LocalCluster(hubs=2, redis_url=redis_cluster.url, lease_ms=LEASE_MS) as running:
        yield running


async def test_a_game_through_two_hubs_on_a_redis_cluster(hubs_on_cluster: LocalCluster) -> None:
    cluster = hubs_on_cluster
    ann = await Connection.connect(cluster.hub_url(0), "ann")
    bo = await Connection.connect(cluster.hub_url(1), "bo")
    watcher = await Connection.connect(cluster.url, "watcher")
    table = await bo.create_table("nmbr9", 2, seed=5)
    await ann.join(table)
    await bo.join(table)
    await watcher.spectate(table)
    listed = await watcher.request("list_tables")
    assert table in [t["table"] for t in listed["tables"]], "the sharded listing has it"
    acked: Acked = []
    await play_to_the_end([ann, bo], watcher, table, acked)
    assert_acked_exactly_once(await read_log(str(cluster.redis_url), table), acked)
    for conn in (ann, bo, watcher):
        await conn.close()


class Players:
    """Two players acting as fast as they can, resending refused requests after a
    backoff; every acknowledged move is recorded with the time it arrived."""

    def __init__(self, conns: list[Connection], table: str) -> None:
        self.conns = conns
        self.table = table
        self.acked: Acked = []
        self.ack_times: list[float] = []
        self.refused = 0
        """Requests the hub refused as retryable: the client's own retries (same key)
        and the ones this player sent again after the client gave up."""
        self.progress = asyncio.Condition()
        for conn in conns:
            conn.on_wait = self._client_retries

    def _client_retries(self, words: str) -> None:
        self.refused += 1

    async def _place(self, conn: Connection) -> bool:
        """One move of this seat if it must act (retrying refusals); whether it acted."""
        while True:
            try:
                actions = await conn.legal(self.table)
                if not actions:
                    return False
                action = actions[len(actions) // 2]
                version = await conn.act(self.table, action)
            except ServerError as err:
                if err.code not in RETRYABLE:
                    raise
                self.refused += 1
                await asyncio.sleep(CLIENT_BACKOFF_S)
                continue
            async with self.progress:
                self.acked.append((version, conn.seats[self.table], action))
                self.ack_times.append(time.monotonic())
                self.progress.notify_all()
            return True

    async def play(self) -> None:
        """Rounds until a round where nobody may act (the game is over)."""
        while any(await asyncio.gather(*(self._place(c) for c in self.conns))):
            pass

    async def until_acked(self, count: int) -> None:
        async with self.progress:
            await self.progress.wait_for(lambda: len(self.acked) >= count)


async def test_ten_master_kills_lose_no_acknowledged_move(
    redis_cluster: RedisClusterNodes,
) -> None:
    nodes = redis_cluster
    kills, every = 10, 3
    with LocalCluster(
        hubs=2, redis_url=nodes.url, lease_ms=LEASE_MS, durability="replica"
    ) as cluster:
        ann = await Connection.connect(cluster.hub_url(0), "ann")
        bo = await Connection.connect(cluster.hub_url(1), "bo")
        table = await ann.create_table("nmbr9", 2, seed=13)
        await ann.join(table)
        await bo.join(table)
        players = Players([ann, bo], table)
        game = asyncio.create_task(players.play())
        killed_at: list[float] = []
        for kill in range(kills):
            await players.until_acked(every * (kill + 1))
            master = nodes.master_of(f"th:{{{table}}}:ver")
            nodes.kill(master)
            killed_at.append(time.monotonic())
            # The replica takes over first: a master restarted empty before that would
            # hand its empty data set to its replica.
            await asyncio.to_thread(nodes.wait_healthy)
            await asyncio.to_thread(nodes.start_node, master)
            await asyncio.to_thread(nodes.wait_healthy)
        await game
        log = await read_log(with_durability(nodes.url, "replica"), table)
        assert_acked_exactly_once(log, players.acked)
        gaps = [min(t for t in players.ack_times if t > k) - k for k in killed_at]
        print(
            f"\n{kills} master kills: {len(players.acked)} moves acknowledged, 0 lost, "
            f"0 applied twice, {players.refused} refusals retried; time from a kill to the "
            f"next ack: median {sorted(gaps)[len(gaps) // 2]:.2f} s, max {max(gaps):.2f} s"
        )
        for conn in (ann, bo):
            final = await conn.wait_for(table, lambda m: m.view["status"] == "finished")
            assert final.mismatches == 0
            await conn.close()
