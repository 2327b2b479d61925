"""The wall duel's engine: setup, status, legal moves and the move table (docs/games/brix.md).

State (plain JSON data)::

    {"mode": str, "targets": [[value, ...], [value, ...]],   # per seat
     "bricks_total": int, "move_limit": int,
     "bricks": [{"id", "x", "y", "dir", "orange", "face", "by"}, ...],  # index == id
     "supply": int, "to_act": int, "turn": int, "moves": int,
     "locked": int | None, "draw_offer": int | None,
     "last": dict | None, "lines": [{"value", "seat", "cells"}], "result": dict | None,
     "salt": int}                      # seeds the bot's tie-breaks only

A target value is a colour (``"orange"``, ``"blue"``) or a symbol (``"X"``, ``"O"``);
a seat wins with four cells in a straight line all showing one of its values.
Seat 0 always starts; in ``symbols`` seat 0 has X, in ``colors`` orange, and in
``symbols_vs_colors`` seat 0 plays the symbols (X or O) and seat 1 the colours.

**[house] geometry.** The first brick lies on the ground within columns 0..7 (the wall
is the same wherever it starts); later bricks may go anywhere the rules allow, negative
columns included (action coordinates are bounded to |x| <= 1000, 0 <= y <= 1000).  A
line is four *or more* in a row.  A moved brick only needs its own edge contact with the
wall left without it (the rest of the wall may be in two pieces); it must cover other
cells than before (a partial overlap with its old cells is fine; the same cells with
other faces are not).

**[house] collapse.** A move whose removal leaves any cell hanging (a brick taken from
under another) is *accepted* if its destination is otherwise a legal placement on the
wall without the brick: the wall collapses and the mover loses at once, whatever lines
the move would have made.  Support is judged at the moment the brick is taken out, so
refilling the gap with the same brick does not save the wall.  ``legal`` lists such
moves too (after the safe ones): they are legal, they lose.

**[house] draws.** The seat to move may send ``offer_draw`` (it stays their turn); the
offer stands until the other seat, on its turn, sends ``accept_draw`` (drawn game) or
makes a move (the offer lapses).  Option ``move_limit`` (0 = off) draws the game after
that many turns of the move phase (both seats' moves counted together).
"""

from __future__ import annotations

from typing import Any, TypedDict

from tablehub.server.games.base import (
    Action,
    Event,
    IllegalAction,
    LegalGrid,
    LegalGroup,
    Result,
    State,
    Status,
    clone,
)
from tablehub.server.games.brix.masks import STRIDE, Frame, frame_of, takings_of
from tablehub.server.games.brix.wall import FACES, Cell, Pos, Wall, brick_cells
from tablehub.server.games.moves import MoveTable, copy_levels
from tablehub.server.games.options import Option
from tablehub.server.games.rng import Rng

MODES = ("symbols", "colors", "symbols_vs_colors")
TARGETS: dict[str, list[list[str]]] = {
    "symbols": [["X"], ["O"]],
    "colors": [["orange"], ["blue"]],
    "symbols_vs_colors": [["X", "O"], ["orange", "blue"]],
}


class BrixState(TypedDict):
    """The state's top level (the module docstring); the rules below are typed with it."""

    mode: str
    targets: list[list[str]]
    bricks_total: int
    move_limit: int
    bricks: list[dict[str, Any]]
    supply: int
    to_act: int
    turn: int
    moves: int
    locked: int | None
    draw_offer: int | None
    last: dict[str, Any] | None
    lines: list[dict[str, Any]]
    result: Result | None
    salt: int


OPTIONS: dict[str, Option] = {
    "bricks": Option(
        "integer", 36, "bricks in the supply (the seed's 36; the retail box has 22)", 4, 60
    ),
    "mode": Option(
        "string",
        "symbols",
        "winning lines: symbols (seat 0 X, seat 1 O), colors (seat 0 orange, seat 1 blue),"
        " symbols_vs_colors (seat 0 four X or four O, seat 1 four orange or four blue)",
        choices=MODES,
    ),
    "move_limit": Option(
        "integer", 0, "draw after this many turns of the move phase (0 = no limit)", 0, 10000
    ),
}


# -- setup and status ---------------------------------------------------------------


def setup(options: dict[str, Any], seats: int, seed: int) -> BrixState:
    """A fresh game (options validated by the base).  The wall duel has no chance: the
    seed only salts the bot's tie-breaks (``salt``, never shown), so bot games differ
    between tables."""
    mode = options["mode"]
    return {
        "mode": mode,
        "targets": [list(t) for t in TARGETS[mode]],
        "bricks_total": options["bricks"],
        "move_limit": options["move_limit"],
        "bricks": [],
        "supply": options["bricks"],
        "to_act": 0,
        "turn": 0,
        "moves": 0,
        "locked": None,
        "draw_offer": None,
        "last": None,
        "lines": [],
        "result": None,
        "salt": Rng.from_seed(seed).state,
    }


