"""Wall geometry for the wall duel (docs/games/brix.md "Bricks", "Placing", "Winning").

Theory of operation.  The wall is a grid seen from one side: column ``x`` (any int,
may be negative), row ``y`` (0 = the ground, growing upwards).  A brick is two cubes
at ``(x, y)`` and either ``(x + 1, y)`` (``dir == "h"``) or ``(x, y + 1)``
(``dir == "v"``).  ``orange`` is the index (0 = left/lower cube, 1 = right/upper
cube) of the orange cube; the other is blue.  ``face`` names the visible symbols:
``"xo"`` = orange cube shows X and blue shows O, ``"ox"`` = orange O and blue X.

Because every cell must rest on the ground or on an occupied cell, a wall built by
legal placements is a set of solid columns standing on row 0; only a move that pulls
a brick from under another one leaves a cell unsupported (the wall collapses).

The two cubes of a brick differ in colour *and* in symbol, so a line of four equal
colours or symbols never holds both cubes of one brick: each new brick adds at most
one cell to any given line.  ``Wall`` works on an internal dict of tuples; only the
rules module turns things into plain JSON data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

Cell = tuple[int, int]
Pos = tuple[int, int, str]  # x, y, dir of a brick's left/lower cube
CellData = tuple[int, str, str]  # brick id, colour, symbol

MAX_WIDTH = 8
FIRST_COLUMNS = (0, 7)  # [house] the first brick lies within columns 0..7
DIRS = ("h", "v")
FACES = ("xo", "ox")
COLORS = ("orange", "blue")
MARKS = ("X", "O")
LINE_DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))
_EDGE = ((1, 0), (-1, 0), (0, 1), (0, -1))
_CORNER = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def brick_cells(x: int, y: int, d: str) -> tuple[Cell, Cell]:
    """The two cells of a brick whose left/lower cube is at ``(x, y)``."""
    return ((x, y), (x + 1, y) if d == "h" else (x, y + 1))


def cube_faces(orange: int, face: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """``(colour, symbol)`` of cube 0 and cube 1 (docs/games/brix.md "Bricks")."""
    orange_cube = ("orange", face[0].upper())
    blue_cube = ("blue", face[1].upper())
    return (orange_cube, blue_cube) if orange == 0 else (blue_cube, orange_cube)


def fmt(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


class Wall:
    """The occupied cells of a wall: ``(x, y) -> (brick id, colour, symbol)``."""

    __slots__ = ("bricks", "occ")

    def __init__(self, occ: dict[Cell, CellData], bricks: dict[int, Pos]) -> None:
        self.occ = occ
        self.bricks = bricks

    @classmethod
    def from_bricks(cls, bricks: Iterable[dict[str, Any]]) -> Wall:
        wall = cls({}, {})
        for b in bricks:
            wall.put(b["id"], b["x"], b["y"], b["dir"], b["orange"], b["face"])
        return wall

    def copy(self) -> Wall:
        return Wall(dict(self.occ), dict(self.bricks))

    def put(self, brick_id: int, x: int, y: int, d: str, orange: int, face: str) -> None:
        """Add a brick in place (no rule check)."""
        for cell, (color, mark) in zip(brick_cells(x, y, d), cube_faces(orange, face), strict=True):
            self.occ[cell] = (brick_id, color, mark)
        self.bricks[brick_id] = (x, y, d)

    def without(self, brick_id: int) -> Wall:
        """A copy with one brick taken out."""
        wall = self.copy()
        x, y, d = wall.bricks.pop(brick_id)
        for cell in brick_cells(x, y, d):
            del wall.occ[cell]
        return wall

    def columns(self) -> tuple[int, int] | None:
        if not self.occ:
            return None
        xs = [x for x, _ in self.occ]
        return min(xs), max(xs)

    # -- support (docs/games/brix.md "Placing", "Move phase") ------------------------------

    def unsupported(self) -> list[Cell]:
        """Occupied cells above row 0 with nothing directly below (sorted)."""
        occ = self.occ
        return sorted(
            ((x, y) for (x, y) in occ if y > 0 and (x, y - 1) not in occ),
            key=lambda c: (c[1], c[0]),
        )

    def collapse_if_removed(self, brick_id: int) -> list[Cell]:
        """Cells that would be left hanging if this brick were taken out.  masks.py
        (``takings_of``) restates this rule for every brick at once: change both."""
        x, y, d = self.bricks[brick_id]
        top = brick_cells(x, y, d)
        above = [(x, y + 1), (x + 1, y + 1)] if d == "h" else [(x, y + 2)]
        return [c for c in above if c in self.occ and c not in top]

    # -- placement (docs/games/brix.md "Placing") ------------------------------------------

    def placement_error(self, x: int, y: int, d: str) -> str | None:
        """Why a brick may not go at ``(x, y, d)`` on this wall, or None if it may.
        masks.py restates these rules for every position at once (and :meth:`_fits`
        without the words): change them together."""
        occ = self.occ
        cells = brick_cells(x, y, d)
        for cell in cells:
            if cell in occ:
                return f"cell {fmt(cell)} is already taken by brick {occ[cell][0]}"
        if not occ:
            lo, hi = FIRST_COLUMNS
            if x < lo or cells[1][0] > hi:
                return f"the first brick must lie within columns {lo}..{hi}"
        elif not any((cx + dx, cy + dy) in occ for cx, cy in cells for dx, dy in _EDGE):
            corners = [
                (cx + dx, cy + dy)
                for cx, cy in cells
                for dx, dy in _CORNER
                if (cx + dx, cy + dy) in occ
            ]
            if corners:
                return (
                    f"the brick would touch the wall only at a corner (at {fmt(corners[0])});"
                    " it must share an edge with a brick of the wall"
                )
            return "the brick would not touch the wall; it must share an edge with a brick of it"
        for cx, cy in cells:
            below = (cx, cy - 1)
            if cy > 0 and below not in occ and below not in cells:
                return f"cell ({cx},{cy}) would hang in the air: nothing below it at {fmt(below)}"
        span = self.columns()
        if span is not None:
            lo = min(span[0], x)
            hi = max(span[1], cells[1][0])
            if hi - lo + 1 > MAX_WIDTH:
                return (
                    f"the wall would be {hi - lo + 1} cells wide (columns {lo}..{hi});"
                    f" the limit is {MAX_WIDTH}"
                )
        return None

    def positions(self) -> list[Pos]:
        """Every legal placement position, sorted by (y, x, dir)."""
        occ = self.occ
        span = self.columns()
        if span is None:
            lo, hi = FIRST_COLUMNS
            starts = {(x, 0) for x in range(lo, hi + 1)}
        else:
            starts = {(x, 0) for x in range(span[0] - 2, span[1] + 2)}
            starts.update((x, y + 1) for (x, y) in occ if (x, y + 1) not in occ)
        out: list[Pos] = []
        for x, y in starts:
            if (x, y) in occ:
                continue
            for d in DIRS:
                if self._fits(x, y, d, span):
                    out.append((x, y, d))
        out.sort(key=lambda p: (p[1], p[0], p[2]))
        return out

    def _fits(self, x: int, y: int, d: str, span: tuple[int, int] | None) -> bool:
        """``placement_error(x, y, d) is None``, without putting the reason in words
        (``span``: :meth:`columns`, the same for every position tried)."""
        occ = self.occ
        cells = brick_cells(x, y, d)
        (x1, y1), (x2, y2) = cells
        if cells[0] in occ or cells[1] in occ:
            return False
        if span is None:  # the first brick: nothing to touch or stand on
            return FIRST_COLUMNS[0] <= x and x2 <= FIRST_COLUMNS[1] and y1 <= 0
        if min(span[0], x) + MAX_WIDTH <= max(span[1], x2):
            return False
        if y1 > 0 and (x1, y1 - 1) not in occ:
            return False  # the second cell is above the first (v) or beside it (h)
        if d == "h" and y2 > 0 and (x2, y2 - 1) not in occ:
            return False
        return any((cx + dx, cy + dy) in occ for cx, cy in cells for dx, dy in _EDGE)

    # -- lines (docs/games/brix.md "Winning") ------------------------------------------------

    def runs_through(self, cell: Cell, value: str) -> list[list[Cell]]:
        """Straight runs (one per direction) of ``value`` (a colour or a symbol) at least
        four long through an occupied ``cell``; each run sorted by (x, y)."""
        occ = self.occ
        cx, cy = cell
        runs: list[list[Cell]] = []
        for dx, dy in LINE_DIRS:
            run = [cell]
            for sign in (1, -1):
                nx, ny = cx + sign * dx, cy + sign * dy
                while True:
                    data = occ.get((nx, ny))
                    if data is None or (data[1] != value and data[2] != value):
                        break
                    run.append((nx, ny))
                    nx, ny = nx + sign * dx, ny + sign * dy
            if len(run) >= 4:
                runs.append(sorted(run))
        return runs

    def completes(self, cell: Cell, value: str) -> bool:
        """Would a cube showing ``value`` at the empty ``cell`` make four in a line?"""
        occ = self.occ
        cx, cy = cell
        for dx, dy in LINE_DIRS:
            count = 1
            for sign in (1, -1):
                nx, ny = cx + sign * dx, cy + sign * dy
                while True:
                    data = occ.get((nx, ny))
                    if data is None or (data[1] != value and data[2] != value):
                        break
                    count += 1
                    nx, ny = nx + sign * dx, ny + sign * dy
            if count >= 4:
                return True
        return False

    def lines_at(
        self, cells: Sequence[Cell], values: Iterable[str]
    ) -> list[tuple[str, list[Cell]]]:
        """Lines of four or more of any of ``values`` through the given occupied cells."""
        wanted = set(values)
        found: list[tuple[str, list[Cell]]] = []
        for cell in cells:
            _, color, mark = self.occ[cell]
            for value in (color, mark):
                if value not in wanted:
                    continue
                for run in self.runs_through(cell, value):
                    if (value, run) not in found:
                        found.append((value, run))
        return found
