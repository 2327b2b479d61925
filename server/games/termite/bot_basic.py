"""Termite Towers' first bot (docs/games/termite.md), kept as the yardstick for ``bot``:
a greedy planner, deterministic and fast (``loadtest/bench_termite_bot.py`` plays the two
against each other).

Plan: hold blueprints, collect the colours they need into "pure" rooms (one colour
each), put two equal dice into a room with 4 cubes of a blueprint's colour (using a
helper die or royal jelly when no pair was rolled), build low and flat to complete rows,
take useful bonuses, and draw queen cards with spare dice so the game moves on.
Every action comes from the engine's own option lists, so it is always legal; ties go
to the first candidate in a fixed order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tablehub.server.games.base import Action, IllegalAction, State
from tablehub.server.games.termite import board, data, day, night
from tablehub.server.games.termite.engine import to_act

Player = dict[str, Any]


def bot_action(state: State, seat: int) -> Action:
    """A legal, sensible action for a seat that must act now (also the deadline default
    of every night choice)."""
    if seat not in to_act(state):
        raise IllegalAction(f"seat {seat} does not have to act now", "not_your_turn")
    if state["phase"] == "day":
        return _day_action(state, seat)
    return _night_action(state, seat)


# --- What the player needs ------------------------------------------------------------------


def hand_colours(player: Player) -> Counter[str]:
    """Blueprints in hand per colour (shared with ``bot``)."""
    return Counter(data.blueprint_colour(card) for card in player["hand"])


def _buildable_rooms(player: Player) -> list[int]:
    """Rooms with 4 cubes of one colour that a blueprint in hand can use."""
    colours = hand_colours(player)
    out = []
    for r, room in enumerate(player["rooms"]):
        cubes = room["cubes"]
        if len(cubes) == data.ROOM_CUBES and len(set(cubes)) == 1 and colours[cubes[0]]:
            out.append(r)
    return out


def _colour_need(player: Player, colour: str | None) -> int:
    if colour is None:
        return 0
    return 3 * hand_colours(player)[colour] + sum(
        int(room["cubes"].count(colour)) for room in player["rooms"]
    )


# --- Day ----------------------------------------------------------------------------------


def _day_action(state: State, seat: int) -> Action:
    player = state["players"][seat]
    bumped = state["day"]["bumped"]
    ctx = _context(state, seat)
    if bumped is not None:
        options = day.place_options(state, seat, [bumped["die"]], helpers=False)
        return max(options, key=lambda a: _placement_value(state, seat, a, ctx))
    queen = _queen_play(state, seat)
    if queen is not None:
        return queen
    options = day.place_options(state, seat, board.unplaced(player), helpers=False)
    best = max(options, key=lambda a: _placement_value(state, seat, a, ctx))
    helper = _helper_play(state, seat)
    if helper is not None and _placement_value(state, seat, best, ctx) < 8:
        return helper
    return best


def _context(state: State, seat: int) -> dict[str, Any]:
    """What every placement's value needs, computed once per decision."""
    player = state["players"][seat]
    return {
        "free_values": Counter(player["dice"][i]["value"] for i in board.unplaced(player)),
        "buildable": set(_buildable_rooms(player)),
        "kinds": Counter(d["kind"] for d in player["dice"]),
        "trade": _trade_payment(state, seat) is not None,
        "eggs": sum(1 for room in player["rooms"] if room["egg"]),
        "empty": len(board.empty_rooms(player)),
        "collect": {},
    }


def _pair_room_value(player: Player) -> int | None:
    """The value a buildable room's single die shows when no free die matches it."""
    free_values = {player["dice"][i]["value"] for i in board.unplaced(player)}
    for r in _buildable_rooms(player):
        dice = board.room_dice(player, r)
        if len(dice) == 1:
            value = int(player["dice"][dice[0]]["value"])
            if value not in free_values:
                return value
    return None


def _helper_play(state: State, seat: int) -> Action | None:
    player = state["players"][seat]
    free = board.unplaced(player)
    value = _pair_room_value(player)
    if value is None or len(free) < 2:
        return None
    for r in _buildable_rooms(player):
        dice = board.room_dice(player, r)
        if len(dice) == 1 and player["dice"][dice[0]]["value"] == value:
            action = {
                "type": "place_die",
                "die": free[0],
                "slot": f"R{r}",
                "helper": free[-1],
                "value": value,
            }
            try:
                day.check_slot(state, seat, player["dice"][free[0]]["kind"], value, f"R{r}")
            except IllegalAction:
                return None
            return action
    return None


