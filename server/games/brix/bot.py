"""The wall-duel bot levels (docs/games/brix.md): legal, never collapses, one ply of care.

Both levels share the order of preference below; ``strong`` checks the opponent's
replies to its best ``_CHECKS`` candidates (step 3), ``easy`` checks none and plays its
best candidate by the window heuristic.

Order of preference:

1. a placement or move that makes its own four in a line (the mover wins even when the
   opponent gets a line too);
2. never a move that makes only the opponent's line, never a collapsing move (unless
   nothing else is possible);
3. among the rest, by a window heuristic (own open windows of four grow, the
   opponent's are blocked, the opponent's are not helped), the best one after which
   the opponent has no winning reply.  At most ``_CHECKS`` candidates get the reply
   check, which keeps the bot well under 50 ms.

Deterministic: ties are broken by a jitter drawn from an ``Rng`` seeded with the
position and the table's ``salt`` (set from the seed by ``setup``).
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import Action, BotLevel, IllegalAction, State
from tablehub.server.games.brix.engine import (
    VARIANTS,
    legal,
    move_action,
    origin,
    place_action,
)
from tablehub.server.games.brix.wall import (
    LINE_DIRS,
    Cell,
    Pos,
    Wall,
    brick_cells,
    cube_faces,
)
from tablehub.server.games.rng import Rng

_GROW = (0, 0, 3, 14, 0)  # own window holding k of our values after the move
_HELP = (0, 0, 3, 18, 0)  # opponent window holding k of their values after the move
_BLOCK = (0, 0, 4, 24, 0)  # opponent window holding k of their values, now blocked
_FREEDOM = 6  # per brick (up to 3) the opponent may take without a collapse
_CHECKS = {"place": 400, "move": 140}
_NO_CHECKS = {"place": 0, "move": 0}

Candidate = tuple[int, int, Action, Wall, int, Pos, int, str]


def easy_action(state: State, seat: int) -> Action:
    """The best move by the window heuristic, without looking at the opponent's replies."""
    return _choose(state, seat, _NO_CHECKS, threats=False)


def strong_action(state: State, seat: int) -> Action:
    """The best move by the window heuristic after which the opponent cannot win at once."""
    return _choose(state, seat, _CHECKS, threats=True)


LEVELS = (
    BotLevel(
        "easy",
        "Easy",
        "Makes its own lines and blocks yours, but does not look at your replies "
        "(under 1 ms a move).",
        easy_action,
    ),
    BotLevel(
        "strong",
        "Strong",
        "Also checks that you cannot win with your next move (wins about 3 games in 4 "
        "against Easy, about 6 ms a move).",
        strong_action,
    ),
)


def _choose(state: State, seat: int, checks: dict[str, int], threats: bool) -> Action:
    if state["result"] is not None or seat != state["to_act"]:
        raise IllegalAction("this seat has nothing to do now", "not_your_turn")
    mine: list[str] = state["targets"][seat]
    theirs: list[str] = state["targets"][1 - seat]
    wall = Wall.from_bricks(state["bricks"])
    placing = state["supply"] > 0
    sources: list[tuple[int | None, Wall, Pos | None, dict[str, Any] | None]] = []
    if placing:
        sources.append((None, wall, None, None))
    else:
        for brick in state["bricks"]:
            bid = brick["id"]
            if bid != state["locked"] and not wall.collapse_if_removed(bid):
                sources.append((bid, wall.without(bid), origin(brick), brick))
        if not sources:
            # Every move collapses (nothing better) or none exists (resigning is all left).
            return next(iter(legal(state, seat)), {"type": "resign"})
    supply_after = state["supply"] - 1 if placing else 0
    limit = state["move_limit"]
    last_move = not placing and limit > 0 and state["moves"] + 1 >= limit
    # After the last placement and in the move phase, the opponent needs a brick they
    # may take without a collapse (docs/games/brix.md "Move phase").
    count_free = supply_after == 0 and not last_move
    jitter = Rng.from_seed(_fingerprint(state, seat))
    candidates: list[Candidate] = []
    losing: list[Action] = []
    for bid, rest, here, old in sources:
        scorer = _Scorer(rest, mine, theirs)
        removal = 0
        if old is not None:
            pair = brick_cells(*origin(old))
            faces = cube_faces(old["orange"], old["face"])
            removal = sum(scorer.cell(c, f) for c, f in zip(pair, faces, strict=True))
        free = _free_bricks(rest) if count_free else set()
        for pos in rest.positions():
            if pos == here:
                continue
            pair = brick_cells(*pos)
            opponent_free = free - _bricks_under(rest, pos)
            for orange, face in VARIANTS:
                faces = cube_faces(orange, face)
                action = (
                    place_action(pos, orange, face)
                    if bid is None
                    else move_action(bid, pos, orange, face)
                )
                own, other = _lines(rest, pair, faces, mine, theirs)
                if own:
                    return action
                if other:
                    losing.append(action)
                    continue
                if count_free and not opponent_free:
                    return action  # every move left to the opponent collapses the wall
                score = sum(scorer.cell(c, f) for c, f in zip(pair, faces, strict=True))
                score -= removal
                if count_free:
                    score += _FREEDOM * min(len(opponent_free), 3)
                score = 4 * score + jitter.below(4)
                new_id = len(state["bricks"]) if bid is None else bid
                candidates.append(
                    (-score, len(candidates), action, rest, new_id, pos, orange, face)
                )
    if not candidates:
        return losing[0]
    candidates.sort(key=lambda c: (c[0], c[1]))
    if last_move:
        return candidates[0][2]  # the move limit ends the game after this move
    best: tuple[int, Action] | None = None
    for _, _, action, rest, new_id, pos, orange, face in candidates[: checks[_phase(placing)]]:
        after = rest.copy()
        after.put(new_id, pos[0], pos[1], pos[2], orange, face)
        if _opponent_can_win(after, theirs, supply_after, new_id):
            continue
        if not threats:
            return action
        # Two cells where we would win next turn are hard to block with one brick.
        count = _threat_cells(after, mine, 2)
        if best is None or count > best[0]:
            best = (count, action)
        if count >= 2:
            break
    return candidates[0][2] if best is None else best[1]


