"""The all-seeing view (``Game.reveal``, ``Game.all_seeing``) of every game, along whole
playouts: it fits the game's ``all_seeing_view`` schema (protocol/v1/index.json), it is
the spectators' view plus what was hidden -- every hand, every face-down piece -- and it
shows all of that at every version; computing it never changes the state."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tablehub.protocol.codec import index, validate_game_value
from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import Game, State
from tablehub.server.games.completto.tiles import readings
from tests.server.games.conformance import playout

GAMES = [game.id for game in all_games()]


def sampled(game: Game, seats: int, seed: int) -> list[State]:
    """About thirty states of one playout, its first and its last among them."""
    states = playout(game, seats, seed).states
    step = max(1, len(states) // 30)
    return [*states[::step], states[-1]]


def revealed(view: dict[str, Any]) -> dict[tuple[int | None, str], list[str]]:
    return {(part["seat"], part["what"]): part["items"] for part in view["revealed"]}


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_has_an_all_seeing_view_fitting_its_schema(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    assert "all_seeing_view" in index()["games"][game_id]
    for seats in sorted({game.min_players, min(game.max_players, 4)}):
        for state in sampled(game, seats, seed=5):
            before = copy.deepcopy(state)
            view = game.all_seeing(state)
            assert view is not None
            assert state == before, "the all-seeing view changed the state"
            validate_game_value(game_id, "all_seeing_view", view)
            if game.public_view:
                assert view == game.view(state, None)
            else:
                assert {k: v for k, v in view.items() if k != "revealed"}.keys() == (
                    game.view(state, None).keys()
                )


def test_the_number_row_shows_every_face_down_tile() -> None:
    game = get_game("completto")
    assert game is not None
    for seats in (2, 4):
        for state in sampled(game, seats, seed=11):
            view = game.all_seeing(state)
            assert view is not None
            spectators = game.view(state, None)
            assert {k: v for k, v in view.items() if k != "revealed"} == spectators
            parts = revealed(view)
            for seat, row in enumerate(state["rows"]):
                down = [
                    f"position {pos} holds {' or '.join(map(str, readings(cell['tile'])))}"
                    for pos, cell in enumerate(row, start=1)
                    if cell["n"] is None
                ]
                assert parts[(seat, "face-down tiles")] == down
            pool = parts[(None, "Face-down tiles in the pool")]
            assert len(pool) == len(state["pool"]) == spectators["pool"]["face_down"]


def test_termite_shows_every_hand_stake_card_and_deck() -> None:
    game = get_game("termite")
    assert game is not None
    for seats in (2, 4):
        for state in sampled(game, seats, seed=3):
            view = game.all_seeing(state)
            assert view is not None
            for seat, player in enumerate(view["players"]):
                assert player["hand"] == state["players"][seat]["hand"]
                assert player["queens"] == state["players"][seat]["queens"]
                assert len(player["hand"]) == player["hand_count"]
            parts = revealed(view)
            assert (
                parts[(None, "Blueprint deck, next drawn first")] == (state["blueprints"]["deck"])
            )
            assert len(parts[(None, "Queen deck, next drawn first")]) == len(state["queen_deck"])
            for area, stake in enumerate(state["stakes"], start=1):
                down = sum(1 for card in stake["cards"].values() if not card["up"])
                shown = parts.get((None, f"Face-down stake cards of area D{area}"), [])
                assert len(shown) == down