def phase(state: State) -> str:
    if state["result"] is not None:
        return "finished"
    return "place" if state["supply"] > 0 else "move"


def status(state: State) -> Status:
    result: Result | None = state["result"]
    return {
        "phase": phase(state),
        "to_act": [] if result is not None else [state["to_act"]],
        "turn": state["turn"],
        "finished": result is not None,
        "result": None if result is None else clone(result),
    }


# -- legal actions ------------------------------------------------------------------


VARIANTS = tuple((o, f) for o in (0, 1) for f in FACES)
"""The four ways to lay a brick at a position: the orange end and the face."""


def place_action(pos: Pos, orange: int, face: str) -> Action:
    x, y, d = pos
    return {"type": "place", "x": x, "y": y, "dir": d, "orange": orange, "face": face}


def move_action(brick_id: int, pos: Pos, orange: int, face: str) -> Action:
    return {
        "type": "move",
        "brick": brick_id,
        "x": pos[0],
        "y": pos[1],
        "dir": pos[2],
        "orange": orange,
        "face": face,
    }


def origin(brick: dict[str, Any]) -> Pos:
    return (brick["x"], brick["y"], brick["dir"])


def legal(state: State, seat: int) -> list[Action]:
    """Exactly the placements or moves the move table accepts from the seat to act
    (docs/games/brix.md "Placing", "Move phase"), positions by (y, x, dir).

    Moves whose removal collapses the wall are legal (the mover loses at once) and are
    listed after every safe move, so a bot or a hint may prefer the safe ones.  Draw
    offers are always available but not listed (nor is ``resign``, as in every game).
    """
    frame = Frame(state["bricks"])
    # the actions are written inline (faster than a call each) with the key order of
    # place_action and move_action: keep the two the same (the tests sort the keys)
    if state["supply"] > 0:
        return [
            {"type": "place", "x": x, "y": y, "dir": d, "orange": o, "face": f}
            for x, y, d in frame.placing().positions(0)
            for o, f in VARIANTS
        ]
    walls = frame.takings(state["locked"])  # the bricks taken without a collapse first
    return [
        {"type": "move", "brick": bid, "x": x, "y": y, "dir": d, "orange": o, "face": f}
        for k, bid in enumerate(walls.tags)
        for x, y, d in walls.positions(k)
        for o, f in VARIANTS
    ]


def legal_compact(state: State, seat: int) -> list[LegalGroup]:
    """:func:`legal` in the compact form (protocol/README.md "Compact legal";
    ``Game.compact_choices``): one group per direction, orange end and face with
    positions -- placing: ``x, y`` varying; moving: ``brick, x, y``, the bricks taken
    without a collapse in groups before those of the collapsing moves, as :func:`legal`
    lists them; each brick's positions by (y, x).  The four groups of a direction
    (safe or collapsing) share one list of values."""
    frame = Frame(state["bricks"])
    if state["supply"] > 0:
        kind, fields = "place", ["x", "y"]
        walls = frame.placing()
    else:
        kind, fields = "move", ["brick", "x", "y"]
        walls = frame.takings(state["locked"])
    flat, upright = walls.values(tagged=kind == "move")
    parts = [("h", flat), ("v", upright)]
    if walls.safe < len(walls.tags):  # the collapsing moves' own groups, after the others
        safe_h, safe_v = walls.safe_counts()
        cut_h, cut_v = len(fields) * safe_h, len(fields) * safe_v
        parts = [
            ("h", flat[:cut_h]),
            ("v", upright[:cut_v]),
            ("h", flat[cut_h:]),
            ("v", upright[cut_v:]),
        ]
    return [
        {
            "fixed": {"type": kind, "dir": d, "orange": o, "face": f},
            "fields": fields,
            "values": values,
        }
        for d, values in parts
        if values
        for o, f in VARIANTS
    ]


