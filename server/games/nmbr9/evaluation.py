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

The estimate is s times a network with one hidden layer of rectified units beside a
linear term, so it vanishes at the end of the game and the hidden units can weigh the
inputs differently at each stage and in each combination (the earlier linear value of
the summary inputs stalled near 85 points a game).  Since issue 31 it is the mean of two
such networks of 16 units, fitted to the same games from different starting weights:
one network of 32 units, each output weight halved (a single fit's score moves by about
a point a game from one start to another; the mean of two is steadier).  The weights
(``weights.py``) are learned by ``python -m tablehub.loadtest.train_bot`` from
self-play: a fit of the points the search expects one card deeper, for each layout it
compares, and of the points the bot went on to score.  ``hand_value`` is the hand-set
evaluation that bootstraps that training.

The layout's masks, and the reach, come from ``surface``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from operator import mul

from tablehub.server.games.nmbr9.shapes import DIGITS
from tablehub.server.games.nmbr9.surface import Surface
from tablehub.server.games.nmbr9.weights import BIAS, HIDDEN, LINEAR, OUTPUT

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
    wanted = sum(1 << d for d, count in enumerate(remaining) if count and d)
    reaches = [count * r for count, r in zip(remaining, surface.reaches(wanted), strict=True)]
    ground, steps, pits = surface.shape_faults()
    layers = surface.layers
    cells = [layers[k].bit_count() if k < len(layers) else 0 for k in range(5)]
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


FIXED_BITS = 32
"""The packed network's weights are integers: the float weights times 2^FIXED_BITS."""
LANE = 64
"""Bits per lane of a packed int: one lane per hidden unit, then one for the linear term."""
_RISING = [j for j, out in enumerate(OUTPUT) if out >= 0]
_FALLING = [j for j, out in enumerate(OUTPUT) if out < 0]
_UNITS_ORDER = _RISING + _FALLING
"""The hidden units in lane order: those of positive output weight first."""
_LANES = len(HIDDEN) + 1
_HALF = 1 << (LANE - 1)
_OFFSET = sum(_HALF << (LANE * j) for j in range(_LANES))
_LANE_MASK = (1 << LANE) - 1
_LOW_BITS = sum(1 << (LANE * j) for j in range(len(HIDDEN)))
"""The lowest bit of each hidden unit's lane."""
_UNPACK = struct.Struct(f"<{len(HIDDEN)}Q").unpack


def _packed(values: list[float]) -> int:
    return sum(round(v * (1 << FIXED_BITS)) << (LANE * j) for j, v in enumerate(values))


def _unit_weights(j: int) -> list[float]:
    """Hidden unit j's weights (its bias first) times the size of its output weight:
    relu(a) * out is relu(a * |out|) with the sign of out, so the output layer is a sum
    of lanes, one sum per sign."""
    return [w * abs(OUTPUT[j]) for w in HIDDEN[j]]


_SCALED = [_unit_weights(j) for j in _UNITS_ORDER]
_COLUMNS = tuple(
    _packed([row[1 + i] for row in _SCALED] + [LINEAR[i]]) for i in range(len(INPUT_NAMES))
)
"""Each input's weights, packed: in every hidden unit's lane (times the size of its
output weight, the units in ``_UNITS_ORDER``), then the linear term's."""
_BIASES = _packed([row[0] for row in _SCALED] + [BIAS])


class Folded:
    """The network's weights folded for one set of counts to come: see :func:`_fold`."""

    __slots__ = ("cards", "cells", "constant", "faults", "reach", "reached", "top", "wanted")

    def __init__(
        self,
        cards: int,
        constant: int,
        faults: tuple[int, int, int],
        top: int,
        cells: tuple[int, ...],
        reach: dict[int, int],
        wanted: int,
    ) -> None:
        self.cards = cards
        """The cards to come."""
        self.constant = constant
        self.faults = faults
        """The weights of the ground edge, the steps and the pits."""
        self.top = top
        """The weight of the top level."""
        self.cells = cells
        """The weights of the cells at height 1 or more, 2 or more, ... 5 or more."""
        self.reach = reach
        """The weight of each digit to come (a bit) whose reach counts."""
        self.wanted = wanted
        """Those digits, as a mask."""
        self.reached: dict[int, int] = {}
        """Memo: the summed weights of a set of digits (a mask)."""

    def reached_weight(self, digits: int) -> int:
        """The summed weights of the reach of ``digits`` (a mask): what a level adds
        for the digits that can land on it or higher."""
        weight = self.reached.get(digits)
        if weight is None:
            weight = self.reached[digits] = sum(w for d, w in self.reach.items() if d & digits)
        return weight


