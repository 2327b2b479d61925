"""Termite Towers night actions E (trade to build) and F (move cubes / build the wall),
docs/games/termite.md and the seed's actions E and F.

A wall piece (a blueprint's shape, or E's single cube) goes anywhere in the wall where it
rests on the bottom row or on a cube (rotate, never mirror): ``column`` and ``row`` name
its lower-left corner; without ``row`` it drops straight down in ``column``, like Tetris.
Completed rows stay; each newly completed row gives one bonus marker (a ``bonus`` task).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from tablehub.server.games.base import Action, Event, IllegalAction, State
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import board, data
from tablehub.server.games.termite.gather import Task, field_int, field_str, push_front


def _row_bonuses(state: State, seat: int, before: list[int], events: list[Event]) -> list[Task]:
    after = board.full_rows(state["players"][seat]["wall"])
    new = [y for y in after if y not in before]
    if new:
        events.append({"type": "rows", "seat": seat, "rows": new})
    return [{"t": "bonus", "seat": seat} for _ in new]


# --- E: trade to build --------------------------------------------------------------------


def trade_sources(state: State, seat: int) -> list[str]:
    """Where the traded cube may come from: any face-up stake card with cubes, in any
    area, tunnels or not (docs/games/termite.md "Where collected cubes and the E cube come
    from"; the seed: "one cube of any colour (taken from the stake cards)").  A main
    stake is not a stake card; a face-down card has no cubes on it yet."""
    return board.stake_card_sources(state)


CUBE: tuple[board.Cell, ...] = ((0, 0),)
"""The traded cube's shape: one cell."""


def piece_spots(wall: list[list[str | None]], cells: Sequence[board.Cell]) -> list[dict[str, int]]:
    """Every way to name a piece's place: the drop form ``{"column"}`` for each column it
    drops into, and ``{"column", "row"}`` for each place it may rest."""
    drops, fits = board.spots(wall, cells)
    return [{"column": x} for x in drops] + [{"column": x, "row": y} for x, y in fits]


def place_piece(
    wall: list[list[str | None]], cells: Sequence[board.Cell], action: Action, what: str
) -> list[board.Cell]:
    """The cells the action puts a piece on (``row`` given: that place; else the drop)."""
    column = field_int(action, "column")
    if not 0 <= column < data.WALL_WIDTH:
        raise IllegalAction(f"the wall has columns 0-{data.WALL_WIDTH - 1}", "bad_action")
    if "row" not in action:
        dropped = board.drop_cells(wall, cells, column)
        if dropped is None:
            raise IllegalAction(f"{what} does not fit in the wall at column {column + 1}")
        return dropped
    row = field_int(action, "row")
    if not 0 <= row < data.WALL_HEIGHT:
        raise IllegalAction(f"the wall has rows 0-{data.WALL_HEIGHT - 1}", "bad_action")
    placed = board.fit_cells(wall, cells, column, row)
    if placed is None:
        raise IllegalAction(
            f"{what} cannot go at column {column + 1}, row {row + 1}: it must lie inside the"
            " wall on free cells, resting on the bottom row or on a cube"
        )
    return placed


def trade_take_options(state: State, task: Task) -> list[Action]:
    wall = state["players"][task["seat"]]["wall"]
    spots = piece_spots(wall, CUBE)
    return [
        {"type": "choose", "source": src, **spot}
        for src in trade_sources(state, task["seat"])
        for spot in spots
    ]


def _cube_items(player: dict[str, Any]) -> Counter[tuple[int, str]]:
    items: Counter[tuple[int, str]] = Counter()
    for r, room in enumerate(player["rooms"]):
        for colour in room["cubes"]:
            items[(r, colour)] += 1
    return items


def trade_options(state: State, task: Task) -> list[Action]:
    """What the seat may pay: 2 cubes (any colours, from rooms), an egg, a queen card or a
    blueprint; only offered when a cube can be taken and dropped into the wall."""
    seat = task["seat"]
    player = state["players"][seat]
    if not board.fit_positions(player["wall"], CUBE) or not trade_sources(state, seat):
        return []
    out: list[Action] = []
    items = sorted(_cube_items(player).items())
    for i, ((ra, ca), na) in enumerate(items):
        for (rb, cb), _ in items[i:]:
            if (ra, ca) == (rb, cb) and na < 2:
                continue
            out.append({"type": "choose", "pay": "cubes", "cubes": [[ra, ca], [rb, cb]]})
    for r, room in enumerate(player["rooms"]):
        if room["egg"]:
            out.append({"type": "choose", "pay": "egg", "room": r})
    for card in sorted(set(player["queens"])):
        out.append({"type": "choose", "pay": "queen", "card": card})
    for card in player["hand"]:
        out.append({"type": "choose", "pay": "blueprint", "card": card})
    return out


def _parse_cube_pair(action: Action) -> list[tuple[int, str]]:
    cubes = action.get("cubes")
    if not isinstance(cubes, list) or len(cubes) != 2:
        raise IllegalAction("'cubes' must list two [room, colour] pairs", "bad_action")
    out = []
    for item in cubes:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not isinstance(item[0], int)
            or isinstance(item[0], bool)
            or not isinstance(item[1], str)
        ):
            raise IllegalAction("'cubes' must list two [room, colour] pairs", "bad_action")
        out.append((item[0], item[1]))
    if out != sorted(out):
        raise IllegalAction("list the two cubes in order of room, then colour", "bad_action")
    return out


