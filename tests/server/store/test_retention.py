"""Keeping finished games (server/store/retention.py): the memory store keeps the last N
finished games after the tables themselves are forgotten; a Redis store keeps a finished
game's keys for the retention time (set on the commit that finishes it), one snapshot,
and drops listing entries older than the retention -- the expiry set inside the
finishing commit's own script, so no finished game is ever stored without it.  Games
are played through the real table core and committed to the real store."""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from tablehub.server.games import get_game
from tablehub.server.store import Store, open_store
from tablehub.server.store.memory import MemoryStore
from tablehub.server.store.redis import RedisStore
from tablehub.server.store.retention import FINISHED_KEYS
from tablehub.server.tables.core import AddBot, BotMove, Commit, Table, handle
from tablehub.server.tables.gamerecord import build, verify
from tablehub.server.tables.journal import VersionConflict
from tablehub.server.tables.record import Seat, TableRecord, TableStatus


async def commits_of_a_game(store: Store, game_id: str = "brix", seed: int = 1) -> list[Commit]:
    """A table of bots created in ``store`` and played to its end in memory: every
    commit in order (none stored yet)."""
    game = get_game(game_id)
    assert game is not None
    options = game.validate_options({})
    now = int(time.time() * 1000)
    record = TableRecord(
        table=f"keep-{secrets.token_hex(4)}",
        game=game_id,
        options=options,
        turn_ms=None,
        seed=seed,
        seats=[Seat() for _ in range(2)],
        state=game.setup(options, 2, seed),
        created_ms=now,
        updated_ms=now,
    )
    await store.create(record)
    table = Table.of(record)
    commands: list[Any] = [AddBot(0, None), AddBot(1, None)]
    out = []
    while table.record.status is not TableStatus.FINISHED:
        command = commands.pop(0) if commands else BotMove(table.status["to_act"][0], None)
        for commit in handle(table, command, now).commits:
            out.append(commit)
            table = commit.table
    return out


async def finish(store: Store, game_id: str = "brix", seed: int = 1) -> TableRecord:
    """A table of bots played to its end, every commit stored; its final record."""
    commits = await commits_of_a_game(store, game_id, seed)
    for commit in commits:
        await store.commit(commit.record, commit.entry, commit.record.version - 1)
    return commits[-1].record


async def test_memory_keeps_the_last_n_finished_games_after_they_are_forgotten() -> None:
    store = MemoryStore(keep_finished=2)
    await store.start()
    finished = [await finish(store, seed=seed) for seed in (1, 2, 3)]
    for record in finished:
        await store.delete(record.table)  # the janitor forgets finished tables
    assert await store.load(finished[0].table) is None
    assert await store.log(finished[0].table) == []
    listed = {r.table for r in await store.tables()}
    assert listed == {finished[1].table, finished[2].table}
    for record in finished[1:]:
        loaded = await store.load(record.table)
        assert loaded is not None and loaded.status is TableStatus.FINISHED
        assert loaded.result == record.result and loaded.result is not None
        doc = build(loaded, await store.log(record.table))
        assert verify(doc) == record.version
    await store.close()


async def test_memory_keeping_nothing_forgets_finished_games_with_their_tables() -> None:
    store = MemoryStore(keep_finished=0)
    await store.start()
    record = await finish(store)
    await store.delete(record.table)
    assert await store.load(record.table) is None and await store.log(record.table) == []
    await store.close()


@pytest.fixture
async def kept(redis_url: str) -> AsyncIterator[tuple[RedisStore, aioredis.Redis]]:
    """A Redis store keeping finished games for an hour, and a client to look inside."""
    store = open_store(redis_url)
    assert isinstance(store, RedisStore)
    store.keep_finished_s = 3600
    await store.start()
    admin = aioredis.Redis.from_url(redis_url)
    yield store, admin
    await admin.aclose()
    await store.close()


async def test_redis_keeps_a_finished_game_for_the_retention_with_one_snapshot(
    kept: tuple[RedisStore, aioredis.Redis],
) -> None:
    store, admin = kept
    stale = f"stale-{secrets.token_hex(4)}"
    await admin.zadd("th:tables", {stale: 1000})  # a listing entry from long ago
    playing = f"playing-{secrets.token_hex(4)}"
    await admin.zadd("th:tables", {playing: int(time.time() * 1000)})
    record = await finish(store)
    t = record.table
    for name in ("meta", "ver", "epoch", "log", "snap", "snaps"):
        ttl = await admin.ttl(f"th:{{{t}}}:{name}")
        assert 3000 < ttl <= 3600, (name, ttl)
    assert await admin.llen(f"th:{{{t}}}:snaps") == 1
    assert await admin.llen(f"th:{{{t}}}:log") == record.version
    assert await admin.zscore("th:tables", stale) is None
    assert await admin.zscore("th:tables", playing) is not None
    loaded = await store.load(t)
    assert loaded is not None and loaded.result == record.result
    assert verify(build(loaded, await store.log(t))) == record.version
    await admin.zrem("th:tables", playing)
    await store.delete(t)


