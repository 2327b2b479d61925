"""Taking a table over on Redis (issue 34): a lease is never left held with no actor
behind it -- the store failing halfway through a takeover gives the lease back, or the
renewal thread would keep it alive and wedge the table for every process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tablehub.server.hub import Hub
from tablehub.server.store.redis import RedisStore
from tablehub.server.tables.journal import StoreUnavailable


@pytest.fixture
async def hub(redis_url: str) -> AsyncIterator[Hub]:
    hub = Hub(RedisStore(redis_url), bot_workers=0)
    await hub.start()
    yield hub
    await hub.stop()


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
