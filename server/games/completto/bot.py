"""The number-row bot levels (docs/games/completto.md): sensible and deterministic.

``strong`` plays as described below.  ``easy`` keeps its row feasible and balanced the
same way but does not look for bonus turns: it turns up a face-down pool tile while
there is one and never moves its own face-down tiles while the pool lasts.

Theory of operation.  The face-up numbers of a row split it into *gaps*: between face-up
``a`` (index ``ia``) and face-up ``b`` (index ``ib``) lie ``k`` face-down slots that must
one day hold ``k`` numbers from ``a+1 .. b-1``.  A number is *available* while some tile
that can read as it is not fixed face up in a row.  The bot keeps every gap feasible
(``k <= available``) and the face-down slots spread in proportion to the available
numbers:

* placing a number ``n`` in a gap splits it in two; the bot picks the slot that keeps
  both halves feasible, prefers a bonus (``n-1`` left or ``n+1`` right), then the slot
  whose left share of the remaining slots is closest to ``available(a, n) /
  available(a, b)``;
* on its turn it takes a face-up pool tile when that gives a bonus or fits (almost)
  perfectly, else moves a face-down tile out of an over-full gap into the roomiest
  one, else turns up a face-down pool tile; with the face-down pool empty it moves a
  face-down tile into the gap where a face-up pool tile would fit, to take it next.

Every choice is a minimum over sortable keys, so the bot is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablehub.server.games.base import Action, BotLevel, State
from tablehub.server.games.completto.engine import legal
from tablehub.server.games.completto.rules import Row, insertions, placements
from tablehub.server.games.completto.tiles import readings, tiles_reading

GOOD_FIT = 0.5
"""A face-up pool tile is worth taking when its best slot is this close to ideal."""


@dataclass(frozen=True)
class Gap:
    left_idx: int
    left: int
    right_idx: int
    right: int
    slots: tuple[int, ...]


class Availability:
    """How many numbers strictly between two values can still come to a row."""

    def __init__(self, state: State) -> None:
        fixed = {cell["tile"] for row in state["rows"] for cell in row if cell["n"] is not None}
        prefix = [0] * 102
        for value in range(1, 102):
            free = value <= 100 and any(t not in fixed for t in tiles_reading(value))
            prefix[value] = prefix[value - 1] + (1 if free else 0)
        self._prefix = prefix

    def between(self, low: int, high: int) -> int:
        if high - low <= 1:
            return 0
        return self._prefix[high - 1] - self._prefix[low]


def gaps(row: Row) -> list[Gap]:
    """The gaps between consecutive face-up numbers (0 and 101 bound the row)."""
    out: list[Gap] = []
    left_idx, left = -1, 0
    slots: list[int] = []
    for idx, cell in enumerate(row):
        if cell["n"] is None:
            slots.append(idx)
            continue
        out.append(Gap(left_idx, left, idx, cell["n"], tuple(slots)))
        left_idx, left, slots = idx, cell["n"], []
    out.append(Gap(left_idx, left, len(row), 101, tuple(slots)))
    return out


def _split_key(
    avail: Availability, left: int, right: int, number: int, k_left: int, k_right: int
) -> tuple[int, float]:
    """(over-full slots, distance from the proportional split) for ``number`` in a gap
    ``left..right`` leaving ``k_left`` slots on its left and ``k_right`` on its right."""
    av_left = avail.between(left, number)
    av_right = avail.between(number, right)
    overflow = max(0, k_left - av_left) + max(0, k_right - av_right)
    remaining = k_left + k_right
    share = av_left / (av_left + av_right) if av_left + av_right else 0.5
    return overflow, abs(k_left - remaining * share)


def _bounds(row: Row, pos: int, inclusive_right: bool) -> tuple[int, int, int, int]:
    """Face-up neighbours of ``pos``: (left index, left value, right index, right value)."""
    left_idx, left = -1, 0
    for i in range(pos - 1, -1, -1):
        if row[i]["n"] is not None:
            left_idx, left = i, row[i]["n"]
            break
    right_idx, right = len(row), 101
    for i in range(pos if inclusive_right else pos + 1, len(row)):
        if row[i]["n"] is not None:
            right_idx, right = i, row[i]["n"]
            break
    return left_idx, left, right_idx, right


def _face_down_between(row: Row, lo: int, hi: int) -> int:
    return sum(1 for i in range(max(lo, 0), min(hi, len(row))) if row[i]["n"] is None)


def place_key(
    row: Row, avail: Availability, pos: int, number: int, seek_bonus: bool = True
) -> tuple[int, int, float, int, int]:
    """Sort key of replacing the face-down tile at ``pos`` by ``number`` (lower is better);
    without ``seek_bonus`` a bonus turn is not preferred."""
    left_idx, left, right_idx, right = _bounds(row, pos, inclusive_right=False)
    k_left = _face_down_between(row, left_idx + 1, pos)
    k_right = _face_down_between(row, pos + 1, right_idx)
    overflow, error = _split_key(avail, left, right, number, k_left, k_right)
    bonus = seek_bonus and (
        (pos > 0 and row[pos - 1]["n"] == number - 1)
        or (pos + 1 < len(row) and row[pos + 1]["n"] == number + 1)
    )
    return overflow, 0 if bonus else 1, error, pos, number


def insert_key(row: Row, avail: Availability, pos: int, number: int) -> tuple[int, float, int, int]:
    """Sort key of inserting ``number`` before index ``pos`` during setup."""
    left_idx, left, right_idx, right = _bounds(row, pos, inclusive_right=True)
    k_left = _face_down_between(row, left_idx + 1, pos)
    k_right = _face_down_between(row, pos, right_idx)
    overflow, error = _split_key(avail, left, right, number, k_left, k_right)
    return overflow, error, pos, number


def easy_action(state: State, seat: int) -> Action:
    """The easy level's legal action for ``seat``, which must act now."""
    return _choose(state, seat, careful=False)


