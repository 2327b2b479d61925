"""The strong 9-tower bot's evaluation of a layout (docs/games/nmbr9.md).

A layout is judged by what a player sees: its tiles and the counts of the cards still
to come.  Its value is the points it holds plus a learned estimate of the points still
to come (``network``), from these inputs (``inputs``):

* **reach** -- for each digit still to come, the highest level it could land on right
  now, times how many of that digit remain (one input per digit), and their sum
  weighted by the digits: a layout that can take the coming 9s high is worth more;
* **ground edge** -- the perimeter of the level-0 footprint: a compact ground floor
  gives upper tiles two supports and room; a snake gives neither;
* **steps** -- the height differences between neighbouring cells (the perimeters of
  the upper floors): compact upper floors keep the next tiles supported;
* **pits** -- cells lower than all four neighbours: no tile can ever cover them;
* the **footprint**, the cells at each height from 2 up, the top level, the count of
  each digit still to come, their sum and the share s of the cards still to come.

The estimate is s times a network with one hidden layer of 16 rectified units beside a
linear term, so it vanishes at the end of the game and the hidden units can weigh the
inputs differently at each stage and in each combination (the earlier linear value of
the summary inputs stalled near 85 points a game).  The weights (``weights.py``) are
learned by ``python -m tablehub.loadtest.train_bot`` from self-play: a fit of the points
the search expects one card deeper, for each layout it compares, and of the points the
bot went on to score.  ``hand_value`` is the hand-set evaluation that bootstraps that
training.

Cells are coded as ints ``x * W + y`` as in ``rules``; a :class:`Surface` is a height
map and an owner map (index of the topmost tile) over such codes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from operator import mul

from tablehub.server.games.nmbr9.rules import (
    CODE_WIDTH,
    Placement,
    Tile,
    coded_maps,
)
from tablehub.server.games.nmbr9.shapes import DIGITS, DISTINCT_ROTATIONS, ROTATIONS
from tablehub.server.games.nmbr9.weights import BIAS, HIDDEN, LINEAR, OUTPUT

W = CODE_WIDTH
DIRS = (1, -1, W, -W)
ROT_SHAPE: dict[tuple[int, int], tuple[int, ...]] = {
    (d, rot): tuple(dx * W + dy for dx, dy in ROTATIONS[d][rot]) for d in DIGITS for rot in range(4)
}
BORDER: dict[tuple[int, int], tuple[int, ...]] = {
    key: tuple(c + n for c in shape for n in DIRS if c + n not in shape)
    for key, shape in ROT_SHAPE.items()
}
"""The cells just outside each placed shape, once per shared edge."""


PAD = 5
"""Empty cells kept around a layout's bit masks: room for every ground placement touching
the footprint (a shape reaches 3 cells from its offset) and for the cells around it."""


@dataclasses.dataclass(frozen=True, slots=True)
class ShapeBits:
    """One rotation of a digit on bit masks of one row stride."""

    rot: int
    shifts: tuple[int, ...]
    """The bit offsets of its squares from its offset's bit."""
    codes: tuple[int, ...]
    """The cell-code offsets of its squares."""
    border: tuple[int, ...]
    """The bit offsets of the cells just outside it, once per shared edge."""


_SHAPE_BITS: dict[int, dict[int, tuple[ShapeBits, ...]]] = {}
"""Per row stride: each digit's distinct rotations."""


