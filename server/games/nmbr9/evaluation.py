"""The strong 9-tower bot's evaluation of a layout (docs/games/nmbr9.md).

A layout is judged by what a player sees: its tiles and the counts of the cards still
to come.  Its value is the points it holds plus an estimate of the points still to
come, a weighted sum of these features of the layout:

* **reach** -- for each digit still to come, the highest level it could land on right
  now, times the digit, times how many of that digit remain: a layout that can take
  the coming 9s high is worth more;
* **ground edge** -- the perimeter of the level-0 footprint: a compact ground floor
  gives upper tiles two supports and room; a snake gives neither;
* **steps** -- the height differences between neighbouring cells (the perimeters of
  the upper floors): compact upper floors keep the next tiles supported;
* **pits** -- cells lower than all four neighbours: no tile can ever cover them;
* the **footprint**, the cells at height 2 or more (**upper cells**) and 3 or more
  (**high cells**), the sum of the **digits to come**, and a constant.

Each feature enters twice, times s and times s^2, s being the share of the cards still
to come, so a feature's worth changes over the game and all vanish at the end.  The
weights (``weights.py``) are learned by ``python -m tablehub.loadtest.train_bot`` from
self-play: a least-squares fit of the points the bot went on to score.
``hand_value`` is the hand-set evaluation that bootstraps that training.

Cells are coded as ints ``x * W + y`` as in ``rules``; a :class:`Surface` is a height
map and an owner map (index of the topmost tile) over such codes.
"""

from __future__ import annotations

from collections.abc import Callable

from tablehub.server.games.nmbr9.rules import (
    CODE_WIDTH,
    Placement,
    Tile,
    coded_maps,
)
from tablehub.server.games.nmbr9.shapes import DIGITS, DISTINCT_ROTATIONS, ROTATIONS
from tablehub.server.games.nmbr9.weights import WEIGHTS

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


_SHAPE_BITS: dict[int, dict[int, tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]]] = {}
"""Per row stride: each digit's distinct rotations as (bit shifts, cell-code offsets)."""


def _shape_bits(stride: int) -> dict[int, tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]]:
    shapes = _SHAPE_BITS.get(stride)
    if shapes is None:
        shapes = {
            d: tuple(
                (
                    tuple(dx * stride + dy for dx, dy in ROTATIONS[d][rot]),
                    tuple(dx * W + dy for dx, dy in ROTATIONS[d][rot]),
                )
                for rot in DISTINCT_ROTATIONS[d]
            )
            for d in DIGITS
        }
        _SHAPE_BITS[stride] = shapes
    return shapes


