"""Replays and game records over /ws (issue 29): who may see what, and that a replay
shows each audience exactly its live views.

Two players and a spectator play a number-row game (hidden face-down tiles) through
the protocol; the replays are read page by page by a connection that never sat at
the table, applied as a client applies patches (every hash checked), and each view is
held to the live game: the view the feed would send that audience at that version, and
the number row's secrecy checks (tests/server/games/completto/test_playout.py)."""

from __future__ import annotations

from typing import Any

import jsonpatch

from tablehub.clients.cli.connection import Connection
from tablehub.protocol.viewhash import view_hash
from tablehub.server.games.completto import GAME as COMPLETTO
from tablehub.server.tables.feed import table_view
from tablehub.server.tables.gamerecord import steps, verify
from tablehub.server.tables.record import as_created
from tests.conftest import RunningHub
from tests.e2e.test_games import play_to_the_end
from tests.server.games.completto.test_playout import leak_check


async def read_replay(conn: Connection, table: str, seat: int | None) -> dict[int, Any]:
    """Every version's view of ``seat``'s replay, paged as a client pages it."""
    views: dict[int, Any] = {}
    first = 0
    while True:
        reply = await conn.request("replay", table=table, seat=seat, **{"from": first})
        start = reply["start"]
        assert view_hash(start["view"]) == start["hash"]
        view = start["view"]
        views[start["version"]] = view
        for move in reply["moves"]:
            view = jsonpatch.apply_patch(view, move["ops"])
            assert view_hash(view) == move["hash"], f"version {move['version']}"
            assert move["kind"] in ("seat", "act")
            views[move["version"]] = view
        last = max(views)
        if last >= reply["newest"]:
            return views
        first = last


async def test_replays_show_each_audience_its_live_views_and_never_more(hub: RunningHub) -> None:
    ann, bo = await hub.connect("ann"), await hub.connect("bo")
    watcher, stranger = await hub.connect("watcher"), await hub.connect("stranger")
    table = await ann.create_table("completto", 2, seed=23)
    await ann.join(table)
    await bo.join(table)
    await watcher.spectate(table)
    version = await ann.act(table, COMPLETTO.fast_bot_move(hub.hub.live[table].record.state, 0))

    # While the game is on: no record, only your own seat or the spectators.
    refused = await ann.ask("record", table=table)
    assert refused["t"] == "error" and refused["code"] == "unauthorized"
    refused = await ann.ask("replay", table=table, seat=1)
    assert refused["t"] == "error" and refused["code"] == "unauthorized"
    refused = await stranger.ask("replay", table=table, seat=0)
    assert refused["t"] == "error" and refused["code"] == "unauthorized"
    own = await read_replay(ann, table, 0)
    mirror = await ann.wait_version(table, version)
    assert own[max(own)] == mirror.view and max(own) == version
    assert (await read_replay(watcher, table, None))[version] == (
        await watcher.wait_version(table, version)
    ).view
    missing = await stranger.ask("replay", table="nosuchtable")
    assert missing["t"] == "error" and missing["code"] == "unknown_table"
    no_seat = await stranger.ask("replay", table=table, seat=5)
    assert no_seat["t"] == "error" and no_seat["code"] == "bad_message"

    await play_to_the_end(hub, [ann, bo], table)
    record = hub.hub.live[table].record
    log = await hub.hub.store.log(table)
    states = {step.version: step for step in steps(as_created(record), log)}
    assert set(states) == set(range(record.version + 1))

    # Finished: the record verifies; any audience may be replayed, by anyone.
    reply = await stranger.request("record", table=table)
    assert verify(reply["record"]) == record.version
    for seat in (None, 0, 1):
        views = await read_replay(stranger, table, seat)
        assert set(views) == set(states)
        for version, view in views.items():
            step = states[version]
            assert view == table_view(COMPLETTO, step.record, seat, step.status)
            leak_check(step.record.state, view["board"], seat)
    final = {None: watcher, 0: ann, 1: bo}
    for seat, conn in final.items():
        live = await conn.wait_version(table, record.version)
        assert (await read_replay(stranger, table, seat))[record.version] == live.view