def resolve_trade(state: State, task: Task, action: Action, rng: Rng, events: list[Event]) -> None:
    """Action E, the payment: 2 cubes or 1 egg or 1 queen card or 1 blueprint; the cube
    bought is chosen next (``trade_take``)."""
    seat = task["seat"]
    player = state["players"][seat]
    if not trade_options(state, task):
        raise IllegalAction("no cube can be taken and placed in your wall now")
    pay = field_str(action, "pay")
    paid: dict[str, Any] = {"pay": pay}
    if pay == "cubes":
        pair = _parse_cube_pair(action)
        have = _cube_items(player)
        need = Counter(pair)
        for (room, colour), n in need.items():
            if have[(room, colour)] < n:
                raise IllegalAction(f"room {room + 1} does not hold {n} {colour} cube(s)")
        for room, colour in pair:
            player["rooms"][room]["cubes"].remove(colour)
            area = data.COLOURS.index(colour) + 1 if colour in data.COLOURS else 0
            # [house] paid cubes go back to their colour's main stake.
            if area:
                state["stakes"][area - 1]["cubes"] += 1
        paid["cubes"] = [[r, c] for r, c in pair]
    elif pay == "egg":
        room = field_int(action, "room")
        if not 0 <= room < len(player["rooms"]) or not player["rooms"][room]["egg"]:
            raise IllegalAction(f"room {room + 1} holds no egg")
        player["rooms"][room]["egg"] = False
        state["eggs"] += 1
        paid["room"] = room
    elif pay == "queen":
        card = field_str(action, "card")
        if card not in player["queens"]:
            raise IllegalAction(f"you hold no queen card {card!r}")
        player["queens"].remove(card)
        state["queen_discard"].append(card)
        paid["card"] = card
    elif pay == "blueprint":
        card = field_str(action, "card")
        if card not in player["hand"]:
            raise IllegalAction(f"blueprint {card} is not in your hand")
        player["hand"].remove(card)
        state["blueprints"]["discard"].append(card)
        paid["card"] = card
    else:
        raise IllegalAction("'pay' must be one of cubes, egg, queen, blueprint", "bad_action")
    events.append({"type": "trade", "seat": seat, "paid": paid})
    push_front(state, {"t": "trade_take", "seat": seat})


