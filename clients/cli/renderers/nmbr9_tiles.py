"""9-tower tiles on the client (docs/games/nmbr9.md "Tiles", "Levels", "Score"): the ten
shapes in their rotations, where a placement lands and what it is worth, computed from
the public view alone -- so the terminal can draw the card and order the choices by
what they bring without asking the server more than its list of legal placements.
"""

from __future__ import annotations

from typing import Any

Cell = tuple[int, int]

GRIDS = {
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
"""Each digit as it reads upright: rows top to bottom, ``#`` = a square."""

NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _normalised(cells: list[Cell]) -> tuple[Cell, ...]:
    x0 = min(x for x, _ in cells)
    y0 = min(y for _, y in cells)
    return tuple(sorted(((x - x0, y - y0) for x, y in cells), key=lambda c: (c[1], c[0])))


def _rotations(digit: int) -> list[tuple[Cell, ...]]:
    grid = GRIDS[digit]
    out = [
        _normalised([(x, y) for y, row in enumerate(grid) for x, ch in enumerate(row) if ch == "#"])
    ]
    for _ in range(3):  # y points down: a quarter turn clockwise sends (x, y) to (-y, x)
        out.append(_normalised([(-y, x) for x, y in out[-1]]))
    return out


ROTATIONS = {digit: _rotations(digit) for digit in GRIDS}


def shape(digit: int, rot: int) -> tuple[Cell, ...]:
    """The squares of ``digit`` turned ``rot`` quarter turns clockwise (top-left at 0, 0)."""
    return ROTATIONS[digit][rot % 4]


def distinct_rotations(digit: int) -> list[int]:
    """The rotations that give different shapes (0 and 8 have two)."""
    seen: list[tuple[Cell, ...]] = []
    rots = []
    for rot in range(4):
        if shape(digit, rot) not in seen:
            seen.append(shape(digit, rot))
            rots.append(rot)
    return rots


def cells_of(digit: int, x: int, y: int, rot: int) -> list[Cell]:
    return [(x + dx, y + dy) for dx, dy in shape(digit, rot)]


def heights(tiles: list[dict[str, Any]]) -> dict[Cell, int]:
    """How high each covered square stands: the level of its top tile, plus one."""
    height: dict[Cell, int] = {}
    for tile in tiles:
        for x, y in tile["cells"]:
            height[(x, y)] = tile["level"] + 1
    return height


def owners(tiles: list[dict[str, Any]]) -> dict[Cell, int]:
    """Which tile (its index) is on top of each covered square."""
    owner: dict[Cell, int] = {}
    for i, tile in enumerate(tiles):
        for x, y in tile["cells"]:
            owner[(x, y)] = i
    return owner


def highest_fit(height: dict[Cell, int], owner: dict[Cell, int], digit: int) -> int:
    """The highest level (1 or more; 0: none) a ``digit`` tile could rest on: every
    square at the same height, on two tiles at least (same-level contact aside)."""
    best = 0
    raised = [cell for cell, h in height.items() if h > 0]
    for rot in distinct_rotations(digit):
        cells = shape(digit, rot)
        fx, fy = cells[0]
        for ex, ey in raised:
            level = height[(ex, ey)]
            if level <= best:
                continue
            x, y = ex - fx, ey - fy
            below = set()
            for dx, dy in cells:
                square = (x + dx, y + dy)
                if height.get(square, 0) != level:
                    break
                below.add(owner[square])
            else:
                if len(below) >= 2:
                    best = level
    return best


SHORTLIST = 25
"""How many of the best placements by level, points and fit get the look ahead."""


class Worth:
    """What each legal placement of ``digit`` on a layout brings: its level, its
    points (digit x level), how snugly it fits (edges shared with squares at least as
    high) and what it leaves for the next card (``outlook``)."""

    def __init__(self, tiles: list[dict[str, Any]], digit: int, remaining: list[int]) -> None:
        self.tiles = tiles
        self.digit = digit
        self.remaining = remaining
        self.height = heights(tiles)
        self.owner = owners(tiles)

    def cells(self, action: dict[str, Any]) -> list[Cell]:
        return cells_of(self.digit, int(action["x"]), int(action["y"]), int(action.get("rot", 0)))

    def level(self, action: dict[str, Any]) -> int:
        return self.height.get(self.cells(action)[0], 0)

    def points(self, action: dict[str, Any]) -> int:
        return self.digit * self.level(action)

    def snug(self, action: dict[str, Any]) -> int:
        level = self.level(action)
        cells = set(self.cells(action))
        return sum(
            1
            for cx, cy in cells
            for dx, dy in NEIGHBOURS
            if (cx + dx, cy + dy) not in cells and self.height.get((cx + dx, cy + dy), 0) > level
        )

    def outlook(self, action: dict[str, Any]) -> float:
        """The points the next card may bring once this tile is down: over the cards
        still to come, the average of digit x the highest level it could go to."""
        level = self.level(action)
        height, owner = dict(self.height), dict(self.owner)
        for cell in self.cells(action):
            height[cell], owner[cell] = level + 1, len(self.tiles)
        total = sum(self.remaining)
        if not total:
            return 0.0
        return (
            sum(
                count * digit * highest_fit(height, owner, digit)
                for digit, count in enumerate(self.remaining)
                if count
            )
            / total
        )

    def quick_key(self, action: dict[str, Any]) -> tuple[int, ...]:
        """Level, points, fit, then position (top to bottom, left to right, fewer turns)."""
        if action.get("type") != "place":
            return (1, 0, 0, 0, 0, 0, 0)
        level = self.level(action)
        return (
            0,
            -level,
            -self.digit * level,
            -self.snug(action),
            int(action["y"]),
            int(action["x"]),
            int(action.get("rot", 0)),
        )

    def rank(self, legal: list[dict[str, Any]]) -> list[tuple[dict[str, Any], float]]:
        """The placements best first, each with what it is worth in all: its points
        now and, for the shortlist, what it leaves for the next card (the rest follow
        in level, points, fit and position order, worth their points alone)."""
        ordered = sorted(legal, key=self.quick_key)
        short = [(a, self.points(a) + self.outlook(a)) for a in ordered[:SHORTLIST]]
        short.sort(key=lambda pair: -pair[1])  # stable: ties keep level, points, fit order
        rest = [
            (a, float(self.points(a)) if a.get("type") == "place" else 0.0)
            for a in ordered[SHORTLIST:]
        ]
        return short + rest
