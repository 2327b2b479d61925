"""9-tower property tests over random playouts (docs/games/nmbr9.md; games/conformance.py).

Random legal playouts (half bot moves, half random legal placements) for 1-4 seats and
a larger tournament table: replay equals live, views patch and hash correctly, views
never contain the deck order or the rng, the game ends after exactly 20 rounds and the
scores match an independent recomputation from the tiles' cells.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehub.server.games.base import final_result
from tablehub.server.games.nmbr9 import GAME
from tablehub.server.games.nmbr9.rules import legal_placements
from tablehub.server.games.nmbr9.shapes import shape_cells
from tests.server.games.conformance import Playout, check_playout, playout
from tests.server.games.nmbr9.test_oracle import brute_force

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

FEW = settings(max_examples=6, deadline=None, derandomize=True)


def leak_check(state: dict[str, Any], view: dict[str, Any], seat: int | None) -> None:
    """No hidden key, and the order of the cards still to come never appears as a list."""
    text = json.dumps(view, separators=(",", ":"))
    assert '"deck"' not in text and '"rng"' not in text, "hidden key in the view"
    assert str(state["rng"]) not in text
    upcoming = state["deck"][state["round"] :]
    if not state["finished"] and len(upcoming) >= 3:
        # (A 2-list could be any cell [x, y]; after the end nothing is hidden.)
        assert json.dumps(upcoming, separators=(",", ":")) not in text, "card order leaked"
    # What is shown: the face-up card and the counts of the rest.
    assert view["card"] == state["deck"][state["round"] - 1]
    if not state["finished"]:
        assert view["remaining"] == [upcoming.count(d) for d in range(10)]


def recompute(tiles: list[dict[str, Any]]) -> int:
    """Score from scratch: stack the tiles' cells in order and read each tile's level."""
    height: dict[tuple[int, int], int] = {}
    total = 0
    for tile in tiles:
        cells = [(c[0], c[1]) for c in tile["cells"]]
        expected = {
            (tile["x"] + dx, tile["y"] + dy) for dx, dy in shape_cells(tile["digit"], tile["rot"])
        }
        assert set(cells) == expected
        levels = {height.get(c, 0) for c in cells}
        assert len(levels) == 1, "a tile rests on uneven heights"
        level = levels.pop()
        assert level == tile["level"]
        for c in cells:
            height[c] = level + 1
        total += tile["digit"] * level
    return total


def check_finished(p: Playout) -> None:
    final = p.states[-1]
    status = GAME.status(final)
    assert status["finished"] and status["phase"] == "finished"
    assert status["to_act"] == []
    # Exactly 20 rounds: every seat placed one tile per round, one per card.
    assert len(p.log) == 20 * p.seats
    turns = [GAME.status(s)["turn"] for s in p.states[:-1]]
    assert sorted(set(turns)) == list(range(1, 21))
    deck = p.states[0]["deck"]
    scores = []
    for player in final["players"]:
        assert [t["digit"] for t in player["tiles"]] == deck
        assert player["score"] == recompute(player["tiles"])
        scores.append(player["score"])
    result = final_result(status)
    assert result["scores"] == scores
    assert result["winners"] == [s for s in range(p.seats) if scores[s] == max(scores)]


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
@settings(max_examples=2, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**40))
def test_random_playouts_follow_the_contract(seats: int, seed: int) -> None:
    p = playout(GAME, seats, seed)
    check_playout(p, leak_check)
    check_finished(p)


@settings(max_examples=1, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**40))
def test_tournament_table_playout(seed: int) -> None:
    p = playout(GAME, 6, seed, options={"tournament": True}, bot_share=0.3)
    check_playout(p, leak_check)
    check_finished(p)


@FEW
@given(seed=st.integers(0, 2**40), rounds=st.integers(3, 14), digit=st.integers(0, 9))
def test_legal_placements_match_the_naive_oracle(seed: int, rounds: int, digit: int) -> None:
    chooser = random.Random(seed)
    state = GAME.setup({"tournament": False}, 1, seed)
    for _ in range(rounds):
        actions = GAME.legal_actions(state, 0)
        action = GAME.fast_bot_move(state, 0) if chooser.random() < 0.6 else chooser.choice(actions)
        assert action in actions
        state, _ = GAME.apply(state, 0, action)
    tiles = state["players"][0]["tiles"]
    fast = legal_placements(tiles, digit)
    as_cells = {
        (level, frozenset((x + dx, y + dy) for dx, dy in shape_cells(digit, rot)))
        for level, rot, x, y in fast
    }
    assert len(as_cells) == len(fast)
    assert brute_force(tiles, digit) == as_cells


@FEW
@given(seed=st.integers(0, 2**40), resign_at=st.integers(0, 38))
def test_playouts_with_a_resignation(seed: int, resign_at: int) -> None:
    chooser = random.Random(seed)
    state = GAME.setup({"tournament": False}, 2, seed)
    step = 0
    quitter = chooser.randrange(2)
    while not GAME.status(state)["finished"]:
        to_act = GAME.status(state)["to_act"]
        if step == resign_at and not state["players"][quitter]["resigned"]:
            state, _ = GAME.apply(state, quitter, {"type": "resign"})
        else:
            seat = chooser.choice(to_act)
            state, _ = GAME.apply(state, seat, GAME.fast_bot_move(state, seat))
        step += 1
    result = final_result(GAME.status(state))
    other = 1 - quitter
    assert result["winners"] == [other]
    assert len(state["players"][other]["tiles"]) == 20
    assert len(state["players"][quitter]["tiles"]) < 20
    for player in state["players"]:
        assert player["score"] == recompute(player["tiles"])


def test_the_leak_check_catches_leaks() -> None:
    state = GAME.setup({"tournament": False}, 2, 1)
    board = GAME.view(state, None)
    leak_check(state, board, None)
    upcoming = state["deck"][1:]
    for leaky in (
        {**board, "deck": []},
        {**board, "hint": {"rng": 1}},
        {**board, "next": upcoming},
        {**board, "players": [*board["players"], {"tiles": [upcoming]}]},
    ):
        with pytest.raises(AssertionError):
            leak_check(state, leaky, None)
