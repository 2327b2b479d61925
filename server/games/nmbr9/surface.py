"""A 9-tower layout as the strong bot sees it: bit masks, kept up to date tile by tile
(docs/games/nmbr9.md "Bots").

Theory of operation.  The bot looks at thousands of layouts a move, each its parent
plus one tile, so a :class:`Surface` is built once from a list of tiles
(:meth:`Surface.of`) and every other one by :meth:`Surface.with_tile`, which changes a
few masks of its parent's instead of rebuilding them.

* Cells are bits of an int in a :class:`Frame` chosen once for the layout the search
  starts from: cell ``(x, y)`` is bit ``(x - min_x) * stride + (y - min_y)``, with
  ``MARGIN`` empty cells around that layout, so the tiles the search adds (each
  reaching 4 cells out) stay inside it; one that would come within ``PAD`` cells of
  its edge makes :meth:`Surface.with_tile` choose a new frame (rare, and the same
  result).  ``PAD`` is room for every ground placement touching the footprint
  and for the cells around it: a shifted shape never wraps onto the next row.
* ``layers[k]``: the cells holding a square on level k (``layers[0]`` is the
  footprint); ``tops[k]``: for each tile on level k, its squares not covered, the
  cells it supports.
* ``placeable[k]``: the digits (a 10-bit mask) known to have a legal placement on
  level k, for k from 1 up to the top level + 1, and ``unknown[k]`` those not looked
  at yet.  It is what the evaluation's *reach* asks (the highest level each digit
  could land on) and is the costly part, so it is looked at only when asked, and
  inherited: a tile laid on level L changes the legal placements of levels L and
  L + 1 only -- below, the floors and the squares next to them are the same; above,
  nothing was laid -- and on level L + 1 it only adds some (its squares make floor
  there, and what was legal stays legal).  So a layout looks at every level before
  it has children, and a child knows all its parent knew but level L and the digits
  not placeable on level L + 1.  What was found on a level is also kept in the frame
  (``Frame.known``), by what the level's placements depend on: about half the
  layouts of one search share a level with another one.

Legal placements above the ground on masks: the offsets where a shape lies flat on a
floor are the AND of the floor's straight runs (the cells starting 2, 3 or 4 cells of
floor along x or y, found once per floor) shifted by each run of the shape; each is
then checked for contact (some square next to a cell of its own level, unless it opens
a new level) and for two supports (its squares are not all on one tile's ``tops``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterator

from tablehub.server.games.nmbr9.rules import Placement, Tile
from tablehub.server.games.nmbr9.shapes import DIGITS, DISTINCT_ROTATIONS, ROTATIONS, SQUARES

PAD = 5
"""Empty cells kept around a layout in its frame: room for every ground placement
touching the footprint (a shape reaches 3 cells from its offset) and for the cells
around it."""
MARGIN = 13
"""Empty cells around the layout a frame is chosen for: ``PAD`` plus two tiles of 4
cells (the search's candidate and the next card's reply) before a new frame is needed
for a layout that is shortlisted."""
ALL_DIGITS = (1 << len(DIGITS)) - 1


@dataclasses.dataclass(frozen=True, slots=True)
class ShapeBits:
    """One rotation of a digit on bit masks of one row stride."""

    rot: int
    shifts: tuple[int, ...]
    """The bit offsets of its squares from its offset's bit."""
    runs: tuple[tuple[int, int], ...]
    """Runs of squares covering it, fewest first, as ``(kind, bit offset)``: the
    offsets where it lies on a floor are the AND of the floor's runs of each kind
    shifted by each offset (``kind`` indexes :func:`_floor_runs`)."""
    mask: int
    """Its squares at offset bit 0."""
    border: tuple[int, ...]
    """The bit offsets of the cells just outside it, once per shared edge."""
    edges: tuple[int, ...]
    """The same cells as masks at offset bit ``stride + 1`` (so that none is below 0):
    ``edges[k]`` holds those sharing more than k edges with the shape."""
    width: int
    """Its extent along x."""
    height: int
    """Its extent along y."""


