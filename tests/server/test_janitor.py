"""Tables nobody watches are unloaded, and the memory store forgets old ones, so a
long-running single process does not grow without bound."""

from __future__ import annotations

from tablehub.server.hub import FORGET_FINISHED_MS, UNLOAD_IDLE_MS, Hub
from tablehub.server.store.memory import MemoryStore
from tablehub.server.tables.actor import Act, Join


async def test_idle_and_finished_tables_are_unloaded_then_forgotten() -> None:
    now = [1_000_000]
    hub = Hub(MemoryStore(), clock_ms=lambda: now[0])
    await hub.start()
    try:
        idle = await hub.create_table("nmbr9", 2, {})
        await hub.submit(idle, Join("ann", None, None))
        solo = await hub.create_table("nmbr9", 1, {"seed": 1})
        await hub.submit(solo, Join("sol", None, None))
        live = hub.live[solo]
        for _ in range(20):
            action = live.feed.game.bot_action(live.record.state, 0)
            await hub.submit(solo, Act(0, action))
        assert str(live.record.status) == "finished"

        assert await hub.tidy(now[0]) == [solo], "finished and unwatched: unloaded at once"
        now[0] += UNLOAD_IDLE_MS
        assert await hub.tidy(now[0]) == [idle]
        assert hub.live == {}
        assert {r.table for r in await hub.store.tables()} == {idle, solo}
        assert (await hub.table(solo)).record.status == "finished", "loads again on demand"

        now[0] += FORGET_FINISHED_MS
        await hub.tidy(now[0])
        assert {r.table for r in await hub.store.tables()} == {idle}
    finally:
        await hub.stop()
