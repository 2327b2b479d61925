"""Leases survive a busy event loop; a late process refuses new tables, retryably."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import redis.asyncio as aioredis
import websockets

from tablehub.server.store import redis_bus as redis_store
from tablehub.server.store.leases import LeaseKeeper
from tests.cluster.test_outage import RestartableRedis
from tests.conftest import start_hub, stop_hub


def busy(seconds: float) -> None:
    """Keep the event loop's thread busy (as a long burst of work would), without awaiting."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


async def test_a_blocked_event_loop_keeps_its_leases(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url)
    await client.set("lease-test:a", "proc:1", px=400)
    lost: list[str] = []
    keeper = LeaseKeeper(
        redis_url, "proc", 400, lambda t: f"lease-test:{t}", lambda t, e: lost.append(t)
    )
    keeper.hold("a", 1)
    keeper.start(asyncio.get_running_loop())
    try:
        # The loop is busy (a long burst of work) for 2.5 leases: renewal goes on anyway.
        busy(1.0)
        assert await client.get("lease-test:a") == b"proc:1"
        assert keeper.refusing_tables is None
        assert lost == []
    finally:
        keeper.stop()
        await client.aclose()


async def test_a_lease_taken_by_another_process_is_reported_on_the_loop(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url)
    await client.set("lease-test:b", "proc:1", px=400)
    lost: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
    keeper = LeaseKeeper(
        redis_url, "proc", 400, lambda t: f"lease-test:{t}", lambda t, e: lost.put_nowait((t, e))
    )
    keeper.hold("b", 1)
    keeper.start(asyncio.get_running_loop())
    try:
        await client.set("lease-test:b", "other:2", px=4000)
        assert await asyncio.wait_for(lost.get(), 5) == ("b", 1)
        assert keeper.held() == {}
    finally:
        keeper.stop()
        await client.aclose()


async def test_a_lease_renewal_cannot_reach_for_a_whole_lease_is_given_up_on_the_loop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Past a lease without a renewal the lease has expired in Redis and another process
    may run the table: its owner must stop (an actor left running would answer ``legal``
    from a table others have moved on), not wait for a renewal that says so.  The log
    says so once for the outage and once for the tables lost, not a line per table."""
    server = RestartableRedis()
    server.start()
    client = aioredis.Redis.from_url(server.url)
    lost: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
    keeper = LeaseKeeper(
        server.url, "proc", 400, lambda t: f"lease-test:{t}", lambda t, e: lost.put_nowait((t, e))
    )
    tables = ["c", "d", "e"]
    try:
        for table in tables:
            await client.set(f"lease-test:{table}", "proc:1", px=400)
        for table in tables:  # held together: they lapse together
            keeper.hold(table, 1)
        keeper.start(asyncio.get_running_loop())
        server.kill()  # Redis is gone: nothing renews the leases, which expire there

        given_up = [await asyncio.wait_for(lost.get(), 10) for _ in tables]
        assert sorted(given_up) == [(t, 1) for t in tables]
        assert keeper.held() == {}
        assert keeper.refusing_tables is not None
    finally:
        keeper.stop()
        await client.aclose()
        server.stop()
    said = [r.getMessage() for r in caplog.records if r.name == "tablehub.leases"]
    assert len(said) == 2, said
    assert said[0].startswith("lease renewal failed")
    assert said[1].startswith("the leases of 3 tables lapsed"), said


async def test_a_late_hub_refuses_new_tables_with_a_retry_hint(redis_url: str) -> None:
    running = await start_hub(redis_url)
    try:
        async with websockets.connect(running.url, subprotocols=["tablehub.v1.json"]) as ws:  # type: ignore[list-item]
            await ws.send(json.dumps({"t": "hello", "id": 1, "v": 1, "name": "late"}))
            assert json.loads(await ws.recv())["t"] == "ok"
            busy(redis_store.LEASE_MS / 3000)  # past the refusal threshold (a quarter lease)
            await ws.send(json.dumps({"t": "create_table", "id": 2, "game": "nmbr9", "seats": 1}))
            reply = json.loads(await ws.recv())
            assert reply["t"] == "error" and reply["code"] == "overloaded", reply
            assert reply["retry_ms"] > 0 and "busy" in reply["message"]
        health = await running.health()
        assert health["shedding"] is True
        assert "new tables are refused" in health["why"]
    finally:
        await stop_hub(running)
