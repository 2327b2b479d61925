"""A naive, independent 9-tower legality oracle (docs/games/nmbr9.md) and tests of it.

The rules and property tests compare the engine against `brute_force` here: it tries
every rotation at every offset in a window and checks the four conditions directly on
cells, with its own rotation of the printed grids.
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.nmbr9.rules import check_placement, make_tile

# The upright tiles as printed in docs/games/nmbr9.md, copied here independently of shapes.py.
UPRIGHT = {
    0: ["###", "#.#", "#.#", "###"],
    1: ["##.", ".#.", ".#.", ".#."],
    2: [".##", ".##", "##.", "###"],
    3: ["###", "..#", ".##", "###"],
    4: [".##", ".#.", "###", ".##"],
    5: ["###", "###", "..#", "###"],
    6: ["##.", "#..", "###", "###"],
    7: ["###", ".#.", "##.", "#.."],
    8: [".##", ".##", "##.", "##."],
    9: ["###", "###", "##.", "##."],
}


def turn_grid(grid: list[str]) -> list[str]:
    """A character grid turned a quarter clockwise: new row i = old column i, bottom-up."""
    return ["".join(row[i] for row in reversed(grid)) for i in range(len(grid[0]))]


def trim(grid: list[str]) -> list[str]:
    rows = [r for r in grid if "#" in r]
    cols = [i for i in range(len(rows[0])) if any(r[i] == "#" for r in rows)]
    return [r[cols[0] : cols[-1] + 1] for r in rows]


def naive_cells(digit: int, x: int, y: int, rot: int) -> frozenset[tuple[int, int]]:
    grid = UPRIGHT[digit]
    for _ in range(rot):
        grid = turn_grid(grid)
    grid = trim(grid)
    return frozenset(
        (x + cx, y + cy) for cy, row in enumerate(grid) for cx, ch in enumerate(row) if ch == "#"
    )


def grid_of(cells: Any) -> list[str]:
    """Cells (normalised) drawn as rows of '#' and '.'."""
    cells = {tuple(c) for c in cells}
    width = max(x for x, _ in cells) + 1
    height = max(y for _, y in cells) + 1
    return ["".join("#" if (x, y) in cells else "." for x in range(width)) for y in range(height)]


def build(specs: list[tuple[int, int, int, int]]) -> list[dict[str, Any]]:
    """Tiles placed in order from ``(digit, x, y, rot)``; each must be legal."""
    tiles: list[dict[str, Any]] = []
    for digit, x, y, rot in specs:
        level = check_placement(tiles, digit, x, y, rot)
        tiles.append(make_tile(digit, x, y, rot, level))
    return tiles


def naive_level(tiles: list[dict[str, Any]], cells: frozenset[tuple[int, int]]) -> int | None:
    """The level the four conditions of docs/games/nmbr9.md allow for ``cells``, or None.

    Works only from the tiles' cells and levels, trying every level in turn.
    """
    if not tiles:
        return 0
    by_level: dict[int, list[set[tuple[int, int]]]] = {}
    for t in tiles:
        by_level.setdefault(t["level"], []).append({(c[0], c[1]) for c in t["cells"]})
    top = max(by_level)
    for level in range(top + 2):
        # No square may share a cell with any tile on this level or above.
        if any(cells & tile for lvl, ts in by_level.items() if lvl >= level for tile in ts):
            continue
        if level >= 1:
            below = by_level.get(level - 1, [])
            # Full support: every square is on some tile of the level below.
            if not all(any(c in tile for tile in below) for c in cells):
                continue
            # Two supports: the squares touch at least two different tiles below.
            if sum(1 for tile in below if cells & tile) < 2:
                continue
        same = by_level.get(level, [])
        if same:
            edges = {
                (cx + dx, cy + dy)
                for cx, cy in cells
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            }
            if not any(edges & tile for tile in same):
                continue
        return level
    return None


def brute_force(tiles: list[dict[str, Any]], digit: int) -> set[tuple[int, frozenset[Any]]]:
    """Every legal (level, covered cells) for ``digit``, by trying every rotation at every
    offset in a window around the layout."""
    xs = [c[0] for t in tiles for c in t["cells"]]
    ys = [c[1] for t in tiles for c in t["cells"]]
    out: set[tuple[int, frozenset[Any]]] = set()
    for rot in range(4):
        for x in range(min(xs) - 5, max(xs) + 2):
            for y in range(min(ys) - 5, max(ys) + 2):
                cells = naive_cells(digit, x, y, rot)
                level = naive_level(tiles, cells)
                if level is not None:
                    out.add((level, cells))
    return out


def test_oracle_rotation_agrees_with_shapes_module() -> None:
    from tablehub.server.games.nmbr9.shapes import placed_cells

    for digit in range(10):
        for rot in range(4):
            assert naive_cells(digit, 5, -3, rot) == frozenset(placed_cells(digit, 5, -3, rot))


def test_oracle_agrees_with_check_placement_on_a_window() -> None:
    from tablehub.server.games.base import IllegalAction

    tiles = build([(9, 0, 0, 1), (9, 4, 0, 1), (0, 0, 3, 1), (0, 4, 3, 1), (1, 1, 0, 3)])
    for digit in (1, 8):
        for rot in range(4):
            for x in range(-4, 9):
                for y in range(-4, 7):
                    want = naive_level(tiles, naive_cells(digit, x, y, rot))
                    try:
                        got: int | None = check_placement(tiles, digit, x, y, rot)
                    except IllegalAction:
                        got = None
                    assert got == want, (digit, x, y, rot)
