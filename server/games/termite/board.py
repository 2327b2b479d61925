"""Termite Towers: board queries shared by the rules modules (docs/games/termite.md).

State layout (plain JSON data)::

    players[s] = {"dice": [{"kind", "value", "at"}], "rooms": [{"egg", "cubes"}],
                  "wall": [row0 .. row6 of 6 colour|None], "bonus": [space, ...],
                  "hand": [blueprint id], "queens": [card], "built": [blueprint id],
                  "tunnels": [[edge, ...] per area 1-6], "hatched", "points", "resigned"}
    neutral = [{"kind": "worker", "value", "at"}]
    stakes[v-1] = {"cubes": int, "cards": {node: {"colour", "cubes", "up"}}}

A die's ``at`` is ``None`` (unplaced), a slot (``"A3"``, ``"D3t"``, ``"D3c"``, ``"R2"``
= room 2 of its owner), ``"H"`` (helper die) or ``"X"`` (unused this round).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from tablehub.server.games.termite import data
from tablehub.server.games.turns import clockwise

Player = dict[str, Any]
State = dict[str, Any]
Cell = tuple[int, int]


def seat_order(state: State) -> list[int]:
    """Seats clockwise from the start player."""
    return clockwise(state["seats"], state["start"])


def active(state: State, seat: int) -> bool:
    return not state["players"][seat]["resigned"]


# --- Rooms ------------------------------------------------------------------------------


def room_dice(player: Player, room: int) -> list[int]:
    """Indices of the player's dice placed in ``room``."""
    tag = f"R{room}"
    return [i for i, d in enumerate(player["dice"]) if d["at"] == tag]


def room_takes_cube(player: Player, room: int) -> bool:
    """A room holds at most 4 cubes or 1 egg (docs/games/termite.md components)."""
    r = player["rooms"][room]
    return not r["egg"] and len(r["cubes"]) < data.ROOM_CUBES


def room_is_empty(player: Player, room: int) -> bool:
    """[house] Empty = no egg, no cubes and no dice."""
    r = player["rooms"][room]
    return not r["egg"] and not r["cubes"] and not room_dice(player, room)


def cube_rooms(player: Player) -> list[int]:
    return [r for r in range(len(player["rooms"])) if room_takes_cube(player, r)]


def empty_rooms(player: Player) -> list[int]:
    return [r for r in range(len(player["rooms"])) if room_is_empty(player, r)]


def room_accepts_die(player: Player, room: int, value: int) -> str | None:
    """None if a die of ``value`` may go into ``room``, else the reason (docs/games/termite.md:
    B dice go into a room with an egg, F dice into other rooms; [house] at most 3 dice,
    all of one value)."""
    if room < 0 or room >= len(player["rooms"]):
        return f"you have no room {room + 1}"
    return room_refusal(room, [player["dice"][i]["value"] for i in room_dice(player, room)], value)


def room_refusal(room: int, values: list[int], value: int) -> str | None:
    """:func:`room_accepts_die` for a room whose dice show ``values``."""
    if len(values) >= data.ROOM_DICE:
        return f"room {room + 1} already holds {data.ROOM_DICE} dice"
    for held in values:
        if held != value:
            return f"room {room + 1} holds dice showing {held}, not {value}"
    return None


# --- Action-card slots --------------------------------------------------------------------


def parse_slot(slot: str) -> tuple[str, int] | None:
    """``"A3"`` -> ("A", 3); ``"D3t"`` -> ("Dt", 3); ``"D3c"`` -> ("Dc", 3);
    ``"R2"`` -> ("R", 2); None if malformed."""
    if len(slot) < 2:
        return None
    card, rest = slot[0], slot[1:]
    if card == "R":
        return ("R", int(rest)) if rest.isdigit() and len(rest) == 1 else None
    if card == "D" and len(rest) == 2 and rest[1] in "tc" and rest[0] in "123456":
        return ("D" + rest[1], int(rest[0]))
    if card in data.SINGLE_SLOT_CARDS and len(rest) == 1 and rest in "123456":
        return (card, int(rest))
    return None


def slot_holders(state: State) -> dict[str, tuple[int, int]]:
    """The die on each taken A/C/E/G slot as (owner, index), owner -1 a neutral die, from
    one pass over the dice: the first found, neutral dice first, then by seat."""
    out: dict[str, tuple[int, int]] = {}
    single = data.SINGLE_SLOT_CARDS
    for i, d in enumerate(state["neutral"]):
        at = d["at"]
        if at and at[0] in single and at not in out:
            out[at] = (-1, i)
    for s, p in enumerate(state["players"]):
        for i, d in enumerate(p["dice"]):
            at = d["at"]
            if at and at[0] in single and at not in out:
                out[at] = (s, i)
    return out


def slot_die(state: State, slot: str) -> tuple[int, int] | None:
    """The die on an A/C/E/G slot as (owner, index); owner -1 is a neutral die."""
    return slot_holders(state).get(slot)


