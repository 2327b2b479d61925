"""9-tower end to end over /ws: real uvicorn, real WebSocket clients (issue 2)."""

from __future__ import annotations

import asyncio

from tablehub.clients.cli.connection import ServerError
from tablehub.protocol.viewhash import view_hash
from tests.conftest import RunningHub
from tests.server.helpers import as_received, expected_scores, play_round, wait_status


async def test_three_players_and_a_spectator_play_a_full_game(hub: RunningHub) -> None:
    players = [await hub.connect(name) for name in ("ann", "bo", "cy")]
    watcher = await hub.connect("watcher", subprotocol="tablehub.v1.json")
    table = await players[0].create_table("nmbr9", 3, seed=11)
    for seat, player in enumerate(players):
        assert await player.join(table) == seat
    await watcher.spectate(table)
    await wait_status(watcher, table, "playing")

    versions: list[int] = []
    for _ in range(20):
        acked = await play_round(players, table)
        assert len(set(acked)) == 3, "three simultaneous placements, three distinct versions"
        versions.extend(acked)
    assert sorted(versions) == versions or len(set(versions)) == 60

    final = await wait_status(watcher, table, "finished")
    last = max(versions)
    for conn in [*players, watcher]:
        mirror = await conn.wait_version(table, last)
        assert mirror.view == final
        assert mirror.hash == view_hash(final)
        assert mirror.mismatches == 0
    board = final["board"]
    assert final["result"]["scores"] == expected_scores(board)
    top = max(final["result"]["scores"])
    assert final["result"]["winners"] == [
        s for s, score in enumerate(final["result"]["scores"]) if score == top
    ]
    assert all(len(p["tiles"]) == 20 for p in board["players"])
    # The server's log rebuilds the table exactly.
    record = hub.hub.live[table].record
    entries = await hub.hub.store.log(table)
    assert [e["v"] for e in entries] == list(range(1, record.version + 1))
    assert sum(e["k"] == "act" for e in entries) == 60
    for conn in [*players, watcher]:
        await conn.close()


async def test_disconnected_player_resumes_with_token_and_last_version(hub: RunningHub) -> None:
    ann, bo, table = await hub.two_seated(seed=5)
    for _ in range(5):
        await play_round([ann, bo], table)
    seen = bo.tables[table].version
    await bo.close()

    await play_round([ann], table)  # ann places in round 6 while bo is away
    await ann.wait_for(
        table, lambda m: m.presence.get("seats", [{}, {}])[1].get("connected") is False
    )

    bo = await bo.reconnect(hub.url)
    assert bo.hello["resumed"] == [{"table": table, "seat": 1, "ok": True}]
    assert bo.hello["rooms"] is False, "one hub on a memory store: no room to name"
    server_version = hub.hub.live[table].record.version
    mirror = await bo.wait_version(table, server_version)
    assert mirror.version == server_version > seen
    assert mirror.resyncs == 0, "the missed versions arrived as one patch, no resync needed"
    assert mirror.view["to_act"] == [1]

    await play_round([bo], table)  # bo catches up with round 6
    for _ in range(14):
        await play_round([ann, bo], table)
    final = await wait_status(bo, table, "finished")
    assert final == (await wait_status(ann, table, "finished"))
    await ann.close()
    await bo.close()


async def test_token_gives_the_seat_back_on_join(hub: RunningHub) -> None:
    ann, bo, table = await hub.two_seated(seed=1)
    token = bo.tokens[table]
    await bo.close()
    again = await hub.connect("bo again")
    assert await again.join(table, token=token) == 1
    assert (await again.legal(table)) != []
    await ann.close()
    await again.close()


async def test_a_seat_that_never_acts_gets_the_fallback_at_the_deadline(hub: RunningHub) -> None:
    ann, sleepy = await hub.connect("ann"), await hub.connect("sleepy")
    table = await ann.create_table("nmbr9", 3, seed=3, turn_seconds=0.2)
    await ann.join(table)
    await sleepy.join(table)  # takes seat 1 and never acts
    await ann.request("add_bot", table=table)
    await wait_status(ann, table, "playing")
    assert ann.tables[table].view["deadline"] is not None

    async def ann_plays() -> None:
        while ann.tables[table].view["status"] == "playing":
            if 0 in ann.tables[table].view["to_act"]:
                version_asked = ann.tables[table].version
                actions = await ann.legal(table)
                try:
                    await ann.act(table, actions[0])
                except ServerError:
                    # on a loaded machine her 0.2 s can run out between legal and act:
                    # the deadline placed her tile and this placement no longer fits
                    await ann.wait_version(table, version_asked + 1)
            else:
                version = ann.tables[table].version
                await ann.wait_version(table, version + 1)

    await asyncio.wait_for(ann_plays(), 60)
    final = await wait_status(ann, table, "finished")
    assert all(len(p["tiles"]) == 20 for p in final["board"]["players"])
    entries = await hub.hub.store.log(table)
    acts = [(e["seat"], e["by"]) for e in entries if e["k"] == "act"]
    assert acts.count((1, "deadline")) == 20, "sleepy's every tile came from the deadline"
    assert acts.count((2, "bot")) == 20
    # ann plays; on a loaded machine her 0.2 s may run out too, then the deadline plays
    assert (0, "player") in acts and {by for s, by in acts if s == 0} <= {"player", "deadline"}
    await ann.close()
    await sleepy.close()


async def test_a_large_tournament_table_coalesces_bursts_into_consistent_patches(
    hub: RunningHub,
) -> None:
    """40 bot seats place in bursts: commits landing together reach watchers as patches
    spanning several versions; applying them (with the independent jsonpatch library)
    gives exactly the server's views, hash checked at every step."""
    watchers = [await hub.connect(f"w{i}") for i in range(3)]
    table = await watchers[0].create_table("nmbr9", 40, seed=31, tournament=True)
    for watcher in watchers:
        await watcher.spectate(table)
    spans: list[int] = []
    watchers[1].on_message = lambda m: (
        spans.append(m["to"] - m["from"]) if m["t"] == "patch" else None
    )
    for _ in range(40):
        await watchers[0].request("add_bot", table=table, level="easy")
    final = await watchers[0].wait_for(table, lambda m: m.view["status"] == "finished", 120)
    last = hub.hub.live[table].record.version
    assert last == 40 + 40 * 20, "a version per seat taken and per placement"
    for watcher in watchers:
        mirror = await watcher.wait_version(table, last)
        assert (mirror.mismatches, mirror.resyncs) == (0, 0)
        assert mirror.view == final.view
    assert sum(spans) == last - 0 and max(spans) > 1, "bursts arrive as multi-version patches"
    assert final.view["result"]["scores"] == expected_scores(final.view["board"])
    assert final.view["board"] == as_received(
        hub.hub.live[table].feed.game.view(hub.hub.live[table].record.state, None)
    )
    for watcher in watchers:
        await watcher.close()