def strong_action(state: State, seat: int) -> Action:
    """The strong level's legal action for ``seat``, which must act now."""
    return _choose(state, seat, careful=True)


LEVELS = (
    BotLevel(
        "easy",
        "Easy",
        "Keeps its row in order, but always draws from the pool and does not look for bonus "
        "turns (under 1 ms a move).",
        easy_action,
    ),
    BotLevel(
        "strong",
        "Strong",
        "Keeps its row in order, hunts for bonus turns and takes useful face-up tiles "
        "from the pool (wins about 3 games in 4 against Easy, under 1 ms a move).",
        strong_action,
    ),
)


def _choose(state: State, seat: int, careful: bool) -> Action:
    avail = Availability(state)
    row = state["rows"][seat]
    if state["phase"] == "setup":
        tile = state["setup_tiles"][seat][0]
        pos, number = min(insertions(row, tile), key=lambda s: insert_key(row, avail, *s))
        return {"type": "insert", "pos": pos, "reading": number}
    hand = state["hand"]
    if hand is not None:
        spots = placements(row, hand["tile"])
        if not spots:
            return {"type": "discard"}
        pos, number = min(spots, key=lambda s: place_key(row, avail, s[0], s[1], careful))
        return {"type": "place", "pos": pos, "reading": number}
    return _choose_turn(state, seat, row, avail, careful)


def _choose_turn(state: State, seat: int, row: Row, avail: Availability, careful: bool) -> Action:
    best_up: tuple[tuple[int, int, float, int, int], int] | None = None
    for tile in state["pool_up"]:
        for pos, number in placements(row, tile):
            key = place_key(row, avail, pos, number, seek_bonus=careful)
            if best_up is None or key < best_up[0]:
                best_up = (key, tile)
    if best_up is not None:
        (overflow, no_bonus, error, _, _), tile = best_up
        if overflow == 0 and (no_bonus == 0 or (careful and error <= GOOD_FIT)):
            return {"type": "take", "source": "faceup", "number": tile}
    rebalance = _rebalance_move(row, avail) if careful else None
    if rebalance is not None:
        return rebalance
    if state["pool"]:
        return {"type": "take", "source": "pool"}
    if best_up is not None:
        return {"type": "take", "source": "faceup", "number": best_up[1]}
    fetch = _fetch_move(row, avail, state["pool_up"])
    if fetch is not None:
        return fetch
    return legal(state, seat)[0]


def _move_into(row: Row, src: int, target: Gap) -> Action:
    """Move the face-down tile at ``src`` to just right of ``target``'s left number."""
    left_idx = target.left_idx - 1 if target.left_idx > src else target.left_idx
    return {"type": "move", "from": src, "to": left_idx + 1}


def _rebalance_move(row: Row, avail: Availability) -> Action | None:
    """Move a face-down tile out of the most over-full gap into the roomiest gap."""
    all_gaps = gaps(row)
    excess = [
        (len(g.slots) - avail.between(g.left, g.right), -i, g) for i, g in enumerate(all_gaps)
    ]
    over = [e for e in excess if e[0] > 0]
    if not over:
        return None
    source = max(over)[2]
    room = [
        (avail.between(g.left, g.right) - len(g.slots), -i, g)
        for i, g in enumerate(all_gaps)
        if g is not source and avail.between(g.left, g.right) - len(g.slots) >= 1
    ]
    if not room:
        return None
    target = max(room)[2]
    return _move_into(row, source.slots[0], target)


def _fetch_move(row: Row, avail: Availability, pool_up: list[int]) -> Action | None:
    """Open a slot in the gap where a face-up pool tile would fit, taken from the gap
    that needs its slots least."""
    all_gaps = gaps(row)
    donors = [
        (len(g.slots) - avail.between(g.left, g.right), -i, g)
        for i, g in enumerate(all_gaps)
        if g.slots
    ]
    if not donors:
        return None
    for tile in pool_up:
        for number in readings(tile):
            for g in all_gaps:
                if g.left < number < g.right and not g.slots:
                    source = max(donors)[2]
                    return _move_into(row, source.slots[0], g)
    return None
