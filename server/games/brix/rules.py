"""Rules of the wall duel (docs/games/brix.md).

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

View (public, identical for every audience)::

    {"mode", "targets", "phase": "place" | "move" | "finished", "to_act": seat | None,
     "turn", "supply", "bricks_total", "move_limit", "moves",
     "columns": [min_x, max_x] | None, "height": rows in use,
     "bricks": [{"id", "x", "y", "dir", "orange", "face", "by",
                 "cubes": [{"x", "y", "color", "mark"}, ...]}, ...],
     "cells": {"x,y": {"color", "mark", "brick"}},
     "locked": brick id that may not be taken now (move phase) | None,
     "draw_offer": seat | None, "last": {"seat", "type", "brick", "from", "to"
     [, "collapse": [[x, y], ...]]} | None, "lines": [...], "result": ... | None}

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
refilling the gap with the same brick does not save the wall.  ``legal_actions`` lists
such moves too (after the safe ones): they are legal, they lose.

**[house] draws.** The seat to move may send ``offer_draw`` (it stays their turn); the
offer stands until the other seat, on its turn, sends ``accept_draw`` (drawn game) or
makes a move (the offer lapses).  Option ``move_limit`` (0 = off) draws the game after
that many turns of the move phase (both seats' moves counted together).
"""

from __future__ import annotations

import copy
from typing import Any

from tablehub.server.games.base import (
    Action,
    BadOptions,
    Event,
    IllegalAction,
    Option,
    State,
    View,
    action_type,
    require_int,
    require_str,
)
from tablehub.server.games.brix.wall import DIRS, FACES, Cell, Pos, Wall, brick_cells, cube_faces
from tablehub.server.games.rng import Rng

MODES = ("symbols", "colors", "symbols_vs_colors")
TARGETS: dict[str, list[list[str]]] = {
    "symbols": [["X"], ["O"]],
    "colors": [["orange"], ["blue"]],
    "symbols_vs_colors": [["X", "O"], ["orange", "blue"]],
}
X_LIMIT = 1000  # |x| bound on action coordinates (the width rule keeps walls far inside)
Y_LIMIT = 1000
ACTION_TYPES = ("place", "move", "resign", "offer_draw", "accept_draw")
_PLACEMENT = frozenset({"type", "x", "y", "dir", "orange", "face"})
FIELDS: dict[str, frozenset[str]] = {
    "place": _PLACEMENT,
    "move": _PLACEMENT | {"brick"},
    "resign": frozenset({"type"}),
    "offer_draw": frozenset({"type"}),
    "accept_draw": frozenset({"type"}),
}
"""The fields each action type may carry; others are refused, so the legal list is
exactly what ``apply`` accepts."""

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


