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
in words which one fails; it is what ``apply`` uses.  ``legal_placements`` (and
``legal_actions``, the same as ``place`` actions: what ``legal`` answers) lists every
legal placement at once on bit masks, one per rotation (the tests check it against
``check_placement`` and against a naive brute force):

* on the ground, the offsets where some square lands next to the footprint AND NOT
  where some square lands on it (each a shifted copy of a mask, one per square of the
  shape: :func:`ground_masks`, whose :func:`ground_offsets` the strong bot's
  ``candidates`` shares);
* above, for each level, the offsets where every square lands on the level's floor
  (the cells of exactly that height), minus those with no square next to a higher cell
  when the level has one, and those with every square on one tile below.

The masks are laid out row by row along y (cell ``(x, y)`` is bit ``(y - y0) * stride
+ x - x0`` of a frame around the layout), so reading them in bit order is the list's
order with no sort: a level's masks become one byte per cell holding the rotations
legal there as bits, and the cells that have some are read off row by row.  A 15-tile
layout's 205 placements take about 0.08 ms (``python -m tablehub.loadtest.bench_legal``).
``legal_groups`` (the compact form of ``legal``, protocol/README.md "Compact legal")
reads the same masks into flat ``x, y`` lists per level and rotation with no Python step
per placement: see its docstring.  ``legal_grids`` (the grid form, "Grid legal") sends
the masks themselves, in hexadecimal, each with its frame's origin and row width.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import compress, repeat
from typing import Any

from tablehub.server.games.base import Action, IllegalAction
from tablehub.server.games.nmbr9.shapes import (
    DIGITS,
    DISTINCT_ROTATIONS,
    ROTATIONS,
    SQUARES,
    Cell,
    placed_cells,
)

Tile = dict[str, Any]

ROUNDS = 20
BOUND = 1000
"""Largest ``|x|`` and ``|y|`` accepted for a placement's offset."""

Placement = tuple[int, int, int, int]
"""``(level, rot, x, y)`` of a legal placement."""


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


# -- every legal placement -------------------------------------------------------------


def beside(footprint: int, stride: int) -> int:
    """The empty cells next to the footprint (neighbours are 1 and ``stride`` bits apart)."""
    return (footprint << 1 | footprint >> 1 | footprint << stride | footprint >> stride) & ~(
        footprint
    )


def ground_offsets(footprint: int, next_to: int, shifts: tuple[int, ...]) -> int:
    """The legal ground offsets of one rotation, its squares ``shifts`` bits from the
    offset's bit: some square on a cell of ``next_to`` (:func:`beside`), none on the
    footprint."""
    return ground_masks(footprint, next_to, (shifts,))[0]


def ground_masks(footprint: int, next_to: int, rotations: Sequence[tuple[int, ...]]) -> list[int]:
    """:func:`ground_offsets` of each rotation (its squares' bits) in one call."""
    masks = []
    for shifts in rotations:
        touching = covering = 0
        for s in shifts:
            touching |= next_to >> s
            covering |= footprint >> s
        masks.append(touching & ~covering)
    return masks


_ROW_SHAPES: dict[int, dict[tuple[int, int], tuple[int, tuple[int, ...]]]] = {}
"""Per row stride: ``(digit, rot)`` -> (its squares as a mask at bit 0, their bits) on
masks laid out along y (``(x, y)`` at bit ``y * stride + x``)."""
_DISTINCT_SHIFTS: dict[int, list[list[tuple[int, ...]]]] = {}
"""Per row stride, per digit: the bits of each distinct rotation's squares (index =
``rot``), as :data:`_ROW_SHAPES` has them."""
_ROTS = tuple(tuple(rot for rot in range(4) if rots >> rot & 1) for rots in range(16))
"""The rotations of a cell's byte (bit ``rot`` set: that rotation is legal there)."""
_SPREAD = tuple(bytes.maketrans(b"01", bytes((0, 1 << rot))) for rot in range(4))
"""A mask's binary digits (``format(mask, "b")``) to bytes: 0, or the rotation's bit."""
SPARSE = 12
"""At most this many placements on a level (or in one group of the compact form) are
read bit by bit (a level above the ground has a few), more by spreading each mask's
binary digits."""
REACH = 4
"""The farthest a tile's square lies from its offset, plus one: the room kept around a
layout for offsets touching it and for their squares."""


