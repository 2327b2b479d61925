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

from collections.abc import Callable, Mapping
from itertools import chain
from typing import Any, TypedDict

from tablehub.server.games.base import Action, Event, IllegalAction, LegalGroup, State, Status
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
from tablehub.server.games.moves import MoveTable, Rules, copy_levels
from tablehub.server.games.rng import Rng
from tablehub.server.games.turns import first_clockwise


class CompletoState(TypedDict):
    """The state's top level (the module docstring); the rules below are typed with it."""

    seats: int
    rounds: int
    round: int
    rng: int
    phase: str
    rows: list[list[dict[str, Any]]]
    setup_tiles: list[list[int]]
    pool: list[int]
    pool_up: list[int]
    hand: dict[str, Any] | None
    start: int
    current: int | None
    bonus: bool
    turn: int
    resigned: list[bool]
    penalties: list[list[int]]
    round_winners: list[int | None]
    idle: int
    result: dict[str, Any] | None


MAX_ROUNDS = 10
IDLE_TURNS_PER_PLAYER = 5
"""docs/games/completto.md "No progress": the round ends after this many turns per
active player in a row without a tile drawn from the face-down pool or placed face up."""


# --------------------------------------------------------------------------- setup


def setup(options: dict[str, Any], seats: int, seed: int) -> CompletoState:
    """A new game (options validated by the base): deal round 1 (docs/games/completto.md
    "Setup")."""
    rounds = options["rounds"]
    rng = Rng.from_seed(seed)
    deal = Rng(rng.state)  # the deal draws from where the start player's draw began
    state: CompletoState = {
        "seats": seats,
        "rounds": rounds,
        "round": 1,
        "rng": 0,
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
    _deal(state, rng.below(seats), deal)
    state["rng"] = deal.state
    return state


def _deal(state: CompletoState, start: int, rng: Rng) -> None:
    """Deal a round into ``state`` (a private copy): 17 face-down tiles in each active
    row, 5 setup tiles each, the rest face down in the pool; the start player (the
    next active seat from ``start``) is fixed now and acts once setup is done."""
    deck = rng.shuffled(ALL_TILES)
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


def _active_from(state: Mapping[str, Any], seat: int) -> int:
    """``seat`` itself or the next seat clockwise that has not resigned."""
    resigned: list[bool] = state["resigned"]
    found = first_clockwise(state["seats"], seat % state["seats"], lambda s: not resigned[s])
    return seat if found is None else found  # None: cannot be, the game ends at one left


def active_seats(state: Mapping[str, Any]) -> list[int]:
    return [seat for seat in range(state["seats"]) if not state["resigned"][seat]]


# --------------------------------------------------------------------------- status


def to_act(state: Mapping[str, Any]) -> list[int]:
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
    """Every legal action of a seat that must act now (``resign`` is never listed).

    :func:`legal_compact` enumerates the same cases in the same order and must change with
    this function (a new action or rule goes into both): its groups expanded in order are
    exactly this list, key order included (tests/server/games/completto/
    test_legal_forms.py checks it on seeded playouts in the quick run).  Written out here
    rather than expanded from the groups because that is cheaper: expanding them made
    ``legal``'s median in bench_legal 0.008 -> 0.012-0.013 ms (issue 33)."""
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
    actions += (
        {"type": "take", "source": "faceup", "number": number}
        for number in _faceup_numbers(state["pool_up"])
    )
    ends = range(len(row))
    actions += (
        {"type": "move", "from": src, "to": dst}
        for src, cell in enumerate(row)
        if cell["n"] is None
        for dst in ends
        if dst != src
    )
    return actions


def legal_compact(state: State, seat: int) -> list[LegalGroup]:
    """:func:`legal` in the compact form (protocol/README.md "Compact legal";
    ``Game.compact_choices``): inserting and placing, ``pos, reading`` varying; taking a
    face-up tile, its ``number``; moving, one group per face-down tile (``from``) with
    the positions it may go to (``to``); a single action (drawing from the face-down
    pool, discarding) as a group whose one varying field is its ``source`` or ``type``.

    The same cases as :func:`legal`, in the same order, enumerated a second time: the two
    must change together (a new action or rule goes into both; see :func:`legal` for why
    the plain list is not expanded from these groups)."""
    row = state["rows"][seat]
    if state["phase"] == "setup":
        spots = insertions(row, state["setup_tiles"][seat][0])
        return [_spots_group("insert", spots)]
    hand = state["hand"]
    if hand is not None:
        spots = placements(row, hand["tile"])
        if not spots:
            return [{"fixed": {}, "fields": ["type"], "values": ["discard"]}]
        return [_spots_group("place", spots)]
    groups: list[LegalGroup] = []
    if state["pool"]:
        groups.append({"fixed": {"type": "take"}, "fields": ["source"], "values": ["pool"]})
    numbers = _faceup_numbers(state["pool_up"])
    if numbers:
        groups.append(
            {"fixed": {"type": "take", "source": "faceup"}, "fields": ["number"], "values": numbers}
        )
    if len(row) > 1:
        every = list(range(len(row)))
        for src, cell in enumerate(row):
            if cell["n"] is None:
                others = every.copy()
                del others[src]
                groups.append(
                    {"fixed": {"type": "move", "from": src}, "fields": ["to"], "values": others}
                )
    return groups


def _spots_group(kind: str, spots: list[list[int]]) -> LegalGroup:
    """The ``insert`` or ``place`` actions at ``spots`` (``[pos, reading]``) as one group."""
    return {
        "fixed": {"type": kind},
        "fields": ["pos", "reading"],
        "values": list(chain.from_iterable(spots)),
    }


def legal_basis(state: State, seat: int) -> tuple[object, ...]:
    """What the legal actions of a seat depend on (``Game.legal_basis``).  During setup:
    the round and how many setup tiles the seat has still to insert (its row and its
    next tile change only when it inserts; the others inserting at the same time change
    neither).  In play: the turn and the tile in hand (only the seat whose turn it is
    acts, and every turn counts in ``turn``).  Finished: nothing to do."""
    phase = state["phase"]
    if phase == "setup":
        return phase, state["round"], len(state["setup_tiles"][seat])
    if phase == "play":
        hand = state["hand"]
        return phase, state["turn"], None if hand is None else hand["tile"]
    return (phase,)


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


def _turn(move: Rules) -> Rules:
    """A turn action (take, place, discard, move): refused during setup."""

    def checked(state: CompletoState, seat: int, action: Action, rng: Rng) -> list[Event]:
        if state["phase"] == "setup":
            raise IllegalAction(
                f"during setup insert your face-up tile {state['setup_tiles'][seat][0]} "
                "into your row first",
                "illegal_action",
            )
        events: list[Event] = move(state, seat, action, rng)
        return events

    return checked


def _within(action: Action, key: str, last: int) -> int:
    """The position field ``key``, which the schema keeps at 0 or more, up to ``last``
    (the row the player has now)."""
    value: int = action[key]
    if value > last:
        raise IllegalAction(f"action field {key!r} must be at most {last}", "bad_action")
    return value


def _insert(state: CompletoState, seat: int, action: Action, rng: Rng) -> list[Event]:
    """docs/games/completto.md "Setup": insert the face-up setup tile anywhere the face-up numbers
    ascend.  [house] Setup insertions never earn a bonus turn: the seed's bonus rule
    belongs to the turn actions, and setup is played by everyone at once."""
    if state["phase"] != "setup":
        raise IllegalAction(
            "setup is over: insert is only for the five setup tiles", "illegal_action"
        )
    rest = state["setup_tiles"][seat]
    row = state["rows"][seat]
    tile = rest[0]
    pos = _within(action, "pos", len(row))
    reading = _reading(action, tile, lambda n: insert_problem(row, pos, n))
    problem = insert_problem(row, pos, reading)
    if problem is not None:
        raise IllegalAction(problem, "illegal_action")
    row.insert(pos, {"tile": tile, "n": reading})
    rest.pop(0)
    events: list[Event] = [
        {"type": "insert", "seat": seat, "pos": pos, "number": reading, "tile": tile}
    ]
    if rest:
        events.append({"type": "reveal", "seat": seat, "tile": rest[0]})
    else:
        state["turn"] += 1
        _maybe_start_play(state, events)
    return events


def _maybe_start_play(state: CompletoState, events: list[Event]) -> None:
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
        reading: int = action["reading"]
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


def _take(state: CompletoState, seat: int, action: Action, rng: Rng) -> list[Event]:
    """docs/games/completto.md "Take and place", first half: turn up a random face-down pool tile or
    take a face-up pool tile.  Everyone sees the number."""
    if state["hand"] is not None:
        raise IllegalAction(
            f"you already hold {state['hand']['tile']}: place it (or discard it if it fits "
            "nowhere)",
            "illegal_action",
        )
    source = action["source"]
    if source == "pool":
        if "number" in action:
            raise IllegalAction(
                "a face-down pool tile is drawn at random: leave out 'number'", "bad_action"
            )
        if not state["pool"]:
            raise IllegalAction(
                "the face-down pool is empty: take a face-up tile or move", "illegal_action"
            )
        tile = state["pool"].pop(rng.below(len(state["pool"])))
        state["idle"] = 0  # progress: the face-down pool shrinks
    else:
        if "number" not in action:
            raise IllegalAction("say which face-up tile to take with 'number'", "bad_action")
        number = action["number"]
        matches = [t for t in state["pool_up"] if number in readings(t)]
        if not matches:
            lying = ", ".join(str(t) for t in state["pool_up"]) or "none"
            raise IllegalAction(
                f"no face-up {number} lies in the pool (face up there: {lying})",
                "illegal_action",
            )
        tile = number if number in matches else matches[0]
        state["pool_up"].remove(tile)
    state["hand"] = {"tile": tile, "source": source}
    fits = bool(placements(state["rows"][seat], tile))
    event = {
        "type": "take",
        "seat": seat,
        "source": source,
        "tile": tile,
        "readings": readings(tile),
        "fits": fits,
    }
    return [event]


def _place(state: CompletoState, seat: int, action: Action, rng: Rng) -> list[Event]:
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
    pos = _within(action, "pos", len(row) - 1)
    reading = _reading(action, tile, lambda n: place_problem(row, pos, n))
    problem = place_problem(row, pos, reading)
    if problem is not None:
        raise IllegalAction(problem, "illegal_action")
    replaced = row[pos]["tile"]
    row[pos] = {"tile": tile, "n": reading}
    state["pool"].append(replaced)
    state["hand"] = None
    state["idle"] = 0
    bonus = gives_bonus(row, pos)
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
    if complete(row):
        _end_round(state, seat, events, rng)
    elif bonus:
        state["bonus"] = True
        state["turn"] += 1
        events.append({"type": "turn", "seat": seat, "bonus": True})
    else:
        _pass_turn(state, events)
    return events


def _discard(state: CompletoState, seat: int, action: Action, rng: Rng) -> list[Event]:
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
    state["pool_up"] = sorted([*state["pool_up"], tile])
    state["hand"] = None
    events: list[Event] = [{"type": "discard", "seat": seat, "tile": tile}]
    if hand["source"] == "faceup":
        _idle_turn(state, events, rng)  # the tile went back where it lay
    else:
        _pass_turn(state, events)
    return events


def _describe_spots(spots: list[list[int]]) -> str:
    """Where a tile fits, in words: its positions counted from 1, as players count them."""
    by_reading: dict[int, list[str]] = {}
    for pos, number in spots:
        by_reading.setdefault(number, []).append(str(pos + 1))
    parts = []
    for number, positions in by_reading.items():
        word = "position" if len(positions) == 1 else "positions"
        parts.append(f"as {number} at {word} {', '.join(positions)}")
    return "; ".join(parts)


def _move(state: CompletoState, seat: int, action: Action, rng: Rng) -> list[Event]:
    """docs/games/completto.md "Move": take one face-down tile of your row and insert it at another
    position (``to`` is its index in the resulting row).  No ordering rule applies."""
    if state["hand"] is not None:
        raise IllegalAction(
            f"you hold {state['hand']['tile']}: place it (or discard it if it fits nowhere) "
            "before anything else",
            "illegal_action",
        )
    row = state["rows"][seat]
    src = _within(action, "from", len(row) - 1)
    dst = _within(action, "to", len(row) - 1)
    if row[src]["n"] is not None:
        raise IllegalAction(
            f"position {src + 1} holds a face-up {row[src]['n']}; only face-down tiles can move",
            "illegal_action",
        )
    if src == dst:
        raise IllegalAction("a move must take the tile to another position", "illegal_action")
    row.insert(dst, row.pop(src))
    events: list[Event] = [{"type": "move", "seat": seat, "from": src, "to": dst}]
    _idle_turn(state, events, rng)
    return events


def idle_limit(state: Mapping[str, Any]) -> int:
    """Turns in a row without progress that end the round (docs/games/completto.md
    "No progress")."""
    return IDLE_TURNS_PER_PLAYER * len(active_seats(state))


def _idle_turn(state: CompletoState, events: list[Event], rng: Rng) -> None:
    """A turn that drew no face-down tile and turned none face up: count it; at the
    limit the round ends without a winner of the row, else the turn passes."""
    # .get: a table saved before the no-progress rule has no counter yet.
    state["idle"] = state.get("idle", 0) + 1
    if state["idle"] >= idle_limit(state):
        _end_round(state, None, events, rng)
    else:
        _pass_turn(state, events)


def _pass_turn(state: CompletoState, events: list[Event]) -> None:
    """The turn passes on during play (``current`` is a seat then)."""
    current = state["current"]
    if current is None:
        raise ValueError("a turn passes on only during play")
    state["current"] = _active_from(state, current + 1)
    state["bonus"] = False
    state["turn"] += 1
    events.append({"type": "turn", "seat": state["current"], "bonus": False})


# --------------------------------------------------------------------------- rounds


def round_penalties(state: Mapping[str, Any]) -> list[int]:
    """docs/games/completto.md "End": minus one per face-down tile left in the row.  [house] A seat
    that resigned scores the full row (22) for every round it did not finish."""
    return [
        ROW_LENGTH if state["resigned"][seat] else face_down_count(state["rows"][seat])
        for seat in range(state["seats"])
    ]


def _end_round(state: CompletoState, winner: int | None, events: list[Event], rng: Rng) -> None:
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
    _deal(state, state["start"] + 1, rng)
    events.append({"type": "round_start", "round": state["round"], "start": state["start"]})


def totals(state: Mapping[str, Any]) -> list[int]:
    """Minus points per seat over the finished rounds."""
    return [sum(p[seat] for p in state["penalties"]) for seat in range(state["seats"])]


def _finish(state: CompletoState, events: list[Event], sole_survivor: int | None) -> None:
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


def _resign(state: CompletoState, seat: int, action: Action, rng: Rng) -> list[Event]:
    """A resigning seat leaves; its row stays as it lies, out of play.  A tile it had
    turned up (in hand or as its next setup tile) goes face up into the pool, its other
    setup tiles face down.  When one player is left, that player wins."""
    acting_before = to_act(state)
    state["resigned"][seat] = True
    events: list[Event] = [{"type": "resign", "seat": seat}]
    setup_rest = state["setup_tiles"][seat]
    if setup_rest:
        state["pool_up"] = sorted([*state["pool_up"], setup_rest[0]])
        state["pool"].extend(setup_rest[1:])
        state["setup_tiles"][seat] = []
    if state["phase"] == "play" and state["current"] == seat and state["hand"] is not None:
        state["pool_up"] = sorted([*state["pool_up"], state["hand"]["tile"]])
        state["hand"] = None
    active = active_seats(state)
    if len(active) == 1:
        _finish(state, events, active[0])
        return events
    if state["phase"] == "play" and state["current"] == seat:
        _pass_turn(state, events)
    elif seat in acting_before:
        state["turn"] += 1
        _maybe_start_play(state, events)
    return events


MOVES = MoveTable(
    rules={
        "insert": _insert,
        "take": _turn(_take),
        "place": _turn(_place),
        "discard": _turn(_discard),
        "move": _turn(_move),
        "resign": _resign,
    },
    copy=copy_levels(3),
)
"""The move table (docs/games/completto.md); the base checks seat, turn, game over and
the action's fields first, and hands each move a copy of the state three levels down
(rows and their lists may change in place; a cell is replaced, never changed)."""