def _bit_offsets(codes: tuple[int, ...], stride: int) -> tuple[int, ...]:
    """Cell-code offsets as bit offsets of that row stride (a border's y may be -1)."""
    xs = ((c + W // 2) // W for c in codes)
    return tuple(x * stride + c - x * W for x, c in zip(xs, codes, strict=True))


def _shape_bits(stride: int) -> dict[int, tuple[ShapeBits, ...]]:
    shapes = _SHAPE_BITS.get(stride)
    if shapes is None:
        shapes = {
            d: tuple(
                ShapeBits(
                    rot,
                    _bit_offsets(ROT_SHAPE[(d, rot)], stride),
                    ROT_SHAPE[(d, rot)],
                    _bit_offsets(BORDER[(d, rot)], stride),
                )
                for rot in DISTINCT_ROTATIONS[d]
            )
            for d in DIGITS
        }
        _SHAPE_BITS[stride] = shapes
    return shapes


class Bitboard:
    """A layout's floors as int bit masks: cell ``(x, y)`` is bit
    ``(x - min x + PAD) * stride + (y - min y + PAD)``, the row stride leaving ``PAD``
    empty columns on each side so that a shifted shape or border never wraps onto the
    next row, and ``PAD`` empty rows before the first.

    ``floors[level]``: the cells of that height; ``at_least[level]``: the cells of that
    height or more (``at_least[1]`` is the footprint); ``near[level]``: the cells next to
    a cell higher than ``level`` (where a tile on ``level`` touches a higher one)."""

    __slots__ = ("at_least", "floors", "min_x", "min_y", "near", "shapes", "stride")

    def __init__(self, height: dict[int, int], top: int) -> None:
        half = W // 2
        cells = [((c + half) // W, c, h) for c, h in height.items()]
        min_x = min(x for x, _, _ in cells) - PAD
        ys = [c - x * W for x, c, _ in cells]
        min_y = min(ys) - PAD
        stride = max(ys) - min_y + PAD + 1
        floors: dict[int, int] = {}
        for (x, _, h), y in zip(cells, ys, strict=True):
            floors[h] = floors.get(h, 0) | 1 << ((x - min_x) * stride + y - min_y)
        near: dict[int, int] = {}
        at_least: dict[int, int] = {}
        higher = 0
        for level in range(top, 0, -1):
            near[level] = (higher << 1) | (higher >> 1) | (higher << stride) | (higher >> stride)
            higher |= floors.get(level, 0)
            at_least[level] = higher
        self.at_least = at_least
        self.floors = floors
        self.near = near
        self.min_x = min_x
        self.min_y = min_y
        self.stride = stride
        self.shapes = _shape_bits(stride)

    def cell(self, bit: int) -> tuple[int, int]:
        """The cell ``(x, y)`` of a bit index."""
        x, y = divmod(bit, self.stride)
        return x + self.min_x, y + self.min_y

    def code(self, bit: int) -> int:
        """The cell code of a bit index."""
        x, y = self.cell(bit)
        return x * W + y


class Surface:
    """Height and owner maps of a layout; :meth:`with_tile` returns a new one."""

    __slots__ = ("_bits", "height", "owner", "tiles", "top")

    def __init__(self, height: dict[int, int], owner: dict[int, int], tiles: int) -> None:
        self.height = height
        self.owner = owner
        self.tiles = tiles
        self.top = max(height.values(), default=0)
        self._bits: Bitboard | None = None

    @classmethod
    def of(cls, tiles: list[Tile]) -> Surface:
        height, owner = coded_maps(tiles)
        return cls(height, owner, len(tiles))

    def with_tile(self, digit: int, placement: Placement) -> Surface:
        level, rot, x, y = placement
        origin = x * W + y
        height = dict(self.height)
        owner = dict(self.owner)
        for d in ROT_SHAPE[(digit, rot)]:
            height[origin + d] = level + 1
            owner[origin + d] = self.tiles
        return Surface(height, owner, self.tiles + 1)

    def bits(self) -> Bitboard:
        """The floors as bit masks (computed once)."""
        if self._bits is None:
            self._bits = Bitboard(self.height, self.top)
        return self._bits

    def reach(self, digit: int) -> int:
        """The highest level a ``digit`` tile could be placed on now (0 if only the ground):
        the first of :meth:`upper_placements` (the evaluation asks this for every digit
        to come)."""
        for level, _, _ in self.upper_placements(digit):
            return level
        return 0

    def upper_placements(self, digit: int) -> Iterator[tuple[int, ShapeBits, int]]:
        """The legal placements of ``digit`` above the ground as ``(level, shape, bit of
        its offset)``, highest level first; within a level by rotation.

        The upper-level half of ``rules.legal_placements`` on bit masks (without its
        bounds, which no tile above the ground comes near): the offsets where a shape
        lies flat on a floor are the AND of the floor's mask shifted by each of the
        shape's squares."""
        if not self.top:
            return
        board = self.bits()
        owner = self.owner
        shapes = board.shapes[digit]
        for level in range(self.top, 0, -1):
            floor = board.floors.get(level, 0)
            if floor.bit_count() < 5:
                continue
            near = board.near[level] if level < self.top else -1
            for shape in shapes:
                fits = -1
                for s in shape.shifts:
                    fits &= floor >> s
                    if not fits:
                        break
                if not fits:
                    continue
                if near != -1:
                    touching = 0
                    for s in shape.shifts:
                        touching |= near >> s
                    fits &= touching
                codes = shape.codes
                while fits:
                    low = fits & -fits
                    bit = low.bit_length() - 1
                    origin = board.code(bit)
                    first = owner[origin + codes[0]]
                    if any(owner[origin + c] != first for c in codes):
                        yield level, shape, bit
                    fits ^= low

    def shape_faults(self) -> tuple[int, int, int]:
        """(ground edge, steps, pits) -- see the module docstring -- on bit masks: a
        pair of neighbouring cells is a cell of ``mask & mask >> step``, ``step`` being
        1 (along y) or the row stride (along x)."""
        if not self.height:
            return 0, 0, 0
        board = self.bits()
        stride = board.stride
        at_least = board.at_least
        footprint = at_least[1]
        pairs = [footprint & footprint >> 1, footprint & footprint >> stride]
        ground = 4 * footprint.bit_count() - 2 * (pairs[0].bit_count() + pairs[1].bit_count())
        steps = 0
        for k in range(2, self.top + 1):
            mask = at_least[k]
            steps += (pairs[0] & (mask ^ mask >> 1)).bit_count()
            steps += (pairs[1] & (mask ^ mask >> stride)).bit_count()
        pits = (
            ~footprint & footprint << 1 & footprint >> 1 & footprint << stride & footprint >> stride
        ).bit_count()
        for level, cells in board.floors.items():
            above = at_least.get(level + 1, 0)
            if above:
                walls = above << 1 & above >> 1 & above << stride & above >> stride
                pits += (cells & walls).bit_count()
        return ground, steps, pits


Evaluate = Callable[[Surface, int, list[int]], float]
"""``(surface, score, remaining counts) -> value``, in points."""

STAGE = 19
"""Cards still to come after the first placement: the scale of the stage input."""


SUMMARY_NAMES = (
    "reach",
    "ground edge",
    "steps",
    "pits",
    "footprint",
    "upper cells",
    "high cells",
    "digits to come",
)
"""The summary inputs: each enters as it is and times s (so the linear term holds each
times s and times s^2)."""

INPUT_NAMES = (
    "share of cards to come",
    *SUMMARY_NAMES,
    *(f"{name} x s" for name in SUMMARY_NAMES),
    *(f"reach of the {d}s" for d in DIGITS[1:]),
    *(f"{d}s to come" for d in DIGITS[1:]),
    *(f"cells at height {h}" for h in (2, 3, 4)),
    "cells above height 4",
    "top level",
)


def inputs(surface: Surface, remaining: list[int]) -> list[float]:
    """The learned evaluation's inputs, in the order of ``INPUT_NAMES``."""
    share = sum(remaining) / STAGE
    reaches = [count * surface.reach(d) if count else 0 for d, count in enumerate(remaining)]
    ground, steps, pits = surface.shape_faults()
    at_least = surface.bits().at_least
    cells = [at_least.get(h, 0).bit_count() for h in (1, 2, 3, 4, 5)]
    summary = (
        sum(d * r for d, r in enumerate(reaches)),
        ground,
        steps,
        pits,
        cells[0],
        cells[1],
        cells[2],
        sum(count * d for d, count in enumerate(remaining)),
    )
    return [
        share,
        *summary,
        *(f * share for f in summary),
        *reaches[1:],
        *remaining[1:],
        cells[1] - cells[2],
        cells[2] - cells[3],
        cells[3] - cells[4],
        cells[4],
        surface.top,
    ]


_UNITS = tuple((row[0], row[1:], out) for row, out in zip(HIDDEN, OUTPUT, strict=True))


def network(x: list[float]) -> float:
    """The learned points still to come for inputs ``x``: the share of the cards still
    to come (``x[0]``) times a network with one hidden layer of rectified units beside
    a linear term (``weights``), so the estimate is 0 when no card is left."""
    total: float = BIAS + sum(map(mul, LINEAR, x))
    for bias, row, out in _UNITS:
        unit: float = bias + sum(map(mul, row, x))
        if unit > 0:
            total += out * unit
    return x[0] * total


def learned_value(surface: Surface, score: int, remaining: list[int]) -> float:
    """Points held plus the learned estimate of the points to come."""
    if not any(remaining):
        return float(score)
    return score + network(inputs(surface, remaining))


def hand_value(surface: Surface, score: int, remaining: list[int]) -> float:
    """The hand-set evaluation that bootstraps the training command: points held, plus
    a third of the reach, minus shape faults."""
    if not any(remaining):
        return float(score)
    reach = sum(count * d * surface.reach(d) for d, count in enumerate(remaining) if count)
    ground, steps, pits = surface.shape_faults()
    return score + 0.35 * reach - 0.5 * ground - 0.1 * steps - 2.0 * pits
