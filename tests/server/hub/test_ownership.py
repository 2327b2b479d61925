"""Taking a table over on Redis (issue 34): a lease is never left held with no actor
behind it -- the store failing halfway through a takeover gives the lease back, or the
renewal thread would keep it alive and wedge the table for every process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tablehub.server.hub import Hub, ownership
from tablehub.server.store.redis import RedisStore
from tablehub.server.store.redis_keys import key
from tablehub.server.tables.core import Join, Legal
from tablehub.server.tables.journal import StoreUnavailable


@pytest.fixture
async def hub(redis_url: str) -> AsyncIterator[Hub]:
    hub = Hub(RedisStore(redis_url), bot_workers=0)
    await hub.start()
    yield hub
    await hub.stop()


@pytest.fixture
async def two_hubs(redis_url: str) -> AsyncIterator[tuple[RedisStore, Hub, Hub]]:
    """Two processes' hubs on one Redis: the first's store, the first, the second."""
    first_store = RedisStore(redis_url)
    first = Hub(first_store, bot_workers=0)
    second = Hub(RedisStore(redis_url), bot_workers=0)
    await first.start()
    await second.start()
    yield first_store, first, second
    await second.stop()
    await first.stop()


async def test_a_takeover_the_store_broke_off_leaves_the_table_free(
    hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id = await hub.create_table("nmbr9", 2, {})
    live = await hub.directory.table(table_id)
    assert live.actor is None, "on Redis a table is owned on its first command"
    load = hub.store.load

    async def store_gone(table: str) -> Any:
        raise StoreUnavailable("redis is unreachable")

    monkeypatch.setattr(hub.store, "load", store_gone)  # the store dies after the lease
    with pytest.raises(StoreUnavailable):
        await hub.ownership.try_own(live)
    assert live.actor is None
    monkeypatch.setattr(hub.store, "load", load)  # ... and comes back

    assert await hub.ownership.try_own(live), "the lease was given back: the table is free"
    assert live.actor is not None and live.actor.running


async def test_an_owner_deaf_to_its_inbox_gives_the_table_up_to_the_process_it_ignored(
    two_hubs: tuple[RedisStore, Hub, Hub], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An owner alive (renewing its lease) but deaf -- its inbox subscription lost, as a
    Redis failover can leave it -- would wedge the table for every other process: the
    sender marks the lease unheard, the owner gives the table up at its next renewal and
    the sender takes it over; the request is answered, not refused."""
    monkeypatch.setattr(ownership, "UNHEARD_AFTER_S", 1.0)
    owner_store, owner, sender = two_hubs
    table_id = await owner.create_table("nmbr9", 2, {})
    await owner.submit(table_id, Legal(seat=0))
    owned = owner.loaded(table_id)
    assert owned is not None and owned.actor is not None, "the first command owns it"
    heard = await sender.submit(table_id, Legal(seat=0))  # forwarded, answered
    assert "actions" in heard

    await owner_store.bus._unsubscribe(key(table_id, "in"))  # the subscription is lost
    answer = await sender.submit(table_id, Legal(seat=0))

    assert answer["actions"] == heard["actions"]
    here = sender.loaded(table_id)
    assert here is not None and here.actor is not None, "the sender runs the table now"
    assert owned.actor is None, "the deaf owner gave it up"


async def test_an_idle_actor_the_store_moved_past_is_dropped_and_its_table_reloaded(
    two_hubs: tuple[RedisStore, Hub, Hub],
) -> None:
    """An actor whose lease lapsed unnoticed (its renewal thread stuck, say) while another
    process took the table and committed -- the commit's message lost, as in a failover --
    must not go on answering from its old table: the sweeper's version check finds the
    store ahead of it, drops it and reloads the table."""
    owner_store, owner, other = two_hubs
    table_id = await owner.create_table("nmbr9", 2, {})
    await owner.submit(table_id, Join("ann", None, None))
    stale = owner.loaded(table_id)
    assert stale is not None and stale.actor is not None
    version = stale.actor.record.version

    owner_store.bus._leases.stop()  # the renewal thread stops: nobody notices the lapse
    await owner_store.redis.delete(key(table_id, "lease"))  # ... and the lease lapses
    await owner_store.bus._unsubscribe(key(table_id, "ch"))  # commits there go unheard
    await other.submit(table_id, Join("bo", None, None))  # taken over and committed
    assert stale.actor is not None and stale.actor.record.version == version

    await owner.sweeper.check_versions()

    assert stale.actor is None, "the stale actor was dropped"
    assert stale.version == version + 1, "the table was reloaded from the store"