def _queen_play(state: State, seat: int) -> Action | None:
    player = state["players"][seat]
    queens = player["queens"]
    if "royal_jelly" in queens:
        value = _pair_room_value(player)
        free = board.unplaced(player)
        if value is not None and free:
            return {"type": "play_queen", "card": "royal_jelly", "die": free[0], "value": value}
    if "architect" in queens and not player["hand"]:
        bps = state["blueprints"]
        if bps["face_up"] or bps["deck"]:
            pick = bps["face_up"][0] if bps["face_up"] else "deck"
            return {"type": "play_queen", "card": "architect", "blueprint": pick}
    if "mandibles" in queens:
        colours = hand_colours(player)
        for r, room in enumerate(player["rooms"]):
            cubes = room["cubes"]
            if len(cubes) == 3 and len(set(cubes)) == 1 and colours[cubes[0]]:
                area = data.COLOURS.index(cubes[0]) + 1
                if state["stakes"][area - 1]["cubes"] > 0:
                    return {"type": "play_queen", "card": "mandibles", "stake": area, "room": r}
    return None


def _placement_value(state: State, seat: int, action: Action, ctx: dict[str, Any]) -> float:
    player = state["players"][seat]
    the_die = player["dice"][action["die"]]
    value, kind, slot = the_die["value"], the_die["kind"], action["slot"]
    free_values = ctx["free_values"]
    card = slot[0]
    bump = card in data.SINGLE_SLOT_CARDS and board.slot_die(state, slot) is not None
    score = 0.0
    if card == "R":
        room = int(slot[1:])
        dice = board.room_dice(player, room)
        if player["rooms"][room]["egg"]:
            kind_next = "worker" if len(dice) < 2 else "soldier"
            owned = ctx["kinds"][kind_next]
            cap = data.MAX_WORKERS if kind_next == "worker" else data.MAX_SOLDIERS
            if owned >= cap or len(dice) >= 2:
                score = 0
            elif len(dice) == 1:
                score = 6
            else:
                score = 4.5 if free_values[value] >= 2 else 1
        elif room in ctx["buildable"]:
            if len(dice) == 1:
                score = 10
            elif not dice:
                score = 7 if free_values[value] >= 2 else 3
        else:
            score = -1
    elif card == "A":
        score = 6 if not player["hand"] else 3 if len(player["hand"]) < 3 else 0.5
    elif card == "C":
        score = 3.5 if ctx["eggs"] == 0 and ctx["empty"] >= 2 else 0.5
    elif card == "E":
        score = 3 if ctx["trade"] else 0.5
    elif card == "G":
        score = 2.5
    elif slot.endswith("t"):
        area = int(slot[1])
        can_dig = board.tunnels_used(player) < data.TUNNELS_PER_PLAYER
        score = 2.5 if can_dig and board.open_edges(player, area) else 0
    elif slot.endswith("c"):
        key = (int(slot[1]), 2 if kind == "soldier" else 1)
        if key not in ctx["collect"]:
            ctx["collect"][key] = _collect_value(state, seat, *key)
        score = ctx["collect"][key]
    if bump:
        score -= 0.5
    if kind == "soldier" and not slot.endswith("c"):
        score -= 1
    return score


def _collect_value(state: State, seat: int, area: int, weight: int) -> float:
    player = state["players"][seat]
    if not board.cube_rooms(player):
        return 0
    colours = [data.COLOURS[area - 1]] if state["stakes"][area - 1]["cubes"] else []
    colours += [board.source_colour(state, s) or "" for s in board.reached_sources(state, seat)]
    if not colours:
        return 0
    want = max(_colour_need(player, c) for c in colours)
    counts: Counter[int] = Counter()
    for owner, index in board.dice_at(state, f"D{area}c"):
        counts[owner] += 2 if board.die(state, owner, index)["kind"] == "soldier" else 1
    mine = counts.pop(seat, 0) + weight
    others = max(counts.values(), default=0)
    lead = 3 if mine > others else 1 if mine == others else -1
    return min(want, 6) / 2 + 1 + lead


# --- Night ----------------------------------------------------------------------------------


def _night_action(state: State, seat: int) -> Action:
    task = state["night"]["pending"]
    options = night.choice_actions(state)
    kind = task["t"]
    player = state["players"][seat]
    chooser = {
        "blueprint": lambda a: _blueprint_value(state, player, a),
        "tunnel": lambda a: _tunnel_value(state, task["area"], a),
        "cube": lambda a: _cube_value(state, player, a),
        "trade_take": lambda a: _column_value(player, a["column"]),
        "move": lambda a: move_value(player, a),
        "build": lambda a: _build_value(player, a),
        "bonus": lambda a: _bonus_value(state, player, a),
    }
    if kind == "trade":
        payment = _trade_payment(state, seat)
        return payment if payment is not None and payment in options else {"type": "pass"}
    if kind in chooser:
        return max(options, key=chooser[kind])
    return options[0]


def _blueprint_value(state: State, player: Player, action: Action) -> float:
    card = action["blueprint"]
    if card == "deck":
        return 2
    colour = data.blueprint_colour(card)
    best_room = max((room["cubes"].count(colour) for room in player["rooms"]), default=0)
    return 3 * best_room + _colour_need(player, colour) + data.blueprint_points(card) / 2


