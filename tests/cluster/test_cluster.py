"""Several hub processes on one Redis (issue 3): real subprocesses, real sockets,
a throwaway redis-server.  Nothing acknowledged is lost; nothing is applied twice."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tablehub.clients.cli.connection import Connection, ServerError
from tablehub.loadtest.topology import LocalCluster
from tablehub.server.store import open_store
from tablehub.server.store.redis import RedisStore
from tests.server.helpers import expected_scores

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

LEASE_MS = 1000


@pytest.fixture
def cluster(redis_url: str) -> Iterator[LocalCluster]:
    with LocalCluster(hubs=2, redis_url=redis_url, lease_ms=LEASE_MS) as running:
        yield running


async def place(conn: Connection, table: str, acked: list[tuple[int, int, Any]]) -> None:
    """Place one tile if this seat must act; record the acknowledged version."""
    actions = await conn.legal(table)
    if not actions:
        return
    action = actions[len(actions) // 2]
    version = await conn.act(table, action)
    acked.append((version, conn.seats[table], action))


async def round_of(
    players: list[Connection], table: str, acked: list[tuple[int, int, Any]]
) -> None:
    await asyncio.gather(*(place(p, table, acked) for p in players))


async def play_to_the_end(
    players: list[Connection], watcher: Connection, table: str, acked: list[tuple[int, int, Any]]
) -> list[dict[str, Any]]:
    """Twenty 9-tower rounds; every mirror (players' and watcher's) checks every hash and
    ends on the same finished view, which is returned (one per connection)."""
    for _ in range(20):
        await round_of(players, table, acked)
    views = []
    for conn in (*players, watcher):
        mirror = await conn.wait_for(table, lambda m: m.view.get("status") == "finished")
        assert mirror.mismatches == 0
        views.append(mirror.view)
    assert all(view == views[0] for view in views)
    return views


async def read_log(store_url: str, table: str) -> list[dict[str, Any]]:
    """The table's log as stored (a single Redis or a Redis Cluster)."""
    store = open_store(store_url)
    await store.start()
    try:
        return await store.log(table)
    finally:
        await store.close()


def assert_acked_exactly_once(log: list[dict[str, Any]], acked: list[tuple[int, int, Any]]) -> None:
    """Every acknowledged action is in the log at its version; for a finished 9-tower
    game each seat placed exactly 20 times (nothing applied twice, nothing lost)."""
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    by_version = {e["v"]: e for e in log}
    for version, seat, action in acked:
        entry = by_version[version]
        assert (entry["k"], entry["seat"], entry["action"]) == ("act", seat, action)
    seats = [e["seat"] for e in log if e["k"] == "act"]
    assert seats.count(0) == seats.count(1) == 20


async def test_players_on_different_processes_share_one_table(cluster: LocalCluster) -> None:
    ann = await Connection.connect(cluster.hub_url(0), "ann")
    bo = await Connection.connect(cluster.hub_url(1), "bo")
    watcher = await Connection.connect(cluster.url, "watcher")
    table = await bo.create_table("nmbr9", 2, seed=21)
    await ann.join(table)
    await bo.join(table)
    await watcher.spectate(table)
    acked: list[tuple[int, int, Any]] = []
    views = await play_to_the_end([ann, bo], watcher, table, acked)
    assert views[0]["result"]["scores"] == expected_scores(views[0]["board"])
    presence = ann.tables[table].presence["seats"]
    assert [s["connected"] for s in presence] == [True, True], "presence spans processes"
    assert_acked_exactly_once(await read_log(str(cluster.redis_url), table), acked)
    for conn in (ann, bo, watcher):
        await conn.close()


async def test_kill_9_of_the_owner_mid_game_loses_nothing(cluster: LocalCluster) -> None:
    ann = await Connection.connect(cluster.hub_url(0), "ann")
    bo = await Connection.connect(cluster.hub_url(1), "bo")
    table = await ann.create_table("nmbr9", 2, seed=8)
    await ann.join(table)  # the first command makes hub 0 the owner
    await bo.join(table)
    acked: list[tuple[int, int, Any]] = []
    for _ in range(6):
        await round_of([ann, bo], table, acked)

    in_flight = asyncio.ensure_future(place(bo, table, acked))  # forwarded to hub 0...
    cluster.kill_hub(0, signal.SIGKILL)  # ...which dies now
    with contextlib.suppress(ServerError, ConnectionError):
        await in_flight  # if it fails it was not acknowledged: applied or not, both fine

    ann = await ann.reconnect(cluster.hub_url(1))
    assert ann.hello["resumed"][0]["ok"] is True
    while True:
        await round_of([ann, bo], table, acked)
        mirror = bo.tables[table]
        await bo.wait_version(table, max(v for v, _, _ in acked))
        if mirror.view["status"] == "finished":
            break
    assert_acked_exactly_once(await read_log(str(cluster.redis_url), table), acked)
    final = await ann.wait_for(table, lambda m: m.view["status"] == "finished")
    assert final.mismatches == 0
    await ann.close()
    await bo.close()


