"""Termite Towers' previous bot, a frozen copy kept as the yardstick of
``loadtest/bench_termite_bot.py`` (docs/games/termite.md "Measured: how games end"), never
served: the server bot as it stood before issue 27, written for the earlier edition (blueprints
tied to their colour, E cubes only from stake cards the tunnels reach, every die on a
main stake counting); under today's rules it still plays legally, as a player who learnt
the old ones would.  Deterministic and fast: it never asks for
the full legal list (thousands of helper combinations), only for the engine's option
lists of what it considers, so every action it returns is legal.

Plan.  Hold blueprints whose colours the rooms already collect; win main-stake
majorities (every die on a stake counts, a tunnel die also digs towards stake cards,
which E trades need); keep each room to one colour and join split colours with F moves;
put two equal dice into a room with 4 cubes of a blueprint's colour (a helper die or
royal jelly makes the pair); build where rows complete, anywhere a piece may rest; pay
for E trades with what the plan does not need (spare cubes, eggs, queen cards,
blueprints); hatch eggs early (nursery when a pair of dice waits for one); reroll a poor
roll with swarm; draw queen cards when ahead, since the empty queen deck ends the game.

Values are in rough points of final score; ties go to the first candidate in the
engine's fixed order.  Left as it was: only the engine functions it calls may change.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tablehub.server.games.base import Action, IllegalAction, State
from tablehub.server.games.termite import board, build, data, day, gather, night, scoring
from tablehub.server.games.termite.engine import to_act

Player = dict[str, Any]
Wall = list[list[str | None]]

LATE_ROUND = 7
"""From this round on, new dice and eggs pay less: few rounds are left to use them."""


def bot_action(state: State, seat: int) -> Action:
    """A legal, sensible action for a seat that must act now."""
    if seat not in to_act(state):
        raise IllegalAction(f"seat {seat} does not have to act now", "not_your_turn")
    if state["phase"] == "day":
        return _day_action(state, seat)
    return _night_action(state, seat)


# --- What the player needs ------------------------------------------------------------------


def hand_colours(player: Player) -> Counter[str]:
    """Blueprints in hand per colour."""
    return Counter(data.blueprint_colour(card) for card in player["hand"])


def room_value(cubes: list[str], colours: Counter[str]) -> float:
    """How promising a room's cubes are: many of one colour, wanted, pure."""
    if not cubes:
        return 0
    counts = Counter(cubes)
    colour, n = counts.most_common(1)[0]
    pure = len(counts) == 1
    return n * n * (2 if colours[colour] else 1) * (1.5 if pure else 1)


def move_value(player: Player, action: Action) -> float:
    """What an F move (or ``pass``) gains in ``room_value``."""
    if action["type"] == "pass":
        return 0
    a, b = action["rooms"]
    colours = hand_colours(player)
    rooms = player["rooms"]
    before = room_value(rooms[a]["cubes"], colours) + room_value(rooms[b]["cubes"], colours)
    rest = Counter(rooms[a]["cubes"] + rooms[b]["cubes"]) - Counter(action["cubes"])
    after = room_value(action["cubes"], colours) + room_value(list(rest.elements()), colours)
    return after - before - 0.01


def _main_colour(cubes: list[str]) -> tuple[str | None, int]:
    if not cubes:
        return None, 0
    colour, n = Counter(cubes).most_common(1)[0]
    return colour, n


def _ready_rooms(player: Player) -> list[int]:
    """Rooms with 4 cubes of one colour that a blueprint in hand can use."""
    colours = hand_colours(player)
    return [
        r
        for r, room in enumerate(player["rooms"])
        if len(room["cubes"]) == data.ROOM_CUBES
        and len(set(room["cubes"])) == 1
        and colours[room["cubes"][0]]
    ]


