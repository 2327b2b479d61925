"""The 9-tower bot: a greedy, deterministic placement (docs/games/nmbr9.md).

It is also the deadline fallback for every seat of a tournament table at once, so it
does one ``legal_placements`` call plus a little arithmetic on the best few candidates.

Preference, in order:

1. the most points now (digit x level), then the highest level (even a 0 tile high up
   makes a surface to stack on);
2. the most edges shared with tiles of the same level (a compact footprint and
   compact upper floors give the next tiles more two-tile supports);
3. closest to the centre of the layout (keeps the footprint round, not a snake);
4. the first in ``legal_placements`` order.
"""

from __future__ import annotations

from tablehub.server.games.base import Action, IllegalAction, State
from tablehub.server.games.nmbr9.engine import current_card, must_act
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


def bot_action(state: State, seat: int) -> Action:
    """A legal, sensible placement for a seat that must act now."""
    if not must_act(state, seat):
        raise IllegalAction(f"seat {seat} does not have to act now", "not_your_turn")
    tiles = state["players"][seat]["tiles"]
    _, rot, x, y = choose_placement(tiles, current_card(state))
    return {"type": "place", "x": x, "y": y, "rot": rot}