def legal_layered(state: State, seat: int) -> list[LegalGrid]:
    """:func:`legal` in the layered grid form (protocol/README.md "Layered grid legal";
    ``Game.layered_choices``): the positions' masks as masks.py finds them (bit
    ``y * STRIDE + column`` of a slot of ``rows`` rows: ``x`` is ``x0 + column``), each
    bit standing for the four ways to lay the brick (``each``).  Placing: one grid, its
    layers the directions.  Moving: a grid per direction, its layers the bricks that may
    be taken (their slots), those taken without a collapse in grids before the others'."""
    each = [  # VARIANTS, written out
        {"orange": 0, "face": "xo"},
        {"orange": 0, "face": "ox"},
        {"orange": 1, "face": "xo"},
        {"orange": 1, "face": "ox"},
    ]
    if state["supply"] > 0:
        walls = Frame(state["bricks"]).placing()
        size = walls.rows * STRIDE
        stacked = walls.h | walls.v << size
        if not stacked:
            return []
        directions: dict[str, Any] = {"field": "dir", "values": ["h", "v"]}
        return [_layered({"type": "place"}, walls.x0, walls.rows, directions, each, stacked)]
    x0, taken, starts, rows = frame_of(state["bricks"])
    tags, h, v, safe = takings_of(taken, starts, rows, state["locked"])
    groups = [(tags, h, v)]
    if safe < len(tags):  # the collapsing moves' grids after the others
        cut = safe * rows * STRIDE  # their slots' first bit
        low = (1 << cut) - 1
        groups = [(tags[:safe], h & low, v & low), (tags[safe:], h >> cut, v >> cut)]
    grids: list[LegalGrid] = []
    for takers, flat, upright in groups:
        layers = {"field": "brick", "values": takers}
        for direction, bits in (("h", flat), ("v", upright)):
            if bits:
                fixed = {"type": "move", "dir": direction}
                grids.append(_layered(fixed, x0, rows, layers, each, bits))
    return grids


def _layered(
    fixed: dict[str, Any],
    x0: int,
    rows: int,
    layers: dict[str, Any],
    each: list[dict[str, Any]],
    bits: int,
) -> LegalGrid:
    """One grid of the layered form over a wall's frame (``x0``, ``rows`` of ``STRIDE``)."""
    return {
        "fixed": fixed,
        "fields": ["x", "y"],
        "origin": [x0, 0],
        "width": STRIDE,
        "height": rows,
        "layers": layers,
        "each": each,
        "bits": format(bits, "x"),
    }


def legal_basis(state: State, seat: int) -> tuple[int, bool]:
    """What the legal actions of a seat depend on (``Game.legal_basis``): the wall, the
    supply and the locked brick change with every place and move, which count
    ``turn``; and the game must go on (a resignation or an agreed draw ends it without
    a turn).  A draw offer changes neither."""
    return state["turn"], state["result"] is None


# -- apply --------------------------------------------------------------------------


def _refuse(message: str, code: str = "illegal_action") -> IllegalAction:
    return IllegalAction(message, code)


def _placement(action: Action) -> tuple[int, int, str, int, str]:
    return action["x"], action["y"], action["dir"], action["orange"], action["face"]


def _resign(state: BrixState, seat: int, action: Action, rng: Rng) -> list[Event]:
    _finish(state, 1 - seat, "resign")
    return [{"type": "resign", "seat": seat}]


def _accept_draw(state: BrixState, seat: int, action: Action, rng: Rng) -> list[Event]:
    if state["draw_offer"] != 1 - seat:
        raise _refuse("there is no draw offer from your opponent to accept")
    _finish(state, None, "draw_agreed")
    return [{"type": "draw_agreed", "seat": seat}]


def _offer_draw(state: BrixState, seat: int, action: Action, rng: Rng) -> list[Event]:
    if state["draw_offer"] == seat:
        raise _refuse("you already offer a draw; now place or move")
    if state["draw_offer"] is not None:
        raise _refuse("your opponent already offers a draw: send accept_draw to take it")
    state["draw_offer"] = seat
    return [{"type": "draw_offered", "seat": seat}]


def _place(state: BrixState, seat: int, action: Action, rng: Rng) -> list[Event]:
    """docs/games/brix.md "Placing": take a brick from the supply and put it on the wall."""
    x, y, d, orange, face = _placement(action)
    if state["supply"] == 0:
        raise _refuse("the supply is empty: move a brick of the wall instead (type 'move')")
    wall = Wall.from_bricks(state["bricks"])
    error = wall.placement_error(x, y, d)
    if error is not None:
        raise _refuse(error)
    bid = len(state["bricks"])
    brick = {"id": bid, "x": x, "y": y, "dir": d, "orange": orange, "face": face, "by": seat}
    wall.put(bid, x, y, d, orange, face)
    state["bricks"] = [*state["bricks"], brick]
    state["supply"] -= 1
    last = {"seat": seat, "type": "place", "brick": bid, "from": None, "to": _pos_json(brick)}
    return _end_turn(state, seat, wall, brick, last, [])