def _runs(cells: tuple[tuple[int, int], ...]) -> list[tuple[int, int, int]]:
    """The fewest straight runs of squares covering a shape (the longest first), as
    ``(kind, x, y)`` of their first square: kind 0 a single square, 1-3 runs of 2-4
    along y, 4-6 along x."""
    own = set(cells)
    runs: list[tuple[int, int, int, frozenset[tuple[int, int]]]] = []
    for x, y in cells:
        for step, base in (((0, 1), 0), ((1, 0), 3)):
            if (x - step[0], y - step[1]) in own:
                continue  # not the first square of a maximal run
            run = [(x, y)]
            while (run[-1][0] + step[0], run[-1][1] + step[1]) in own:
                run.append((run[-1][0] + step[0], run[-1][1] + step[1]))
            runs.append((base + len(run) - 1 if len(run) > 1 else 0, x, y, frozenset(run)))
    for size in range(1, len(runs) + 1):
        for chosen in itertools.combinations(runs, size):
            if frozenset().union(*(r[3] for r in chosen)) == own:
                return sorted(((k, x, y) for k, x, y, _ in chosen), key=lambda r: -_length(r[0]))
    raise AssertionError(cells)


def _length(kind: int) -> int:
    """The squares of a run of that kind (see :func:`_runs`)."""
    return 1 if kind == 0 else (kind - 1) % 3 + 2


def _floor_runs(floor: int, stride: int) -> list[int]:
    """The first squares of the floor's runs of each kind of :func:`_runs`."""
    out = [floor]
    for step in (1, stride):
        run = floor
        for length in (1, 2, 3):
            run &= floor >> (step * length)
            out.append(run)
    return out


_RUNS = {(d, rot): _runs(cells) for d in DIGITS for rot, cells in enumerate(ROTATIONS[d])}


