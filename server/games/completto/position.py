"""Build a play-phase position from a short description (for tests and tools).

``position([[None, 14, None, None, 33, ...], ...])`` gives a state in which seat ``s``'s
row shows those face-up numbers (``None`` = face down).  A face-up entry is a number
(the tile printed with it) or ``{"tile": 89, "n": 68}`` for a tile read upside down.
The face-down cells and the face-down pool get the remaining tiles, shuffled with
``seed``; ``pool_up`` and ``hand`` take the tiles named.
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import State
from tablehub.server.games.completto.rules import Cell
from tablehub.server.games.completto.tiles import ALL_TILES, readings
from tablehub.server.games.rng import Rng


def _cell(entry: Any) -> Cell | None:
    if entry is None:
        return None
    if isinstance(entry, dict):
        if entry["n"] not in readings(entry["tile"]):
            raise ValueError(f"tile {entry['tile']} cannot read as {entry['n']}")
        return {"tile": entry["tile"], "n": entry["n"]}
    return {"tile": int(entry), "n": int(entry)}


def position(
    rows: list[list[Any]],
    *,
    current: int = 0,
    pool_up: list[int] | None = None,
    hand: int | None = None,
    hand_source: str = "pool",
    seed: int = 0,
    rounds: int = 1,
    round_number: int = 1,
    penalties: list[list[int]] | None = None,
    round_winners: list[int] | None = None,
    start: int = 0,
) -> State:
    """A consistent play-phase state with exactly these public facts."""
    used: set[int] = set()
    skeleton: list[list[Cell | None]] = []
    for row in rows:
        cells = [_cell(entry) for entry in row]
        numbers = [c["n"] for c in cells if c is not None]
        if numbers != sorted(numbers) or len(set(numbers)) != len(numbers):
            raise ValueError(f"face-up numbers must ascend: {numbers}")
        for c in cells:
            if c is not None:
                if c["tile"] in used:
                    raise ValueError(f"tile {c['tile']} used twice")
                used.add(c["tile"])
        skeleton.append(cells)
    extra = [*(pool_up or []), *([hand] if hand is not None else [])]
    for tile in extra:
        if tile in used:
            raise ValueError(f"tile {tile} used twice")
        used.add(tile)
    rng = Rng.from_seed(seed)
    hidden = rng.shuffled([t for t in ALL_TILES if t not in used])
    filled: list[list[Cell]] = []
    for cells in skeleton:
        row_out: list[Cell] = []
        for c in cells:
            if c is None:
                row_out.append({"tile": hidden.pop(), "n": None})
            else:
                row_out.append(c)
        filled.append(row_out)
    seats = len(rows)
    return {
        "seats": seats,
        "rounds": rounds,
        "round": round_number,
        "rng": rng.state,
        "phase": "play",
        "rows": filled,
        "setup_tiles": [[] for _ in range(seats)],
        "pool": hidden,
        "pool_up": sorted(pool_up or []),
        "hand": None if hand is None else {"tile": hand, "source": hand_source},
        "start": start,
        "current": current,
        "bonus": False,
        "turn": 0,
        "resigned": [False] * seats,
        "penalties": [list(p) for p in penalties or []],
        "round_winners": list(round_winners or []),
        "idle": 0,
        "result": None,
    }