def _free_bricks(wall: Wall) -> set[int]:
    """Bricks that can be taken out of this wall without a collapse."""
    return {bid for bid in wall.bricks if not wall.collapse_if_removed(bid)}


def _bricks_under(wall: Wall, pos: Pos) -> set[int]:
    """Bricks that a brick at ``pos`` would rest on (they stop being free)."""
    x, y, d = pos
    below = [(x, y - 1), (x + 1, y - 1)] if d == "h" else [(x, y - 1)]
    return {wall.occ[c][0] for c in below if c in wall.occ}


def _fingerprint(state: State, seat: int) -> int:
    """A number that varies with the position (seeds the tie-break jitter)."""
    value: int = state["salt"] + state["turn"] * 1_000_003 + seat
    for b in state["bricks"]:
        shape = b["orange"] * 4 + (b["face"] == "xo") * 2 + (b["dir"] == "h")
        value = value * 31 + b["x"] * 17 + b["y"] * 8 + shape
        value &= (1 << 62) - 1
    return value


def _phase(placing: bool) -> str:
    return "place" if placing else "move"


def _lines(
    rest: Wall,
    pair: tuple[Cell, Cell],
    faces: tuple[tuple[str, str], tuple[str, str]],
    mine: list[str],
    theirs: list[str],
) -> tuple[bool, bool]:
    """Would these cubes make a line for us / for the opponent?  (The brick's two cubes
    differ in every value, so neither can extend the other's run.)"""
    own = other = False
    for cell, (color, mark) in zip(pair, faces, strict=True):
        for value in (color, mark):
            if value in mine and not own:
                own = rest.completes(cell, value)
            elif value in theirs and not other:
                other = rest.completes(cell, value)
    return own, other


def _opponent_can_win(wall: Wall, theirs: list[str], supply: int, locked: int) -> bool:
    """Does the opponent have a winning reply on this wall (docs/games/brix.md "Winning")?"""
    if supply > 0:
        return _threat_reachable(wall, theirs, None)
    for bid, pos in wall.bricks.items():
        if bid == locked or wall.collapse_if_removed(bid):
            continue
        if _threat_reachable(wall.without(bid), theirs, pos):
            return True
    return False


def _threat_cells(wall: Wall, values: list[str], enough: int) -> int:
    """How many cells (up to ``enough``) one legal placement could fill to make four of
    ``values``."""
    seen: set[Cell] = set()
    found = 0
    for pos in wall.positions():
        for cell in brick_cells(*pos):
            if cell in seen:
                continue
            seen.add(cell)
            if any(wall.completes(cell, v) for v in values):
                found += 1
                if found >= enough:
                    return found
    return found


def _threat_reachable(wall: Wall, values: list[str], exclude: Pos | None) -> bool:
    """Can one legal placement put a cube of ``values`` where it makes four?  Any one
    cube of a brick can show any colour with any symbol (four face variants)."""
    seen: set[Cell] = set()
    for pos in wall.positions():
        if pos == exclude:
            continue
        for cell in brick_cells(*pos):
            if cell in seen:
                continue
            seen.add(cell)
            if any(wall.completes(cell, v) for v in values):
                return True
    return False


class _Scorer:
    """Window heuristic on one wall (cached per cell and value)."""

    def __init__(self, wall: Wall, mine: list[str], theirs: list[str]) -> None:
        self.wall = wall
        self.mine = mine
        self.theirs = theirs
        self._cache: dict[tuple[Cell, str], list[int]] = {}

    def windows(self, cell: Cell, value: str) -> list[int]:
        """For each window of four through ``cell`` whose other cells are ``value`` or
        empty (and above ground): how many of them hold ``value``."""
        key = (cell, value)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        occ = self.wall.occ
        cx, cy = cell
        out: list[int] = []
        for dx, dy in LINE_DIRS:
            for start in range(-3, 1):
                count = 0
                for i in range(start, start + 4):
                    if i == 0:
                        continue
                    x, y = cx + i * dx, cy + i * dy
                    if y < 0:
                        count = -1
                        break
                    data = occ.get((x, y))
                    if data is None:
                        continue
                    if data[1] != value and data[2] != value:
                        count = -1
                        break
                    count += 1
                if count >= 0:
                    out.append(count)
        self._cache[key] = out
        return out

    def cell(self, cell: Cell, face: tuple[str, str]) -> int:
        """Score of a cube showing ``face`` (colour, symbol) at the empty ``cell``."""
        score = 0
        for value in self.mine:
            if value in face:
                score += sum(_GROW[k + 1] for k in self.windows(cell, value))
        for value in self.theirs:
            if value in face:
                score -= sum(_HELP[k + 1] for k in self.windows(cell, value))
            else:
                score += sum(_BLOCK[k] for k in self.windows(cell, value))
        return score