def resolve_trade_take(
    state: State, task: Task, action: Action, rng: Rng, events: list[Event]
) -> None:
    """Action E, the cube: from any face-up stake card with cubes (``trade_sources``),
    placed at once in the wall."""
    seat = task["seat"]
    source = field_str(action, "source")
    player = state["players"][seat]
    area, _ = board.parse_source(source)
    if area is None:
        raise IllegalAction(f"unknown cube source {source!r} (e.g. 'D3' or 'D3/1a')", "bad_action")
    if board.source_cubes(state, source) == 0:
        raise IllegalAction(f"{source} has no cubes")
    if source not in trade_sources(state, seat):
        raise IllegalAction(
            f"you cannot take from {source}: the traded cube comes from a face-up stake card,"
            " not a main stake"
        )
    [(column, row)] = place_piece(player["wall"], CUBE, action, "the cube")
    before = board.full_rows(player["wall"])
    colour = board.take_from_source(state, source)
    player["wall"][row][column] = colour
    events.append(
        {
            "type": "wall_cube",
            "seat": seat,
            "source": source,
            "colour": colour,
            "column": column,
            "row": row,
        }
    )
    push_front(state, *_row_bonuses(state, seat, before, events))


# --- F: move cubes ------------------------------------------------------------------------


def f_rooms(state: State, seat: int, value: int) -> list[int]:
    """The seat's rooms holding F dice of ``value`` (rooms without an egg at nightfall)."""
    player = state["players"][seat]
    b_rooms = state["night"]["b_rooms"][seat]
    out = []
    for r in range(len(player["rooms"])):
        if r in b_rooms or player["rooms"][r]["egg"]:
            continue
        dice = board.room_dice(player, r)
        if dice and player["dice"][dice[0]]["value"] == value:
            out.append(r)
    return out


def _move_pairs(state: State, task: Task) -> list[tuple[int, int]]:
    rooms = [r for r in f_rooms(state, task["seat"], task["value"]) if r not in task["used"]]
    return [(a, b) for i, a in enumerate(rooms) for b in rooms[i + 1 :]]


def _splits(cubes: list[str]) -> list[list[str]]:
    """Every content of the first room when ``cubes`` are shared by two rooms of at most
    4 cubes each."""
    counts = sorted(Counter(cubes).items())
    total = len(cubes)
    out: list[list[str]] = [[]]
    for colour, n in counts:
        out = [prefix + [colour] * k for prefix in out for k in range(n + 1)]
    return [
        sorted(s) for s in out if len(s) <= data.ROOM_CUBES and total - len(s) <= data.ROOM_CUBES
    ]


def move_options(state: State, task: Task) -> list[Action]:
    player = state["players"][task["seat"]]
    out: list[Action] = []
    for a, b in _move_pairs(state, task):
        now = sorted(player["rooms"][a]["cubes"])
        both = player["rooms"][a]["cubes"] + player["rooms"][b]["cubes"]
        for first in _splits(both):
            if first != now:
                out.append({"type": "choose", "rooms": [a, b], "cubes": first})
    return out


def resolve_move(state: State, task: Task, action: Action, rng: Rng, events: list[Event]) -> None:
    """Action F, move: two rooms holding dice of the same value may share their cubes out
    anew, at most 4 per room; [house] each room moves once per value."""
    seat = task["seat"]
    player = state["players"][seat]
    rooms = action.get("rooms")
    cubes = action.get("cubes")
    if (
        not isinstance(rooms, list)
        or len(rooms) != 2
        or not all(isinstance(r, int) and not isinstance(r, bool) for r in rooms)
    ):
        raise IllegalAction("'rooms' must be two room numbers", "bad_action")
    if not isinstance(cubes, list) or not all(isinstance(c, str) for c in cubes):
        raise IllegalAction("'cubes' must list the colours of the first room", "bad_action")
    a, b = rooms
    if a >= b or cubes != sorted(cubes):
        raise IllegalAction(
            "list the rooms in ascending order and the first room's colours sorted", "bad_action"
        )
    if (a, b) not in _move_pairs(state, task):
        raise IllegalAction(
            f"rooms {a + 1} and {b + 1} cannot move cubes now: both need a die showing "
            f"{task['value']} and no move yet at this value"
        )
    both = Counter(player["rooms"][a]["cubes"] + player["rooms"][b]["cubes"])
    first = Counter(cubes)
    if any(first[c] > both[c] for c in first):
        raise IllegalAction(f"rooms {a + 1} and {b + 1} do not hold those cubes")
    rest = both - first
    if len(cubes) > data.ROOM_CUBES or rest.total() > data.ROOM_CUBES:
        raise IllegalAction("a room holds at most 4 cubes")
    if sorted(cubes) == sorted(player["rooms"][a]["cubes"]):
        raise IllegalAction("that move changes nothing (use pass to end moving)")
    player["rooms"][a]["cubes"] = sorted(cubes)
    player["rooms"][b]["cubes"] = sorted(rest.elements())
    events.append({"type": "moved", "seat": seat, "rooms": [a, b]})
    task = {**task, "used": [*task["used"], a, b]}
    if _move_pairs(state, task):
        push_front(state, task)


