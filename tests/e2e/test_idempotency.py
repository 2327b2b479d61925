"""Idempotency keys on create_table, join and act (protocol/README.md "Idempotent
requests and retries"): a retry with the same key gets the first attempt's answer."""

from __future__ import annotations

import pytest

from tablehub.clients.cli.connection import ServerError, new_key
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.idempotency import ACT_KEYS_PER_SEAT, ActKeys, key_digest
from tests.conftest import RunningHub, start_hub, stop_hub


async def test_a_keyed_create_table_retried_anywhere_makes_one_table(hub: RunningHub) -> None:
    ann, bo = await hub.connect("ann"), await hub.connect("bo")
    key = new_key()
    fields = {"game": "nmbr9", "seats": 2, "options": {"seed": 3}, "key": key}
    first = (await ann.request("create_table", **fields))["table"]
    again = (await ann.request("create_table", **fields))["table"]
    elsewhere = (await bo.request("create_table", **fields))["table"]
    assert first == again == elsewhere
    other_game = (await ann.request("create_table", **{**fields, "game": "brix"}))["table"]
    unkeyed = [
        (await ann.request("create_table", game="nmbr9", seats=2))["table"] for _ in range(2)
    ]
    assert len({first, other_game, *unkeyed}) == 4
    assert sum(t["table"] == first for t in await hub.hub.tables()) == 1
    for conn in (ann, bo):
        await conn.close()


async def test_a_deleted_table_frees_its_create_key(hub: RunningHub) -> None:
    ann = await hub.connect("ann")
    key = new_key()
    first = (await ann.request("create_table", game="nmbr9", seats=1, key=key))["table"]
    await hub.hub.store.delete(first)
    second = (await ann.request("create_table", game="nmbr9", seats=1, key=key))["table"]
    assert second != first
    await ann.close()


@pytest.mark.parametrize("key", ["short", "x" * 65, "has space in it ok", "dötted-key-123456"])
async def test_a_malformed_key_is_refused_in_words(hub: RunningHub, key: str) -> None:
    ann = await hub.connect("ann")
    with pytest.raises(ServerError) as refused:
        await ann.request("create_table", game="nmbr9", seats=1, key=key)
    assert refused.value.code == "bad_message"
    assert "key" in refused.value.message
    assert await hub.hub.tables() == []
    await ann.close()


async def test_a_keyed_join_retried_gets_the_same_seat_and_token(hub: RunningHub) -> None:
    ann, bo = await hub.connect("ann"), await hub.connect("bo")
    table = await ann.create_table("nmbr9", 3, seed=5)
    key = new_key()
    first = await ann.request("join", table=table, key=key)
    again = await ann.request("join", table=table, key=key)
    assert (again["seat"], again["token"]) == (first["seat"], first["token"])
    # The reply was lost and the player came back on another connection: same seat.
    other = await bo.request("join", table=table, key=key)
    assert (other["seat"], other["token"]) == (first["seat"], first["token"])
    # Its own seat, named explicitly, is not "taken" either.
    named = await bo.request("join", table=table, seat=first["seat"], key=key)
    assert named["seat"] == first["seat"]
    carl = await hub.connect("carl")
    assert await carl.join(table) == 1, "the keyed retries took one seat only"
    assert (await carl.request("join", table=table, token=first["token"]))["seat"] == 0
    with pytest.raises(ServerError) as taken:
        await carl.request("join", table=table, seat=0)
    assert taken.value.code == "seat_taken"
    for conn in (ann, bo, carl):
        await conn.close()


