"""Staged ``legal`` composes to exactly the full legal set (protocol/README.md "Staged legal").

Property test over playouts of every registered game (each of its ``table_shapes``): at
sampled positions, for every seat
that must act, following the staged choices from ``{}`` (every choice, depth first)
reaches exactly the actions ``legal_actions`` lists, each once, and every answer is the
one :func:`group_step` gives from the full list (Termite Towers answers a day turn
without listing it; the others group the full list).  Malformed partial actions are
refused; one the game has no action for gets an empty answer.  A value is matched by type
and value, as ``act`` checks a field: a walk with an integer given as an equal float or
boolean is answered with nothing, and every action a walk calls complete is one ``apply``
accepts.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import Action, Game, IllegalAction, State
from tablehub.server.games.staged import Step, group_step
from tests.server.games.conformance import playout, table_shapes

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

CASES = [(game.id, seats, options) for game in all_games() for seats, options in table_shapes(game)]
POSITIONS = 10
"""Positions checked per playout, spread evenly over it."""
CHECKED_NODES = 40
"""Answers per position also compared with ``group_step`` over the full list."""


NOTHING: Step = {"field": None, "choices": [], "complete": False}
"""The answer for a partial action nothing extends."""


def key(action: Action) -> str:
    return json.dumps(action, sort_keys=True)


def walk(game: Game, state: State, seat: int, full: list[Action]) -> list[Action]:
    """Every complete action reached through the staged answers from ``{}``."""
    reached: list[Action] = []
    stack: list[Action] = [{}]
    compared = 0
    while stack:
        partial = stack.pop()
        step = game.legal_step(state, seat, partial)
        if compared < CHECKED_NODES:
            assert step == group_step(full, partial), partial
            compared += 1
        if step["complete"]:
            reached.append(partial)
        for choice in step["choices"]:
            assert step["field"] is not None
            nxt = {**partial, step["field"]: choice["value"]}
            assert choice["complete"] or choice["more"], nxt
            if choice["more"]:
                stack.append(nxt)
            elif choice["complete"]:
                reached.append(nxt)
    return reached


@pytest.mark.parametrize(("game_id", "seats", "options"), CASES)
def test_staged_choices_compose_to_the_full_legal_set(
    game_id: str, seats: int, options: dict[str, Any]
) -> None:
    game = get_game(game_id)
    assert game is not None
    p = playout(game, seats, 1, options, bot_share=0.8)
    positions = 0
    for state in p.states[:: max(1, len(p.states) // POSITIONS)]:
        status = game.status(state)
        for seat in status["to_act"]:
            full = game.legal_actions(state, seat)
            reached = walk(game, state, seat, full)
            assert sorted(map(key, reached)) == sorted(map(key, full))
            positions += 1
        other = next((s for s in range(seats) if s not in status["to_act"]), None)
        if other is not None:
            assert game.legal_step(state, other, {}) == {
                "field": None,
                "choices": [],
                "complete": False,
            }
    assert positions >= 5


def test_a_termite_day_turn_is_asked_step_by_step() -> None:
    """Die, slot, helper, value; swarm dice one at a time -- each answer short."""
    game = get_game("termite")
    assert game is not None
    state = game.setup({}, 2, 9)
    seat = game.status(state)["to_act"][0]
    full = game.legal_actions(state, seat)
    types = game.legal_step(state, seat, {})
    assert types["field"] == "type" and types["choices"][0]["value"] == "place_die"
    dice = game.legal_step(state, seat, {"type": "place_die"})
    assert dice["field"] == "die" and all(c["more"] and not c["complete"] for c in dice["choices"])
    die = dice["choices"][0]["value"]
    slots = game.legal_step(state, seat, {"type": "place_die", "die": die})
    assert slots["field"] == "slot"
    assert len(slots["choices"]) < len(full) // 4
    plain = [c for c in slots["choices"] if c["complete"]]
    assert plain and {"type": "place_die", "die": die, "slot": plain[0]["value"]} in full
    room = next(c["value"] for c in slots["choices"] if str(c["value"]).startswith("R"))
    helpers = game.legal_step(state, seat, {"type": "place_die", "die": die, "slot": room})
    assert helpers["field"] == "helper"
    helper = helpers["choices"][0]["value"]
    values = game.legal_step(
        state, seat, {"type": "place_die", "die": die, "slot": room, "helper": helper}
    )
    assert values["field"] == "value" and not values["complete"]
    assert all(c["complete"] and not c["more"] for c in values["choices"])


def test_swarm_dice_are_chosen_one_at_a_time() -> None:
    game = get_game("termite")
    assert game is not None
    state = game.setup({}, 2, 9)
    seat = game.status(state)["to_act"][0]
    state["players"][seat]["queens"] = ["swarm"]
    free = [i for i, d in enumerate(state["players"][seat]["dice"]) if d["at"] is None]
    first = game.legal_step(state, seat, {"type": "play_queen", "card": "swarm"})
    assert first["field"] == "dice" and not first["complete"]
    assert [c["value"] for c in first["choices"]] == [[d] for d in free]
    two = game.legal_step(state, seat, {"type": "play_queen", "card": "swarm", "dice": free[:2]})
    assert two["complete"] and [c["value"] for c in two["choices"]] == [
        [*free[:2], d] for d in free[2:]
    ]
    assert two["choices"][-1] == {"value": free[:2] + free[-1:], "complete": True, "more": False}
    backwards = {"type": "play_queen", "card": "swarm", "dice": free[1::-1]}
    assert game.legal_step(state, seat, backwards) == {
        "field": None,
        "choices": [],
        "complete": False,
    }


@pytest.mark.parametrize("partial", [[], "place_die", {"type": 3}, {"type": "dance"}])
def test_a_malformed_partial_action_is_refused(partial: Any) -> None:
    game = get_game("termite")
    assert game is not None
    state = game.setup({}, 2, 9)
    seat = game.status(state)["to_act"][0]
    with pytest.raises(IllegalAction) as err:
        game.legal_step(state, seat, partial)
    assert err.value.code == "bad_action"


def odd_ints(value: int) -> list[Any]:
    """The float, and for 0 and 1 the boolean, equal to ``value``: values ``act`` refuses
    for an integer field (fields.py), and no game has a float or a boolean field."""
    return [float(value), *([bool(value)] if value in (0, 1) else [])]


def odd_typed(partial: Action) -> list[Action]:
    """``partial`` with one integer field, or one integer item of a list field, given as
    an equal float or boolean: one partial for each such field, item and odd value."""
    out: list[Action] = []
    for name, value in partial.items():
        if type(value) is int:
            out += [{**partial, name: odd} for odd in odd_ints(value)]
        elif type(value) is list:
            for i, item in enumerate(value):
                if type(item) is int:
                    out += [
                        {**partial, name: [*value[:i], odd, *value[i + 1 :]]}
                        for odd in odd_ints(item)
                    ]
    return out


def check_odd_walk(game: Game, state: State, seat: int, rng: random.Random, most: int) -> int:
    """Walk the staged answers from ``{}``, depth first, up to ``most`` asks, following at
    most three choices of each answer (at random): every action called complete (a
    partial, or a choice) is accepted by ``apply``; each partial and each complete action
    with an integer given as an equal float or boolean is answered with nothing, and
    ``apply`` refuses such an action.  Returns how many complete actions were applied."""
    stack: list[Action] = [{}]
    asks = applied = 0
    while stack and asks < most:
        partial = stack.pop()
        step = game.legal_step(state, seat, partial)
        asks += 1
        done = [partial] if step["complete"] else []
        deeper: list[Action] = []
        for choice in step["choices"]:
            assert step["field"] is not None
            nxt = {**partial, step["field"]: choice["value"]}
            if choice["complete"]:
                done.append(nxt)
            if choice["more"]:
                deeper.append(nxt)
        for odd in odd_typed(partial):
            assert game.legal_step(state, seat, odd) == NOTHING, odd
        for action in done:
            game.apply(state, seat, action)  # IllegalAction would fail the test
            applied += 1
            for odd in odd_typed(action):
                assert game.legal_step(state, seat, odd) == NOTHING, odd
                with pytest.raises(IllegalAction):
                    game.apply(state, seat, odd)
        rng.shuffle(deeper)
        stack += deeper[:3]
    return applied


@pytest.mark.parametrize(("game_id", "seats", "options"), CASES)
def test_a_walk_with_odd_typed_values_completes_only_what_apply_accepts(
    game_id: str, seats: int, options: dict[str, Any]
) -> None:
    game = get_game(game_id)
    assert game is not None
    p = playout(game, seats, 3, options, bot_share=0.8)
    rng = random.Random(33)
    applied = 0
    for state in p.states[:: max(1, len(p.states) // POSITIONS)]:
        for seat in game.status(state)["to_act"]:
            applied += check_odd_walk(game, state, seat, rng, 12)
    assert applied > 0