# --- F: build the wall --------------------------------------------------------------------


def build_rooms(state: State, seat: int, value: int) -> list[tuple[int, str]]:
    """Rooms that may build: 2+ dice of ``value`` and 4 cubes of one colour."""
    player = state["players"][seat]
    out = []
    for r in f_rooms(state, seat, value):
        cubes = player["rooms"][r]["cubes"]
        enough_dice = len(board.room_dice(player, r)) >= 2
        if enough_dice and len(cubes) == data.ROOM_CUBES and len(set(cubes)) == 1:
            out.append((r, cubes[0]))
    return out


def build_options(state: State, task: Task) -> list[Action]:
    """Every build: any blueprint in hand with any room that may build (docs/games/
    termite.md "Any blueprint builds with any colour"; the seed ties no colour to the
    card: "1 blueprint card and a room with 4 cubes of the same colour and 2 dice of the
    same value")."""
    seat = task["seat"]
    player = state["players"][seat]
    out: list[Action] = []
    for room, _ in build_rooms(state, seat, task["value"]):
        for card in player["hand"]:
            for k, cells in enumerate(board.shape_rotations(data.blueprint_shape(card))):
                for spot in piece_spots(player["wall"], cells):
                    out.append(
                        {"type": "choose", "room": room, "blueprint": card, "rotation": k, **spot}
                    )
    return out


def resolve_build(state: State, task: Task, action: Action, rng: Rng, events: list[Event]) -> None:
    """Action F, build: a blueprint in hand (any card, whatever its label colour) plus a
    room with 4 cubes of one colour and 2 dice of one value; the room's cubes make the
    piece (its cells take their colour), placed in the wall (rotation = clockwise quarter turns
    among the shape's distinct ones, column and row = its lower-left corner; without a
    row it drops straight down)."""
    seat, value = task["seat"], task["value"]
    player = state["players"][seat]
    room = field_int(action, "room")
    card = field_str(action, "blueprint")
    rotation = field_int(action, "rotation")
    if card not in player["hand"]:
        raise IllegalAction(f"blueprint {card} is not in your hand")
    rooms = dict(build_rooms(state, seat, value))
    if room not in rooms:
        raise IllegalAction(
            f"room {room + 1} cannot build now: it needs 4 cubes of one colour and 2 dice "
            f"showing {value}"
        )
    colour = rooms[room]
    shapes = board.shape_rotations(data.blueprint_shape(card))
    if not 0 <= rotation < len(shapes):
        raise IllegalAction(
            f"shape {data.blueprint_shape(card)} has rotations 0-{len(shapes) - 1}", "bad_action"
        )
    cells = place_piece(player["wall"], shapes[rotation], action, f"blueprint {card}")
    column = min(x for x, _ in cells)
    before = board.full_rows(player["wall"])
    for x, y in cells:
        player["wall"][y][x] = colour
    player["rooms"][room]["cubes"] = []
    player["hand"].remove(card)
    player["built"].append(card)
    events.append(
        {
            "type": "built",
            "seat": seat,
            "blueprint": card,
            "rotation": rotation,
            "column": column,
            "cells": [[x, y] for x, y in cells],
        }
    )
    bonuses = _row_bonuses(state, seat, before, events)
    push_front(state, *bonuses, task)