async def test_a_keyed_act_retried_is_applied_once_and_answered_alike(hub: RunningHub) -> None:
    ann = await hub.connect("ann")
    table = await ann.create_table("nmbr9", 1, seed=7)
    await ann.join(table)
    key = new_key()
    action = (await ann.legal(table))[0]
    first = await ann.request("act", table=table, action=action, key=key)
    again = await ann.request("act", table=table, action=action, key=key)
    assert again["version"] == first["version"]
    action = (await ann.legal(table))[0]
    later = await ann.act(table, action)  # another act; then the old key once more
    assert (await ann.request("act", table=table, action=action, key=key))["version"] == (
        first["version"]
    )
    log = await hub.hub.store.log(table)
    acts = [e for e in log if e["k"] == "act"]
    assert len(acts) == 2 and acts[-1]["v"] == later
    assert acts[0]["key"] == key_digest(key) and key not in str(log), "only a digest is kept"
    await ann.close()


async def test_a_keyed_act_refused_is_refused_alike_on_retry(hub: RunningHub) -> None:
    ann, bo, table = await hub.two_seated(seed=9)
    await ann.act(table, (await ann.legal(table))[0])
    key = new_key()
    action = {"type": "place", "x": 0, "y": 0, "rot": 0}
    with pytest.raises(ServerError) as early:
        await ann.request("act", table=table, action=action, key=key)
    assert early.value.code == "not_your_turn"
    await bo.act(table, (await bo.legal(table))[0])  # a new round: ann may act again...
    with pytest.raises(ServerError) as retried:  # ...but this request was answered already
        await ann.request("act", table=table, action=action, key=key)
    assert (retried.value.code, retried.value.message) == ("not_your_turn", early.value.message)
    assert await ann.legal(table), "the seat is free to act with a new request"
    for conn in (ann, bo):
        await conn.close()


def test_act_keys_keep_the_last_sixteen_per_seat() -> None:
    keys = ActKeys()
    for n in range(ACT_KEYS_PER_SEAT + 4):
        keys = keys.with_result(0, f"d{n}", n + 1)
    keys = keys.with_result(1, "refused", TableError("illegal_action", "not there"))
    assert keys.answer(0, "d0") is None and keys.answer(0, "d3") is None
    assert keys.answer(0, "d4") == {"version": 5}
    assert keys.answer(0, f"d{ACT_KEYS_PER_SEAT + 3}") == {"version": ACT_KEYS_PER_SEAT + 4}
    assert keys.answer(1, "d4") is None
    with pytest.raises(TableError) as refused:
        keys.answer(1, "refused")
    assert (refused.value.code, refused.value.message) == ("illegal_action", "not there")
    stored = {str(seat).encode(): keys.encoded(seat) for seat in (0, 1)}
    assert ActKeys.decoded(stored) == keys


async def test_without_a_key_requests_behave_as_before(hub: RunningHub) -> None:
    ann = await hub.connect("ann")
    table = await ann.create_table("nmbr9", 2, seed=1)
    assert [await ann.join(table), await ann.join(table)] == [0, 1]
    await ann.close()


async def test_keys_survive_a_reload_from_the_store(redis_url: str) -> None:
    """The act keys are part of the stored table: a process that loads the table
    (a failover's new owner) answers a retry like the one that committed it."""
    first = await start_hub(redis_url)
    ann = await first.connect("ann")
    table = await ann.create_table("nmbr9", 1, seed=4)
    join_key, act_key = new_key(), new_key()
    joined = await ann.request("join", table=table, key=join_key)
    action = (await ann.legal(table))[0]
    acted = await ann.request("act", table=table, action=action, key=act_key)
    await ann.close()
    await stop_hub(first)  # releases the table: the next hub loads it from Redis

    second = await start_hub(redis_url)
    bo = await second.connect("bo")
    rejoined = await bo.request("join", table=table, key=join_key)
    assert (rejoined["seat"], rejoined["token"]) == (joined["seat"], joined["token"])
    retried = await bo.request("act", table=table, action=action, key=act_key)
    assert retried["version"] == acted["version"]
    acts = [e for e in await second.hub.store.log(table) if e["k"] == "act"]
    assert len(acts) == 1
    await bo.close()
    await stop_hub(second)
