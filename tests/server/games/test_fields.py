"""The base checks an action's fields against the game's action schema, the one place
they are declared (server/games/fields.py): the same actions the hub's door refuses
(protocol.codec.action_problem), refused in words before the move's rules run."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.protocol.codec import action_problem
from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import Game, IllegalAction
from tablehub.server.games.fields import compile_schema
from tests.protocol.test_game_schemas import junk, listed_by_type

GAMES = [game.id for game in all_games()]


def _game(game_id: str) -> Game:
    game = get_game(game_id)
    assert game is not None and game.action_fields is not None
    return game


@pytest.mark.parametrize("game_id", GAMES)
def test_the_base_and_the_door_agree_on_every_action(game_id: str) -> None:
    """Listed actions fit both; each junk action is refused by both."""
    game = _game(game_id)
    fields = game.action_fields
    assert fields is not None
    cases: list[dict[str, Any]] = list(listed_by_type(game).values())
    cases += [action for action, _ in junk(game) if action["type"] in fields.moves]
    for action in cases:
        ours = fields.problem(action["type"], action)
        door = action_problem(game_id, action)
        assert (ours is None) == (door is None), (action, ours, door)


def test_refusals_name_the_field_in_words() -> None:
    fields = _game("brix").action_fields
    assert fields is not None
    place = {"type": "place", "x": 0, "y": 0, "dir": "h", "orange": 0, "face": "xo"}
    cases: list[tuple[dict[str, Any], str]] = [
        ({**place, "x": 1001}, "action field 'x' must be at most 1000"),
        ({**place, "y": "0"}, "action field 'y' must be an integer"),
        ({**place, "orange": True}, "action field 'orange' must be an integer"),
        ({**place, "dir": "d"}, "action field 'dir' must be one of h, v"),
        (
            {**place, "note": 1},
            "a place action takes 'dir', 'face', 'orange', 'x', 'y', not 'note'",
        ),
        ({"type": "place", "y": 0, "dir": "h", "orange": 0, "face": "xo"}, "needs 'x'"),
        ({"type": "resign", "why": 1}, "a resign action takes no other field, not 'why'"),
    ]
    for action, words in cases:
        problem = fields.problem(action["type"], action)
        assert problem is not None and words in problem, (action, problem)


def test_conditional_fields_and_nested_lists() -> None:
    fields = _game("termite").action_fields
    assert fields is not None
    swarm = {"type": "play_queen", "card": "swarm"}
    assert "with card swarm needs 'dice'" in str(fields.problem("play_queen", swarm))
    assert fields.problem("play_queen", {**swarm, "dice": [0, 2]}) is None
    assert "item 2" in str(fields.problem("play_queen", {**swarm, "dice": [0, -1]}))
    trade = {"type": "choose", "pay": "cubes", "cubes": [[0, "red"], [1, "blue"]]}
    assert fields.problem("choose", trade) is None
    assert fields.problem("choose", {**trade, "cubes": [[0, "pink"]]}) is not None


def test_the_base_refuses_before_the_rules_run() -> None:
    game = _game("nmbr9")
    state = game.setup(game.validate_options({}), 2, 1)
    with pytest.raises(IllegalAction) as info:
        game.apply(state, 0, {"type": "place", "x": 0, "y": 0, "rot": 4})
    assert info.value.code == "bad_action"
    assert info.value.message == "action field 'rot' must be at most 3"


def test_a_keyword_the_checks_do_not_understand_is_refused_when_compiled() -> None:
    schema = {
        "properties": {"type": {"enum": ["go"]}},
        "$defs": {
            "go": {
                "type": "object",
                "properties": {"type": {"const": "go"}, "to": {"type": "string", "pattern": "^a"}},
                "required": ["type"],
                "additionalProperties": False,
            }
        },
    }
    with pytest.raises(ValueError, match="pattern"):
        compile_schema(schema)