def _colour_want(player: Player, colour: str | None) -> float:
    """How much one more cube of ``colour`` helps: a blueprint in hand of that colour
    still missing cubes, and cubes of it already gathered in an unfinished room
    (finishing a room beats starting one)."""
    if colour is None:
        return 0
    in_hand = hand_colours(player)[colour]
    counts = [room["cubes"].count(colour) for room in player["rooms"]]
    gathering = max((n for n in counts if n < data.ROOM_CUBES), default=0)
    if not in_hand:
        return 0.4 * gathering
    if data.ROOM_CUBES * min(in_hand, 2) <= sum(counts):
        return 0.5
    return 2.5 + gathering


def _mergeable(player: Player) -> list[tuple[int, int, str]]:
    """Pairs of rooms (a < b) that one F move turns into a room of 4 cubes of a colour a
    blueprint in hand needs, when neither holds them yet."""
    colours = hand_colours(player)
    rooms = player["rooms"]
    out = []
    for a in range(len(rooms)):
        for b in range(a + 1, len(rooms)):
            if rooms[a]["egg"] or rooms[b]["egg"]:
                continue
            both = Counter(rooms[a]["cubes"] + rooms[b]["cubes"])
            for colour, n in both.items():
                held = max(rooms[a]["cubes"].count(colour), rooms[b]["cubes"].count(colour))
                if colours[colour] and n >= data.ROOM_CUBES > held:
                    out.append((a, b, colour))
    return out


