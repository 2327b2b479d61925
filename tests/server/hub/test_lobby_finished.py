"""The lobby lists the newest finished games of each game with their result (issue 29);
the memory store keeps them after their tables are unloaded and forgotten."""

from __future__ import annotations

from tablehub.server.hub import Hub
from tablehub.server.hub.janitor import FORGET_FINISHED_MS
from tablehub.server.hub.lobby import FINISHED_PER_GAME
from tablehub.server.store.memory import MemoryStore
from tablehub.server.tables.core import Act, Join


async def finish_solo(hub: Hub, seed: int) -> str:
    table = await hub.create_table("nmbr9", 1, {"seed": seed})
    await hub.submit(table, Join("sol", None, None))
    live = hub.live[table]
    while str(live.record.status) != "finished":
        action = live.feed.game.fast_bot_move(live.record.state, 0)
        await hub.submit(table, Act(0, action))
    return table


async def test_the_lobby_lists_the_newest_finished_games_of_each_game_with_results() -> None:
    now = [1_000_000]
    hub = Hub(MemoryStore(keep_finished=FINISHED_PER_GAME + 5), clock_ms=lambda: now[0])
    await hub.start()
    try:
        tables = []
        for seed in range(FINISHED_PER_GAME + 2):
            now[0] += 1000
            tables.append(await finish_solo(hub, seed))
        playing = await hub.create_table("brix", 2, {})
        now[0] += FORGET_FINISHED_MS + 1
        await hub.tidy(now[0])  # unloaded, then forgotten as tables: kept as finished games
        await hub.tidy(now[0])
        assert hub.live == {}
        lines = await hub.tables()
        finished = [line for line in lines if line["status"] == "finished"]
        assert [line["table"] for line in finished] == tables[::-1][:FINISHED_PER_GAME]
        for line in finished:
            result = line["result"]
            assert result["winners"] == [0] and len(result["scores"]) == 1
        assert playing not in {line["table"] for line in lines}, "closed: abandoned"
        assert (await hub.replays.record(tables[0]))["result"] is not None
    finally:
        await hub.stop()