async def test_redis_sets_the_expiry_inside_the_commit_that_finishes_the_game(
    kept: tuple[RedisStore, aioredis.Redis], redis_url: str
) -> None:
    """Every EXPIRE of the table's keys runs inside the commit script (MONITOR shows
    it from ``lua``): the finished game is stored together with its expiry or not at
    all -- no command sent beside the commit, which a lost connection or a failed
    pipeline could drop, carries it."""
    store, admin = kept
    watcher = aioredis.Redis.from_url(redis_url)
    try:
        commits = await commits_of_a_game(store)
        t = commits[0].record.table
        for commit in commits[:-1]:
            await store.commit(commit.record, commit.entry, commit.record.version - 1)
        assert await admin.ttl(f"th:{{{t}}}:meta") == -1  # a game on never expires
        seen: list[dict[str, Any]] = []
        done = f"done-{secrets.token_hex(4)}"
        async with watcher.monitor() as monitor:
            last = commits[-1]
            await store.commit(last.record, last.entry, last.record.version - 1)
            await admin.echo(done)
            while True:
                command = await monitor.next_command()
                if done in command["command"]:
                    break
                seen.append(command)
        expires = [c for c in seen if c["command"].upper().startswith("EXPIRE ")]
        expired = {c["command"].split()[1].strip('"') for c in expires}
        assert expired == {f"th:{{{t}}}:{name}" for name in FINISHED_KEYS}
        assert {c["client_type"] for c in expires} == {"lua"}, expires
        for name in ("meta", "ver", "epoch", "log", "snap", "snaps"):
            ttl = await admin.ttl(f"th:{{{t}}}:{name}")
            assert 3000 < ttl <= 3600, (name, ttl)
        await store.delete(t)
    finally:
        await watcher.aclose()


async def test_redis_a_finished_games_create_table_key_expires_with_it(
    kept: tuple[RedisStore, aioredis.Redis],
) -> None:
    """The ``create_table`` key that made a table answers retries as long as the table
    lives: while the game is on it never expires, and once it is finished it expires
    with the game's keys (it outlived them before)."""
    store, admin = kept
    commits = await commits_of_a_game(store)
    t = commits[0].record.table
    digest = secrets.token_hex(16)
    assert await store.claim_key("brix", digest, t) == t
    for commit in commits:
        if commit is commits[-1]:
            assert await admin.ttl(f"th:ckey:brix:{digest}") == -1  # a game on: kept
        record = dataclasses.replace(commit.record, create_key=digest)
        await store.commit(record, commit.entry, record.version - 1)
    ttl = await admin.ttl(f"th:ckey:brix:{digest}")
    assert 3000 < ttl <= 3600, ttl
    assert await store.keyed_table("brix", digest) == t
    await store.delete(t)


async def test_redis_a_refused_finishing_commit_sets_no_expiry(
    kept: tuple[RedisStore, aioredis.Redis],
) -> None:
    """A finishing commit Redis refuses (a stale version: another owner moved on)
    changes nothing -- not even the expiry of the keys of the table still being
    played, which the commands sent beside the commit used to set regardless -- and the
    same commit sent right sets it."""
    store, admin = kept
    commits = await commits_of_a_game(store, seed=2)
    t = commits[0].record.table
    for commit in commits[:-1]:
        await store.commit(commit.record, commit.entry, commit.record.version - 1)
    last = commits[-1]
    with pytest.raises(VersionConflict):
        await store.commit(last.record, last.entry, last.record.version - 2)
    for name in ("meta", "ver", "epoch", "log", "snap", "snaps"):
        assert await admin.ttl(f"th:{{{t}}}:{name}") == -1, name
    loaded = await store.load(t)
    assert loaded is not None and loaded.status is TableStatus.PLAYING
    await store.commit(last.record, last.entry, last.record.version - 1)
    for name in ("meta", "ver", "epoch", "log", "snap", "snaps"):
        assert 3000 < await admin.ttl(f"th:{{{t}}}:{name}") <= 3600, name
    await store.delete(t)
