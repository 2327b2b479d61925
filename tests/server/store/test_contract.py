"""One behaviour suite for every store backend (memory://, redis:// and
redis+cluster:// on a local Redis Cluster)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from tablehub.loadtest.topology import free_port
from tablehub.server.games import get_game
from tablehub.server.store import Store, open_store
from tablehub.server.store.redis import SNAPSHOT_EVERY, RedisStore
from tablehub.server.tables.journal import StoreError, VersionConflict
from tablehub.server.tables.record import LogEntry, Seat, TableRecord, TableStatus


@pytest.fixture(params=["redis", "redis-cluster"])
def shared_url(request: pytest.FixtureRequest) -> str:
    """A store URL several processes share: one Redis, or a Redis Cluster."""
    if request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        return url
    nodes = request.getfixturevalue("redis_cluster")
    return f"{nodes.url}?durability=replica"


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    if request.param == "memory":
        url = "memory://"
    elif request.param == "redis":
        url = request.getfixturevalue("redis_url")
    else:
        url = request.getfixturevalue("redis_cluster").url
    opened = open_store(url)
    await opened.start()
    yield opened
    await opened.close()


def new_record(table: str, seats: int = 2) -> TableRecord:
    game = get_game("nmbr9")
    assert game is not None
    options = game.validate_options({})
    return TableRecord(
        table=table,
        game="nmbr9",
        options=options,
        turn_ms=None,
        seed=42,
        seats=[Seat(name=f"p{i}", token_hash="x") for i in range(seats)],
        state=game.setup(options, seats, 42),
        status=TableStatus.PLAYING,
    )


@contextlib.asynccontextmanager
async def store_and_admin(redis_url: str) -> AsyncIterator[tuple[Store, Any]]:
    """A started store on ``redis_url`` and a redis-py client of the test's own beside it
    (to do to Redis what an operator or a failure would)."""
    store = open_store(redis_url)
    await store.start()
    admin = aioredis.Redis.from_url(redis_url)
    try:
        yield store, admin
    finally:
        await admin.aclose()
        await store.close()


def unique(name: str) -> str:
    import secrets

    return f"{name}-{secrets.token_hex(4)}"


def successors(record: TableRecord, moves: int) -> list[tuple[TableRecord, LogEntry]]:
    """``moves`` bot placements after ``record``, alternating seats that must act: each
    next record with its log entry (nothing stored)."""
    game = get_game(record.game)
    assert game is not None
    out = []
    for _ in range(moves):
        seat = game.status(record.state)["to_act"][0]
        action = game.fast_bot_move(record.state, seat)
        state, _ = game.apply(record.state, seat, action)
        nxt = dataclasses.replace(record, state=state, version=record.version + 1)
        entry: LogEntry = {"v": nxt.version, "k": "act", "seat": seat, "action": action}
        entry.update(by="bot", st=str(nxt.status), dl=nxt.deadline)
        out.append((nxt, entry))
        record = nxt
    return out


async def play(
    store: Store, record: TableRecord, moves: int, seen: list[TableRecord] | None = None
) -> TableRecord:
    """Commit ``moves`` bot placements, one after another."""
    for nxt, entry in successors(record, moves):
        await store.commit(nxt, entry, record.version)
        record = nxt
        if seen is not None:
            seen.append(record)
    return record


async def test_create_load_round_trip(store: Store) -> None:
    record = new_record(unique("rt"))
    await store.create(record)
    loaded = await store.load(record.table)
    assert loaded == record
    with pytest.raises(StoreError):
        await store.create(record)
    assert await store.load("no-such-table") is None


async def test_commits_append_the_log_and_loading_replays_to_the_same_state(store: Store) -> None:
    record = new_record(unique("log"))
    await store.create(record)
    last = await play(store, record, SNAPSHOT_EVERY + 7)  # past a snapshot
    loaded = await store.load(record.table)
    assert loaded is not None
    assert loaded.version == last.version == SNAPSHOT_EVERY + 7
    assert loaded.state == last.state
    log = await store.log(record.table)
    assert [e["v"] for e in log] == list(range(1, last.version + 1))
    assert (await store.log_tail(record.table, 3)) == log[-3:]
    assert record.table in {r.table for r in await store.tables()}


async def test_a_commit_at_the_wrong_version_is_refused_and_changes_nothing(store: Store) -> None:
    record = new_record(unique("conflict"))
    await store.create(record)
    one = await play(store, record, 1)
    stale = dataclasses.replace(one, version=1)  # claims to follow version 0 again
    with pytest.raises(VersionConflict):
        await store.commit(stale, {"v": 1, "k": "act", "seat": 0, "action": {}}, 0)
    loaded = await store.load(record.table)
    assert loaded is not None and loaded.version == 1 and loaded.state == one.state
    assert len(await store.log(record.table)) == 1


async def test_commits_queued_back_to_back_are_stored_in_order(store: Store) -> None:
    record = new_record(unique("queued"))
    await store.create(record)
    steps = successors(record, 3)
    queued, before = [], record.version
    for nxt, entry in steps:  # all queued before any is awaited: one group commit on Redis
        queued.append(store.commit(nxt, entry, before))
        before = nxt.version
    await asyncio.gather(*queued)

    loaded = await store.load(record.table)
    assert loaded is not None and loaded.version == 3 and loaded.state == steps[-1][0].state
    assert [e["v"] for e in await store.log(record.table)] == [1, 2, 3]


async def test_a_refused_commit_refuses_those_queued_after_it(store: Store) -> None:
    record = new_record(unique("refused"))
    await store.create(record)
    (one, e1), (two, e2), (three, e3) = successors(record, 3)
    first = store.commit(one, e1, 0)
    second = store.commit(two, e2, 0)  # expects version 0 again: refused
    third = store.commit(three, e3, 2)  # follows the refused one: refused too
    outcomes = await asyncio.gather(first, second, third, return_exceptions=True)

    assert outcomes[0] is None
    assert isinstance(outcomes[1], VersionConflict) and isinstance(outcomes[2], VersionConflict)
    loaded = await store.load(record.table)
    assert loaded is not None and loaded.version == 1 and loaded.state == one.state
    assert [e["v"] for e in await store.log(record.table)] == [1]


async def test_delete_forgets_the_table(store: Store) -> None:
    record = new_record(unique("del"))
    await store.create(record)
    await store.delete(record.table)
    assert await store.load(record.table) is None


async def test_a_stale_epoch_is_refused(shared_url: str) -> None:
    first, second = open_store(shared_url), open_store(shared_url)
    await first.start()
    await second.start()
    try:
        record = new_record(unique("epoch"))
        await first.create(record)
        old_epoch = await first.bus.acquire(record.table)
        assert old_epoch is not None
        assert await second.bus.acquire(record.table) is None, "the lease is held"
        await first.bus.release(record.table, old_epoch)
        new_epoch = await second.bus.acquire(record.table)
        assert new_epoch is not None and new_epoch > old_epoch
        game = get_game("nmbr9")
        assert game is not None
        action = game.fast_bot_move(record.state, 0)
        state, _ = game.apply(record.state, 0, action)
        nxt = dataclasses.replace(record, state=state, version=1)
        entry = {"v": 1, "k": "act", "seat": 0, "action": action, "by": "bot"}
        with pytest.raises(VersionConflict, match="epoch"):
            await first.commit(nxt, entry, 0, old_epoch)  # the paused old owner
        await second.commit(nxt, entry, 0, new_epoch)
        assert [e["v"] for e in await second.log(record.table)] == [1]
    finally:
        await first.close()
        await second.close()


async def test_racing_processes_never_commit_the_same_version_twice(shared_url: str) -> None:
    """Two store instances (two 'processes'), many concurrent submitters, each trying to
    commit the next version with the epoch it believes in."""
    stores = [open_store(shared_url), open_store(shared_url)]
    for s in stores:
        await s.start()
    try:
        record = new_record(unique("race"))
        await stores[0].create(record)
        epoch = await stores[0].bus.acquire(record.table)
        assert epoch is not None
        game = get_game("nmbr9")
        assert game is not None
        accepted: list[tuple[int, int]] = []

        async def submitter(worker: int) -> None:
            store = stores[worker % 2]
            for _ in range(15):
                current = await store.load(record.table)
                assert current is not None
                status = game.status(current.state)
                if status["finished"]:
                    return
                seat = status["to_act"][0]
                action = game.fast_bot_move(current.state, seat)
                state, _ = game.apply(current.state, seat, action)
                nxt = dataclasses.replace(current, state=state, version=current.version + 1)
                entry = {"v": nxt.version, "k": "act", "seat": seat, "action": action, "w": worker}
                try:
                    await store.commit(nxt, entry, current.version, epoch)
                except VersionConflict:
                    continue
                accepted.append((nxt.version, worker))

        await asyncio.gather(*(submitter(w) for w in range(8)))
        log = await stores[0].log(record.table)
        versions = [e["v"] for e in log]
        assert versions == list(range(1, len(log) + 1)), "contiguous, no version twice"
        assert sorted(v for v, _ in accepted) == versions
        assert {(e["v"], e["w"]) for e in log} == set(accepted)
        final = await stores[1].load(record.table)
        assert final is not None and final.version == len(log) > 8
    finally:
        for s in stores:
            await s.close()


async def test_recent_versions_can_be_rebuilt_for_catch_up_patches(store: Store) -> None:
    record = new_record(unique("history"), seats=4)  # 80 placements to play
    await store.create(record)
    seen = [record]
    last = await play(store, record, 2 * SNAPSHOT_EVERY + 5, seen)
    for old in (seen[-2], seen[-SNAPSHOT_EVERY], seen[SNAPSHOT_EVERY + 1], seen[SNAPSHOT_EVERY]):
        rebuilt = await store.record_at(last, old.version)
        assert rebuilt is not None
        assert (rebuilt.version, rebuilt.state) == (old.version, old.state)
        assert rebuilt.seats == old.seats and rebuilt.status == old.status


async def test_commits_go_on_after_redis_forgot_its_scripts(redis_url: str) -> None:
    """A restarted Redis (or a promoted replica) has an empty script cache: the group
    commit answers NOSCRIPT, loads the script and commits each move exactly once."""
    async with store_and_admin(redis_url) as (store, admin):
        record = new_record(unique("noscript"))
        await store.create(record)
        one = await play(store, record, 1)
        await admin.script_flush()
        two = await play(store, one, 2)
        loaded = await store.load(record.table)
        assert loaded is not None and loaded.version == 3 and loaded.state == two.state
        assert [e["v"] for e in await store.log(record.table)] == [1, 2, 3]


async def test_commits_that_come_back_say_redis_is_up_whatever_the_probe_says(
    redis_url: str,
) -> None:
    """A busy hub's ``PING`` may come back late; a group commit that just came back
    is evidence enough (transport/evacuation.py must not send players away for it)."""
    store = open_store(redis_url)
    assert isinstance(store, RedisStore)
    await store.start()
    store._probe = aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}")  # nobody there
    try:
        assert not await store.reachable(), "no commit yet, and the probe finds nobody"
        record = new_record(unique("alive"))
        await store.create(record)
        await play(store, record, 1)
        assert await store.reachable()
    finally:
        await store.close()
