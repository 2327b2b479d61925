"""9-tower's ``legal`` list is compressed by design (docs/games/nmbr9.md): read by
``tests/server/games/test_legal_exact.py``, which counts an accepted action as listed
when its :func:`alias` is listed."""

from __future__ import annotations

from tablehub.server.games.base import Action, State
from tablehub.server.games.nmbr9.engine import current_card
from tablehub.server.games.nmbr9.shapes import canonical_rotation


def alias(state: State, action: Action) -> Action:
    """The listed form of a 9-tower placement: the canonical rotation, and (0, 0) for a
    first tile (an empty layout accepts any offset; the offset changes nothing)."""
    if action.get("type") != "place" or not isinstance(action.get("rot"), int):
        return action
    out = dict(action)
    if 0 <= out["rot"] <= 3:
        out["rot"] = canonical_rotation(current_card(state), out["rot"])
    seat = state.get("_seat", 0)
    if not state["players"][seat]["tiles"]:
        out["x"], out["y"] = 0, 0
    return out