def _move(state: BrixState, seat: int, action: Action, rng: Rng) -> list[Event]:
    """docs/games/brix.md "Move phase": take one brick out and put it back elsewhere."""
    bid: int = action["brick"]
    x, y, d, orange, face = _placement(action)
    if state["supply"] > 0:
        raise _refuse(
            f"{state['supply']} bricks are left in the supply: place one (type 'place');"
            " moving starts when the supply is empty"
        )
    bricks = state["bricks"]
    if bid >= len(bricks):
        raise _refuse(f"there is no brick {bid} in the wall")
    if bid == state["locked"]:
        raise _refuse(
            f"brick {bid} was just played by your opponent and may not be taken this turn"
        )
    old = bricks[bid]
    if (x, y, d) == origin(old):
        cells = ", ".join(f"({cx},{cy})" for cx, cy in brick_cells(x, y, d))
        raise _refuse(f"brick {bid} must go to different cells than {cells}")
    wall = Wall.from_bricks(bricks)
    hanging = wall.collapse_if_removed(bid)
    rest = wall.without(bid)
    error = rest.placement_error(x, y, d)
    if error is not None:
        raise _refuse(error)
    brick = {"id": bid, "x": x, "y": y, "dir": d, "orange": orange, "face": face, "by": seat}
    rest.put(bid, x, y, d, orange, face)
    state["bricks"] = [*bricks[:bid], brick, *bricks[bid + 1 :]]
    state["moves"] += 1
    last = {
        "seat": seat,
        "type": "move",
        "brick": bid,
        "from": _pos_json(old),
        "to": _pos_json(brick),
    }
    return _end_turn(state, seat, rest, brick, last, hanging)


def _pos_json(brick: dict[str, Any]) -> dict[str, Any]:
    return {
        "x": brick["x"],
        "y": brick["y"],
        "dir": brick["dir"],
        "orange": brick["orange"],
        "face": brick["face"],
    }


def _end_turn(
    new: BrixState,
    seat: int,
    wall: Wall,
    brick: dict[str, Any],
    last: dict[str, Any],
    hanging: list[Cell],
) -> list[Event]:
    """docs/games/brix.md "Winning": collapse, lines, move limit; then the other seat's turn."""
    other = 1 - seat
    new["turn"] = new["turn"] + 1
    new["to_act"] = other
    new["locked"] = brick["id"]
    if new["draw_offer"] == other:
        new["draw_offer"] = None  # the offer lapses: this seat moved instead
    events: list[Event] = [{"type": last["type"], **{k: v for k, v in last.items() if k != "type"}}]
    if hanging:
        cells = [[cx, cy] for cx, cy in hanging]
        new["last"] = {**last, "collapse": cells}
        events.append({"type": "collapse", "seat": seat, "cells": cells})
        return _end(new, other, "collapse", events)
    new["last"] = last
    targets: list[list[str]] = new["targets"]
    values = [v for t in targets for v in t]
    cells_new = brick_cells(brick["x"], brick["y"], brick["dir"])
    lines = []
    owners: set[int] = set()
    for value, run in wall.lines_at(cells_new, values):
        owner = 0 if value in targets[0] else 1
        owners.add(owner)
        lines.append({"value": value, "seat": owner, "cells": [[cx, cy] for cx, cy in run]})
    if lines:
        new["lines"] = lines
        events.extend({"type": "line", **line} for line in lines)
        if seat in owners:
            return _end(new, seat, "both_lines" if other in owners else "four_in_line", events)
        return _end(new, other, "opponent_line", events)
    if new["supply"] == 0 and new["move_limit"] and new["moves"] >= new["move_limit"]:
        return _end(new, None, "move_limit", events)
    return events


def _result(winner: int | None, reason: str) -> Result:
    if winner is None:
        return {"scores": [0, 0], "winners": [], "reason": reason}
    scores = [0, 0]
    scores[winner] = 1
    return {"scores": scores, "winners": [winner], "reason": reason}


def _finish(state: BrixState, winner: int | None, reason: str) -> None:
    state["result"] = _result(winner, reason)
    state["draw_offer"] = None


def _end(new: BrixState, winner: int | None, reason: str, events: list[Event]) -> list[Event]:
    _finish(new, winner, reason)
    events.append({"type": "game_over", "result": new["result"]})
    return events


MOVES = MoveTable(
    rules={
        "place": _place,
        "move": _move,
        "resign": _resign,
        "offer_draw": _offer_draw,
        "accept_draw": _accept_draw,
    },
    copy=copy_levels(1),
)
"""The move table (docs/games/brix.md); the base checks seat, turn, game over and the
action's fields first, and hands each move a copy of the state's top level (a move
replaces, never changes, what lies below it)."""
