"""Where a brick may go, for every position at once (docs/games/brix.md "Placing",
"Move phase"): the positions ``legal`` lists, as bit masks.

Theory of operation.  ``legal`` needs the positions of a brick on the wall (placing) and
on the wall without each brick the mover may take (moving): up to sixty walls a turn.
:meth:`Wall.positions` tries them cell by cell; here a wall is one integer, bit
``y * STRIDE + x - x0`` for cell ``(x, y)``, in a frame whose column 0 lies ``MARGIN``
columns left of the wall.  The wall is at most ``MAX_WIDTH`` (8) columns wide and a brick
that touches it lies within two columns of it, so frame columns 1..12 hold every position
and columns 0 and 13..15 stay empty: a shift by one column never carries a taken cell
into the next row.  With ``free`` the cells not taken (an infinite mask: ``~taken``),
``held`` the cells that stand on the ground or on a taken cell and ``near`` the cells
with a taken edge neighbour, the horizontal positions (their left cell's bit) are::

    free & free >> 1 & held & held >> 1 & (near | near >> 1) & (columns the width allows)

and the vertical ones (their lower cell's bit; the upper cell rests on it)::

    free & free >> STRIDE & held & (near | near >> STRIDE) & (columns the width allows)

-- the placement rules of :meth:`Wall.placement_error` for all positions at once.  A
position's start cell lies at most one row above the wall's top, so ``held`` bounds
every mask.

The walls without each brick the mover may take are worked out together: each in a
slot of ``rows`` frame rows, slot ``k`` at bit ``k * rows * STRIDE`` of one integer
(:class:`Walls`), the wall's cells repeated into every slot (a multiplication) and the
taken brick's cells cleared in its own slot; the formulas above run once for every
wall.  The two rows above a wall's top stay empty in every slot (``rows`` is the top row
plus three): a shift up carries an empty row into the next slot, and a shift down
carries the next slot's ground row into a slot's top row only, where it can only make the
upper cell of a vertical brick lying on the wall's top touch the wall -- which the brick
does anyway, standing on it.  A slot's width limit is the whole wall's unless taking its
brick empties an outer column.

:meth:`Walls.values` reads the positions back as lists of ``[brick,] x, y`` values with
no Python step per position: each bit of the masks spread to a byte (0 or 255) selects,
by ``&``, the bytes of an integer that holds every bit's row plus ``FLIP`` (or its
column's or slot's index plus 1: never 0); deleting the zero bytes leaves the chosen
ones in order, which a 256-byte ``translate`` table turns into the values, read back as
signed bytes.  That needs every value within -127..127; a wall that drifted further (the
move phase may move it one column a turn, without end), one of more than ``FLIP`` rows
or with a brick id of ``FLIP`` or more (beyond today's 60-brick option, but nothing else
keeps them below) is read position by position, as are masks with at most ``SPARSE``
positions (a placement's, mostly), where the bytes cost more than the steps.

What is cached, and why it is bounded.  The byte tables depend only on a shape -- the
rows of a slot and the number of slots -- never on the wall's ``x0`` or on which bricks
the slots stand for: they hold a bit's column or slot as a small index (plus 1), mapped
to ``x`` or the brick id by a 256-byte ``translate`` table -- ``x0``'s from ``_X_MAPS``
(one for each ``x0`` within reach, 60 KB made at import), the tags' built per call.  A
table keyed by the tags or ``x0`` would be new at nearly every move (the takers change
with the wall) and only hold memory, as would a cache of ``legal`` itself, which
``LegalCache`` already is for repeated asks of one state.  A shape repeats from move to
move (the slot count is the bricks less the locked one; the rows grow slowly), so the
shape tables and the ``_slots``/``_repeat`` multipliers are kept in LRU caches of
``CACHED`` entries each.  A table is about 15 KB for a 36-brick wall of 12 rows and at
most ~230 KB (a 60-brick vertical tower), so the caches hold at most ~11 MB per hub
process, whatever the clients play.

The placement and collapse rules here restate :meth:`Wall.placement_error` and
:meth:`Wall.collapse_if_removed` (wall.py) for all positions at once; a change to either
rule must be made in both (tests/server/games/brix/test_legal_forms.py compares them).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from tablehub.server.games.brix.wall import FIRST_COLUMNS, MAX_WIDTH, Pos

STRIDE = 16
"""Bits per row of the frame."""
MARGIN = 3
"""Frame columns left of the wall's first column."""
GROUND = (1 << STRIDE) - 1
"""Row 0: every cell of it stands on the ground."""
FLIP = 128
"""Added to a row stored as a byte (so none is 0), taken off when read back."""
SPARSE = 16
"""At most this many positions are read back one by one: cheaper than through bytes."""
CACHED = 16
"""Entries kept by each of the shape caches (module docstring)."""
_SPREAD = bytes.maketrans(b"01", b"\x00\xff")
_UNFLIP = bytes((b + FLIP) % 256 for b in range(256))
_X_MAPS = {
    x0: bytes((0, *((x0 + column) % 256 for column in range(STRIDE)))).ljust(256, b"\0")
    for x0 in range(1 - FLIP, FLIP - STRIDE + 1)
}
"""For each ``x0`` within the byte read-back's reach, the ``translate`` table from a
frame column plus 1 to its ``x`` as a signed byte (60 KB, made at import)."""

