"""The strong 9-tower bot's candidate placements: the best-fitting few of each level,
found on bit masks (docs/games/nmbr9.md).

The search (``search``) looks at a handful of placements per level of each card it
considers; which handful is decided by a cheap key, the **fit**: how many edges of the
placed tile touch cells at least as high as its top.  :func:`shortlist` is exactly the
list one gets by taking every placement of ``rules.legal_placements`` and keeping the
best ``per_level`` of each level by fit (ties in that list's order: y, then x, then
rotation), highest level first -- but without listing the ground placements one by one,
which are most of them and most of the bot's time:

* the legal ground offsets of a rotation are one mask: offsets where some square lands
  next to the footprint, AND NOT offsets where some square lands on it (each a shifted
  copy of the footprint's mask, one per square of the shape);
* the fit of every ground offset at once is the sum of the footprint's mask shifted by
  each border cell of the shape, kept as bit-sliced counters (an adder over masks);
* the best fits are read off from the highest count down, only until ``per_level`` are
  found.

The few placements above the ground come from ``Surface.upper_placements`` and are
fitted one by one, a level at a time (kept per frame for the layouts that share the
level).

The ground offsets are ``rules.ground_offsets``, the same masks ``rules.legal_placements``
lists every legal placement from.
"""

from __future__ import annotations

from tablehub.server.games.nmbr9.rules import BOUND, Placement, beside, ground_offsets
from tablehub.server.games.nmbr9.shapes import DISTINCT_ROTATIONS
from tablehub.server.games.nmbr9.surface import ShapeBits, Surface


def shortlist(surface: Surface, digit: int, per_level: int) -> list[Placement]:
    """The best ``per_level`` legal placements of ``digit`` of each level by fit, highest
    level first, as ``(level, rot, x, y)``."""
    if not surface.tiles:  # an empty layout: one placement per rotation, at (0, 0)
        return [(0, rot, 0, 0) for rot in DISTINCT_ROTATIONS[digit]][:per_level]
    memo = surface.base.ground
    ground = memo.get((digit, per_level))
    if ground is None:
        ground = memo[(digit, per_level)] = _ground(surface, digit, per_level)
    return [*_upper(surface, digit, per_level), *ground]


def _in_bounds(x: int, y: int) -> bool:
    return -BOUND <= x <= BOUND and -BOUND <= y <= BOUND


def _upper(surface: Surface, digit: int, per_level: int) -> list[Placement]:
    """The best ``per_level`` placements of ``digit`` on each level above the ground,
    highest level first; a level's are kept in the frame for the layouts that share
    what its placements depend on (``Surface.level_key``)."""
    memo = surface.frame.upper
    out: list[Placement] = []
    for level in range(len(surface.layers), 0, -1):
        key = (digit, per_level, level, surface.level_key(level))
        best = memo.get(key)
        if best is None:
            best = memo[key] = _upper_on(surface, digit, per_level, level)
        out.extend(best)
    return out


def _upper_on(surface: Surface, digit: int, per_level: int, level: int) -> list[Placement]:
    frame = surface.frame
    layers = surface.layers
    stride = frame.stride
    corner = stride + 1  # the bit offset of the shapes' ``edges`` masks
    # Offsets above the ground lie on the layout: only one reaching near BOUND is checked.
    far = not (
        frame.min_x >= -BOUND
        and frame.min_x + surface.footprint.bit_length() // stride < BOUND
        and frame.min_y >= -BOUND
        and frame.min_y + stride <= BOUND
    )
    ranked: list[tuple[int, int, int, int]] = []
    for shape, bit in surface.upper_placements(level, digit):
        if far and not _in_bounds(*frame.cell(bit)):
            continue
        fit = 0
        if level < len(layers):
            higher = layers[level] >> (bit - corner)
            for edges in shape.edges:
                fit -= (higher & edges).bit_count()
        x, y = divmod(bit, stride)  # in the frame: the same order as the cells'
        ranked.append((fit, y, x, shape.rot))
    ranked.sort()
    return [(level, rot, x + frame.min_x, y + frame.min_y) for _, y, x, rot in ranked[:per_level]]


def _fit_counters(footprint: int, next_to: int, shape: ShapeBits) -> tuple[int, list[int]]:
    """The legal ground offsets of one rotation (a mask; ``next_to``: the empty cells
    next to the footprint) and their fits as bit-sliced counters: bit k of an offset's
    fit is its bit in ``counters[k]``."""
    legal = ground_offsets(footprint, next_to, shape.shifts)
    counters: list[int] = []
    for n in shape.border:
        carry = (footprint >> n if n >= 0 else footprint << -n) & legal
        for k, counter in enumerate(counters):
            if not carry:
                break
            counters[k], carry = counter ^ carry, counter & carry
        if carry:
            counters.append(carry)
    return legal, counters


def _best_left(legal: int, counters: list[int]) -> tuple[int, int]:
    """The highest fit among the offsets of ``legal`` and those offsets (a mask), read
    from the top counter down; ``(-1, 0)`` when none is left."""
    if not legal:
        return -1, 0
    fit = 0
    for k in range(len(counters) - 1, -1, -1):
        top = legal & counters[k]
        if top:
            legal = top
            fit |= 1 << k
    return fit, legal


def _ground(surface: Surface, digit: int, per_level: int) -> list[Placement]:
    """The ground placements of the best fits: in rounds, the offsets of the highest
    fit left, over all rotations."""
    frame = surface.frame
    footprint = surface.footprint
    shapes = frame.shapes[digit]
    next_to = surface.base.beside
    if next_to < 0:
        next_to = surface.base.beside = beside(footprint, frame.stride)
    fitted = [_fit_counters(footprint, next_to, shape) for shape in shapes]
    legal = [mask for mask, _ in fitted]
    out: list[Placement] = []
    while len(out) < per_level:
        tops = [
            _best_left(mask, counters) for mask, (_, counters) in zip(legal, fitted, strict=True)
        ]
        best = max(fit for fit, _ in tops)
        if best < 0:
            break
        found: list[tuple[int, int, int]] = []
        for i, (fit, mask) in enumerate(tops):
            if fit != best:
                continue
            legal[i] ^= mask
            while mask:
                low = mask & -mask
                x, y = frame.cell(low.bit_length() - 1)
                if _in_bounds(x, y):
                    found.append((y, x, shapes[i].rot))
                mask ^= low
        found.sort()
        out.extend((0, rot, x, y) for y, x, rot in found[: per_level - len(out)])
    return out