_FOLDED: dict[tuple[int, ...], Folded] = {}


def _fold(remaining: tuple[int, ...]) -> Folded:
    """The network's weights folded for these counts to come: what depends only on
    the counts (the share s, the counts, the digits to come, the products with s) is
    added up once, so a layout's hidden units are one sum over its features
    (see :func:`learned_value`), each a small int, times packed ints: all the units at
    once.  A digit's reach (the highest level it can land on) is the number of levels
    it can land on or above: the reach inputs add, for each level, the weights of the
    digits that reach it.

    Everything is an integer, scaled by ``STAGE`` (s times ``STAGE`` is the number of
    cards to come) and by 2^FIXED_BITS, plus 2^63 in each lane so that no lane borrows
    from the next."""
    n = sum(remaining)
    c = _COLUMNS

    def summary(i: int) -> int:  # a summary input, as it is and times s
        return STAGE * c[i] + n * c[i + 8]

    digits = [d for d in DIGITS[1:] if remaining[d]]
    constant = (
        _OFFSET
        + STAGE * _BIASES
        + n * c[0]
        + summary(8) * sum(d * k for d, k in enumerate(remaining))
        + STAGE * sum(c[25 + d] * remaining[d] for d in digits)
    )
    folded = Folded(
        n,
        constant,
        (summary(2), summary(3), summary(4)),  # ground edge, steps, pits
        STAGE * c[39],  # top level
        (
            summary(5),  # cells at height 1 or more: the footprint
            summary(6) + STAGE * c[35],  # 2 or more
            summary(7) + STAGE * (c[36] - c[35]),  # 3 or more
            STAGE * (c[37] - c[36]),  # 4 or more
            STAGE * (c[38] - c[37]),  # 5 or more
        ),
        {1 << d: remaining[d] * (STAGE * c[16 + d] + d * summary(1)) for d in digits},
        sum(1 << d for d in digits),
    )
    if len(_FOLDED) >= 4096:
        _FOLDED.clear()
    _FOLDED[remaining] = folded
    return folded


_SCALE = STAGE * STAGE * (1 << FIXED_BITS)
_RISEN = len(_RISING)


def learned_value(surface: Surface, score: int, remaining: list[int]) -> float:
    """Points held plus the learned estimate of the points to come: ``network`` of
    ``inputs``, computed on packed ints (:func:`_fold`; the same value to about 1e-7 points)."""
    key = tuple(remaining)
    folded = _FOLDED.get(key) or _fold(key)
    if not folded.cards:
        return float(score)
    layers = surface.layers
    ground, steps, pits = surface.shape_faults()
    w_ground, w_steps, w_pits = folded.faults
    units = (
        folded.constant
        + ground * w_ground
        + steps * w_steps
        + pits * w_pits
        + len(layers) * folded.top
        + sum(map(mul, folded.cells, map(int.bit_count, layers)))  # from 5 up: 0s
    )
    wanted = folded.wanted
    reached = 0  # the digits that can land on this level or higher
    for level in range(len(layers), 0, -1):
        if reached != wanted:
            reached |= surface.placeable_on(level, wanted & ~reached)
        if reached:
            units += folded.reached_weight(reached)
    # The rectified hidden units: keep the lanes whose top bit is set (not below 0).
    signs = units >> (LANE - 1) & _LOW_BITS
    rectified = (units & signs * _LANE_MASK) - (signs << (LANE - 1))
    hidden = _UNPACK(rectified.to_bytes(8 * len(HIDDEN), "little"))
    total: int = (
        (units >> (LANE * len(HIDDEN)))  # the linear term's lane
        - _HALF
        + sum(hidden[:_RISEN])
        - sum(hidden[_RISEN:])
    )
    return score + folded.cards * total / _SCALE


def hand_value(surface: Surface, score: int, remaining: list[int]) -> float:
    """The hand-set evaluation that bootstraps the training command: points held, plus
    a third of the reach, minus shape faults."""
    if not any(remaining):
        return float(score)
    reach = sum(count * d * surface.reach(d) for d, count in enumerate(remaining) if count)
    ground, steps, pits = surface.shape_faults()
    return score + 0.35 * reach - 0.5 * ground - 0.1 * steps - 2.0 * pits