@dataclass
class Context:
    """What every placement's value needs, computed once per decision."""

    state: State
    seat: int
    player: Player = field(init=False)
    free_values: Counter[int] = field(init=False)
    ready: set[int] = field(init=False)
    kinds: Counter[str] = field(init=False)
    pays: bool = field(init=False)
    lead: int = field(init=False)
    cache: dict[tuple[str, str, int], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        state, seat = self.state, self.seat
        self.player = state["players"][seat]
        dice = self.player["dice"]
        self.free_values = Counter(dice[i]["value"] for i in board.unplaced(self.player))
        self.ready = set(_ready_rooms(self.player))
        self.kinds = Counter(d["kind"] for d in dice)
        self.pays = (
            _trade_payment(state, seat, build.trade_options(state, _trade(seat))) is not None
        )
        scores = scoring.scores(state)
        others = [scores[s] for s in range(state["seats"]) if s != seat]
        self.lead = scores[seat] - max(others, default=scores[seat])

    def value(self, kind: str, slot: str, value: int) -> float:
        key = (kind, slot, value)
        if key not in self.cache:
            self.cache[key] = _slot_value(self, kind, slot, value)
        return self.cache[key]


def _trade(seat: int) -> dict[str, Any]:
    return {"t": "trade", "seat": seat}


# --- Day: where a die goes ---------------------------------------------------------------------


def _day_action(state: State, seat: int) -> Action:
    player = state["players"][seat]
    ctx = Context(state, seat)
    bumped = state["day"]["bumped"]
    if bumped is not None:
        options = day.place_options(state, seat, [bumped["die"]], helpers=False)
        return max(options, key=lambda a: _placement_value(ctx, a))
    queen = _queen_play(ctx)
    if queen is not None:
        return queen
    options = day.place_options(state, seat, board.unplaced(player), helpers=False)
    best = max(options, key=lambda a: _placement_value(ctx, a))
    helper = _helper_play(ctx)
    return helper if helper is not None else best


def _placement_value(ctx: Context, action: Action) -> float:
    d = ctx.player["dice"][action["die"]]
    value = action.get("value", d["value"])
    parsed = board.parse_slot(action["slot"])
    if parsed is not None and parsed[0] != "R":
        value = parsed[1]
    return ctx.value(d["kind"], action["slot"], value)


def _slot_value(ctx: Context, kind: str, slot: str, value: int) -> float:
    state, player = ctx.state, ctx.player
    card = slot[0]
    late = state["round"] >= LATE_ROUND
    if card == "R":
        score = _room_value(ctx, int(slot[1:]), value)
    elif card == "A":
        wanted = _blueprint_wanted(state, player)
        score = 5.0 if wanted and len(player["hand"]) < 3 else 1.0 if len(player["hand"]) < 4 else 0
    elif card == "C":
        eggs = sum(1 for room in player["rooms"] if room["egg"])
        hatchable = ctx.kinds["worker"] < data.MAX_WORKERS
        empty = len(board.empty_rooms(player))
        score = 3.0 if not eggs and empty >= 2 and hatchable and not late else 0.8
    elif card == "E":
        score = 4.0 if ctx.pays else 0.3
    elif card == "G":
        score = 3.5 if ctx.lead > 0 else 2.0 if ctx.lead == 0 else 0.5
    else:
        area = int(slot[1])
        weight = 2 if kind == "soldier" else 1
        score = _majority_value(ctx, area, weight)
        if slot.endswith("t"):
            score += _dig_value(state, player, area)
    if card in data.SINGLE_SLOT_CARDS and board.slot_die(state, slot) is not None:
        score -= 0.3  # bumping costs the soldier's strength on D
    if kind == "soldier" and card not in "D":
        score -= 1.2
    return score


def _room_value(ctx: Context, room: int, value: int) -> float:
    player, state = ctx.player, ctx.state
    dice = board.room_dice(player, room)
    spare = ctx.free_values[value] - (1 if not dice else 0)
    if player["rooms"][room]["egg"]:
        kind_next = "worker" if len(dice) < 2 else "soldier"
        cap = data.MAX_WORKERS if kind_next == "worker" else data.MAX_SOLDIERS
        if ctx.kinds[kind_next] >= cap or len(dice) >= 3:
            return -1
        worth = 6.0 if state["round"] < LATE_ROUND else 2.0
        if len(dice) == 1:
            return worth
        if len(dice) == 2:
            return 1.0  # a soldier instead of a worker: a little more
        return worth - 0.5 if spare >= 1 else 0.5
    if room in ctx.ready:
        if len(dice) == 1:
            return 10.0
        if not dice:
            return 7.0 if spare >= 1 else 3.0
        return -1
    for a, b, _ in _mergeable(player):
        if room in (a, b):
            other = b if room == a else a
            partner = board.room_dice(player, other)
            if partner and player["dice"][partner[0]]["value"] == value:
                return 6.0
            if not partner and not dice and ctx.free_values[value] >= 2:
                return 3.5
    return -1


def _blueprint_wanted(state: State, player: Player) -> bool:
    """A face-up blueprint matches a colour a room is gathering, or the hand is empty."""
    if not player["hand"]:
        return True
    gathering = {_main_colour(room["cubes"])[0] for room in player["rooms"] if room["cubes"]}
    held = set(hand_colours(player))
    return any(
        data.blueprint_colour(card) in gathering - held for card in state["blueprints"]["face_up"]
    )


def _dig_value(state: State, player: Player, area: int) -> float:
    if board.tunnels_used(player) >= data.TUNNELS_PER_PLAYER:
        return -0.5
    edges = board.open_edges(player, area)
    if not edges:
        return -0.5
    best = 0.0
    for edge in edges:
        node = edge.split("-")[1]
        card = state["stakes"][area - 1]["cards"][node]
        if not card["up"]:
            best = max(best, 1.8)
        elif card["cubes"]:
            best = max(best, 1.0 + 0.4 * _colour_want(player, card["colour"]))
    return best


def _majority_value(ctx: Context, area: int, weight: int) -> float:
    state, player = ctx.state, ctx.player
    if not board.cube_rooms(player):
        return 0
    colours = [data.COLOURS[area - 1]] if state["stakes"][area - 1]["cubes"] else []
    colours += [board.source_colour(state, s) or "" for s in board.reached_sources(state, ctx.seat)]
    if not colours:
        return 0
    want = max(_colour_want(player, c or None) for c in colours)
    counts = gather.stake_counts(state, area)
    mine = counts.pop(ctx.seat, 0)
    others = [*sorted(counts.values(), reverse=True), 0, 0]
    before = _cubes_won(mine, others)
    after = _cubes_won(mine + weight, others)
    return (after - before) * (1.0 + 0.5 * min(want, 6)) + 0.3


def _cubes_won(mine: int, others: list[int]) -> int:
    if mine == 0:
        return 0
    if mine > others[0]:
        return 2
    if mine == others[0]:
        return 1
    if mine > others[1] and others[0] > others[1]:
        return 1
    return 0


# --- Day: helper dice and queen cards -------------------------------------------------------------


def _helper_play(ctx: Context) -> Action | None:
    """Make the weakest unplaced die a helper when another die, set to any value, gains
    more over its own best placement than the helper could have made on its own."""
    state, seat, player = ctx.state, ctx.seat, ctx.player
    free = board.unplaced(player)
    if len(free) < 2:
        return None
    own = {
        i: max(
            (_placement_value(ctx, a) for a in day.place_options(state, seat, [i], helpers=False)),
            default=-1.0,
        )
        for i in free
    }
    helper = min(free, key=lambda i: (own[i], i))
    best: tuple[float, Action] | None = None
    for i in free:
        if i == helper:
            continue
        kind = player["dice"][i]["kind"]
        for value in range(1, 7):
            for slot in _slots(player, value):
                try:
                    day.check_slot(state, seat, kind, value, slot)
                except IllegalAction:
                    continue
                gain = ctx.value(kind, slot, value) - own[i]
                if best is None or gain > best[0]:
                    action: Action = {"type": "place_die", "die": i, "slot": slot, "helper": helper}
                    if slot[0] == "R":
                        action["value"] = value
                    best = (gain, action)
    if best is None or best[0] < max(own[helper], 0) + 0.5:
        return None
    return best[1]


def _slots(player: Player, value: int) -> list[str]:
    singles = [f"{card}{value}" for card in data.SINGLE_SLOT_CARDS]
    return singles + [f"D{value}t", f"D{value}c"] + [f"R{r}" for r in range(len(player["rooms"]))]


def _queen_play(ctx: Context) -> Action | None:
    state, player = ctx.state, ctx.player
    queens = player["queens"]
    free = board.unplaced(player)
    if not queens or not free:
        return None
    if "royal_jelly" in queens:
        action = _jelly(ctx, free)
        if action is not None:
            return action
    if "nursery" in queens and _nursery_pays(ctx, free):
        room = board.empty_rooms(player)[0]
        return {"type": "play_queen", "card": "nursery", "room": room}
    if "swarm" in queens:
        action = _swarm(ctx, free)
        if action is not None:
            return action
    if "architect" in queens:
        pick = _architect_pick(state, player)
        if pick is not None:
            return {"type": "play_queen", "card": "architect", "blueprint": pick}
    if "mandibles" in queens:
        colours = hand_colours(player)
        for r, room in enumerate(player["rooms"]):
            colour, n = _main_colour(room["cubes"])
            if colour is None or room["egg"] or n < 2 or len(room["cubes"]) >= data.ROOM_CUBES:
                continue
            area = data.COLOURS.index(colour) + 1
            if colours[colour] and n == len(room["cubes"]) and state["stakes"][area - 1]["cubes"]:
                return {"type": "play_queen", "card": "mandibles", "stake": area, "room": r}
    return None


def _jelly(ctx: Context, free: list[int]) -> Action | None:
    """Royal jelly completes a pair in a ready room when no free die matches its die."""
    player = ctx.player
    for r in sorted(ctx.ready):
        dice = board.room_dice(player, r)
        if len(dice) == 1:
            value = int(player["dice"][dice[0]]["value"])
            if ctx.free_values[value] == 0:
                return {"type": "play_queen", "card": "royal_jelly", "die": free[0], "value": value}
    return None


def _nursery_pays(ctx: Context, free: list[int]) -> bool:
    """An egg now is worth it early, with an empty room and a pair of free dice to hatch
    it this round (and a worker left in the supply)."""
    player, state = ctx.player, ctx.state
    if state["round"] >= LATE_ROUND or state["eggs"] <= 0 or not board.empty_rooms(player):
        return False
    if ctx.kinds["worker"] >= data.MAX_WORKERS:
        return False
    if any(room["egg"] for room in player["rooms"]):
        return False
    return any(n >= 2 for n in ctx.free_values.values()) and len(free) >= 2


def _swarm(ctx: Context, free: list[int]) -> Action | None:
    """Reroll the dice that have nothing worth doing when at least two are that poor."""
    state, seat = ctx.state, ctx.seat
    poor = []
    for i in free:
        options = day.place_options(state, seat, [i], helpers=False)
        if max((_placement_value(ctx, a) for a in options), default=-1.0) < 1.5:
            poor.append(i)
    if len(poor) >= 2:
        return {"type": "play_queen", "card": "swarm", "dice": poor}
    return None


def _architect_pick(state: State, player: Player) -> str | None:
    """A face-up blueprint of the colour a room gathers most, when the hand lacks it."""
    held = set(hand_colours(player))
    best: tuple[int, str] | None = None
    for room in player["rooms"]:
        colour, n = _main_colour(room["cubes"])
        if colour is None or colour in held:
            continue
        for card in state["blueprints"]["face_up"]:
            if data.blueprint_colour(card) == colour:
                candidate = (n * 10 + data.blueprint_points(card), card)
                if best is None or candidate > best:
                    best = candidate
    if best is not None:
        return best[1]
    if not player["hand"] and (state["blueprints"]["face_up"] or state["blueprints"]["deck"]):
        return "deck" if not state["blueprints"]["face_up"] else state["blueprints"]["face_up"][0]
    return None


# --- Night ----------------------------------------------------------------------------------------


def _night_action(state: State, seat: int) -> Action:
    task = state["night"]["pending"]
    kind = task["t"]
    player = state["players"][seat]
    if kind == "trade":
        payment = _trade_payment(state, seat, build.trade_options(state, task))
        return payment if payment is not None else {"type": "pass"}
    options = night.choice_actions(state)
    chooser = {
        "blueprint": lambda a: _blueprint_value(player, a),
        "tunnel": lambda a: _tunnel_value(state, player, task["area"], a),
        "cube": lambda a: _cube_value(state, player, a),
        "trade_take": lambda a: _wall_cube_value(state, player, a),
        "move": lambda a: move_value(player, a),
        "build": lambda a: _build_value(player, a),
        "bonus": lambda a: _bonus_value(state, seat, a),
    }
    if kind in chooser:
        return max(options, key=chooser[kind])
    return options[0]


def _blueprint_value(player: Player, action: Action) -> float:
    card = action["blueprint"]
    if card == "deck":
        return 2
    colour = data.blueprint_colour(card)
    best_room = max((room["cubes"].count(colour) for room in player["rooms"]), default=0)
    spare = 0 if hand_colours(player)[colour] else 2
    return 3 * best_room + spare + data.blueprint_points(card) / 2


def _tunnel_value(state: State, player: Player, area: int, action: Action) -> float:
    node = action["edge"].split("-")[1]
    card = state["stakes"][area - 1]["cards"][node]
    if not card["up"]:
        return 2
    return 1 + int(card["cubes"]) / 4 + 0.3 * _colour_want(player, card["colour"])


def _cube_value(state: State, player: Player, action: Action) -> float:
    colour = board.source_colour(state, action["source"])
    cubes = player["rooms"][action["room"]]["cubes"]
    want = _colour_want(player, colour)
    if cubes and set(cubes) == {colour}:
        fit = 10 + len(cubes)
    elif not cubes:
        fit = 5
    else:
        fit = 0
    return want * 2 + fit


def _trade_payment(state: State, seat: int, options: list[Action]) -> Action | None:
    """The cheapest listed payment for an E cube, if one is cheap enough: spare cubes
    (colours no blueprint in hand uses, or a room that cannot become pure), an egg that
    did not hatch, a spare queen card, a blueprint the rooms do not gather for."""
    if not options:
        return None
    player = state["players"][seat]
    colours = hand_colours(player)
    best: tuple[float, int, Action] | None = None
    for order, action in enumerate(options):
        cost = _payment_cost(state, player, colours, action)
        if best is None or (cost, order) < best[:2]:
            best = (cost, order, action)
    assert best is not None
    return best[2] if best[0] <= 2.5 else None


def _payment_cost(state: State, player: Player, colours: Counter[str], action: Action) -> float:
    pay = action["pay"]
    if pay == "cubes":
        cost = 0.0
        for room, colour in action["cubes"]:
            cubes = player["rooms"][room]["cubes"]
            main, n = _main_colour(cubes)
            useful = colours[colour] and colour == main
            cost += 1.5 + n * 0.5 if useful else 0.4
        return cost
    if pay == "egg":
        return 2.5 if state["round"] < LATE_ROUND else 0.8
    if pay == "queen":
        return 1.0 if len(player["queens"]) >= 2 or state["round"] >= LATE_ROUND else 2.5
    card = action["card"]
    gathering = {_main_colour(room["cubes"])[0] for room in player["rooms"]}
    return 3.0 if data.blueprint_colour(card) in gathering else 1.0 + len(player["hand"]) * -0.2


def _wall_value(wall: Wall, cells: list[board.Cell]) -> float:
    """How good the wall is with ``cells`` filled: complete rows above all, then few
    holes (cells below a column's top), low and flat."""
    trial = [list(row) for row in wall]
    for x, y in cells:
        trial[y][x] = "x"
    rows = len(board.full_rows(trial)) - len(board.full_rows(wall))
    heights = board.column_heights(trial)
    holes = sum(
        1
        for y in range(data.WALL_HEIGHT)
        for x in range(data.WALL_WIDTH)
        if trial[y][x] is None and y < heights[x]
    )
    nearly = sum(1 for row in trial if sum(c is not None for c in row) == data.WALL_WIDTH - 1)
    bumpy = sum(abs(heights[i] - heights[i + 1]) for i in range(data.WALL_WIDTH - 1))
    return rows * 50 + nearly * 4 - holes * 2 - sum(heights) * 0.5 - bumpy


def _spot_cells(wall: Wall, shape: list[board.Cell], action: Action) -> list[board.Cell]:
    if "row" in action:
        cells = board.fit_cells(wall, shape, action["column"], action["row"])
    else:
        cells = board.drop_cells(wall, shape, action["column"])
    assert cells is not None
    return cells


def _wall_cube_value(state: State, player: Player, action: Action) -> float:
    cells = _spot_cells(player["wall"], [(0, 0)], action)
    return _wall_value(player["wall"], cells)


def _build_value(player: Player, action: Action) -> float:
    if action["type"] == "pass":
        return -1000
    shape = board.shape_rotations(data.blueprint_shape(action["blueprint"]))[action["rotation"]]
    cells = _spot_cells(player["wall"], shape, action)
    return _wall_value(player["wall"], cells) + data.blueprint_points(action["blueprint"]) * 5


_BONUS_ORDER = ("points", "worker", "soldier", "cubes", "blueprint", "room", "queen", "egg")


def _bonus_value(state: State, seat: int, action: Action) -> float:
    space = action["space"]
    rank = float(len(_BONUS_ORDER) - _BONUS_ORDER.index(space))
    if state["round"] >= LATE_ROUND and space in ("worker", "soldier", "room", "egg"):
        rank -= 5
    if not gather.bonus_available(state, seat, space):
        rank -= 100
    return rank
