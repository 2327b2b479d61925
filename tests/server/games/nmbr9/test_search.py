"""The strong bot's search keeps to its budget (``search.MOVE_BUDGET``): the two-card step
stops once a move has scored that many layouts, so no move costs much more than that."""

from __future__ import annotations

from tablehub.server.games import get_game
from tablehub.server.games.base import State
from tablehub.server.games.nmbr9 import search
from tablehub.server.games.nmbr9.engine import current_card, remaining_counts
from tablehub.server.games.nmbr9.evaluation import learned_value
from tablehub.server.games.nmbr9.surface import Surface

LAST_STEP = 300
"""The most one next digit of the two-card step may score after the budget's check: two
candidates, each scoring at most 3 placements on each of 5 levels of 10 digits."""


def test_no_move_scores_many_more_layouts_than_the_budget() -> None:
    game = get_game("nmbr9")
    assert game is not None
    scored = 0

    def counted(surface: Surface, score: int, remaining: list[int]) -> float:
        nonlocal scored
        scored += 1
        return learned_value(surface, score, remaining)

    # Seed 20: its costliest move scores 1,325 layouts without the budget.
    state: State = game.setup({}, 1, 20)
    most = 0
    while not state["finished"]:
        player = state["players"][0]
        scored = 0
        _, rot, x, y = search.choose(
            player["tiles"], current_card(state), player["score"], remaining_counts(state), counted
        )
        most = max(most, scored)
        action = game.bot_move(state, 0, "strong")
        assert action == {"type": "place", "x": x, "y": y, "rot": rot}
        state, _ = game.apply(state, 0, action)
    assert most <= search.MOVE_BUDGET + LAST_STEP
