"""The staged ``legal`` shortcuts (issue 33) answer exactly what grouping the full list
answers (protocol/README.md "Staged legal"): ``group_step``'s path for partial actions
without a list chosen in part, against its general path; Termite Towers' slot and
helper steps for every die, every slot and malformed values, against ``group_step``
over the full list."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import Action, State
from tablehub.server.games.staged import _group_lists, group_step
from tests.server.games.conformance import playout, table_shapes

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

CASES = [(game.id, seats, options) for game in all_games() for seats, options in table_shapes(game)]


def partials(actions: list[Action]) -> list[Action]:
    """Every prefix of the listed actions' fields (no list field chosen in part), and a
    few that extend nothing."""
    out: list[Action] = [{}, {"type": "nothing"}]
    seen: set[str] = set()
    for action in actions[:200]:
        fields = list(action.items())
        for size in range(1, len(fields) + 1):
            partial = dict(fields[:size])
            if any(isinstance(v, list) for v in partial.values()):
                continue
            if repr(partial) not in seen:
                seen.add(repr(partial))
                out.append(partial)
    out.append({**actions[0], "extra": 1} if actions else {"extra": 1})
    return out


@pytest.mark.parametrize(("game_id", "seats", "options"), CASES)
def test_grouping_without_lists_answers_as_the_general_grouping(
    game_id: str, seats: int, options: dict[str, Any]
) -> None:
    game = get_game(game_id)
    assert game is not None
    p = playout(game, seats, 2, options, bot_share=0.8)
    for state in p.states[:: max(1, len(p.states) // 8)]:
        for seat in game.status(state)["to_act"]:
            full = game.legal_actions(state, seat)
            for partial in partials(full):
                assert group_step(full, partial) == _group_lists(full, partial), partial


def day_states() -> list[State]:
    game = get_game("termite")
    assert game is not None
    states: list[State] = []
    for seats in (1, 2, 4):
        p = playout(game, seats, 3, {}, bot_share=0.7)
        states += [s for s in p.states if s["phase"] == "day"][::6]
    return states


def test_termite_slot_and_helper_steps_are_the_full_lists_grouped() -> None:
    game = get_game("termite")
    assert game is not None
    odd: list[Any] = ["R", "", "A", "Z9", "R99", "D7t", 5, True, None, ["A1"]]
    checked = 0
    for state in day_states():
        for seat in game.status(state)["to_act"]:
            full = game.legal_actions(state, seat)
            dice = range(len(state["players"][seat]["dice"]) + 1)
            slots = sorted({a["slot"] for a in full if "slot" in a}) + odd
            for die in [*dice, True, -1, "0"]:
                partial: Action = {"type": "place_die", "die": die}
                assert game.legal_step(state, seat, partial) == group_step(full, partial)
                for slot in slots:
                    partial = {"type": "place_die", "die": die, "slot": slot}
                    assert game.legal_step(state, seat, partial) == group_step(full, partial)
                    checked += 1
    assert checked > 1000
