"""The all-seeing replay over /ws (issue 29): refused while the game is on -- even to a
player of the table, even as the seat it holds -- and, once the game is over, every
version's whole game: each board is the game's all-seeing view of that version's state,
with every hidden tile named.  The seat and spectator replays beside it keep their
secrecy checks (tests/e2e/test_replay.py)."""

from __future__ import annotations

from typing import Any

import jsonpatch

from tablehub.clients.cli.connection import Connection
from tablehub.protocol.viewhash import view_hash
from tablehub.server.games.completto import GAME as COMPLETTO
from tablehub.server.tables.feed import table_view
from tablehub.server.tables.gamerecord import steps
from tablehub.server.tables.record import as_created
from tests.conftest import RunningHub
from tests.e2e.test_games import play_to_the_end
from tests.e2e.test_replay import read_replay
from tests.server.games.completto.test_playout import leak_check


async def read_all_seeing(conn: Connection, table: str) -> dict[int, Any]:
    """Every version's view of the all-seeing replay, paged as a client pages it."""
    views: dict[int, Any] = {}
    first = 0
    while True:
        reply = await conn.request("replay", table=table, all_seeing=True, **{"from": first})
        assert reply["all_seeing"] is True and reply["seat"] is None
        view = reply["start"]["view"]
        assert view_hash(view) == reply["start"]["hash"]
        views[reply["start"]["version"]] = view
        for move in reply["moves"]:
            view = jsonpatch.apply_patch(view, move["ops"])
            assert view_hash(view) == move["hash"], f"version {move['version']}"
            views[move["version"]] = view
        if max(views) >= reply["newest"]:
            return views
        first = max(views)


async def test_the_all_seeing_replay_opens_only_when_the_game_is_over(hub: RunningHub) -> None:
    ann, bo, stranger = [await hub.connect(name) for name in ("ann", "bo", "stranger")]
    table = await ann.create_table("completto", 2, seed=31)
    await ann.join(table)
    await bo.join(table)
    await ann.act(table, COMPLETTO.fast_bot_move(hub.hub.live[table].record.state, 0))

    for conn in (ann, stranger):
        refused = await conn.ask("replay", table=table, all_seeing=True)
        assert refused["t"] == "error" and refused["code"] == "unauthorized"
        assert "over" in refused["message"]
    both = await ann.ask("replay", table=table, seat=0, all_seeing=True)
    assert both["t"] == "error" and both["code"] == "bad_message"

    await play_to_the_end(hub, [ann, bo], table)
    record = hub.hub.live[table].record
    states = {s.version: s for s in steps(as_created(record), await hub.hub.store.log(table))}
    views = await read_all_seeing(stranger, table)
    assert set(views) == set(states)
    hidden_seen = 0
    for version, view in views.items():
        step = states[version]
        board = COMPLETTO.all_seeing(step.record.state)
        assert view == {**table_view(COMPLETTO, step.record, None, step.status), "board": board}
        parts = {(p["seat"], p["what"]): p["items"] for p in view["board"]["revealed"]}
        for seat, row in enumerate(step.record.state["rows"]):
            face_down = sum(1 for cell in row if cell["n"] is None)
            assert len(parts[(seat, "face-down tiles")]) == face_down
            hidden_seen += face_down
    assert hidden_seen > 0, "the game never had a face-down tile to show"

    # the seats' and the spectators' replays still show only what each saw
    for audience in (None, 0, 1):
        for version, view in (await read_replay(stranger, table, audience)).items():
            assert "revealed" not in view["board"]
            leak_check(states[version].record.state, view["board"], audience)
