"""Tables nobody watches are unloaded, and the memory store forgets old ones, so a
long-running single process does not grow without bound; abandoned tables are closed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tablehub.clients.cli.connection import ServerError
from tablehub.protocol import Frames
from tablehub.server.hub import Hub
from tablehub.server.hub.janitor import (
    CLOSE_IDLE_MS,
    CLOSE_REASON,
    FORGET_FINISHED_MS,
    UNLOAD_IDLE_MS,
)
from tablehub.server.store.memory import MemoryStore
from tablehub.server.store.redis import RedisStore
from tablehub.server.tables.core import Act, Join
from tests.conftest import RunningHub


async def test_idle_and_finished_tables_are_unloaded_then_forgotten() -> None:
    now = [1_000_000]
    # keeping no finished games for replays (tests/server/store/test_retention.py keeps some)
    hub = Hub(MemoryStore(keep_finished=0), clock_ms=lambda: now[0])
    await hub.start()
    try:
        idle = await hub.create_table("nmbr9", 2, {})
        await hub.submit(idle, Join("ann", None, None))
        solo = await hub.create_table("nmbr9", 1, {"seed": 1})
        await hub.submit(solo, Join("sol", None, None))
        live = hub.live[solo]
        for _ in range(20):
            action = live.feed.game.fast_bot_move(live.record.state, 0)
            await hub.submit(solo, Act(0, action))
        assert str(live.record.status) == "finished"

        assert await hub.tidy(now[0]) == [solo], "finished and unwatched: unloaded at once"
        now[0] += UNLOAD_IDLE_MS
        assert await hub.tidy(now[0]) == [idle]
        assert hub.live == {}
        assert {r.table for r in await hub.store.tables()} == {idle, solo}
        assert (await hub.table(solo)).record.status == "finished", "loads again on demand"

        now[0] += FORGET_FINISHED_MS
        assert await hub.tidy(now[0]) == [idle, solo], "closed (nobody there), unloaded"
        assert await hub.store.tables() == [], "the finished one forgotten, the other closed"
    finally:
        await hub.stop()


async def test_abandoned_tables_are_closed_for_watchers_and_the_lobby(hub: RunningHub) -> None:
    """An unfinished table idle for CLOSE_IDLE_MS with no player connected is closed:
    its spectators and the lobby get ``table_closed`` and it leaves the table list; a
    table whose player is still connected stays."""
    player = await hub.connect("ann")
    watcher = await hub.connect("wes")
    lobby = await hub.connect("lou")
    pushes: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    lobby.on_message = lambda msg: pushes.put_nowait(msg) if msg["t"] == "table_closed" else None
    seen: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    watcher.on_message = lambda msg: seen.put_nowait(msg) if msg["t"] == "table_closed" else None
    try:
        abandoned = await player.create_table("nmbr9", 2)
        await player.join(abandoned)
        await player.request("add_bot", table=abandoned)
        await player.wait_for(abandoned, lambda m: m.view["status"] == "playing")
        await player.request("leave", table=abandoned)
        await watcher.spectate(abandoned)
        kept = await player.create_table("nmbr9", 2)
        await player.join(kept)
        await lobby.request("subscribe_tables")

        now = hub.hub.clock_ms()
        assert await hub.hub.tidy(now + CLOSE_IDLE_MS - 1000) == [], "not idle long enough"
        assert abandoned in await hub.hub.tidy(now + CLOSE_IDLE_MS + 1000)

        closed = await asyncio.wait_for(seen.get(), 10)
        assert closed == {"t": "table_closed", "table": abandoned, "reason": CLOSE_REASON}
        assert (await asyncio.wait_for(pushes.get(), 10))["table"] == abandoned
        listed = await lobby.request("list_tables")
        assert [t["table"] for t in listed["tables"]] == [kept]
        with pytest.raises(ServerError) as err:
            await watcher.spectate(abandoned)
        assert err.value.code == "unknown_table"
        assert kept in hub.hub.live, "a table with a connected player stays"
    finally:
        for conn in (player, watcher, lobby):
            await conn.close()


class Watcher:
    """A feed subscriber that keeps what it is handed (stands in for a session)."""

    id = 10_000

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.closed: list[Frames] = []

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None:
        self.kinds.append(kind)
        if kind == "closed":
            self.closed.append(frames)


async def test_a_table_closed_by_another_process_is_closed_here_too(redis_url: str) -> None:
    """Redis topology: the hub that closes an abandoned table deletes it; another hub
    serving a spectator of it notices at its next check and sends the close there."""
    first, second = Hub(RedisStore(redis_url)), Hub(RedisStore(redis_url))
    await first.start()
    await second.start()
    try:
        table = await first.create_table("nmbr9", 2, {})
        await first.submit(table, Join("ann", None, None))
        watcher = Watcher()
        (await second.table(table)).feed.subscribe(watcher, None)
        now = first.clock_ms() + CLOSE_IDLE_MS + 1000
        assert table in await first.tidy(now), "nobody seated is connected: closed"
        assert await first.store.load(table) is None
        assert table in await second.tidy(second.clock_ms())
        assert table not in second.live
        assert [f.msg for f in watcher.closed] == [
            {"t": "table_closed", "table": table, "reason": CLOSE_REASON}
        ]
    finally:
        await first.stop()
        await second.stop()