STRIDE_STEP = 8
"""Frames' row strides are rounded up to a multiple of this: a few strides serve every
layout, so their shape tables (:func:`_row_shapes`) are made once, at import for the
strides of layouts up to ``ROUNDS`` tiles wide, not at a layout's first ask (a wider
frame's extra columns hold no legal offset: they are beyond ``REACH``)."""


def _row_shapes(stride: int) -> dict[tuple[int, int], tuple[int, tuple[int, ...]]]:
    shapes = _ROW_SHAPES.get(stride)
    if shapes is None:
        shapes = _ROW_SHAPES[stride] = {}
        for digit in DIGITS:
            for rot, cells in enumerate(ROTATIONS[digit]):
                shifts = tuple(y * stride + x for x, y in cells)
                shapes[(digit, rot)] = (sum(1 << s for s in shifts), shifts)
        _DISTINCT_SHIFTS[stride] = [
            [shapes[(digit, rot)][1] for rot in DISTINCT_ROTATIONS[digit]] for digit in DIGITS
        ]
    return shapes


for _stride in range(STRIDE_STEP, 4 * ROUNDS + 3 * REACH + STRIDE_STEP, STRIDE_STEP):
    _row_shapes(_stride)


def _legal_masks(
    tiles: list[Tile], digit: int
) -> tuple[int, int, int, int, list[tuple[int, list[int]]]]:
    """``(x0, y0, stride, size, levels)``: for each level above the ground with legal
    placements, highest first, then the ground, ``(level, masks)`` -- one mask per
    distinct rotation (index = ``rot``), offset ``(x, y)`` at bit ``(y - y0) * stride +
    x - x0`` of a frame of ``size`` cells.  ``tiles`` is not empty."""
    xs = [tile["x"] for tile in tiles]
    ys = [tile["y"] for tile in tiles]
    x0 = min(xs) - REACH
    y0 = min(ys) - REACH
    x1 = max(xs) + 2 * REACH
    y1 = max(ys) + 2 * REACH
    stride = -((x0 - x1 - 1) // STRIDE_STEP) * STRIDE_STEP  # x1 - x0 + 1, rounded up
    size = (y1 - y0 + 1) * stride
    shapes = _row_shapes(stride)
    layers: list[int] = []
    below: list[list[int]] = []  # per level, each tile's squares
    origin = -y0 * stride - x0  # the bit of (0, 0)
    for tile in tiles:
        level = tile["level"]
        mask = shapes[tile["digit"], tile["rot"]][0] << (tile["y"] * stride + tile["x"] + origin)
        if level == len(layers):
            layers.append(0)
            below.append([])
        layers[level] |= mask
        below[level].append(mask)
    rotations = _DISTINCT_SHIFTS[stride][digit]
    squares = SQUARES[digit]
    top = len(layers)
    levels: list[tuple[int, list[int]]] = []
    # The loops over a shape's squares are written out here, not called (this is
    # `legal`'s cost, issue 33): every square on the floor (an AND, given up at the
    # first empty one), then some square next to a higher cell (an OR).
    for level in range(top, 0, -1):
        above = layers[level] if level < top else 0
        floor = layers[level - 1] & ~above
        if floor.bit_count() < squares:
            continue
        masks = []
        found = False
        for shifts in rotations:
            fits = -1
            for s in shifts:
                fits &= floor >> s
                if not fits:
                    break
            else:
                found = True
            masks.append(fits)
        if not found:
            continue
        near = above << 1 | above >> 1 | above << stride | above >> stride
        tops = [rest for m in below[level - 1] if (rest := m & ~above).bit_count() >= squares]
        for rot, shifts in enumerate(rotations):
            fits = masks[rot]
            if fits and above:  # contact with a higher cell unless it opens a level
                touching = 0
                for s in shifts:
                    touching |= near >> s
                fits &= touching
            for tile_top in tops:  # all squares on one tile: one support only
                if not fits:
                    break
                within = fits
                for s in shifts:
                    within &= tile_top >> s
                    if not within:
                        break
                else:
                    fits &= ~within
            masks[rot] = fits
        if any(masks):
            levels.append((level, masks))
    footprint = layers[0]
    next_to = beside(footprint, stride)
    levels.append((0, ground_masks(footprint, next_to, rotations)))
    return x0, y0, stride, size, levels


def _legal_levels(tiles: list[Tile], digit: int) -> tuple[int, int, int, list[tuple[int, bytes]]]:
    """``(x0, y0, stride, levels)``: :func:`_legal_masks` with each level's masks as
    one byte per cell of the frame, the rotations legal at that offset as bits."""
    x0, y0, stride, size, levels = _legal_masks(tiles, digit)
    return x0, y0, stride, [(level, _cells(masks, size)) for level, masks in levels]


def _cells(masks: list[int], size: int) -> bytes:
    """One byte per cell: bit ``rot`` set where ``masks[rot]`` has the cell."""
    if sum(mask.bit_count() for mask in masks) <= SPARSE:
        cells = bytearray(size)
        for rot, mask in enumerate(masks):
            while mask:
                low = mask & -mask
                cells[low.bit_length() - 1] |= 1 << rot
                mask ^= low
        return bytes(cells)
    out = 0
    for rot, mask in enumerate(masks):
        if mask:
            digits = format(mask, "b")[::-1].encode().translate(_SPREAD[rot])
            out |= int.from_bytes(digits, "little")
    return out.to_bytes(size, "little")


def _rows(cells: bytes, y0: int, stride: int) -> Iterator[tuple[int, bytes]]:
    """``(y, row)`` for the rows of a level's cells from the first legal offset to the
    last."""
    start = (len(cells) - len(cells.lstrip(b"\0"))) // stride * stride
    y = y0 + start // stride
    for at in range(start, len(cells.rstrip(b"\0")), stride):
        yield y, cells[at : at + stride]
        y += 1


def _in_bounds(x0: int, y0: int, stride: int, size: int, bound: int = BOUND) -> bool:
    """Whether every offset of the frame is within ``bound``."""
    return x0 >= -bound and x0 + stride <= bound and y0 >= -bound and y0 + size // stride <= bound


def legal_placements(tiles: list[Tile], digit: int) -> list[Placement]:
    """Every legal placement of ``digit`` as ``(level, rot, x, y)`` (docs/games/nmbr9.md).

    One entry per distinct set of covered cells (only rotations 0 and 1 for 0 and 8),
    offsets within ``BOUND``, ordered by level (highest first), then y, x, rot.  For an
    empty layout any offset is legal; only ``(0, 0)`` is listed, once per rotation.
    """
    if not tiles:
        return [(0, rot, 0, 0) for rot in DISTINCT_ROTATIONS[digit]]
    x0, y0, stride, levels = _legal_levels(tiles, digit)
    xs = range(x0, x0 + stride)
    out: list[Placement] = [
        (level, rot, x, y)
        for level, cells in levels
        for y, row in _rows(cells, y0, stride)
        for x, rots in zip(compress(xs, row), row.translate(None, b"\0"), strict=True)
        for rot in _ROTS[rots]
    ]
    if not _in_bounds(x0, y0, stride, len(levels[-1][1])):
        out = [p for p in out if -BOUND <= p[2] <= BOUND and -BOUND <= p[3] <= BOUND]
    return out


def legal_actions(tiles: list[Tile], digit: int) -> list[Action]:
    """:func:`legal_placements` as ``place`` actions (what ``legal`` answers)."""
    if not tiles:
        return [{"type": "place", "x": 0, "y": 0, "rot": rot} for rot in DISTINCT_ROTATIONS[digit]]
    x0, y0, stride, levels = _legal_levels(tiles, digit)
    xs = range(x0, x0 + stride)
    out: list[Action] = [
        {"type": "place", "x": x, "y": y, "rot": rot}
        for _, cells in levels
        for y, row in _rows(cells, y0, stride)
        for x, rots in zip(compress(xs, row), row.translate(None, b"\0"), strict=True)
        for rot in _ROTS[rots]
    ]
    if not _in_bounds(x0, y0, stride, len(levels[-1][1])):
        out = [a for a in out if -BOUND <= a["x"] <= BOUND and -BOUND <= a["y"] <= BOUND]
    return out


_FRAMES: dict[int, tuple[bytes, bytes]] = {}
"""Per row stride: each cell's column and row in the frame, a byte per cell, for frames
of up to ``_FRAME_ROWS`` rows (a layout of ``ROUNDS`` tiles spans at most ``4 *
ROUNDS`` rows, its frame ``4 * ROUNDS + 3 * REACH``)."""
_FRAME_ROWS = 128
_ROW_BYTES = tuple(bytes((row,)) for row in range(_FRAME_ROWS))
_BYTES = bytes(range(256))
_SPREAD_ALL = bytes.maketrans(b"01", b"\0\xff")
"""A mask's binary digits (``format(mask, "b")``) to bytes 0 and 255."""
NEAR = 127
"""The frames whose offsets all lie within -NEAR..NEAR are read as bytes."""
_FLIPPED = 0x80
"""An offset's byte is stored plus this (mod 256): no offset within NEAR is then 0."""
_UNFLIP = bytes((byte + _FLIPPED) & 0xFF for byte in range(256))
_ZERO = b"\0"


def _frame(stride: int) -> tuple[bytes, bytes]:
    frame = _FRAMES.get(stride)
    if frame is None:
        columns = bytes(range(stride)) * _FRAME_ROWS
        rows = b"".join(map(bytes.__mul__, _ROW_BYTES, repeat(stride, _FRAME_ROWS)))
        frame = _FRAMES[stride] = columns, rows
    return frame


def _offsets(table: bytes, start: int, cells: int) -> int:
    """``table``'s first ``cells`` bytes plus ``start`` (mod 256) as one integer."""
    shifted = table[:cells].translate(_BYTES[start & 0xFF :] + _BYTES[: start & 0xFF])
    return int.from_bytes(shifted, "little")


def legal_groups(tiles: list[Tile], digit: int) -> list[dict[str, Any]]:
    """:func:`legal_actions` in the compact form of ``legal`` (protocol/README.md
    "Compact legal"): one group per level and rotation with placements, highest level
    first, its ``x, y`` pairs flat in one list in bit order (by y, then x).

    A group of at most ``SPARSE`` placements (most above the ground have one or two) is
    read bit by bit.  A larger one with no Python step per cell or per placement when
    the frame lies within ``NEAR``: the frame's offsets as bytes plus ``_FLIPPED`` (one
    per cell, in one integer per axis, none of them 0); a mask's bits spread to bytes of
    255 select, by ``&`` on whole integers, the chosen cells' bytes, the others become
    0; deleting those leaves the chosen offsets in order, read back as signed bytes."""
    if not tiles:
        return [_group(rot, [0, 0]) for rot in DISTINCT_ROTATIONS[digit]]
    x0, y0, stride, size, levels = _legal_masks(tiles, digit)
    if not _in_bounds(x0, y0, stride, size, NEAR) or size > stride * _FRAME_ROWS:
        return _far_groups(x0, y0, stride, size, levels)
    xs_all = ys_all = 0
    groups = []
    for _, masks in levels:
        for rot, mask in enumerate(masks):
            if not mask:
                continue
            placements = mask.bit_count()
            if placements <= SPARSE:
                groups.append(_group(rot, _read_bits(mask, x0, y0, stride)))
                continue
            if not xs_all:
                columns, rows = _frame(stride)
                xs_all = _offsets(columns, x0 + _FLIPPED, size)
                ys_all = _offsets(rows, y0 + _FLIPPED, size)
            chosen = int.from_bytes(
                format(mask, "b")[::-1].encode().translate(_SPREAD_ALL), "little"
            )
            pairs = bytearray(2 * placements)
            pairs[0::2] = (xs_all & chosen).to_bytes(size, "little").translate(_UNFLIP, _ZERO)
            pairs[1::2] = (ys_all & chosen).to_bytes(size, "little").translate(_UNFLIP, _ZERO)
            groups.append(_group(rot, array("b", pairs).tolist()))
    return groups


def _read_bits(mask: int, x0: int, y0: int, stride: int) -> list[int]:
    """The ``x, y`` pairs of a mask's offsets, flat, in bit order."""
    values: list[int] = []
    while mask:
        low = mask & -mask
        y, x = divmod(low.bit_length() - 1, stride)
        values += (x0 + x, y0 + y)
        mask ^= low
    return values


def _far_groups(
    x0: int, y0: int, stride: int, size: int, levels: list[tuple[int, list[int]]]
) -> list[dict[str, Any]]:
    """:func:`legal_groups` for a frame beyond ``NEAR``: the offsets read one by one,
    those beyond ``BOUND`` left out."""
    groups = []
    for _, masks in levels:
        for rot, mask in enumerate(masks):
            values: list[int] = []
            while mask:
                low = mask & -mask
                y, x = divmod(low.bit_length() - 1, stride)
                if -BOUND <= x0 + x <= BOUND and -BOUND <= y0 + y <= BOUND:
                    values += (x0 + x, y0 + y)
                mask ^= low
            if values:
                groups.append(_group(rot, values))
    return groups


def _group(rot: int, values: list[int]) -> dict[str, Any]:
    return {"fixed": {"type": "place", "rot": rot}, "fields": ["x", "y"], "values": values}


def legal_grids(tiles: list[Tile], digit: int) -> list[dict[str, Any]]:
    """:func:`legal_actions` in the grid form of ``legal`` (protocol/README.md "Grid
    legal"): one grid per level and rotation with placements, highest level first, each
    the mask of its legal offsets as it is (:func:`_legal_masks`) -- bit ``i`` is the
    offset ``(x0 + i % stride, y0 + i // stride)`` -- written in hexadecimal, from the
    first row that has one.  No Python step per placement."""
    if not tiles:
        return [_grid(rot, 0, 0, 1, 1) for rot in DISTINCT_ROTATIONS[digit]]
    x0, y0, stride, size, levels = _legal_masks(tiles, digit)
    inside = -1 if _in_bounds(x0, y0, stride, size) else _bounded(x0, y0, stride, size)
    grids = []
    for _, masks in levels:
        for rot, mask in enumerate(masks):
            mask &= inside
            if mask:
                row = ((mask & -mask).bit_length() - 1) // stride
                grids.append(_grid(rot, x0, y0 + row, stride, mask >> row * stride))
    return grids


def legal_layered_grids(tiles: list[Tile], digit: int) -> list[dict[str, Any]]:
    """:func:`legal_actions` in the layered grid form of ``legal`` (protocol/README.md
    "Layered grid legal"): one grid per level with placements, highest level first, its
    rotations' masks (:func:`_legal_masks`) stacked as layers of the whole frame, layer
    ``k`` the ``k``-th distinct rotation -- one grid and one hexadecimal number per
    level where the grid form has one per rotation."""
    rotations = list(DISTINCT_ROTATIONS[digit])
    if not tiles:
        return [_layered(rotations, 0, 0, 1, 1, (1 << len(rotations)) - 1)]
    x0, y0, stride, size, levels = _legal_masks(tiles, digit)
    inside = -1 if _in_bounds(x0, y0, stride, size) else _bounded(x0, y0, stride, size)
    grids = []
    for _, masks in levels:
        stacked = shift = 0
        for mask in masks:
            stacked |= (mask & inside) << shift
            shift += size
        if stacked:
            grids.append(_layered(rotations, x0, y0, stride, size // stride, stacked))
    return grids


def _layered(
    rotations: list[int], x: int, y: int, width: int, height: int, bits: int
) -> dict[str, Any]:
    return {
        "fixed": {"type": "place"},
        "fields": ["x", "y"],
        "origin": [x, y],
        "width": width,
        "height": height,
        "layers": {"field": "rot", "values": rotations},
        "bits": format(bits, "x"),
    }


def _bounded(x0: int, y0: int, stride: int, size: int) -> int:
    """The offsets of a frame within ``BOUND``, as a mask."""
    columns = sum(1 << x for x in range(stride) if -BOUND <= x0 + x <= BOUND)
    rows = range(size // stride)
    return sum(columns << y * stride for y in rows if -BOUND <= y0 + y <= BOUND)


def _grid(rot: int, x: int, y: int, width: int, bits: int) -> dict[str, Any]:
    return {
        "fixed": {"type": "place", "rot": rot},
        "fields": ["x", "y"],
        "origin": [x, y],
        "width": width,
        "bits": format(bits, "x"),
    }
