"""Placement legality, levels, scoring and legal placements (docs/games/nmbr9.md).

A player's layout is the list of tiles they placed, in round order (tile ``i`` was
placed in round ``i + 1``).  Each tile is plain data::

    {"digit": 7, "x": 3, "y": -1, "rot": 1, "level": 1, "cells": ((x, y), ...)}

``cells`` is a tuple of pairs (JSON arrays on the wire and in the store): tuples of
ints, and then the tile dict itself, are left alone by the cyclic garbage collector,
where lists would make a layout of 20 tiles ~160 objects it walks at every full
collection (5,000 players: 256 ms against 8 ms per collection, measured).  A state
read back from the store has lists; :func:`restore_tiles` makes them tuples again.

Theory of operation.  Because every square of a tile on level L >= 1 rests on a square
of level L - 1 (full support), the squares stacked on a cell are always the levels
0, 1, ..., h - 1 without gaps; so one *height map* (cell -> number of squares on it)
and one *owner map* (cell -> index of its topmost tile) describe the whole layout:

* a new tile lands on level ``max(height of its cells)``; it is legal only when all its
  cells have that same height (otherwise some square would hang);
* "a tile exists on level L" is "some cell has height > L";
* its supports are the owners of its cells.

``check_placement`` applies the four conditions one by one on ``(x, y)`` cells and says
in words which one fails; it is what ``apply`` uses.  ``legal_placements`` enumerates
every legal placement at once with integer-coded cells and set operations (candidate
offsets come only from cells next to the level-0 footprint or on top of the layout), so
it stays at a few milliseconds; the tests check one against the other and against a
naive brute force.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from tablehub.server.games.base import IllegalAction
from tablehub.server.games.nmbr9.shapes import (
    DIGITS,
    DISTINCT_ROTATIONS,
    ROTATIONS,
    Cell,
    placed_cells,
)

Tile = dict[str, Any]

ROUNDS = 20
BOUND = 1000
"""Largest ``|x|`` and ``|y|`` accepted for a placement's offset."""

# Cells are coded as one int, x * W + y, so neighbours are +-1 and +-W and a shifted
# shape is "offset + code".  W is far larger than any reachable |y| (BOUND + 4).
CODE_WIDTH = 1 << 16
_W = CODE_WIDTH
_DIRS = (1, -1, _W, -_W)
_SHAPE_CODES: dict[int, tuple[tuple[int, ...], ...]] = {
    d: tuple(tuple(dx * _W + dy for dx, dy in cells) for cells in ROTATIONS[d]) for d in DIGITS
}

Placement = tuple[int, int, int, int]
"""``(level, rot, x, y)`` of a legal placement."""


def fitting_offsets(shape: tuple[int, ...], cells: AbstractSet[int]) -> set[int]:
    """The offsets putting every square of ``shape`` (coded cells) on one of ``cells``:
    where a tile lies flat on a floor of one height."""
    offsets = {c - shape[0] for c in cells}
    for d in shape[1:]:
        offsets = {o for o in offsets if o + d in cells}
        if not offsets:
            break
    return offsets


def _code(x: int, y: int) -> int:
    return x * _W + y


