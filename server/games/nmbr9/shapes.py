"""The ten digit tiles and their rotations (docs/games/nmbr9.md "Tiles").

Each digit is a set of unit squares inside a 3x4 box, given below as the digit reads
upright (rows top to bottom, ``#`` = square).  Coordinates are ``(x, y)`` with x to the
right and y downward.  A rotation ``rot`` is that many quarter turns *clockwise*; after
rotating, the cells are shifted so that the smallest x and the smallest y are 0.  Tiles
are never mirrored.

Cells are always listed in reading order (by y, then x), so a rotated shape has one
canonical form and two rotations give the same tile exactly when their cell tuples are
equal (this is how 0 and 8 end up with only two distinct rotations).
"""

from __future__ import annotations

Cell = tuple[int, int]

DIGITS = tuple(range(10))

GRIDS: dict[int, tuple[str, str, str, str]] = {
    0: ("###", "#.#", "#.#", "###"),
    1: ("##.", ".#.", ".#.", ".#."),
    2: (".##", ".##", "##.", "###"),
    3: ("###", "..#", ".##", "###"),
    4: (".##", ".#.", "###", ".##"),
    5: ("###", "###", "..#", "###"),
    6: ("##.", "#..", "###", "###"),
    7: ("###", ".#.", "##.", "#.."),
    8: (".##", ".##", "##.", "##."),
    9: ("###", "###", "##.", "##."),
}


def _normalised(cells: list[Cell]) -> tuple[Cell, ...]:
    min_x = min(x for x, _ in cells)
    min_y = min(y for _, y in cells)
    return tuple(sorted(((x - min_x, y - min_y) for x, y in cells), key=lambda c: (c[1], c[0])))


def _upright(digit: int) -> tuple[Cell, ...]:
    grid = GRIDS[digit]
    return _normalised(
        [(x, y) for y, row in enumerate(grid) for x, ch in enumerate(row) if ch == "#"]
    )


def _rotate_clockwise(cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
    # With y pointing down, a quarter turn clockwise sends (x, y) to (-y, x).
    return _normalised([(-y, x) for x, y in cells])


def _all_rotations(digit: int) -> tuple[tuple[Cell, ...], ...]:
    out = [_upright(digit)]
    for _ in range(3):
        out.append(_rotate_clockwise(out[-1]))
    return tuple(out)


ROTATIONS: dict[int, tuple[tuple[Cell, ...], ...]] = {d: _all_rotations(d) for d in DIGITS}
"""``ROTATIONS[digit][rot]``: the normalised cells of that digit turned ``rot`` times."""


def _distinct(digit: int) -> tuple[int, ...]:
    seen: list[tuple[Cell, ...]] = []
    out: list[int] = []
    for rot, cells in enumerate(ROTATIONS[digit]):
        if cells not in seen:
            seen.append(cells)
            out.append(rot)
    return tuple(out)


DISTINCT_ROTATIONS: dict[int, tuple[int, ...]] = {d: _distinct(d) for d in DIGITS}
"""The rotations giving different tiles: (0, 1) for 0 and 8, (0, 1, 2, 3) otherwise."""

SQUARES: dict[int, int] = {d: len(ROTATIONS[d][0]) for d in DIGITS}


def shape_cells(digit: int, rot: int) -> tuple[Cell, ...]:
    """Cells of ``digit`` turned ``rot`` quarter turns clockwise, min x = min y = 0."""
    return ROTATIONS[digit][rot % 4]


def placed_cells(digit: int, x: int, y: int, rot: int) -> list[Cell]:
    """The board cells covered by ``digit`` at offset ``(x, y)`` with rotation ``rot``."""
    return [(x + dx, y + dy) for dx, dy in ROTATIONS[digit][rot % 4]]


def canonical_rotation(digit: int, rot: int) -> int:
    """The smallest rotation giving the same tile (2 -> 0 and 3 -> 1 for 0 and 8)."""
    cells = ROTATIONS[digit][rot % 4]
    return ROTATIONS[digit].index(cells)
