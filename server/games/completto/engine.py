"""Number row engine: setup, turn flow, rounds and scoring (docs/games/completto.md).

Theory of operation.  The state is plain data::

    rows          per seat, a list of cells {"tile": t, "n": reading or None (face down)}
    setup_tiles   per seat, the setup tiles still to insert; the first one is face up
    pool          face-down pool (hidden; a draw picks a random index with the Rng, so
                  a tile put back is as good as shuffled in)
    pool_up       face-up tiles lying in the pool (public), ascending
    hand          None or {"tile": t, "source": "pool" | "faceup"}: the tile the current
                  player has just turned up and must now place (or discard)
    current       whose turn it is during play; ``bonus`` marks a bonus turn
    penalties     per finished round, per seat, the face-down tiles left in the row
    idle          turns in a row with no progress (docs/games/completto.md "No progress")

A turn is either ``take`` followed by ``place``/``discard`` of that tile, or one
``move``.  Setup is simultaneous: every seat inserts its five setup tiles with
``insert``.  ``turn`` counts changes of who must act (a bonus turn counts too, since it
starts a new deadline).  Only ``rows``' face-up readings, ``pool_up``, ``hand`` and the
first setup tile of each seat are public; see ``views.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablehub.server.games.base import (
    Action,
    Event,
    IllegalAction,
    Move,
    State,
    Status,
    check_fields,
    clone,
    require_int,
    require_str,
)
from tablehub.server.games.completto.rules import (
    Row,
    complete,
    face_down_count,
    gives_bonus,
    insert_problem,
    insertions,
    place_problem,
    placements,
)
from tablehub.server.games.completto.tiles import (
    ALL_TILES,
    FACE_DOWN_DEAL,
    ROW_LENGTH,
    SETUP_TILES,
    readings,
)
from tablehub.server.games.rng import Rng

MAX_ROUNDS = 10
IDLE_TURNS_PER_PLAYER = 5
"""docs/games/completto.md "No progress": the round ends after this many turns per
active player in a row without a tile drawn from the face-down pool or placed face up."""


# --------------------------------------------------------------------------- setup


def setup(options: dict[str, Any], seats: int, seed: int) -> State:
    """A new game (options validated by the base): deal round 1 (docs/games/completto.md
    "Setup")."""
    rounds = options["rounds"]
    rng = Rng.from_seed(seed)
    state: State = {
        "seats": seats,
        "rounds": rounds,
        "round": 1,
        "rng": rng.state,
        "phase": "setup",
        "rows": [],
        "setup_tiles": [],
        "pool": [],
        "pool_up": [],
        "hand": None,
        "start": 0,
        "current": None,
        "bonus": False,
        "turn": 0,
        "resigned": [False] * seats,
        "penalties": [],
        "round_winners": [],
        "idle": 0,
        "result": None,
    }
    _deal(state, start=rng.below(seats))
    return state


def _deal(state: State, start: int) -> None:
    """Deal a round into ``state`` (a private copy): 17 face-down tiles in each active
    row, 5 setup tiles each, the rest face down in the pool; the start player (the
    next active seat from ``start``) is fixed now and acts once setup is done."""
    rng = Rng(state["rng"])
    deck = rng.shuffled(ALL_TILES)
    state["rng"] = rng.state
    rows: list[Row] = []
    setup_tiles: list[list[int]] = []
    for seat in range(state["seats"]):
        if state["resigned"][seat]:
            rows.append([])
            setup_tiles.append([])
            continue
        hand, deck = deck[: FACE_DOWN_DEAL + SETUP_TILES], deck[FACE_DOWN_DEAL + SETUP_TILES :]
        rows.append([{"tile": tile, "n": None} for tile in hand[:FACE_DOWN_DEAL]])
        setup_tiles.append(hand[FACE_DOWN_DEAL:])
    state["rows"] = rows
    state["setup_tiles"] = setup_tiles
    state["pool"] = deck
    state["pool_up"] = []
    state["hand"] = None
    state["phase"] = "setup"
    state["current"] = None
    state["bonus"] = False
    state["idle"] = 0
    state["start"] = _active_from(state, start)


def _fork(state: State) -> State:
    """A copy of ``state`` whose rows and lists may be changed freely (cells are never
    mutated in place, only replaced, so they are shared)."""
    new: State = clone(state, 3)
    return new


def _active_from(state: State, seat: int) -> int:
    """``seat`` itself or the next seat clockwise that has not resigned."""
    seats: int = state["seats"]
    for step in range(seats):
        candidate = (seat + step) % seats
        if not state["resigned"][candidate]:
            return candidate
    return seat  # every seat resigned: cannot happen, the game ends at one left


def active_seats(state: State) -> list[int]:
    return [seat for seat in range(state["seats"]) if not state["resigned"][seat]]


# --------------------------------------------------------------------------- status


def to_act(state: State) -> list[int]:
    if state["phase"] == "setup":
        return [s for s in active_seats(state) if state["setup_tiles"][s]]
    if state["phase"] == "play":
        return [state["current"]]
    return []


class NumberRowStatus(Status):
    """The common status plus the round and whether this turn is a bonus turn."""

    round: int
    bonus: bool


def status(state: State) -> NumberRowStatus:
    return {
        "phase": state["phase"],
        "to_act": to_act(state),
        "turn": state["turn"],
        "finished": state["phase"] == "finished",
        "result": state["result"],
        "round": state["round"],
        "bonus": state["bonus"],
    }


# --------------------------------------------------------------------------- legal


def legal(state: State, seat: int) -> list[Action]:
    """Every legal action of a seat that must act now (``resign`` is never listed)."""
    row = state["rows"][seat]
    if state["phase"] == "setup":
        tile = state["setup_tiles"][seat][0]
        return [{"type": "insert", "pos": p, "reading": n} for p, n in insertions(row, tile)]
    hand = state["hand"]
    if hand is not None:
        spots = placements(row, hand["tile"])
        if not spots:
            return [{"type": "discard"}]
        return [{"type": "place", "pos": p, "reading": n} for p, n in spots]
    actions: list[Action] = []
    if state["pool"]:
        actions.append({"type": "take", "source": "pool"})
    for number in _faceup_numbers(state["pool_up"]):
        actions.append({"type": "take", "source": "faceup", "number": number})
    for src, cell in enumerate(row):
        if cell["n"] is None:
            for dst in range(len(row)):
                if dst != src:
                    actions.append({"type": "move", "from": src, "to": dst})
    return actions


def _faceup_numbers(pool_up: list[int]) -> list[int]:
    """The numbers a face-up pool tile may be asked for by: each tile's own number, and
    the other reading of a 16/91-style tile unless a tile of that number lies there too
    (then the number names that tile)."""
    lying = set(pool_up)
    out = {n for tile in pool_up for n in readings(tile) if n == tile or n not in lying}
    return sorted(out)


# --------------------------------------------------------------------------- apply


def waiting(state: State, seat: int) -> str:
    """Why a seat not in ``to_act`` must wait, in words."""
    if state["phase"] == "setup":
        return "your five setup tiles are in your row; wait for the others"
    return f"it is seat {state['current'] + 1}'s turn"


def _insert(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """``insert``: only during setup."""
    check_fields("insert", action, {"pos", "reading"})
    if state["phase"] != "setup":
        raise IllegalAction(
            "setup is over: insert is only for the five setup tiles", "illegal_action"
        )
    return _apply_setup(state, seat, action)


def _turn(kind: str, fields: set[str], move: Move) -> Move:
    """A turn action (take, place, discard, move): refused during setup."""

    def checked(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        check_fields(kind, action, fields)
        if state["phase"] == "setup":
            raise IllegalAction(
                f"during setup insert your face-up tile {state['setup_tiles'][seat][0]} "
                "into your row first",
                "illegal_action",
            )
        return move(state, seat, action)

    return checked


def _apply_setup(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """docs/games/completto.md "Setup": insert the face-up setup tile anywhere the face-up numbers
    ascend.  [house] Setup insertions never earn a bonus turn: the seed's bonus rule
    belongs to the turn actions, and setup is played by everyone at once."""
    tiles = state["setup_tiles"][seat]
    row = state["rows"][seat]
    tile = tiles[0]
    pos = require_int(action, "pos", 0, len(row))
    reading = _reading(action, tile, lambda n: insert_problem(row, pos, n))
    problem = insert_problem(row, pos, reading)
    if problem is not None:
        raise IllegalAction(problem, "illegal_action")
    new = _fork(state)
    new_row = new["rows"][seat]
    new_row.insert(pos, {"tile": tile, "n": reading})
    rest = new["setup_tiles"][seat]
    rest.pop(0)
    events: list[Event] = [
        {"type": "insert", "seat": seat, "pos": pos, "number": reading, "tile": tile}
    ]
    if rest:
        events.append({"type": "reveal", "seat": seat, "tile": rest[0]})
    else:
        new["turn"] += 1
        _maybe_start_play(new, events)
    return new, events


def _maybe_start_play(state: State, events: list[Event]) -> None:
    """When every active seat has inserted its setup tiles, play begins."""
    if state["phase"] != "setup" or to_act(state):
        return
    state["phase"] = "play"
    state["current"] = _active_from(state, state["start"])
    state["bonus"] = False
    events.append({"type": "turn", "seat": state["current"], "bonus": False})


def _reading(action: Action, tile: int, problem_at: Callable[[int], str | None]) -> int:
    """The reading the action asks for; when it gives none, the only reading of
    ``tile`` that would be legal here (a plain tile has just one)."""
    options = readings(tile)
    if "reading" in action:
        reading = require_int(action, "reading", 1, 100)
        if reading not in options:
            raise IllegalAction(
                f"tile {tile} cannot be read as {reading}; it reads "
                + " or ".join(str(n) for n in options),
                "illegal_action",
            )
        return reading
    if len(options) == 1:
        return options[0]
    fitting = [n for n in options if problem_at(n) is None]
    if len(fitting) == 1:
        return fitting[0]
    if not fitting:
        return tile
    raise IllegalAction(
        f"tile {tile} fits here as {options[0]} or {options[1]}: say which with 'reading'",
        "illegal_action",
    )


def _take(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """docs/games/completto.md "Take and place", first half: turn up a random face-down pool tile or
    take a face-up pool tile.  Everyone sees the number."""
    if state["hand"] is not None:
        raise IllegalAction(
            f"you already hold {state['hand']['tile']}: place it (or discard it if it fits "
            "nowhere)",
            "illegal_action",
        )
    source = require_str(action, "source", ("pool", "faceup"))
    new = _fork(state)
    if source == "pool":
        if "number" in action:
            raise IllegalAction(
                "a face-down pool tile is drawn at random: leave out 'number'", "bad_action"
            )
        if not new["pool"]:
            raise IllegalAction(
                "the face-down pool is empty: take a face-up tile or move", "illegal_action"
            )
        rng = Rng(new["rng"])
        tile = new["pool"].pop(rng.below(len(new["pool"])))
        new["rng"] = rng.state
        new["idle"] = 0  # progress: the face-down pool shrinks
    else:
        number = require_int(action, "number", 1, 100)
        matches = [t for t in new["pool_up"] if number in readings(t)]
        if not matches:
            lying = ", ".join(str(t) for t in new["pool_up"]) or "none"
            raise IllegalAction(
                f"no face-up {number} lies in the pool (face up there: {lying})",
                "illegal_action",
            )
        tile = number if number in matches else matches[0]
        new["pool_up"].remove(tile)
    new["hand"] = {"tile": tile, "source": source}
    fits = bool(placements(new["rows"][seat], tile))
    event = {
        "type": "take",
        "seat": seat,
        "source": source,
        "tile": tile,
        "readings": readings(tile),
        "fits": fits,
    }
    return new, [event]


def _place(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """docs/games/completto.md "Take and place", second half: the tile in hand replaces a face-down
    tile where the face-up numbers still ascend; the replaced tile goes face down into
    the pool.  Then the bonus turn or round end is settled."""
    hand = state["hand"]
    if hand is None:
        raise IllegalAction(
            "take a tile first (from the face-down pool or a face-up one)", "illegal_action"
        )
    row = state["rows"][seat]
    tile = hand["tile"]
    pos = require_int(action, "pos", 0, len(row) - 1)
    reading = _reading(action, tile, lambda n: place_problem(row, pos, n))
    problem = place_problem(row, pos, reading)
    if problem is not None:
        raise IllegalAction(problem, "illegal_action")
    new = _fork(state)
    new_row = new["rows"][seat]
    replaced = new_row[pos]["tile"]
    new_row[pos] = {"tile": tile, "n": reading}
    new["pool"].append(replaced)
    new["hand"] = None
    new["idle"] = 0
    bonus = gives_bonus(new_row, pos)
    events: list[Event] = [
        {
            "type": "place",
            "seat": seat,
            "pos": pos,
            "number": reading,
            "tile": tile,
            "bonus": bonus,
        }
    ]
    if complete(new_row):
        _end_round(new, seat, events)
    elif bonus:
        new["bonus"] = True
        new["turn"] += 1
        events.append({"type": "turn", "seat": seat, "bonus": True})
    else:
        _pass_turn(new, events)
    return new, events


def _discard(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """docs/games/completto.md: a tile that fits nowhere (under either reading) goes face up into
    the pool.  A tile that fits somewhere must be placed."""
    hand = state["hand"]
    if hand is None:
        raise IllegalAction("you hold no tile to discard; take one first", "illegal_action")
    tile = hand["tile"]
    spots = placements(state["rows"][seat], tile)
    if spots:
        raise IllegalAction(
            f"{tile} fits in your row ({_describe_spots(spots)}): a tile that fits must be placed",
            "illegal_action",
        )
    new = _fork(state)
    new["pool_up"] = sorted([*new["pool_up"], tile])
    new["hand"] = None
    events: list[Event] = [{"type": "discard", "seat": seat, "tile": tile}]
    if hand["source"] == "faceup":
        _idle_turn(new, events)  # the tile went back where it lay
    else:
        _pass_turn(new, events)
    return new, events


def _describe_spots(spots: list[list[int]]) -> str:
    by_reading: dict[int, list[str]] = {}
    for pos, number in spots:
        by_reading.setdefault(number, []).append(str(pos))
    parts = []
    for number, positions in by_reading.items():
        word = "position" if len(positions) == 1 else "positions"
        parts.append(f"as {number} at {word} {', '.join(positions)}")
    return "; ".join(parts)


def _move(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """docs/games/completto.md "Move": take one face-down tile of your row and insert it at another
    position (``to`` is its index in the resulting row).  No ordering rule applies."""
    if state["hand"] is not None:
        raise IllegalAction(
            f"you hold {state['hand']['tile']}: place it (or discard it if it fits nowhere) "
            "before anything else",
            "illegal_action",
        )
    row = state["rows"][seat]
    src = require_int(action, "from", 0, len(row) - 1)
    dst = require_int(action, "to", 0, len(row) - 1)
    if row[src]["n"] is not None:
        raise IllegalAction(
            f"position {src} holds a face-up {row[src]['n']}; only face-down tiles can move",
            "illegal_action",
        )
    if src == dst:
        raise IllegalAction("a move must take the tile to another position", "illegal_action")
    new = _fork(state)
    new_row = new["rows"][seat]
    new_row.insert(dst, new_row.pop(src))
    events: list[Event] = [{"type": "move", "seat": seat, "from": src, "to": dst}]
    _idle_turn(new, events)
    return new, events


def idle_limit(state: State) -> int:
    """Turns in a row without progress that end the round (docs/games/completto.md
    "No progress")."""
    return IDLE_TURNS_PER_PLAYER * len(active_seats(state))


def _idle_turn(state: State, events: list[Event]) -> None:
    """A turn that drew no face-down tile and turned none face up: count it; at the
    limit the round ends without a winner of the row, else the turn passes."""
    # .get: a table saved before the no-progress rule has no counter yet.
    state["idle"] = state.get("idle", 0) + 1
    if state["idle"] >= idle_limit(state):
        _end_round(state, None, events)
    else:
        _pass_turn(state, events)


def _pass_turn(state: State, events: list[Event]) -> None:
    state["current"] = _active_from(state, state["current"] + 1)
    state["bonus"] = False
    state["turn"] += 1
    events.append({"type": "turn", "seat": state["current"], "bonus": False})


# --------------------------------------------------------------------------- rounds


def round_penalties(state: State) -> list[int]:
    """docs/games/completto.md "End": minus one per face-down tile left in the row.  [house] A seat
    that resigned scores the full row (22) for every round it did not finish."""
    return [
        ROW_LENGTH if state["resigned"][seat] else face_down_count(state["rows"][seat])
        for seat in range(state["seats"])
    ]


def _end_round(state: State, winner: int | None, events: list[Event]) -> None:
    """The first complete row ends the round (``winner``), or a stall does (``None``,
    docs/games/completto.md "No progress"); score it, then deal again or finish.
    [house] The next round's start player is the seat after this round's."""
    penalties = round_penalties(state)
    state["penalties"].append(penalties)
    state["round_winners"].append(winner)
    event: Event = {
        "type": "round_end",
        "round": state["round"],
        "winner": winner,
        "penalties": penalties,
    }
    if winner is None:
        event["stalled"] = True
    events.append(event)
    if state["round"] >= state["rounds"]:
        _finish(state, events, None)
        return
    state["round"] += 1
    state["turn"] += 1
    _deal(state, start=state["start"] + 1)
    events.append({"type": "round_start", "round": state["round"], "start": state["start"]})


def totals(state: State) -> list[int]:
    """Minus points per seat over the finished rounds."""
    return [sum(p[seat] for p in state["penalties"]) for seat in range(state["seats"])]


def _finish(state: State, events: list[Event], sole_survivor: int | None) -> None:
    """Fewest minus points among the seats still playing wins; ties share."""
    total = totals(state)
    if sole_survivor is not None:
        winners = [sole_survivor]
        reason = f"seat {sole_survivor} is the only player left; the others resigned"
    else:
        active = active_seats(state)
        best = min(total[seat] for seat in active)
        winners = [seat for seat in active if total[seat] == best]
        last = state["round_winners"][-1]
        if state["rounds"] == 1 and last is None:
            reason = (
                f"the round stalled ({idle_limit(state)} turns without a tile drawn or turned"
                f" face up); fewest face-down tiles ({best})"
            )
        elif state["rounds"] == 1:
            reason = f"seat {last} turned all 22 tiles face up"
        else:
            reason = f"fewest face-down tiles over {state['rounds']} rounds ({best})"
    state["result"] = {"scores": [-t for t in total], "winners": winners, "reason": reason}
    state["phase"] = "finished"
    state["current"] = None
    state["hand"] = None
    state["bonus"] = False
    state["turn"] += 1
    events.append({"type": "game_end", "result": state["result"]})


def _resign(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """A resigning seat leaves; its row stays as it lies, out of play.  A tile it had
    turned up (in hand or as its next setup tile) goes face up into the pool, its other
    setup tiles face down.  When one player is left, that player wins."""
    check_fields("resign", action, set())
    new = _fork(state)
    new["resigned"][seat] = True
    events: list[Event] = [{"type": "resign", "seat": seat}]
    acting_before = to_act(state)
    setup_rest = new["setup_tiles"][seat]
    if setup_rest:
        new["pool_up"] = sorted([*new["pool_up"], setup_rest[0]])
        new["pool"].extend(setup_rest[1:])
        new["setup_tiles"][seat] = []
    if new["phase"] == "play" and new["current"] == seat and new["hand"] is not None:
        new["pool_up"] = sorted([*new["pool_up"], new["hand"]["tile"]])
        new["hand"] = None
    active = active_seats(new)
    if len(active) == 1:
        _finish(new, events, active[0])
        return new, events
    if new["phase"] == "play" and new["current"] == seat:
        _pass_turn(new, events)
    elif seat in acting_before:
        new["turn"] += 1
        _maybe_start_play(new, events)
    return new, events


MOVES: dict[str, Move] = {
    "insert": _insert,
    "take": _turn("take", {"source", "number"}, _take),
    "place": _turn("place", {"pos", "reading"}, _place),
    "discard": _turn("discard", set(), _discard),
    "move": _turn("move", {"from", "to"}, _move),
    "resign": _resign,
}
"""The move table (docs/games/completto.md); the base checks seat, turn and game over."""
