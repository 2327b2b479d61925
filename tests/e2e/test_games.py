"""Full games of every engine over /ws: two players and a spectator (issues 4 and 5).

The players are real WebSocket clients; to finish games in reasonable time they pick
the move the server's bot would pick for them (read from the in-process hub), then
send it through the protocol like any client.
"""

from __future__ import annotations

import asyncio

import pytest

from tablehub.clients.cli.connection import Connection
from tablehub.server.games import all_games, get_game
from tablehub.server.tables.record import replay
from tests.conftest import RunningHub
from tests.server.helpers import as_received

GAMES = [game.id for game in all_games()]
"""Every registered game, played to the end with its default options."""


async def play_to_the_end(hub: RunningHub, players: list[Connection], table: str) -> None:
    game = get_game(hub.hub.live[table].record.game)
    assert game is not None
    by_seat = {p.seats[table]: p for p in players}
    for _ in range(3000):
        record = hub.hub.live[table].record
        status = game.status(record.state)
        if status["finished"]:
            return
        moves = []
        for seat in status["to_act"]:
            action = game.fast_bot_move(record.state, seat)
            moves.append(by_seat[seat].act(table, action))
        await asyncio.gather(*moves)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game_id", GAMES)
async def test_full_game_with_two_players_and_a_spectator(hub: RunningHub, game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    seats = min(max(2, game.min_players), game.max_players)
    players = [await hub.connect(f"p{i}") for i in range(seats)]
    watcher = await hub.connect("watcher", subprotocol="tablehub.v1.json")
    table = await players[0].create_table(game_id, seats, seed=17)
    for player in players:
        await player.join(table)
    await watcher.spectate(table)
    await play_to_the_end(hub, players, table)

    final_version = hub.hub.live[table].record.version
    for conn in [*players, watcher]:
        mirror = await conn.wait_version(table, final_version)
        assert mirror.view["status"] == "finished"
        assert mirror.mismatches == 0
        assert mirror.view["result"] is not None
    state = hub.hub.live[table].record.state
    for seat, player in enumerate(players):
        assert player.tables[table].view["board"] == as_received(game.view(state, seat))
    assert watcher.tables[table].view["board"] == as_received(game.view(state, None))
    record = hub.hub.live[table].record
    assert replay(record, await hub.hub.store.log(table)) == state, "the log rebuilds the table"
    for conn in [*players, watcher]:
        await conn.close()


async def test_termite_one_person_two_bots_and_a_spectator(hub: RunningHub) -> None:
    person = await hub.connect("person")
    watcher = await hub.connect("watcher")
    table = await person.create_table("termite", 3, seed=23)
    assert await person.join(table) == 0
    for _ in range(2):
        await person.request("add_bot", table=table)
    await watcher.spectate(table)
    game = get_game("termite")
    assert game is not None
    for _ in range(5000):
        record = hub.hub.live[table].record
        status = game.status(record.state)
        if status["finished"]:
            break
        if 0 in status["to_act"]:
            await person.act(table, game.fast_bot_move(record.state, 0))
        else:
            await person.wait_version(table, record.version + 1)
    final_version = hub.hub.live[table].record.version
    mirror = await watcher.wait_version(table, final_version)
    assert mirror.view["status"] == "finished"
    assert mirror.mismatches == 0 and person.tables[table].mismatches == 0
    result = mirror.view["result"]
    assert len(result["scores"]) == 3 and result["winners"]
    entries = await hub.hub.store.log(table)
    assert {e["by"] for e in entries if e["k"] == "act"} == {"player", "bot"}
    await person.close()
    await watcher.close()
