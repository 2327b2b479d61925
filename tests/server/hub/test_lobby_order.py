"""Issue 30: a game whose people have all left is listed after the games people are at."""

from __future__ import annotations

from tests.conftest import RunningHub


async def test_a_game_its_players_left_comes_after_the_ones_people_are_at(
    hub: RunningHub,
) -> None:
    ann = await hub.connect("ann")
    bea = await hub.connect("bea")
    lou = await hub.connect("lou")
    try:
        tables = []
        for player in (bea, ann):  # ann's table is the most recently updated
            table = await player.create_table("nmbr9", 2)
            await player.join(table)
            await player.request("add_bot", table=table)
            await player.wait_for(table, lambda m: m.view["status"] == "playing")
            tables.append(table)
        bea_table, ann_table = tables
        listed = [t["table"] for t in (await lou.request("list_tables"))["tables"]]
        assert listed.index(ann_table) < listed.index(bea_table), "most recent first"

        await ann.request("leave", table=ann_table)
        lines = (await lou.request("list_tables"))["tables"]
        listed = [t["table"] for t in lines]
        assert listed.index(bea_table) < listed.index(ann_table), "the left game goes last"
        left = next(t for t in lines if t["table"] == ann_table)
        assert left["status"] == "playing", "still listed: ann can come back to it"
    finally:
        for conn in (ann, bea, lou):
            await conn.close()
