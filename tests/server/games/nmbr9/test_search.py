"""The strong bot's search keeps to its budget (``search.MOVE_BUDGET``): the two-card step
stops once a move has scored that many layouts, so no move costs much more than that."""

from __future__ import annotations

from tablehub.server.games import get_game
from tablehub.server.games.base import State
from tablehub.server.games.nmbr9 import search
from tablehub.server.games.nmbr9.candidates import shortlist
from tablehub.server.games.nmbr9.engine import current_card, remaining_counts
from tablehub.server.games.nmbr9.evaluation import inputs, learned_value, network
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


def test_the_packed_evaluation_is_the_network_of_its_inputs() -> None:
    """``learned_value`` (the network on packed ints, the output layer as sums of lanes)
    gives ``network(inputs(...))`` plus the points held, on the layouts a search looks
    at: every shortlisted placement of the card in hand, on layouts of a strong game."""
    game = get_game("nmbr9")
    assert game is not None
    state: State = game.setup({}, 1, 21)
    checked = 0
    while not state["finished"]:
        player = state["players"][0]
        digit, remaining = current_card(state), remaining_counts(state)
        root = Surface.of(player["tiles"])
        for placement in shortlist(root, digit, 10):
            after = root.with_tile(digit, placement)
            expected = 7 + (network(inputs(after, remaining)) if any(remaining) else 0.0)
            assert abs(learned_value(after, 7, remaining) - expected) < 1e-6, placement
            checked += 1
        state, _ = game.apply(state, 0, game.bot_move(state, 0, "strong"))
    assert checked > 200