def setup(options: dict[str, Any], seats: int, seed: int) -> State:
    """A fresh game.  The wall duel has no chance: the seed only salts the bot's
    tie-breaks (``salt``, never shown), so bot games differ between tables."""
    if seats != 2:
        raise BadOptions("the wall duel is for exactly 2 players")
    opts = {name: options.get(name, spec.default) for name, spec in OPTIONS.items()}
    mode = opts["mode"]
    if mode not in MODES:
        raise BadOptions(f"option mode must be one of {', '.join(MODES)}")
    for name in ("bricks", "move_limit"):
        spec = OPTIONS[name]
        value = opts[name]
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadOptions(f"option {name} must be an integer")
        if spec.minimum is not None and value < spec.minimum:
            raise BadOptions(f"option {name} must be at least {spec.minimum}")
        if spec.maximum is not None and value > spec.maximum:
            raise BadOptions(f"option {name} must be at most {spec.maximum}")
    return {
        "mode": mode,
        "targets": [list(t) for t in TARGETS[mode]],
        "bricks_total": opts["bricks"],
        "move_limit": opts["move_limit"],
        "bricks": [],
        "supply": opts["bricks"],
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


def status(state: State) -> dict[str, Any]:
    finished = state["result"] is not None
    return {
        "phase": phase(state),
        "to_act": [] if finished else [state["to_act"]],
        "turn": state["turn"],
        "finished": finished,
        "result": copy.deepcopy(state["result"]),
    }


# -- legal actions ------------------------------------------------------------------


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


def legal_actions(state: State, seat: int) -> list[Action]:
    """Exactly the placements or moves ``apply`` accepts from the seat to act
    (docs/games/brix.md "Placing", "Move phase").

    Moves whose removal collapses the wall are legal (the mover loses at once) and are
    listed after every safe move, so a bot or a hint may prefer the safe ones.  If no
    placement or move exists at all, ``resign`` is listed.  Draw offers and ``resign``
    are always available but otherwise not listed.
    """
    if state["result"] is not None or seat != state["to_act"]:
        return []
    wall = Wall.from_bricks(state["bricks"])
    variants = [(o, f) for o in (0, 1) for f in FACES]
    if state["supply"] > 0:
        return [place_action(pos, o, f) for pos in wall.positions() for o, f in variants]
    safe: list[Action] = []
    losing: list[Action] = []
    for brick in state["bricks"]:
        bid = brick["id"]
        if bid == state["locked"]:
            continue
        into = losing if wall.collapse_if_removed(bid) else safe
        rest = wall.without(bid)
        here = origin(brick)
        for pos in rest.positions():
            if pos != here:
                into.extend(move_action(bid, pos, o, f) for o, f in variants)
    return safe + losing or [{"type": "resign"}]


# -- apply --------------------------------------------------------------------------


def _refuse(message: str, code: str = "illegal_action") -> IllegalAction:
    return IllegalAction(message, code)


def _read_placement(action: Action) -> tuple[int, int, str, int, str]:
    x = require_int(action, "x", -X_LIMIT, X_LIMIT)
    y = require_int(action, "y", 0, Y_LIMIT)
    d = require_str(action, "dir", DIRS)
    orange = require_int(action, "orange", 0, 1)
    face = require_str(action, "face", FACES)
    return x, y, d, orange, face


def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """Apply one action (docs/games/brix.md); IllegalAction and no change if refused."""
    kind = action_type(action)
    if kind not in ACTION_TYPES:
        raise _refuse(
            f"unknown action type {kind!r}; expected one of {', '.join(ACTION_TYPES)}",
            "bad_action",
        )
    extra = sorted(set(action) - FIELDS[kind])
    if extra:
        takes = ", ".join(repr(f) for f in sorted(FIELDS[kind] - {"type"})) or "no other field"
        raise _refuse(
            f"a {kind} action takes {takes}, not {', '.join(repr(f) for f in extra)}",
            "bad_action",
        )
    if state["result"] is not None:
        raise _refuse("the game is over", "not_your_turn")
    if seat not in (0, 1):
        raise _refuse(f"seat {seat} does not play in this game", "not_your_turn")
    if kind == "resign":
        return _finish(state, 1 - seat, "resign"), [{"type": "resign", "seat": seat}]
    if seat != state["to_act"]:
        raise _refuse(f"it is seat {state['to_act']}'s turn", "not_your_turn")
    if kind == "offer_draw":
        return _offer_draw(state, seat)
    if kind == "accept_draw":
        if state["draw_offer"] != 1 - seat:
            raise _refuse("there is no draw offer from your opponent to accept")
        new = _finish(state, None, "draw_agreed")
        return new, [{"type": "draw_agreed", "seat": seat}]
    if kind == "place":
        return _place(state, seat, action)
    return _move(state, seat, action)


def _offer_draw(state: State, seat: int) -> tuple[State, list[Event]]:
    if state["draw_offer"] == seat:
        raise _refuse("you already offer a draw; now place or move")
    if state["draw_offer"] is not None:
        raise _refuse("your opponent already offers a draw: send accept_draw to take it")
    new = dict(state)
    new["draw_offer"] = seat
    return new, [{"type": "draw_offered", "seat": seat}]


def _place(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """docs/games/brix.md "Placing": take a brick from the supply and put it on the wall."""
    x, y, d, orange, face = _read_placement(action)
    if state["supply"] == 0:
        raise _refuse("the supply is empty: move a brick of the wall instead (type 'move')")
    wall = Wall.from_bricks(state["bricks"])
    error = wall.placement_error(x, y, d)
    if error is not None:
        raise _refuse(error)
    bid = len(state["bricks"])
    brick = {"id": bid, "x": x, "y": y, "dir": d, "orange": orange, "face": face, "by": seat}
    wall.put(bid, x, y, d, orange, face)
    new = dict(state)
    new["bricks"] = [*state["bricks"], brick]
    new["supply"] = state["supply"] - 1
    last = {"seat": seat, "type": "place", "brick": bid, "from": None, "to": _pos_json(brick)}
    return _end_turn(new, seat, wall, brick, last, [])


def _move(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """docs/games/brix.md "Move phase": take one brick out and put it back elsewhere."""
    bid = require_int(action, "brick", 0)
    x, y, d, orange, face = _read_placement(action)
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
    new = dict(state)
    new["bricks"] = [*bricks[:bid], brick, *bricks[bid + 1 :]]
    new["moves"] = state["moves"] + 1
    last = {
        "seat": seat,
        "type": "move",
        "brick": bid,
        "from": _pos_json(old),
        "to": _pos_json(brick),
    }
    return _end_turn(new, seat, rest, brick, last, hanging)


def _pos_json(brick: dict[str, Any]) -> dict[str, Any]:
    return {
        "x": brick["x"],
        "y": brick["y"],
        "dir": brick["dir"],
        "orange": brick["orange"],
        "face": brick["face"],
    }


def _end_turn(
    new: State,
    seat: int,
    wall: Wall,
    brick: dict[str, Any],
    last: dict[str, Any],
    hanging: list[Cell],
) -> tuple[State, list[Event]]:
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
    return new, events


def _result(winner: int | None, reason: str) -> dict[str, Any]:
    if winner is None:
        return {"scores": [0, 0], "winners": [], "reason": reason}
    scores = [0, 0]
    scores[winner] = 1
    return {"scores": scores, "winners": [winner], "reason": reason}


def _finish(state: State, winner: int | None, reason: str) -> State:
    new = dict(state)
    new["result"] = _result(winner, reason)
    new["draw_offer"] = None
    return new


def _end(
    new: State, winner: int | None, reason: str, events: list[Event]
) -> tuple[State, list[Event]]:
    new["result"] = _result(winner, reason)
    new["draw_offer"] = None
    events.append({"type": "game_over", "result": new["result"]})
    return new, events


# -- view ---------------------------------------------------------------------------


def view(state: State, seat: int | None) -> View:
    """The public view (the same for every audience: the wall duel hides nothing but
    the bot's ``salt``).  Nothing in it is shared with the state."""
    cells: dict[str, Any] = {}
    bricks = []
    for b in state["bricks"]:
        pair = brick_cells(b["x"], b["y"], b["dir"])
        faces = cube_faces(b["orange"], b["face"])
        cubes = []
        for (cx, cy), (color, mark) in zip(pair, faces, strict=True):
            cells[f"{cx},{cy}"] = {"color": color, "mark": mark, "brick": b["id"]}
            cubes.append({"x": cx, "y": cy, "color": color, "mark": mark})
        bricks.append({**b, "cubes": cubes})
    xs = [b["x"] + (1 if b["dir"] == "h" else 0) for b in state["bricks"]]
    xs += [b["x"] for b in state["bricks"]]
    tops = [b["y"] + (1 if b["dir"] == "h" else 2) for b in state["bricks"]]
    return {
        "mode": state["mode"],
        "targets": copy.deepcopy(state["targets"]),
        "phase": phase(state),
        "to_act": None if state["result"] is not None else state["to_act"],
        "turn": state["turn"],
        "supply": state["supply"],
        "bricks_total": state["bricks_total"],
        "move_limit": state["move_limit"],
        "moves": state["moves"],
        "columns": [min(xs), max(xs)] if xs else None,
        "height": max(tops, default=0),
        "bricks": bricks,
        "cells": cells,
        "locked": state["locked"] if phase(state) == "move" else None,
        "draw_offer": state["draw_offer"],
        "last": copy.deepcopy(state["last"]),
        "lines": copy.deepcopy(state["lines"]),
        "result": copy.deepcopy(state["result"]),
    }
