"""What each audience sees (docs/games/completto.md "Hidden information").

A face-down tile's number is known to nobody, its owner included, so every seat and
every spectator get the same facts; only ``you`` differs.  Face-down tiles appear as
``null`` in rows and as a bare count in the pool.  The tiles that are face up -- row
tiles, face-up pool tiles, the tile in hand, each seat's setup tile being inserted --
are public.  Nothing in a view depends on *which* hidden number lies where: permuting
the hidden numbers leaves every view unchanged (the tests check exactly that).

The all-seeing view (:func:`reveal`, a finished game's replay only) is the spectators'
view with ``revealed``: each row's face-down tiles, left to right, and the tiles face
down in the pool.
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import State, View
from tablehub.server.games.completto.engine import idle_limit, to_act, totals
from tablehub.server.games.completto.rules import face_down_count, placements
from tablehub.server.games.completto.tiles import readings


def _tile(tile: int) -> dict[str, Any]:
    return {"tile": tile, "readings": readings(tile)}


def view(state: State, seat: int | None) -> View:
    players = []
    penalty = totals(state)
    for s in range(state["seats"]):
        row = state["rows"][s]
        setup_left = state["setup_tiles"][s]
        players.append(
            {
                "row": [cell["n"] for cell in row],
                "face_down": face_down_count(row),
                "setup_tile": _tile(setup_left[0]) if setup_left else None,
                "setup_left": len(setup_left),
                "resigned": state["resigned"][s],
                "penalty": penalty[s],
            }
        )
    hand = state["hand"]
    hand_view = None
    if hand is not None:
        hand_view = {
            **_tile(hand["tile"]),
            "source": hand["source"],
            "fits": bool(placements(state["rows"][state["current"]], hand["tile"])),
        }
    history = [
        {"round": i + 1, "winner": winner, "penalties": list(penalties)}
        for i, (winner, penalties) in enumerate(
            zip(state["round_winners"], state["penalties"], strict=True)
        )
    ]
    return {
        "phase": state["phase"],
        "round": state["round"],
        "rounds": state["rounds"],
        "you": seat,
        "start": state["start"],
        "current": state["current"],
        "to_act": to_act(state),
        "bonus": state["bonus"],
        "players": players,
        "pool": {
            "face_down": len(state["pool"]),
            "face_up": [_tile(t) for t in state["pool_up"]],
        },
        "hand": hand_view,
        "idle_turns": state.get("idle", 0),
        "idle_limit": idle_limit(state),
        "history": history,
        "result": state["result"],
    }


def _tile_words(tile: int) -> str:
    return " or ".join(str(n) for n in readings(tile))


def reveal(state: State) -> View:
    """Everything in ``state`` a player may see once the game is over (not the RNG)."""
    out = view(state, None)
    revealed: list[dict[str, Any]] = []
    for seat, row in enumerate(state["rows"]):
        down = [
            f"position {pos} holds {_tile_words(cell['tile'])}"
            for pos, cell in enumerate(row, start=1)
            if cell["n"] is None
        ]
        revealed.append({"seat": seat, "what": "face-down tiles", "items": down})
    pool = [_tile_words(tile) for tile in sorted(state["pool"])]
    revealed.append({"seat": None, "what": "Face-down tiles in the pool", "items": pool})
    out["revealed"] = revealed
    return out