def _border(cells: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """The cells just outside a shape, once per shared edge."""
    own = set(cells)
    return [
        n
        for x, y in cells
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
        if n not in own
    ]


_SHAPE_BITS: dict[int, dict[tuple[int, int], ShapeBits]] = {}
"""Per row stride: each ``(digit, rot)`` on masks of that stride."""


def _shape_bits(stride: int) -> dict[tuple[int, int], ShapeBits]:
    shapes = _SHAPE_BITS.get(stride)
    if shapes is None:
        shapes = {}
        for d in DIGITS:
            for rot, cells in enumerate(ROTATIONS[d]):
                shifts = tuple(x * stride + y for x, y in cells)
                border = Counter(x * stride + y for x, y in _border(cells))
                shapes[(d, rot)] = ShapeBits(
                    rot,
                    shifts,
                    tuple((kind, x * stride + y) for kind, x, y in _RUNS[(d, rot)]),
                    sum(1 << s for s in shifts),
                    tuple(border.elements()),
                    tuple(
                        sum(1 << (n + stride + 1) for n, edges in border.items() if edges > k)
                        for k in range(max(border.values()))
                    ),
                    max(x for x, _ in cells) + 1,
                    max(y for _, y in cells) + 1,
                )
        _SHAPE_BITS[stride] = shapes
    return shapes


LevelKey = tuple[int, int, tuple[int, ...]]
"""See :meth:`Surface.level_key`."""


class Frame:
    """Where cells are on the masks: ``(x, y)`` is bit ``(x - min_x) * stride + y -
    min_y``; ``shapes[digit]``: its distinct rotations on masks of this stride."""

    __slots__ = ("by_rot", "footprints", "known", "min_x", "min_y", "shapes", "stride", "upper")

    def __init__(self, min_x: int, min_y: int, stride: int) -> None:
        self.min_x = min_x
        self.min_y = min_y
        self.stride = stride
        self.by_rot = _shape_bits(stride)
        self.known: dict[LevelKey, list[int]] = {}
        """What :meth:`Surface.placeable_on` found for a level of the layouts in this
        frame (the layouts the search looks at from one position share it): by the
        cells under the level, those on it and the squares of each tile under it, the
        digits looked at and those with a legal placement."""
        self.shapes = {d: tuple(self.by_rot[(d, r)] for r in DISTINCT_ROTATIONS[d]) for d in DIGITS}
        self.upper: dict[tuple[int, int, int, LevelKey], list[Placement]] = {}
        """Memo for ``candidates``: the best placements of a digit on a level, by
        what the level's placements depend on (see :meth:`Surface.level_key`)."""
        self.footprints: dict[int, Footprint] = {}
        """The :class:`Footprint` of each footprint (a mask) the search has laid a
        ground tile to: two orders of the same tiles, or two candidates followed by the
        same ground reply, share what was found for it."""

    @classmethod
    def around(cls, x0: int, y0: int, x1: int, y1: int) -> Frame:
        """A frame for cells from ``(x0, y0)`` to ``(x1, y1)``, ``MARGIN`` around."""
        return cls(x0 - MARGIN, y0 - MARGIN, y1 - y0 + 1 + 2 * MARGIN)

    def bit(self, x: int, y: int) -> int:
        return (x - self.min_x) * self.stride + y - self.min_y

    def cell(self, bit: int) -> tuple[int, int]:
        """The cell ``(x, y)`` of a bit index."""
        x, y = divmod(bit, self.stride)
        return x + self.min_x, y + self.min_y

    def roomy(self, x0: int, y0: int, x1: int, y1: int) -> bool:
        """Whether cells from ``(x0, y0)`` to ``(x1, y1)`` leave ``PAD`` cells to the
        frame's edges (the masks grow without limit along x, not below its start)."""
        return (
            x0 - self.min_x >= PAD
            and y0 - self.min_y >= PAD
            and y1 - self.min_y < self.stride - PAD
        )

    def cells(self, mask: int) -> Iterator[tuple[int, int]]:
        """The cells of a mask."""
        while mask:
            low = mask & -mask
            yield self.cell(low.bit_length() - 1)
            mask ^= low


def grow(mask: int, stride: int) -> int:
    """The cells next to a cell of ``mask`` (and ``mask`` itself)."""
    return mask | mask << 1 | mask >> 1 | mask << stride | mask >> stride


def offsets_reaching(mask: int, stride: int) -> int:
    """The offsets from which a shape (at most 4 by 4 cells) may cover a cell of
    ``mask``: the cells of ``mask`` moved 0 to 3 cells back along x and along y."""
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> stride
    return mask | mask >> 2 * stride


class Footprint:
    """What depends on a layout's footprint alone, shared by the layouts of one
    footprint (a tile laid above the ground keeps it)."""

    __slots__ = ("beside", "faults", "ground")

    def __init__(self) -> None:
        self.ground: dict[tuple[int, int], list[Placement]] = {}
        """Memo for ``candidates``: the best ground placements of a digit."""
        self.beside = -1
        """The empty cells next to the footprint (-1 until asked)."""
        self.faults: tuple[int, int, int, int] | None = None
        """The ground edge, the pairs of neighbouring footprint cells along y and along
        x (as masks) and the pits of the ground (see :meth:`Surface.shape_faults`)."""


Fresh = tuple[int, int, int, bool]
"""The last tile of a layout grown by :meth:`Surface.with_tile`: its level L, its
cells, the digits its parent could place on level L, and whether it opened level L."""


class Surface:
    """A layout's masks (see the module docstring); :meth:`with_tile` returns a new one.

    ``placeable[k]`` and ``unknown[k]`` are filled in as they are asked for: the digits
    known to have a legal placement on level k, and those not yet looked at there."""

    __slots__ = ("base", "frame", "fresh", "layers", "placeable", "tiles", "tops", "unknown")

    def __init__(
        self,
        frame: Frame,
        layers: tuple[int, ...],
        tops: tuple[tuple[int, ...], ...],
        placeable: list[int],
        unknown: list[int],
        tiles: int,
        base: Footprint | None = None,
        fresh: Fresh | None = None,
    ) -> None:
        self.frame = frame
        self.layers = layers
        self.tops = tops
        self.placeable = placeable
        self.unknown = unknown
        self.tiles = tiles
        self.base = Footprint() if base is None else base
        self.fresh = fresh
        """Set by :meth:`with_tile`: where the levels it left to look at may have
        changed (see :meth:`_found`)."""

    @property
    def top(self) -> int:
        """The highest stack of squares (0 for an empty layout)."""
        return len(self.layers)

    @property
    def footprint(self) -> int:
        return self.layers[0] if self.layers else 0

    @classmethod
    def of(cls, tiles: list[Tile]) -> Surface:
        cells = [c for tile in tiles for c in tile["cells"]]
        if not cells:
            return cls(Frame.around(0, 0, 0, 0), (), (), [ALL_DIGITS], [0], 0)
        frame = Frame.around(
            min(x for x, _ in cells),
            min(y for _, y in cells),
            max(x for x, _ in cells),
            max(y for _, y in cells),
        )
        layers: list[int] = []
        tops: list[list[int]] = []
        for tile in tiles:
            level = int(tile["level"])
            mask = sum(1 << frame.bit(x, y) for x, y in tile["cells"])
            if level == len(layers):
                layers.append(0)
                tops.append([])
            layers[level] |= mask
            tops[level].append(mask)
            if level:
                tops[level - 1] = [m & ~mask for m in tops[level - 1] if m & ~mask]
        unknown = [0] + [ALL_DIGITS] * len(layers)
        placeable = [ALL_DIGITS] + [0] * len(layers)
        return cls(frame, tuple(layers), tuple(map(tuple, tops)), placeable, unknown, len(tiles))

    def with_tile(self, digit: int, placement: Placement) -> Surface:
        """This layout plus ``digit`` at a legal ``placement``."""
        level, rot, x, y = placement
        frame = self.frame
        shape = frame.by_rot[(digit, rot)]
        if not frame.roomy(x, y, x + shape.width - 1, y + shape.height - 1):
            return self._reframed(x, y, x + shape.width - 1, y + shape.height - 1).with_tile(
                digit, placement
            )
        unknown = self.unknown
        if any(unknown):  # look at all the children inherit
            for known in range(1, len(self.layers) + 1):
                self.placeable_on(known, ALL_DIGITS)
        mask = shape.mask << frame.bit(x, y)
        layers = list(self.layers)
        tops = list(self.tops)
        placeable = self.placeable[:]
        unknown = unknown[:]
        opened = level == len(layers)
        if opened:
            layers.append(mask)
            tops.append((mask,))
            placeable.append(0)  # on this tile alone: never two supports
            unknown.append(0)
        else:
            layers[level] |= mask
            tops[level] = (*tops[level], mask)
            # More floor on level + 1: what was legal there stays legal.
            unknown[level + 1] = ALL_DIGITS & ~placeable[level + 1]
        if level:  # less floor on level, and new squares to touch there
            tops[level - 1] = tuple([m & ~mask for m in tops[level - 1] if m & ~mask])
            before, base = placeable[level], self.base
            placeable[level] = 0
            unknown[level] = ALL_DIGITS
        else:  # on the ground: a new footprint, perhaps seen before
            before = 0
            seen = frame.footprints.get(layers[0])
            if seen is None:
                seen = frame.footprints[layers[0]] = Footprint()
            base = seen
        fresh = (level, mask, before, opened)
        return Surface(
            frame, tuple(layers), tuple(tops), placeable, unknown, self.tiles + 1, base, fresh
        )

    def _reframed(self, x0: int, y0: int, x1: int, y1: int) -> Surface:
        """This layout in a frame around it and the cells from ``(x0, y0)`` to
        ``(x1, y1)``."""
        old = self.frame
        xs = [x0, x1]
        ys = [y0, y1]
        for x, y in old.cells(self.footprint):
            xs.append(x)
            ys.append(y)
        frame = Frame.around(min(xs), min(ys), max(xs), max(ys))

        def moved(mask: int) -> int:
            return sum(1 << frame.bit(x, y) for x, y in old.cells(mask))

        return Surface(
            frame,
            tuple(map(moved, self.layers)),
            tuple(tuple(map(moved, masks)) for masks in self.tops),
            self.placeable[:],
            self.unknown[:],
            self.tiles,
        )  # no fresh tile: its levels left to look at are looked at everywhere

    def placeable_on(self, level: int, digits: int) -> int:
        """Which of ``digits`` (a mask) have a legal placement on ``level`` >= 1 (looked
        at once per surface and level)."""
        ask = digits & self.unknown[level]
        if ask:
            self.unknown[level] ^= ask
            key = self.level_key(level)
            known = self.frame.known.get(key)
            if known is None:
                known = self.frame.known[key] = [0, 0]
            new = ask & ~known[0]
            if new:
                known[0] |= new
                known[1] |= self._found(level, new)
            self.placeable[level] |= known[1] & ask
        return self.placeable[level] & digits

    def _found(self, level: int, digits: int) -> int:
        """Which of ``digits`` have a legal placement on ``level`` >= 1, looking only
        where they may have one.  After a tile T laid on level L (``fresh``; its parent
        knew every level): a placement new on level L + 1 lies on T; one new on level L
        touches T (T is what it may touch there), and none is new there when T opened
        level L (a tile of that level must now touch T)."""
        fresh = self.fresh
        if fresh is None:
            return self._first_of(level, digits, -1)
        tile_level, mask, before, opened = fresh
        stride = self.frame.stride
        if level == tile_level + 1:
            return self._first_of(level, digits, offsets_reaching(mask, stride))
        touching = offsets_reaching(grow(mask, stride), stride)
        if opened:
            return self._first_of(level, digits & before, touching)
        found = self._first_of(level, digits & before, -1) if digits & before else 0
        if digits & ~before:
            found |= self._first_of(level, digits & ~before, touching)
        return found

    def _first_of(self, level: int, digits: int, window: int) -> int:
        """Which of ``digits`` have a legal placement on ``level`` >= 1 at an offset of
        ``window`` (a mask; -1 for anywhere)."""
        found = 0
        for digit, _, _ in self._legal_on(level, digits, first=True, window=window):
            found |= 1 << digit
        return found

    def level_key(self, level: int) -> LevelKey:
        """What the legal placements on ``level`` >= 1 depend on: the cells of the level
        below, those of this level (-1 when there are none: no contact needed), and the
        squares of each tile of the level below."""
        layers = self.layers
        return layers[level - 1], layers[level] if level < len(layers) else -1, self.tops[level - 1]

    def _legal_on(
        self, level: int, digits: int, first: bool, window: int = -1
    ) -> list[tuple[int, ShapeBits, int]]:
        """``(digit, shape, bit of its offset)`` for the legal placements of ``digits``
        on ``level`` >= 1 at offsets of ``window`` (a mask; -1 for all), by digit, then
        rotation, then bit; with ``first``, only the first of each digit."""
        layers = self.layers
        floor = layers[level - 1]
        if level < len(layers):
            floor &= ~layers[level]
            near = grow(layers[level], self.frame.stride)
        else:
            near = -1  # opening a new level: no contact needed
        size = floor.bit_count()
        supports = self.tops[level - 1]
        out: list[tuple[int, ShapeBits, int]] = []
        if size < 5 or len(supports) < 2:
            return out
        shapes = self.frame.shapes
        runs: list[int] = []
        while digits:
            low_digit = digits & -digits
            digits ^= low_digit
            digit = low_digit.bit_length() - 1
            if SQUARES[digit] > size:
                continue
            if not runs:
                runs = _floor_runs(floor, self.frame.stride)
            for shape in shapes[digit]:
                fits = window
                for kind, s in shape.runs:
                    fits &= runs[kind] >> s
                    if not fits:
                        break
                shape_mask = shape.mask
                while fits:
                    low = fits & -fits
                    bit = low.bit_length() - 1
                    fits ^= low
                    cells = shape_mask << bit
                    if not cells & near:
                        continue
                    for tile in supports:  # the floor is theirs: two touched, or all on one
                        if cells & tile:
                            if cells & ~tile:
                                out.append((digit, shape, bit))
                            break
                    if first and out and out[-1][0] == digit:
                        break
                else:
                    continue
                break
        return out

    def upper_placements(self, level: int, digit: int) -> list[tuple[ShapeBits, int]]:
        """The legal placements of ``digit`` on ``level`` >= 1 as ``(shape, bit of its
        offset)``, by rotation, then bit.

        The upper-level part of ``rules.legal_placements`` on bit masks (without its
        bounds, which no tile above the ground comes near)."""
        if not self.placeable_on(level, 1 << digit):
            return []
        return [(shape, bit) for _, shape, bit in self._legal_on(level, 1 << digit, first=False)]

    def reach(self, digit: int) -> int:
        """The highest level a ``digit`` tile could be placed on now (0 if only the
        ground)."""
        for level in range(len(self.layers), 0, -1):
            if self.placeable_on(level, 1 << digit):
                return level
        return 0

    def reaches(self, digits: int = ALL_DIGITS) -> list[int]:
        """:meth:`reach` of each of ``digits`` (a mask; 0 for the others)."""
        out = [0] * len(DIGITS)
        for level in range(len(self.layers), 0, -1):
            if not digits:
                break
            new = self.placeable_on(level, digits)
            digits ^= new
            while new:
                low = new & -new
                out[low.bit_length() - 1] = level
                new ^= low
        return out

    def shape_faults(self) -> tuple[int, int, int]:
        """(ground edge, steps, pits) -- see ``evaluation`` -- on bit masks: a pair of
        neighbouring cells is a cell of ``mask & mask >> step``, ``step`` being 1 (along
        y) or the row stride (along x)."""
        layers = self.layers
        if not layers:
            return 0, 0, 0
        stride = self.frame.stride
        faults = self.base.faults
        if faults is None:
            footprint = layers[0]
            along_y = footprint & footprint >> 1
            along_x = footprint & footprint >> stride
            ground = 4 * footprint.bit_count() - 2 * (along_y.bit_count() + along_x.bit_count())
            walls = footprint << 1 & footprint >> 1 & footprint << stride & footprint >> stride
            faults = self.base.faults = (ground, along_y, along_x, (walls & ~footprint).bit_count())
        ground, along_y, along_x, pits = faults
        steps = 0
        below = layers[0]
        for above in layers[1:]:
            steps += (along_y & (above ^ above >> 1)).bit_count()
            steps += (along_x & (above ^ above >> stride)).bit_count()
            walls = above << 1 & above >> 1 & above << stride & above >> stride
            pits += (below & ~above & walls).bit_count()
            below = above
        return ground, steps, pits