def dice_at(state: State, slot: str) -> list[tuple[int, int]]:
    """All dice on a (D) slot as (owner, index), neutral first then by seat."""
    out = [(-1, i) for i, d in enumerate(state["neutral"]) if d["at"] == slot]
    for s, p in enumerate(state["players"]):
        out.extend((s, i) for i, d in enumerate(p["dice"]) if d["at"] == slot)
    return out


def rival(state: State, owner: int, index: int) -> int:
    """Who a die competes for: its seat, or ``-1 - set`` for a neutral die (each neutral
    colour is its own rival: -1 the first set, -2 the second, -3 the third)."""
    if owner >= 0:
        return owner
    return -1 - int(state["neutral"][index].get("set", 0))


def die(state: State, owner: int, index: int) -> dict[str, Any]:
    if owner < 0:
        return dict(state["neutral"][index])
    return dict(state["players"][owner]["dice"][index])


def unplaced(player: Player) -> list[int]:
    return [i for i, d in enumerate(player["dice"]) if d["at"] is None]


# --- Stakes, tunnels and cube sources -----------------------------------------------------


def reached_nodes(player: Player, area: int) -> set[str]:
    """Nodes of an area (``S`` and card nodes) the player's tunnels reach."""
    nodes = {"S"}
    for edge in player["tunnels"][area - 1]:
        a, b = edge.split("-")
        nodes.add(a)
        nodes.add(b)
    return nodes


def open_edges(player: Player, area: int) -> list[str]:
    """Edges the player may dig next in an area: not yet dug by them, touching their
    network (docs/games/termite.md: tunnels extend the player's own network from the main stake)."""
    reached = reached_nodes(player, area)
    mine = set(player["tunnels"][area - 1])
    return [
        name
        for name, (a, b) in zip(data.EDGE_NAMES, data.TUNNEL_EDGES, strict=True)
        if name not in mine and (a in reached or b in reached)
    ]


def tunnels_used(player: Player) -> int:
    return sum(len(edges) for edges in player["tunnels"])


def source_colour(state: State, source: str) -> str | None:
    """Colour of the cubes at a source (``"D3"`` main stake, ``"D3/1a"`` stake card),
    None if the source is malformed or face down."""
    area, node = parse_source(source)
    if area is None:
        return None
    if node is None:
        return data.COLOURS[area - 1]
    card = state["stakes"][area - 1]["cards"][node]
    return str(card["colour"]) if card["up"] else None


def parse_source(source: str) -> tuple[int | None, str | None]:
    if len(source) < 2 or source[0] != "D" or source[1] not in "123456":
        return None, None
    area = int(source[1])
    if len(source) == 2:
        return area, None
    if source[2] == "/" and source[3:] in data.STAKE_CARD_NODES:
        return area, source[3:]
    return None, None


def source_cubes(state: State, source: str) -> int:
    area, node = parse_source(source)
    if area is None:
        return 0
    stake = state["stakes"][area - 1]
    if node is None:
        return int(stake["cubes"])
    card = stake["cards"][node]
    return int(card["cubes"]) if card["up"] else 0


def take_from_source(state: State, source: str) -> str:
    """Remove one cube from a source (state already copied); returns its colour."""
    area, node = parse_source(source)
    assert area is not None
    stake = state["stakes"][area - 1]
    if node is None:
        stake["cubes"] -= 1
        return data.COLOURS[area - 1]
    stake["cards"][node]["cubes"] -= 1
    return str(stake["cards"][node]["colour"])


def reached_sources(state: State, seat: int) -> list[str]:
    """Face-up stake cards with cubes that the seat's tunnels reach (any area)."""
    player = state["players"][seat]
    out = []
    for area in range(1, 7):
        reached = reached_nodes(player, area)
        for node in data.STAKE_CARD_NODES:
            src = f"D{area}/{node}"
            if node in reached and source_cubes(state, src) > 0:
                out.append(src)
    return out


def stake_card_sources(state: State) -> list[str]:
    """Every face-up stake card with cubes, in any area (where the E cube comes from)."""
    return [
        f"D{area}/{node}"
        for area in range(1, 7)
        for node in data.STAKE_CARD_NODES
        if source_cubes(state, f"D{area}/{node}") > 0
    ]


def all_sources(state: State) -> list[str]:
    """Every main stake and face-up stake card with cubes."""
    out = []
    for area in range(1, 7):
        if state["stakes"][area - 1]["cubes"] > 0:
            out.append(f"D{area}")
        for node in data.STAKE_CARD_NODES:
            if source_cubes(state, f"D{area}/{node}") > 0:
                out.append(f"D{area}/{node}")
    return out


# --- The wall (Tetris-style) --------------------------------------------------------------


def rotations(shape: str) -> list[list[Cell]]:
    """The distinct quarter-turn rotations (clockwise) of a shape, normalised to
    x, y >= 0; never mirrored (seed: rotate, no flipping)."""
    out: list[list[Cell]] = []
    cells = list(data.SHAPES[shape])
    for _ in range(4):
        min_x = min(x for x, _ in cells)
        min_y = min(y for _, y in cells)
        norm = sorted((x - min_x, y - min_y) for x, y in cells)
        if norm not in out:
            out.append(norm)
        cells = [(y, -x) for x, y in cells]
    return out


