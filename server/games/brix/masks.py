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
every mask.  (:func:`_positions` computes ``free & held`` once, and ``near`` from the
shifts ``held`` needs anyway.)

The walls without each brick the mover may take are worked out together: each in a slot
of ``rows`` frame rows, slot ``k`` at bit ``k * rows * STRIDE`` of one integer
(:class:`Walls`), the wall's cells repeated into every slot (a multiplication) and the
taken brick's cells cleared in its own slot; the formulas above run once for every wall.
Each brick is one Python step (:func:`takings_of`): its start cell goes into its slot of
one mask of the flat bricks' starts or one of the upright ones' -- the positions each
brick must leave (its own) -- and the cells to clear are those masks times ``_FLAT`` and
``_UPRIGHT`` (a start's cells are its bit times these).  The two rows above a wall's top
stay empty in every slot (``rows`` is the top row plus three): a shift up carries an
empty row into the next slot, and a shift down carries the next slot's ground row into a
slot's top row only, where it can only make the upper cell of a vertical brick lying on
the wall's top touch the wall -- which the brick does anyway, standing on it.  A slot's
width limit is the whole wall's unless taking its brick empties an outer column: the
brick that holds every cell of one (one cell: a flat brick's end, which may empty the
column next to it too; two: an upright brick's, or two flat bricks' where none holds
both), found from the column's cells, not by a step per brick.  A wall that stands
(every cell on the ground or on a taken cell: every wall of a game going on) has its
columns in its ground row.

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
shape tables and the multipliers of a shape (``_layout``: a slot's rows, every row, the
slots, their ground rows) are kept in LRU caches of ``CACHED`` entries each.  A table is
about 15 KB for a 36-brick wall of 12 rows and at most ~230 KB (a 60-brick vertical
tower), so the caches hold at most ~11 MB per hub process, whatever the clients play.

The placement and collapse rules here restate :meth:`Wall.placement_error` and
:meth:`Wall.collapse_if_removed` (wall.py) for all positions at once; a change to either
rule must be made in both (tests/server/games/brix/test_legal_forms.py compares them).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from functools import lru_cache
from operator import itemgetter
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

_X = itemgetter("x")
_FLAT = 3
"""A flat brick's cells are its start cell's bit times this, an upright one's times
``_UPRIGHT``."""
_UPRIGHT = 1 | 1 << STRIDE
_LO = 1 << MARGIN
"""The wall's first column in the frame (``x0`` is its ``x`` less ``MARGIN``)."""


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
    """A wall in its frame (:func:`frame_of`): ``x0`` (the wall's column of frame
    column 0), the taken cells, the bricks by their start cells (``starts``) and
    ``rows`` (the wall's top row plus three: a slot of :class:`Walls`)."""

    __slots__ = ("rows", "starts", "taken", "x0")

    def __init__(self, bricks: Sequence[dict[str, Any]]) -> None:
        self.x0, self.taken, self.starts, self.rows = frame_of(bricks)

    def placing(self) -> Walls:
        """Where a new brick may go (:meth:`Wall.positions`); on an empty wall, a first
        brick's positions (``x0`` is ``-MARGIN`` then)."""
        if not self.taken:
            return Walls(self.x0, self.rows, [0], *_FIRST, 1)
        wide_h, wide_v = _widths_of(_columns(self.taken))
        every_row = _layout(self.rows, 1)[1]
        h, v = _positions(self.taken, GROUND, wide_h * every_row, wide_v * every_row)
        return Walls(self.x0, self.rows, [0], h, v, 1)

    def takings(self, locked: int | None) -> Walls:
        """:func:`takings_of` as :class:`Walls`."""
        return Walls(self.x0, self.rows, *takings_of(self.taken, self.starts, self.rows, locked))


def frame_of(bricks: Sequence[dict[str, Any]]) -> tuple[int, int, dict[int, int], int]:
    """A wall in its frame: ``x0`` (the wall's column of frame column 0), the taken
    cells, the bricks in the order of the state by the bit of their start (left or
    lower) cell -- the id of a brick lying flat (horizontally), the id's complement
    (``~id``, below 0) of one standing upright -- and ``rows``, the wall's top row plus
    three (a slot of :class:`Walls`)."""
    x0 = min(map(_X, bricks), default=0) - MARGIN
    taken = 0
    starts: dict[int, int] = {}
    for brick in bricks:  # (subscripts cost less here than an itemgetter's tuple)
        start = 1 << brick["y"] * STRIDE + brick["x"] - x0
        if brick["dir"] == "h":
            taken |= start * _FLAT
            starts[start] = brick["id"]
        else:
            taken |= start * _UPRIGHT
            starts[start] = ~brick["id"]
    return x0, taken, starts, (taken.bit_length() - 1) // STRIDE + 3


def takings_of(
    taken: int, starts: dict[int, int], rows: int, locked: int | None
) -> tuple[list[int], int, int, int]:
    """Where each brick but ``locked`` may go on the wall (:func:`frame_of`) without it
    (:meth:`Wall.without`, then :meth:`Wall.positions`, its own position left out), one
    slot per brick: those whose taking leaves no cell hanging first
    (:meth:`Wall.collapse_if_removed`), then the others, each in the order of the state.
    The slots' bricks (``tags``), the masks of the horizontal and the vertical positions
    and how many slots stand for a brick taken without a collapse (``safe``): the
    :class:`Walls` fields after ``x0`` and ``rows``.  For a wall of two bricks or more:
    the move phase starts at four, and bricks are never taken off the wall (the wall
    without a lone brick would be empty, where a first brick's rules apply, which these
    masks do not).

    One step per brick puts its start in its slot of the flat or the upright bricks'
    starts; their cells, cleared from the wall in each slot, are those starts times
    ``_FLAT`` and ``_UPRIGHT``.  A slot's width limit is the whole wall's unless its
    brick holds every cell of an outer column: at most one brick at each end."""
    size = rows * STRIDE
    # a brick whose start is in these has a cell right above it, not its own, taken
    under_flat = (taken | taken >> 1) >> STRIDE
    under_upright = taken >> 2 * STRIDE
    flat = upright = shift = 0  # the starts of the bricks taken without a collapse
    falls_flat = falls_upright = falls_shift = 0  # and of the others
    tags: list[int] = []
    falls: list[int] = []
    for start, bid in starts.items():
        if bid >= 0:  # flat
            if bid == locked:
                continue
            if start & under_flat:
                falls_flat |= start << falls_shift
                falls_shift += size
                falls.append(bid)
            else:
                flat |= start << shift
                shift += size
                tags.append(bid)
        elif ~bid == locked:
            continue
        elif start & under_upright:
            falls_upright |= start << falls_shift
            falls_shift += size
            falls.append(~bid)
        else:
            upright |= start << shift
            shift += size
            tags.append(~bid)
    safe = len(tags)
    if falls:
        flat |= falls_flat << shift
        upright |= falls_upright << shift
        tags += falls
    if not tags:
        return tags, 0, 0, 0
    used = _columns(taken)
    hi = 1 << used.bit_length() - 1
    wide_h, wide_v = _WIDTHS[MARGIN][used.bit_length() - 1]
    repeat, every_row, slots, ground = _layout(rows, len(tags))
    wider_h, wider_v = wide_h * every_row, wide_v * every_row
    for end in (_LO, hi) if hi != _LO else (_LO,):
        column = taken & end * repeat  # the cells of an outer column
        held = column.bit_count()
        if held == 1:  # a flat brick's end: the column next to it may empty too
            if end == _LO:
                start, inner = column, end << 1
                alone = taken & inner * repeat == start << 1
            else:
                start = column >> 1
                inner = end >> 1
                alone = taken & inner * repeat == start
            emptied = end | inner if alone else end
            bid = starts.get(start, -1)  # a flat brick's id, or none
        elif held == 2:  # an upright brick's, or two flat bricks' ends
            start = column & -column
            emptied = end
            bid = ~starts.get(start, 0)  # an upright brick's id (it holds both), or none
        else:
            continue
        if bid < 0 or bid == locked:
            continue
        # the wall without it is narrower: its slot's width limit is its own
        rest = used ^ emptied
        slot_h, slot_v = _WIDTHS[(rest & -rest).bit_length() - 1][rest.bit_length() - 1]
        shift = tags.index(bid) * size
        wider_h ^= ((slot_h ^ wide_h) * repeat) << shift
        wider_v ^= ((slot_v ^ wide_v) * repeat) << shift
    walls = taken * slots ^ (flat * _FLAT + upright * _UPRIGHT)
    h, v = _positions(walls, ground, wider_h, wider_v)
    return tags, h ^ h & flat, v ^ v & upright, safe


def _positions(taken: int, ground: int, wide_h: int, wide_v: int) -> tuple[int, int]:
    """The masks of the horizontal and vertical positions on the walls of cells
    ``taken`` (side by side in slots), ``ground`` their row 0s, the width limits'
    columns ``wide_h`` and ``wide_v`` repeated in every row (module docstring)."""
    below = taken << STRIDE
    above = taken >> STRIDE
    held = below | ground
    open_ = held ^ held & taken  # free and held (no ~: bitwise steps on negative ints cost more)
    near = taken << 1 | taken >> 1 | below | above
    upright = open_ ^ open_ & above  # the cell above free too
    return (
        open_ & open_ >> 1 & (near | near >> 1) & wide_h,
        upright & (near | near >> STRIDE) & wide_v,
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


def _columns(taken: int) -> int:
    """The frame columns holding any of the cells ``taken`` (a row's mask): the ground
    row of a wall that stands (every cell on the ground or on a taken cell), else the
    rows folded onto row 0, twice as many at each step."""
    if not taken & ~(taken << STRIDE | GROUND):
        return taken & GROUND
    shift = STRIDE
    while taken >> shift:
        taken |= taken >> shift
        shift <<= 1
    return taken & GROUND


@lru_cache(maxsize=CACHED)
def _layout(rows: int, count: int) -> tuple[int, int, int, int]:
    """For ``count`` slots of ``rows`` rows: bit 0 of each row of a slot (a row's mask
    times this is that mask in every row), bit 0 of every row of every slot, bit 0 of
    each slot and the slots' ground rows."""
    size = rows * STRIDE
    repeat = sum(1 << STRIDE * y for y in range(rows))
    slots = sum(1 << size * k for k in range(count))
    return repeat, repeat * slots, slots, GROUND * slots


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
