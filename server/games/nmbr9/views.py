"""What 9-tower shows (docs/games/nmbr9.md): one public view for every audience."""

from __future__ import annotations

from tablehub.server.games.base import State, View
from tablehub.server.games.nmbr9.engine import current_card, remaining_counts, result
from tablehub.server.games.nmbr9.rules import ROUNDS


def view(state: State, seat: int | None) -> View:
    """The public view, the same for every audience (docs/games/nmbr9.md; ``public_view``).

    Tile dicts are shared with the state (never mutated by anyone), so a 1000-seat view
    costs one small dict per seat.
    """
    rnd = state["round"]
    return {
        "round": rnd,
        "rounds": ROUNDS,
        "card": current_card(state),
        "remaining": remaining_counts(state),
        "players": [
            {
                "tiles": p["tiles"],
                "score": p["score"],
                "resigned": p["resigned"],
                "placed": p["placed"] == rnd,
            }
            for p in state["players"]
        ],
        "finished": state["finished"],
        "winners": result(state)["winners"] if state["finished"] else None,
    }
