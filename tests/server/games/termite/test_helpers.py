"""Termite Towers test helpers: build positions directly, drive the night, and check the
state's invariants (no tests here)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tablehub.server.games.base import Action, Event, Game, State, clone
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import GAME, board, data, night

NO_RESIGN: Game = GAME
"""The game as random playouts drive it: ``legal`` never lists ``resign`` (base.py)."""


def fresh(seats: int, seed: int = 1, **options: Any) -> State:
    return GAME.setup(GAME.validate_options(options), seats, seed)


def quiet(state: State) -> State:
    """A copy in which no die is placed and every die sits out (``"X"``), no neutral
    dice; tests then put the dice they need on the board."""
    s: State = clone(state)
    for p in s["players"]:
        for d in p["dice"]:
            d["at"] = "X"
    s["neutral"] = []
    s["day"] = {"current": s["start"], "bumped": None}
    return s


def seat_zero_starts(seats: int, seed: int = 1) -> State:
    """A ``quiet`` new game in which seat 0 starts the day and is the one to act."""
    s = quiet(fresh(seats, seed))
    s["start"] = s["day"]["current"] = 0
    return s


def put(state: State, seat: int, index: int, slot: str, value: int | None = None) -> None:
    """Place die ``index`` of ``seat`` on ``slot`` directly (value from the slot)."""
    d = state["players"][seat]["dice"][index]
    if value is None:
        parsed = board.parse_slot(slot)
        assert parsed is not None and parsed[0] != "R"
        value = parsed[1]
    d["value"] = value
    d["at"] = slot


def hold(state: State, seat: int, index: int, value: int) -> None:
    """Make die ``index`` unplaced, showing ``value``."""
    d = state["players"][seat]["dice"][index]
    d["value"] = value
    d["at"] = None


def reveal(state: State, area: int, node: str, colour: str, cubes: int) -> None:
    """Turn up a stake card showing (colour, cubes), swapping contents with the face-down
    card that has them (cards stay conserved)."""
    here = state["stakes"][area - 1]["cards"][node]
    for stake in state["stakes"]:
        for other in stake["cards"].values():
            if not other["up"] and (other["colour"], other["cubes"]) == (colour, cubes):
                other["colour"], other["cubes"] = here["colour"], here["cubes"]
                here.update(colour=colour, cubes=cubes, up=True)
                return
    raise AssertionError(f"no face-down {colour} card with {cubes} cubes")


def to_night(state: State) -> tuple[State, list[Event]]:
    """Start the night on a copy (as the last day placement would)."""
    s: State = clone(state)
    rng = Rng(s["rng"])
    events: list[Event] = []
    night.start_night(s, rng, events)
    s["rng"] = rng.state
    return s, events


def act(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    return GAME.apply(state, seat, action)


def choose(state: State, seat: int, **fields: Any) -> State:
    return GAME.apply(state, seat, {"type": "choose", **fields})[0]


def pending(state: State) -> dict[str, Any]:
    """The pending night task (there must be one)."""
    task: dict[str, Any] | None = state["night"]["pending"]
    assert task is not None, "no night choice is pending"
    return task


# --- Invariants ---------------------------------------------------------------------------


def _queen_total(seats: int) -> int:
    return len(data.QUEEN_CARDS) * data.QUEEN_START_EACH + data.QUEEN_EXTRA_BY_PLAYERS[seats]


def invariants(state: State) -> None:
    """Everything that must hold after every action."""
    seats = state["seats"]
    assert len(state["neutral"]) in (0, 5 * data.NEUTRAL_SETS[seats])
    # Dice: valid places, A/C/E/G one die each with the slot's value, rooms <= 3 of a value.
    slot_count: Counter[str] = Counter()
    for owner in range(-1, seats):
        dice = state["neutral"] if owner < 0 else state["players"][owner]["dice"]
        for d in dice:
            at = d["at"]
            assert 1 <= d["value"] <= 6
            if at in (None, "H", "X"):
                continue
            parsed = board.parse_slot(at)
            assert parsed is not None, at
            card, number = parsed
            if card == "R":
                assert owner >= 0 and number < len(state["players"][owner]["rooms"])
                continue
            assert d["value"] == number, (at, d)
            if card in data.SINGLE_SLOT_CARDS:
                slot_count[at] += 1
    assert all(n == 1 for n in slot_count.values()), slot_count
    eggs = state["eggs"]
    per_colour: Counter[str] = Counter()
    for area, stake in enumerate(state["stakes"], start=1):
        per_colour[data.COLOURS[area - 1]] += stake["cubes"]
        for card in stake["cards"].values():
            per_colour[card["colour"]] += card["cubes"]
    for p in state["players"]:
        kinds = Counter(d["kind"] for d in p["dice"])
        assert data.START_WORKERS <= kinds["worker"] <= data.MAX_WORKERS
        assert data.START_SOLDIERS <= kinds["soldier"] <= data.MAX_SOLDIERS
        assert data.ROOMS_START <= len(p["rooms"]) <= data.ROOMS_MAX
        for r, room in enumerate(p["rooms"]):
            assert len(room["cubes"]) <= data.ROOM_CUBES
            assert not (room["egg"] and room["cubes"]), "a room holds cubes or an egg"
            eggs += room["egg"]
            per_colour.update(room["cubes"])
            dice = board.room_dice(p, r)
            assert len(dice) <= data.ROOM_DICE
            assert len({p["dice"][i]["value"] for i in dice}) <= 1
        for row in p["wall"]:
            per_colour.update(c for c in row if c is not None)
        _no_floating(p["wall"])
        assert board.tunnels_used(p) <= data.TUNNELS_PER_PLAYER
        for area in range(1, 7):
            reached = {"S"}
            edges = list(p["tunnels"][area - 1])
            assert len(set(edges)) == len(edges)
            # Every edge joins the network grown from the main stake.
            grown = True
            while grown:
                grown = False
                for e in edges:
                    a, b = e.split("-")
                    if (a in reached) != (b in reached):
                        reached |= {a, b}
                        grown = True
            for e in edges:
                assert set(e.split("-")) <= reached
        assert len(p["bonus"]) == len(set(p["bonus"])) <= len(board.full_rows(p["wall"]))
    assert eggs == data.EGGS
    assert all(n == data.MAIN_STAKE_CUBES + sum(data.STAKE_CARD_CUBES) for n in per_colour.values())
    assert len(per_colour) == len(data.COLOURS)
    # Cards are conserved.
    bps = state["blueprints"]
    cards = bps["deck"] + bps["face_up"] + bps["discard"]
    for p in state["players"]:
        cards += p["hand"] + p["built"]
    assert sorted(cards) == sorted(data.BLUEPRINTS)
    assert len(bps["face_up"]) == data.FACE_UP_BLUEPRINTS or not bps["deck"]
    queens = len(state["queen_deck"]) + len(state["queen_discard"])
    queens += sum(len(p["queens"]) for p in state["players"])
    assert queens == _queen_total(seats)
    status = GAME.status(state)
    assert status["finished"] == (state["phase"] == "finished")
    assert status["finished"] or len(status["to_act"]) == 1


def _no_floating(wall: list[list[str | None]]) -> None:
    """Every wall cube connects to the floor through cubes."""
    seen = {(x, 0) for x in range(data.WALL_WIDTH) if wall[0][x] is not None}
    todo = list(seen)
    while todo:
        x, y = todo.pop()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            inside = 0 <= nx < data.WALL_WIDTH and 0 <= ny < data.WALL_HEIGHT
            if inside and wall[ny][nx] is not None and (nx, ny) not in seen:
                seen.add((nx, ny))
                todo.append((nx, ny))
    filled = {(x, y) for y, row in enumerate(wall) for x, c in enumerate(row) if c is not None}
    assert filled == seen, f"floating wall cells: {sorted(filled - seen)}"