def _tunnel_value(state: State, area: int, action: Action) -> float:
    node = action["edge"].split("-")[1]
    card = state["stakes"][area - 1]["cards"][node]
    if not card["up"]:
        return 2
    return 1 + int(card["cubes"]) / 4


def _cube_value(state: State, player: Player, action: Action) -> float:
    colour = board.source_colour(state, action["source"])
    cubes = player["rooms"][action["room"]]["cubes"]
    need = _colour_need(player, colour)
    if cubes and set(cubes) == {colour}:
        fit = 10 + len(cubes)
    elif not cubes:
        fit = 5
    else:
        fit = 0
    return need * 2 + fit


def _trade_payment(state: State, seat: int) -> Action | None:
    """Pay with what the plan does not need: a spare blueprint, spare queen cards, or
    two cubes of colours no blueprint in hand uses."""
    player = state["players"][seat]
    if not any(h < data.WALL_HEIGHT for h in board.column_heights(player["wall"])):
        return None
    if not board.all_sources(state):
        return None
    colours = hand_colours(player)
    junk = [
        [r, c] for r, room in enumerate(player["rooms"]) for c in room["cubes"] if not colours[c]
    ]
    if len(junk) >= 2:
        pair = sorted(junk[:2])
        return {"type": "choose", "pay": "cubes", "cubes": pair}
    if len(player["hand"]) >= 4:
        spare = min(
            player["hand"], key=lambda c: (_colour_need(player, data.blueprint_colour(c)), c)
        )
        return {"type": "choose", "pay": "blueprint", "card": spare}
    if len(player["queens"]) >= 3:
        return {"type": "choose", "pay": "queen", "card": sorted(player["queens"])[0]}
    return None


def _column_value(player: Player, column: int) -> float:
    heights = board.column_heights(player["wall"])
    row = heights[column]
    filled = sum(1 for c in player["wall"][row] if c is not None) if row < data.WALL_HEIGHT else 0
    return filled * 2 - row * 3


def room_value(cubes: list[str], colours: Counter[str]) -> float:
    """How promising a room's cubes are: many of one colour, wanted, pure (shared with
    ``bot``)."""
    if not cubes:
        return 0
    counts = Counter(cubes)
    colour, n = counts.most_common(1)[0]
    pure = len(counts) == 1
    return n * n * (2 if colours[colour] else 1) * (1.5 if pure else 1)


def move_value(player: Player, action: Action) -> float:
    """What an F move (or ``pass``) gains in ``room_value`` (shared with ``bot``)."""
    if action["type"] == "pass":
        return 0
    a, b = action["rooms"]
    colours = hand_colours(player)
    rooms = player["rooms"]
    before = room_value(rooms[a]["cubes"], colours) + room_value(rooms[b]["cubes"], colours)
    rest = Counter(rooms[a]["cubes"] + rooms[b]["cubes"]) - Counter(action["cubes"])
    after = room_value(action["cubes"], colours) + room_value(list(rest.elements()), colours)
    return after - before - 0.01


def _build_value(player: Player, action: Action) -> float:
    if action["type"] == "pass":
        return -1000
    shape = data.blueprint_shape(action["blueprint"])
    cells = board.shape_rotations(shape)[action["rotation"]]
    placed = board.drop_cells(player["wall"], cells, action["column"])
    assert placed is not None
    wall = [list(row) for row in player["wall"]]
    for x, y in placed:
        wall[y][x] = "x"
    heights = board.column_heights(wall)
    holes = sum(
        1
        for y in range(data.WALL_HEIGHT)
        for x in range(6)
        if wall[y][x] is None and y < heights[x]
    )
    rows = len(board.full_rows(wall))
    bumpy = sum(abs(heights[i] - heights[i + 1]) for i in range(5))
    return (
        rows * 50
        + data.blueprint_points(action["blueprint"]) * 5
        - holes * 4
        - sum(heights)
        - bumpy
    )


_BONUS_ORDER = ("points", "soldier", "worker", "blueprint", "cubes", "room", "queen", "egg")


def _bonus_value(state: State, player: Player, action: Action) -> float:
    space = action["space"]
    rank = len(_BONUS_ORDER) - _BONUS_ORDER.index(space)
    kinds = Counter(d["kind"] for d in player["dice"])
    useless = (
        (space == "soldier" and kinds["soldier"] >= data.MAX_SOLDIERS)
        or (space == "worker" and kinds["worker"] >= data.MAX_WORKERS)
        or (space == "room" and len(player["rooms"]) >= data.ROOMS_MAX)
        or (space == "queen" and not state["queen_deck"])
        or (space == "egg" and (not state["eggs"] or not board.empty_rooms(player)))
        or (space == "cubes" and not board.all_sources(state))
        or (
            space == "blueprint"
            and not state["blueprints"]["deck"]
            and not state["blueprints"]["face_up"]
        )
    )
    return rank - (100 if useless else 0)
