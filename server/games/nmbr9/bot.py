"""The 9-tower bot levels (docs/games/nmbr9.md): ``easy``, ``medium`` and ``strong``.

``strong`` (the default, ``search``) plans for the cards still to come; ``medium``
takes the placement whose layout the strong bot's evaluation values most, without
looking ahead (``search.choose_by_evaluation``).  ``easy`` is a greedy, deterministic
placement; it is also the deadline fallback for every seat of a
tournament table at once, so it does one ``legal_placements`` call plus a little
arithmetic on the best few candidates.

Easy's preference, in order:

1. the most points now (digit x level), then the highest level (even a 0 tile high up
   makes a surface to stack on);
2. the most edges shared with tiles of the same level (a compact footprint and
   compact upper floors give the next tiles more two-tile supports);
3. closest to the centre of the layout (keeps the footprint round, not a snake);
4. the first in ``legal_placements`` order.
"""

from __future__ import annotations

from tablehub.server.games.base import Action, BotLevel, IllegalAction, State
from tablehub.server.games.nmbr9 import search
from tablehub.server.games.nmbr9.engine import current_card, must_act, remaining_counts
from tablehub.server.games.nmbr9.rules import Placement, Tile, legal_placements, surface
from tablehub.server.games.nmbr9.shapes import shape_cells


def choose_placement(tiles: list[Tile], digit: int) -> Placement:
    """The bot's pick among the legal placements of ``digit`` on this layout."""
    options = legal_placements(tiles, digit)
    best_points = max(digit * p[0] for p in options)
    options = [p for p in options if digit * p[0] == best_points]
    top_level = max(p[0] for p in options)
    options = [p for p in options if p[0] == top_level]
    if len(options) == 1 or not tiles:
        return options[0]
    height, _ = surface(tiles)

    def contacts(p: Placement) -> int:
        level, rot, x, y = p
        cells = {(x + dx, y + dy) for dx, dy in shape_cells(digit, rot)}
        return sum(
            1
            for cx, cy in cells
            for n in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1))
            if n not in cells and height.get(n, 0) > level
        )

    scored = [(contacts(p), p) for p in options]
    most = max(c for c, _ in scored)
    options = [p for c, p in scored if c == most]
    if len(options) == 1:
        return options[0]
    # Centre of the footprint, scaled by its size n so it stays an int.
    n = len(height)
    sum_x = sum(x for x, _ in height)
    sum_y = sum(y for _, y in height)

    def spread(p: Placement) -> int:
        _, rot, x, y = p
        return sum(
            abs(n * (x + dx) - sum_x) + abs(n * (y + dy) - sum_y)
            for dx, dy in shape_cells(digit, rot)
        )

    return min(options, key=spread)


def _tiles(state: State, seat: int) -> list[Tile]:
    if not must_act(state, seat):
        raise IllegalAction(f"seat {seat + 1} does not have to act now", "not_your_turn")
    tiles: list[Tile] = state["players"][seat]["tiles"]
    return tiles


def _place(placement: Placement) -> Action:
    _, rot, x, y = placement
    return {"type": "place", "x": x, "y": y, "rot": rot}


def easy_action(state: State, seat: int) -> Action:
    """The greedy placement for a seat that must act now."""
    return _place(choose_placement(_tiles(state, seat), current_card(state)))


def medium_action(state: State, seat: int) -> Action:
    """The placement the evaluation values most, for a seat that must act now; it sees
    what the seat sees."""
    tiles = _tiles(state, seat)
    score = state["players"][seat]["score"]
    return _place(
        search.choose_by_evaluation(tiles, current_card(state), score, remaining_counts(state))
    )


def strong_action(state: State, seat: int) -> Action:
    """The look-ahead placement for a seat that must act now; it sees what the seat
    sees: the layout, the current card and the counts of the cards to come."""
    tiles = _tiles(state, seat)
    score = state["players"][seat]["score"]
    return _place(search.choose(tiles, current_card(state), score, remaining_counts(state)))


LEVELS = (
    BotLevel(
        "easy",
        "Easy",
        "Takes the most points for the tile in hand and does not plan ahead "
        "(about 53 points a game, under 1 ms a move).",
        easy_action,
    ),
    BotLevel(
        "medium",
        "Medium",
        "Judges each placement by the layout it leaves for the cards still to come, "
        "without looking ahead (about 81 points a game, under 1 ms a move).",
        medium_action,
    ),
    BotLevel(
        "strong",
        "Strong",
        "Plans for the cards still to come: keeps its floors compact and leaves room to "
        "put the big digits high (about 91 points a game, about 10 ms a move).",
        strong_action,
    ),
)
