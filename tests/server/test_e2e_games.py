"""Full games of every engine over /ws: two players and a spectator (issues 4 and 5).

The players are real WebSocket clients; to finish games in reasonable time they pick
the move the server's bot would pick for them (read from the in-process hub), then
send it through the protocol like any client.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.cli.connection import Connection
from server.games import get_game
from tests.conftest import RunningHub

GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("brix", 2, {"bricks": 12, "move_limit": 30}),
    ("completto", 2, {}),
    ("nmbr9", 2, {}),
]


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
            action = game.bot_action(record.state, seat)
            moves.append(by_seat[seat].act(table, action))
        await asyncio.gather(*moves)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("game_id", "seats", "options"), GAMES)
async def test_full_game_with_two_players_and_a_spectator(
    hub: RunningHub, game_id: str, seats: int, options: dict[str, Any]
) -> None:
    players = [await hub.connect(f"p{i}") for i in range(seats)]
    watcher = await hub.connect("watcher", subprotocol="tablehub.v1.json")
    table = await players[0].create_table(game_id, seats, seed=17, **options)
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
    game = get_game(game_id)
    assert game is not None
    state = hub.hub.live[table].record.state
    for seat, player in enumerate(players):
        assert player.tables[table].view["board"] == game.view(state, seat)
    assert watcher.tables[table].view["board"] == game.view(state, None)
    for conn in [*players, watcher]:
        await conn.close()