_ROTATIONS: dict[str, list[list[Cell]]] = {s: rotations(s) for s in data.SHAPES}


def shape_rotations(shape: str) -> list[list[Cell]]:
    return _ROTATIONS[shape]


def column_heights(wall: list[list[str | None]]) -> list[int]:
    """Height of each column: one above its highest cube."""
    heights = [0] * data.WALL_WIDTH
    for y, row in enumerate(wall):
        for x, cell in enumerate(row):
            if cell is not None:
                heights[x] = y + 1
    return heights


def drop_cells(
    wall: list[list[str | None]], cells: Sequence[Cell], column: int
) -> list[Cell] | None:
    """Where a piece lands when dropped straight down with its left edge in ``column``
    (the short form of a placement, without a ``row``: like Tetris, resting on the floor
    or on cubes); None if it sticks out of the wall's sides or top."""
    width = max(x for x, _ in cells) + 1
    if column < 0 or column + width > data.WALL_WIDTH:
        return None
    heights = column_heights(wall)
    base = 0
    for x, y in cells:
        base = max(base, heights[column + x] - y)
    placed = [(column + x, base + y) for x, y in cells]
    if any(y >= data.WALL_HEIGHT for _, y in placed):
        return None
    return placed


def fit_cells(
    wall: list[list[str | None]], cells: Sequence[Cell], column: int, row: int
) -> list[Cell] | None:
    """The cells a piece covers with its bounding box's lower-left corner at ``(column,
    row)``, or None if it may not go there (docs/games/termite.md "How a wall piece is
    placed"; the seed: placed from the bottom up, touching the wall's bottom or other
    cubes, like Tetris): inside the wall, on free cells, with at least one cell resting
    on the bottom row or on a cube directly below it.  It need not be reachable by a
    straight drop."""
    placed = [(column + x, row + y) for x, y in cells]
    if any(not (0 <= x < data.WALL_WIDTH and 0 <= y < data.WALL_HEIGHT) for x, y in placed):
        return None
    if any(wall[y][x] is not None for x, y in placed):
        return None
    if not any(y == 0 or wall[y - 1][x] is not None for x, y in placed):
        return None
    return placed


def fit_positions(wall: list[list[str | None]], cells: Sequence[Cell]) -> list[tuple[int, int]]:
    """Every ``(column, row)`` where ``fit_cells`` accepts the piece, by row then column."""
    return list(spots(wall, cells)[1])


Spots = tuple[tuple[int, ...], tuple[tuple[int, int], ...]]
"""Where a piece may go in a wall: the columns ``drop_cells`` accepts, ascending, and the
``(column, row)`` places ``fit_cells`` accepts, by row then column."""


def wall_mask(wall: list[list[str | None]]) -> int:
    """The wall's cubes as bits: cell ``(x, y)`` is bit ``y * WALL_WIDTH + x``."""
    mask = 0
    for y, row in enumerate(wall):
        for x, cell in enumerate(row):
            if cell is not None:
                mask |= 1 << (y * data.WALL_WIDTH + x)
    return mask


def spots(wall: list[list[str | None]], cells: Sequence[Cell]) -> Spots:
    """Where a piece may go in ``wall`` (:data:`Spots`), kept per wall and shape: a
    wall changes only when something is built, and a staged ``legal`` asks the same
    wall for each of its steps."""
    return wall_spots(wall_mask(wall), tuple(cells))


@functools.lru_cache(maxsize=4096)
def wall_spots(mask: int, cells: tuple[Cell, ...]) -> Spots:
    """:func:`spots` of the wall whose cubes are ``mask`` (:func:`wall_mask`), by bits:
    a place is free when the piece's bits miss the wall's, and it rests when one of
    them is on the bottom row or right above a cube."""
    width, height = data.WALL_WIDTH, data.WALL_HEIGHT
    heights = [0] * width
    for y in range(height):
        for x in range(width):
            if mask >> (y * width + x) & 1:
                heights[x] = y + 1
    right = max(x for x, _ in cells)
    drops = tuple(
        column
        for column in range(width - right)
        if max(0, *(heights[column + x] - y for x, y in cells)) + max(y for _, y in cells) < height
    )
    low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
    piece = 0
    for x, y in cells:
        piece |= 1 << ((y - low_y) * width + x - low_x)
    resting = (1 << width) - 1 | mask << width
    fits = tuple(
        (x, y)
        for y in range(-low_y, height - max(y for _, y in cells))
        for x in range(-low_x, width - right)
        if not (placed := piece << ((y + low_y) * width + x + low_x)) & mask and placed & resting
    )
    return drops, fits


def full_rows(wall: list[list[str | None]]) -> list[int]:
    return [y for y, row in enumerate(wall) if all(c is not None for c in row)]


def wall_cubes(wall: list[list[str | None]]) -> int:
    return sum(1 for row in wall for c in row if c is not None)


def wall_colours(wall: list[list[str | None]]) -> int:
    return len({c for row in wall for c in row if c is not None})