class _Bitboard:
    """A layout's floors as int bit masks: cell ``(x, y)`` is bit
    ``(x - min x) * stride + (y - min y)``, ``stride`` leaving at least three empty
    columns after each row so a shifted shape never wraps onto the next row.

    ``floors[level]``: the cells of that height; ``at_least[level]``: the cells of that
    height or more (``at_least[1]`` is the footprint); ``near[level]``: the cells next to
    a cell higher than ``level`` (where a tile on ``level`` touches a higher one)."""

    __slots__ = ("at_least", "floors", "min_x", "min_y", "near", "shapes", "stride")

    def __init__(self, height: dict[int, int], top: int) -> None:
        half = W // 2
        cells = [((c + half) // W, c, h) for c, h in height.items()]
        min_x = min(x for x, _, _ in cells)
        ys = [c - x * W for x, c, _ in cells]
        min_y = min(ys)
        stride = max(ys) - min_y + 4
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

    def code(self, bit: int) -> int:
        """The cell code of a bit index."""
        x, y = divmod(bit, self.stride)
        return (x + self.min_x) * W + y + self.min_y


class Surface:
    """Height and owner maps of a layout; :meth:`with_tile` returns a new one."""

    __slots__ = ("_bits", "_floors", "height", "owner", "tiles", "top")

    def __init__(self, height: dict[int, int], owner: dict[int, int], tiles: int) -> None:
        self.height = height
        self.owner = owner
        self.tiles = tiles
        self.top = max(height.values(), default=0)
        self._floors: dict[int, set[int]] | None = None
        self._bits: _Bitboard | None = None

    def floors(self) -> dict[int, set[int]]:
        """Cells by height (computed once)."""
        if self._floors is None:
            floors: dict[int, set[int]] = {}
            for c, h in self.height.items():
                floors.setdefault(h, set()).add(c)
            self._floors = floors
        return self._floors

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

    def _bitboard(self) -> _Bitboard:
        """The floors as bit masks (computed once)."""
        if self._bits is None:
            self._bits = _Bitboard(self.height, self.top)
        return self._bits

    def reach(self, digit: int) -> int:
        """The highest level a ``digit`` tile could be placed on now (0 if only the ground).

        The upper-level half of ``rules.legal_placements``, stopping at the first legal
        placement from the top (the evaluation asks this for every digit to come), on
        bit masks: the offsets where a shape lies flat on a floor are the AND of the
        floor's mask shifted by each of the shape's squares."""
        if not self.top:
            return 0
        board = self._bitboard()
        owner = self.owner
        shapes = board.shapes[digit]
        for level in range(self.top, 0, -1):
            floor = board.floors.get(level, 0)
            if floor.bit_count() < 5:
                continue
            near = board.near[level] if level < self.top else -1
            for shifts, codes in shapes:
                fits = -1
                for s in shifts:
                    fits &= floor >> s
                    if not fits:
                        break
                if not fits:
                    continue
                if near != -1:
                    touching = 0
                    for s in shifts:
                        touching |= near >> s
                    fits &= touching
                while fits:
                    low = fits & -fits
                    origin = board.code(low.bit_length() - 1)
                    first = owner[origin + codes[0]]
                    if any(owner[origin + c] != first for c in codes):
                        return level
                    fits ^= low
        return 0

    def shape_faults(self) -> tuple[int, int, int]:
        """(ground edge, steps, pits) -- see the module docstring -- on bit masks: a
        pair of neighbouring cells is a cell of ``mask & mask >> step``, ``step`` being
        1 (along y) or the row stride (along x)."""
        if not self.height:
            return 0, 0, 0
        board = self._bitboard()
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
"""Cards still to come after the first placement: the stage scale of the features."""


def base_features(surface: Surface, remaining: list[int]) -> tuple[float, ...]:
    """The layout's features before stage scaling, in the order of ``FEATURE_NAMES``."""
    reach = sum(count * d * surface.reach(d) for d, count in enumerate(remaining) if count and d)
    ground, steps, pits = surface.shape_faults()
    floors = surface.floors()
    upper = sum(len(cells) for h, cells in floors.items() if h >= 2)
    high = sum(len(cells) for h, cells in floors.items() if h >= 3)
    to_come = sum(count * d for d, count in enumerate(remaining))
    return (1.0, reach, ground, steps, pits, len(surface.height), upper, high, to_come)


FEATURE_NAMES = (
    "bias",
    "reach",
    "ground edge",
    "steps",
    "pits",
    "footprint",
    "upper cells",
    "high cells",
    "digits to come",
)


def features(surface: Surface, remaining: list[int]) -> list[float]:
    """Each base feature times s and times s^2, where s is the share of the cards still
    to come: the weights of the points to come then change with the stage of the game,
    and every feature is 0 when no card is left (the value is then the score)."""
    stage = sum(remaining) / STAGE
    if not stage:
        return [0.0] * (2 * len(FEATURE_NAMES))
    base = base_features(surface, remaining)
    return [f * stage for f in base] + [f * stage * stage for f in base]


def learned_value(surface: Surface, score: int, remaining: list[int]) -> float:
    """Points held plus the learned estimate of the points to come (``weights``)."""
    if not any(remaining):
        return float(score)
    return score + sum(w * f for w, f in zip(WEIGHTS, features(surface, remaining), strict=True))


def hand_value(surface: Surface, score: int, remaining: list[int]) -> float:
    """Hand-set weights over the same features, the bootstrap of the training command:
    points held, plus a third of the reach, minus shape faults."""
    if not any(remaining):
        return float(score)
    _, reach, ground, steps, pits, *_ = base_features(surface, remaining)
    return score + 0.35 * reach - 0.5 * ground - 0.1 * steps - 2.0 * pits