Brick = tuple[int, int, int, bool, int]
"""A brick in the frame: its id, its cells' bits, its start (left or lower) cell's bit,
whether it lies flat (horizontally) and its start cell's frame column."""


class Walls:
    """The positions of a brick on one or more walls side by side (module docstring):
    ``x0`` the wall's column of frame column 0, ``rows`` the rows of a slot, ``tags``
    what each slot is for (the brick taken out; 0 when placing), the masks of the
    horizontal (``h``) and vertical (``v``) positions, slot after slot, and ``safe``:
    how many slots, from the first, stand for a brick taken out without a collapse
    (all of them when placing)."""

    __slots__ = ("h", "rows", "safe", "tags", "v", "x0")

    def __init__(self, x0: int, rows: int, tags: list[int], h: int, v: int, safe: int) -> None:
        self.x0 = x0
        self.rows = rows
        self.tags = tags
        self.h = h
        self.v = v
        self.safe = safe

    def positions(self, k: int) -> list[Pos]:
        """The positions of slot ``k``, sorted by (y, x, dir) as :meth:`Wall.positions`."""
        size = self.rows * STRIDE
        everything = (1 << size) - 1
        h = self.h >> (k * size) & everything
        v = self.v >> (k * size) & everything
        x0 = self.x0
        both = h | v
        out: list[Pos] = []
        while both:
            low = both & -both
            y, column = divmod(low.bit_length() - 1, STRIDE)
            if h & low:
                out.append((x0 + column, y, "h"))
            if v & low:
                out.append((x0 + column, y, "v"))
            both ^= low
        return out

    def safe_counts(self) -> tuple[int, int]:
        """How many horizontal and vertical positions the first ``safe`` slots hold
        (the moves without a collapse, listed before the others)."""
        safe = (1 << (self.safe * self.rows * STRIDE)) - 1
        return (self.h & safe).bit_count(), (self.v & safe).bit_count()

    def values(self, tagged: bool) -> tuple[list[int], list[int]]:
        """The values of the horizontal positions and of the vertical ones: ``tag, x, y``
        (``tagged``) or ``x, y`` for each, slot after slot, each slot's by (y, x)."""
        x0, rows, tags, h, v = self.x0, self.rows, self.tags, self.h, self.v
        flat = h.bit_count()
        if (
            flat + v.bit_count() <= SPARSE
            or not -FLIP < x0 <= FLIP - STRIDE
            or rows > FLIP
            or (tagged and max(tags) >= FLIP)
        ):
            return self._read(h, tagged), self._read(v, tagged)
        size = rows * STRIDE
        slots = 2 * len(tags)  # the horizontal masks' slots, then the vertical ones'
        tables = [(_x_table(rows, slots), _X_MAPS[x0]), (_y_table(rows, slots), _UNFLIP)]
        if tagged:
            to_tag = bytes((0, *tags)).ljust(256, b"\0")
            tables.insert(0, (_slot_table(size, len(tags)), to_tag))
        spread = format(h | v << (slots // 2 * size), "b")[::-1].encode().translate(_SPREAD)
        chosen = int.from_bytes(spread, "little")
        parts = [
            (table & chosen).to_bytes(len(spread), "little").translate(to_value, b"\0")
            for table, to_value in tables
        ]
        joined = bytearray(len(tables) * len(parts[0]))
        for i, part in enumerate(parts):
            joined[i :: len(tables)] = part
        values = array("b", joined).tolist()
        return values[: flat * len(tables)], values[flat * len(tables) :]

    def _read(self, mask: int, tagged: bool) -> list[int]:
        """:meth:`values` of one mask, position by position (few positions, or a wall
        beyond bytes' reach)."""
        size, x0, tags = self.rows * STRIDE, self.x0, self.tags
        values: list[int] = []
        while mask:
            low = mask & -mask
            slot, bit = divmod(low.bit_length() - 1, size)
            y, column = divmod(bit, STRIDE)
            if tagged:
                values.append(tags[slot])
            values += (x0 + column, y)
            mask ^= low
        return values


class Frame:
    """A wall in its frame: ``x0`` (the wall's column of frame column 0), the taken
    cells, the cells per frame column and the columns holding any (a mask), ``rows``
    (the wall's top row plus three: a slot of :class:`Walls`) and the bricks
    (:data:`Brick`) in the order of the state."""

    __slots__ = ("bricks", "columns", "rows", "taken", "used", "x0")

    def __init__(self, bricks: Sequence[dict[str, Any]]) -> None:
        self.x0 = x0 = min((brick["x"] for brick in bricks), default=0) - MARGIN
        taken = used = 0
        top = -1
        columns = [0] * STRIDE
        own: list[Brick] = []
        for brick in bricks:
            column, y = brick["x"] - x0, brick["y"]
            start = 1 << (y * STRIDE + column)
            flat = brick["dir"] == "h"
            if flat:
                cells = start | start << 1
                columns[column] += 1
                columns[column + 1] += 1
                used |= 3 << column
            else:
                cells = start | start << STRIDE
                columns[column] += 2
                used |= 1 << column
                y += 1
            if y > top:
                top = y
            taken |= cells
            own.append((brick["id"], cells, start, flat, column))
        self.taken = taken
        self.columns = columns
        self.used = used
        self.bricks = own
        self.rows = top + 3

    def placing(self) -> Walls:
        """Where a new brick may go (:meth:`Wall.positions`); on an empty wall, a first
        brick's positions (``x0`` is ``-MARGIN`` then)."""
        if not self.taken:
            return Walls(self.x0, self.rows, [0], *_FIRST, 1)
        wide_h, wide_v = _widths_of(self.used)
        every_row = _repeat(self.rows)
        h, v = _positions(self.taken, GROUND, wide_h * every_row, wide_v * every_row)
        return Walls(self.x0, self.rows, [0], h, v, 1)

    def takings(self, locked: int | None) -> Walls:
        """Where each brick but ``locked`` may go on the wall without it
        (:meth:`Wall.without`, then :meth:`Wall.positions`, its own position left out),
        one slot per brick: those whose taking leaves no cell hanging first
        (:meth:`Wall.collapse_if_removed`), then the others, each in the order of the
        state.  For a wall of two bricks or more: the move phase starts at four, and
        bricks are never taken off the wall (the wall without a lone brick would be empty,
        where a first brick's rules apply, which these masks do not)."""
        taken = self.taken
        safe: list[Brick] = []
        losing: list[Brick] = []
        for brick in self.bricks:
            if brick[0] != locked:
                cells = brick[1]
                (losing if cells << STRIDE & ~cells & taken else safe).append(brick)
        takers = safe + losing
        if not takers:
            return Walls(self.x0, self.rows, [], 0, 0, 0)
        columns, rows = self.columns, self.rows
        size = rows * STRIDE
        used = self.used
        ends = used & -used | 1 << (used.bit_length() - 1)
        wide_h, wide_v = _widths_of(used)
        every_row = _repeat(rows * len(takers))
        wider_h, wider_v = wide_h * every_row, wide_v * every_row
        removed = own_h = own_v = 0
        for k, (_, cells, start, flat, column) in enumerate(takers):
            shift = k * size
            removed |= cells << shift
            if flat:
                own_h |= start << shift
                emptied = (columns[column] == 1) << column
                emptied |= (columns[column + 1] == 1) << (column + 1)
            else:
                own_v |= start << shift
                emptied = (columns[column] == 2) << column
            if emptied & ends:
                # the wall without it is narrower: its slot's width limit is its own
                slot_h, slot_v = _widths_of(used & ~emptied)
                repeat = _repeat(rows)
                wider_h ^= ((slot_h ^ wide_h) * repeat) << shift
                wider_v ^= ((slot_v ^ wide_v) * repeat) << shift
        slots = _slots(size, len(takers))
        h, v = _positions(self.taken * slots ^ removed, GROUND * slots, wider_h, wider_v)
        tags = [brick[0] for brick in takers]
        return Walls(self.x0, rows, tags, h & ~own_h, v & ~own_v, len(safe))


def _positions(taken: int, ground: int, wide_h: int, wide_v: int) -> tuple[int, int]:
    """The masks of the horizontal and vertical positions on the walls of cells
    ``taken`` (side by side in slots), ``ground`` their row 0s, the width limits'
    columns ``wide_h`` and ``wide_v`` repeated in every row (module docstring)."""
    free = ~taken
    held = taken << STRIDE | ground
    near = taken << 1 | taken >> 1 | taken << STRIDE | taken >> STRIDE
    return (
        free & free >> 1 & held & held >> 1 & (near | near >> 1) & wide_h,
        free & free >> STRIDE & held & (near | near >> STRIDE) & wide_v,
    )


def _widths(lo: int, hi: int) -> tuple[int, int]:
    """The frame columns of one row where a horizontal and a vertical brick's start may
    lie on a wall spanning frame columns ``lo..hi``, the wall staying at most
    ``MAX_WIDTH`` wide."""
    h = v = 0
    for column in range(STRIDE - 1):
        if max(hi, column + 1) - min(lo, column) < MAX_WIDTH:
            h |= 1 << column
        if max(hi, column) - min(lo, column) < MAX_WIDTH:
            v |= 1 << column
    return h, v


_WIDTHS = [[_widths(lo, hi) for hi in range(STRIDE)] for lo in range(STRIDE)]


def _widths_of(used: int) -> tuple[int, int]:
    """:func:`_widths` for the wall whose columns holding a cell are the bits of ``used``."""
    return _WIDTHS[(used & -used).bit_length() - 1][used.bit_length() - 1]


@lru_cache(maxsize=CACHED)
def _slots(size: int, count: int) -> int:
    """Bit 0 of each of ``count`` slots of ``size`` bits."""
    return sum(1 << (size * k) for k in range(count))


@lru_cache(maxsize=CACHED)
def _repeat(rows: int) -> int:
    """Bit 0 of each of ``rows`` rows: a row's mask times this is that mask in every row."""
    return sum(1 << (STRIDE * y) for y in range(rows))


@lru_cache(maxsize=CACHED)
def _x_table(rows: int, slots: int) -> int:
    """Every bit's frame column plus 1 as a byte, in ``slots`` slots of ``rows`` rows."""
    return int.from_bytes(bytes(range(1, STRIDE + 1)) * (rows * slots), "little")


@lru_cache(maxsize=CACHED)
def _y_table(rows: int, slots: int) -> int:
    """Every bit's row plus ``FLIP`` as a byte, in ``slots`` slots of ``rows`` rows."""
    row_bytes = b"".join(bytes((y + FLIP,)) * STRIDE for y in range(rows))
    return int.from_bytes(row_bytes * slots, "little")


@lru_cache(maxsize=CACHED)
def _slot_table(size: int, count: int) -> int:
    """Every bit's slot plus 1 as a byte, in ``count`` slots of ``size`` bits, the
    horizontal masks' and then the vertical ones' (the slots twice)."""
    return int.from_bytes(b"".join(bytes((k + 1,)) * size for k in range(count)) * 2, "little")


def _first() -> tuple[int, int]:
    """The positions of the first brick (frame column 0 at ``-MARGIN``): on the ground
    within columns 0..7."""
    lo, hi = FIRST_COLUMNS
    h = sum(1 << (x + MARGIN) for x in range(lo, hi))
    v = sum(1 << (x + MARGIN) for x in range(lo, hi + 1))
    return h, v


_FIRST = _first()
