"""What the wall duel shows (docs/games/brix.md): one public view for every audience.

View::

    {"mode", "targets", "phase": "place" | "move" | "finished", "to_act": seat | None,
     "turn", "supply", "bricks_total", "move_limit", "moves",
     "columns": [min_x, max_x] | None, "height": rows in use,
     "bricks": [{"id", "x", "y", "dir", "orange", "face", "by",
                 "cubes": [{"x", "y", "color", "mark"}, ...]}, ...],
     "cells": {"x,y": {"color", "mark", "brick"}},
     "locked": brick id that may not be taken now (move phase) | None,
     "draw_offer": seat | None, "last": {"seat", "type", "brick", "from", "to"
     [, "collapse": [[x, y], ...]]} | None, "lines": [...], "result": ... | None}
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import State, View, clone
from tablehub.server.games.brix.engine import phase
from tablehub.server.games.brix.wall import brick_cells, cube_faces


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
        "targets": clone(state["targets"]),
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
        "last": clone(state["last"]),
        "lines": clone(state["lines"]),
        "result": clone(state["result"]),
    }