async def wait_finished(redis_url: str, table: str, timeout: float) -> list[dict[str, Any]]:
    """Poll the table's log in Redis (no client is connected to be told)."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        async with asyncio.timeout(timeout):
            while True:
                record = await store.load(table)
                assert record is not None
                if str(record.status) == "finished":
                    return await store.log(table)
                await asyncio.sleep(0.1)
    finally:
        await store.close()


async def test_deadlines_fire_once_with_nobody_connected_even_after_the_owner_dies(
    cluster: LocalCluster,
) -> None:
    ann = await Connection.connect(cluster.hub_url(0), "ann")
    bo = await Connection.connect(cluster.hub_url(0), "bo")
    table = await ann.create_table("nmbr9", 2, seed=2, turn_seconds=0.25)
    await ann.join(table)
    await bo.join(table)
    acked: list[tuple[int, int, Any]] = []
    await round_of([ann, bo], table, acked)
    await ann.close()
    await bo.close()
    cluster.kill_hub(0, signal.SIGKILL)  # the owner dies; nobody is connected anywhere

    log = await wait_finished(str(cluster.redis_url), table, timeout=40)
    assert_acked_exactly_once(log, acked)
    acts = [e for e in log if e["k"] == "act"]
    assert {e["by"] for e in acts[2:]} == {"deadline"}


async def test_restarting_every_hub_loses_no_table(cluster: LocalCluster) -> None:
    ann = await Connection.connect(cluster.url, "ann")
    bo = await Connection.connect(cluster.url, "bo")
    table = await ann.create_table("nmbr9", 2, seed=13)
    await ann.join(table)
    await bo.join(table)
    acked: list[tuple[int, int, Any]] = []
    for _ in range(4):
        await round_of([ann, bo], table, acked)
    for i in (0, 1):
        cluster.kill_hub(i, signal.SIGTERM)
    for i in (0, 1):
        cluster.start_hub(i)
    ann = await ann.reconnect(cluster.url)
    await place(ann, table, acked)  # a version bo has not seen, made by a fresh process
    bo = await bo.reconnect(cluster.url)
    latest = max(v for v, _, _ in acked)
    mirror = await bo.wait_version(table, latest)
    # The new processes never held bo's old version: the catch-up patch was rebuilt
    # from Redis's recent history, not replaced by a snapshot.
    assert (mirror.snapshots, mirror.resyncs, mirror.mismatches) == (1, 0, 0)
    assert mirror.view == (await ann.wait_version(table, latest)).view
    await place(bo, table, acked)
    for _ in range(15):
        await round_of([ann, bo], table, acked)
    final = await bo.wait_for(table, lambda m: m.view["status"] == "finished")
    assert final.mismatches == 0
    assert_acked_exactly_once(await read_log(str(cluster.redis_url), table), acked)
    await ann.close()
    await bo.close()


def hub_figures(cluster: LocalCluster) -> list[dict[str, float]]:
    """Each hub's open connections and forwarded commands, from its /metrics."""
    out = []
    for port in cluster.hub_ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
        values = dict(line.rsplit(" ", 1) for line in text.splitlines() if line[:1] != "#")
        names = {"connections": "tablehub_connections", "forwarded": "tablehub_forwarded_total"}
        out.append({key: float(values[name]) for key, name in names.items()})
    return out


async def test_players_naming_a_room_meet_on_the_hub_that_owns_their_table(
    cluster: LocalCluster,
) -> None:
    """Through the balancer (deploy/nginx.conf), connections naming the same room reach
    the same hub, so their table's commands are never forwarded; without a room,
    round robin spreads two players over both hubs and one player's are.  When the
    room's hub dies, the room's address reaches the other one."""
    room = [await Connection.connect(f"{cluster.url}?room=friends", n) for n in ("ann", "bo", "cy")]
    assert all(conn.hello["rooms"] is True for conn in room), "hubs sharing Redis say so"
    figures = await asyncio.to_thread(hub_figures, cluster)
    assert sorted(f["connections"] for f in figures) == [0, 3]
    table = await room[0].create_table("nmbr9", 3, seed=5)
    for conn in room:
        await conn.join(table)
    acked: list[tuple[int, int, Any]] = []
    for _ in range(3):
        await round_of(room, table, acked)
    assert [f["forwarded"] for f in await asyncio.to_thread(hub_figures, cluster)] == [0, 0]

    apart = [await Connection.connect(cluster.url, n) for n in ("dee", "eli")]
    figures = await asyncio.to_thread(hub_figures, cluster)
    assert sorted(f["connections"] for f in figures) == [1, 4]
    table = await apart[0].create_table("nmbr9", 2, seed=6)
    for conn in apart:
        await conn.join(table)
    await round_of(apart, table, acked)
    assert sum(f["forwarded"] for f in await asyncio.to_thread(hub_figures, cluster)) > 0
    for conn in apart:
        await conn.close()

    # The room's hub dies: the same address reaches the other hub, which takes the table over.
    figures = await asyncio.to_thread(hub_figures, cluster)
    cluster.kill_hub(max(range(2), key=lambda i: figures[i]["connections"]), signal.SIGKILL)
    room = [await conn.reconnect(f"{cluster.url}?room=friends") for conn in room]
    assert all(conn.hello["resumed"][0]["ok"] for conn in room)
    table = room[0].hello["resumed"][0]["table"]
    before = room[0].tables[table].version
    await round_of(room, table, acked)
    assert (await room[0].wait_version(table, before + 3)).mismatches == 0
    for conn in room:
        await conn.close()