def _decode(code: int) -> Cell:
    x = (code + _W // 2) // _W
    return x, code - x * _W


def make_tile(digit: int, x: int, y: int, rot: int, level: int) -> Tile:
    """A placed tile as stored in the state and shown in the view."""
    return {
        "digit": digit,
        "x": x,
        "y": y,
        "rot": rot,
        "level": level,
        "cells": tuple(placed_cells(digit, x, y, rot)),
    }


def restore_tiles(tiles: list[Tile]) -> list[Tile]:
    """Tiles as :func:`make_tile` makes them, from tiles decoded from the store."""
    return [
        tile
        if type(tile["cells"]) is tuple
        else {**tile, "cells": tuple((cx, cy) for cx, cy in tile["cells"])}
        for tile in tiles
    ]


def tile_score(tile: Tile) -> int:
    """docs/games/nmbr9.md "Score": digit x level (level 0 scores nothing)."""
    return int(tile["digit"]) * int(tile["level"])


def layout_score(tiles: list[Tile]) -> int:
    return sum(tile_score(t) for t in tiles)


def surface(tiles: list[Tile]) -> tuple[dict[Cell, int], dict[Cell, int]]:
    """Height map and owner map (index of the topmost tile) of a layout."""
    height: dict[Cell, int] = {}
    owner: dict[Cell, int] = {}
    for index, tile in enumerate(tiles):
        top = tile["level"] + 1
        for cx, cy in tile["cells"]:
            height[(cx, cy)] = top
            owner[(cx, cy)] = index
    return height, owner


def _fmt(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


def _refuse(message: str) -> IllegalAction:
    return IllegalAction(message, "illegal_action")


def check_placement(tiles: list[Tile], digit: int, x: int, y: int, rot: int) -> int:
    """The level ``digit`` would land on at ``(x, y, rot)``, or ``IllegalAction``.

    docs/games/nmbr9.md "A placement is legal when": (1) the first tile goes anywhere;
    levels: all covered cells must have the same height, which is the tile's level;
    (3) full support and (4) two different supporting tiles on level >= 1;
    (2) same-level edge contact unless the tile opens a new level.
    """
    cells = placed_cells(digit, x, y, rot)
    if not tiles:
        return 0
    height, owner = surface(tiles)
    heights = [height.get(c, 0) for c in cells]
    level = max(heights)
    if min(heights) != level:
        high = cells[heights.index(level)]
        if min(heights) == 0:
            hole = cells[heights.index(0)]
            raise _refuse(
                f"square {_fmt(hole)} would overhang: nothing under it on level {level - 1} "
                f"(the square at {_fmt(high)} lifts the tile to level {level})"
            )
        low_height = min(heights)
        low = cells[heights.index(low_height)]
        raise _refuse(
            f"tile would rest on uneven heights (level {low_height - 1} at {_fmt(low)}, "
            f"level {level - 1} at {_fmt(high)})"
        )
    if level >= 1:
        supports = {owner[c] for c in cells}
        if len(supports) < 2:
            (index,) = supports
            below = tiles[index]
            raise _refuse(
                f"a level-{level} tile must rest on at least two different tiles "
                f"(all squares are on the {below['digit']} placed in round {index + 1})"
            )
    level_taken = any(h > level for h in height.values())
    if level_taken:
        own = set(cells)
        touches = any(
            height.get(n, 0) > level
            for cx, cy in cells
            for n in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1))
            if n not in own
        )
        if not touches:
            if level == 0:
                raise _refuse(
                    "tile on level 0 must touch your layout along an edge (corners do not count)"
                )
            raise _refuse(
                f"tile on level {level} must touch another level-{level} tile along an edge "
                "(corners do not count)"
            )
    return level


def _in_bounds(x: int, y: int) -> bool:
    return -BOUND <= x <= BOUND and -BOUND <= y <= BOUND


def coded_maps(tiles: list[Tile]) -> tuple[dict[int, int], dict[int, int]]:
    """:func:`surface` with cells coded as ``x * CODE_WIDTH + y``."""
    height: dict[int, int] = {}
    owner: dict[int, int] = {}
    for index, tile in enumerate(tiles):
        top = tile["level"] + 1
        for cx, cy in tile["cells"]:
            code = cx * _W + cy
            height[code] = top
            owner[code] = index
    return height, owner


def legal_placements(tiles: list[Tile], digit: int) -> list[Placement]:
    """Every legal placement of ``digit`` as ``(level, rot, x, y)`` (docs/games/nmbr9.md).

    One entry per distinct set of covered cells (only rotations 0 and 1 for 0 and 8),
    offsets within ``BOUND``, ordered by level (highest first), then y, x, rot.  For an
    empty layout any offset is legal; only ``(0, 0)`` is listed, once per rotation.
    """
    rotations = DISTINCT_ROTATIONS[digit]
    if not tiles:
        return [(0, rot, 0, 0) for rot in rotations]
    height, owner = coded_maps(tiles)
    out: list[Placement] = []
    occupied = set(height)
    frontier = {c + d for c in occupied for d in _DIRS} - occupied
    max_height = max(height.values())
    for rot in rotations:
        shape = _SHAPE_CODES[digit][rot]
        # Level 0: some square on a cell next to the footprint, no square on it.
        candidates = {f - d for f in frontier for d in shape}
        candidates.difference_update({c - d for c in occupied for d in shape})
        out.extend((0, rot, *_decode(o)) for o in candidates)
    for level in range(1, max_height + 1):
        top_cells = {c for c, h in height.items() if h == level}
        if level < max_height:
            same_level = {c for c, h in height.items() if h > level}
            touching: set[int] | None = {c + d for c in same_level for d in _DIRS}
        else:
            touching = None  # opening a new level: no contact needed
        for rot in rotations:
            shape = _SHAPE_CODES[digit][rot]
            if len(shape) > len(top_cells):
                continue
            for o in fitting_offsets(shape, top_cells):
                cells = [o + d for d in shape]
                if len({owner[c] for c in cells}) < 2:
                    continue
                if touching is not None and touching.isdisjoint(cells):
                    continue
                out.append((level, rot, *_decode(o)))
    out = [p for p in out if _in_bounds(p[2], p[3])]
    out.sort(key=lambda p: (-p[0], p[3], p[2], p[1]))
    return out
