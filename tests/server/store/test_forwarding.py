"""Commands forwarded to a table's owner get the owner's answer only (issue 34): a
process whose actor for the table stopped neither answers nor refuses them -- its
"moved, retry" raced the real owner's answer, and an act the owner applied was
reported refused."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tablehub.server.store.redis import RedisStore
from tablehub.server.store.redis_bus import RedisBus

MOVED = {"error": {"code": "overloaded", "message": "table moved; retry", "retry_ms": 200}}


@pytest.fixture
async def buses(redis_url: str) -> AsyncIterator[list[RedisBus]]:
    """Three processes' buses on one Redis: the owner, a former owner, a sender."""
    stores = [RedisStore(redis_url) for _ in range(3)]
    for store in stores:
        await store.start()
    try:
        yield [store.bus for store in stores]
    finally:
        for store in stores:
            await store.close()


async def test_a_former_owner_that_stopped_serving_hears_nothing(buses: list[RedisBus]) -> None:
    owner, former, sender = buses
    table = f"fwd-{secrets.token_hex(4)}"
    heard_by_former: list[dict[str, Any]] = []

    async def owner_answers(command: dict[str, Any]) -> dict[str, Any]:
        return {"ok": {"version": 7}}

    async def former_answers(command: dict[str, Any]) -> dict[str, Any]:
        heard_by_former.append(command)
        return MOVED

    await former.serve_inbox(table, former_answers)
    await owner.serve_inbox(table, owner_answers)
    former.stop_serving(table)  # its actor stopped (a lost lease, a store outage)

    for _ in range(3):
        reply = await sender.forward(table, {"k": "legal", "seat": 0})
        assert reply["ok"] == {"version": 7}
    assert heard_by_former == []


async def test_a_process_without_the_table_leaves_the_answer_to_its_owner(
    buses: list[RedisBus],
) -> None:
    """A handler still subscribed but without an actor answers None: no reply at all."""
    owner, former, sender = buses
    table = f"fwd-{secrets.token_hex(4)}"
    heard_by_former: list[dict[str, Any]] = []

    async def owner_answers(command: dict[str, Any]) -> dict[str, Any]:
        return {"ok": {"version": 8}}

    async def former_without_actor(command: dict[str, Any]) -> None:
        heard_by_former.append(command)

    await former.serve_inbox(table, former_without_actor)
    await owner.serve_inbox(table, owner_answers)

    for _ in range(3):
        reply = await sender.forward(table, {"k": "legal", "seat": 0})
        assert reply["ok"] == {"version": 8}
    assert len(heard_by_former) >= 1, "it heard the commands and stayed silent"
