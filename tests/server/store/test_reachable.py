"""Whether the store answers (``/healthz``'s ``store_ok``, which peers read before a
hub sends its players elsewhere): recent commits count as evidence that it does, but
a commit that failed ends that evidence at once -- a hub must not tell its peers it has
the store for a second after Redis died (issue 35: players bounced for nothing)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator

import pytest

from tablehub.server.store.redis import RedisStore
from tablehub.server.tables.journal import StoreUnavailable
from tablehub.server.tables.record import TableRecord
from tests.cluster.test_outage import RestartableRedis
from tests.server.tables.test_core import seated

pytestmark = pytest.mark.slow  # a redis-server of its own, killed


@contextlib.asynccontextmanager
async def just_committed() -> AsyncIterator[tuple[RestartableRedis, RedisStore, TableRecord]]:
    """A Redis store on a redis-server of its own, a commit of a table just answered:
    the redis-server, the store and the table as committed."""
    redis = RestartableRedis()
    redis.start()
    store = RedisStore(redis.url)
    await store.start()
    try:
        record = seated("nmbr9", 2).record
        await store.create(record)
        later = dataclasses.replace(record, version=record.version + 1)
        await store.commit(later, {"k": "seat", "seat": 0, "v": later.version}, record.version)
        yield redis, store, later
    finally:
        await store.close()
        redis.stop()


async def test_a_failed_commit_ends_the_evidence_of_recent_ones() -> None:
    async with just_committed() as (redis, store, later):
        assert await store.reachable(), "a commit just came back"
        redis.kill()
        after = dataclasses.replace(later, version=later.version + 1)
        with pytest.raises(StoreUnavailable):
            await store.commit(after, {"k": "seat", "seat": 1, "v": after.version}, later.version)
        assert not await store.reachable(), "the failure, not the older success, counts"


async def test_the_store_back_after_a_restart_answers_the_first_probe() -> None:
    """The probe's connection from before a restart is dead: a probe does not take
    that for the store being down (a hub would then send its players away from a
    store that is back)."""
    redis = RestartableRedis()
    redis.start()
    store = RedisStore(redis.url)
    await store.start()
    try:
        assert await store.reachable()
        redis.kill()
        assert not await store.reachable()
        redis.start()
        assert await store.reachable(), "back: the first probe after the restart says so"
    finally:
        await store.close()
        redis.stop()


async def test_asked_now_the_store_answers_for_itself_not_for_its_recent_commits() -> None:
    """What peers read before sending their players elsewhere: with Redis flapping
    (restarted, then killed again at once) the commits of its moment up must not tell a
    peer that this hub has the store after it went down again."""
    async with just_committed() as (redis, store, _):
        redis.kill()
        assert await store.reachable(), "a commit just came back: a busy hub's evidence"
        assert not await store.reachable(now=True), "asked now, the store is gone"
