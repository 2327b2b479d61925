"""Termite Towers bot (docs/games/termite.md): a greedy planner that uses every rule when
it pays; also every seat's deadline default.  Deterministic and fast: it never asks for
the full legal list (thousands of helper combinations), only for the engine's option
lists of what it considers, so every action it returns is legal.

Plan.  Gather each room's cubes towards 4 of one colour (any blueprint builds with any
colour, so a room's colour is whichever it already holds most of); hold about as many
blueprints as rooms are filling, the best-scoring shapes first; win main-stake
majorities with collect-slot dice (only they count) and dig with tunnel-slot dice
towards stake cards (they turn cards up, and the cards reached feed collecting); join a
colour split over two rooms with an F move; put two equal dice into a room of 4 cubes of
one colour (a helper die or royal jelly makes the pair; royal jelly also stands in for a
helper whose die has a use of its own); build where rows complete,
anywhere a piece may rest; pay for E trades (a cube from any face-up stake card) with
what the plan does not need (spare cubes, eggs, queen cards, blueprints); hatch eggs
early (nursery when a pair of dice waits for one); reroll a poor roll with swarm; draw
queen cards when ahead, since the empty queen deck ends the game.

Values are in rough points of final score; ties go to the first candidate in the
engine's fixed order.  ``loadtest/bench_termite_bot.py`` measures it against the previous
bot (``loadtest/termite_bot_basic.py``, written for the earlier edition).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tablehub.server.games.base import Action, BotLevel, IllegalAction, State
from tablehub.server.games.termite import board, build, data, day, gather, night, scoring
from tablehub.server.games.termite.engine import to_act

Player = dict[str, Any]
Wall = list[list[str | None]]

LATE_ROUND = 7
"""From this round on, new dice and eggs pay less: few rounds are left to use them."""
STALL_ROUND = 16
"""From this round on the bot draws queen cards above all, so the game ends: games end
by round 10-13 (docs/games/termite.md "Measured: how games end"), and a solo wall with
holes no piece fits could otherwise go on for ever (neutral dice never draw)."""


def bot_action(state: State, seat: int) -> Action:
    """A legal, sensible action for a seat that must act now (the strong level)."""
    if seat not in to_act(state):
        raise IllegalAction(f"seat {seat + 1} does not have to act now", "not_your_turn")
    if state["phase"] == "day":
        return _day_action(state, seat)
    return _night_action(state, seat)


def easy_action(state: State, seat: int) -> Action:
    """The easy level, for learning the game: by day its first unplaced die goes on the
    first space (in the engine's order) where it does something tonight -- no plan, no
    helper die, no queen card; by night it chooses as the strong level does."""
    if seat not in to_act(state):
        raise IllegalAction(f"seat {seat + 1} does not have to act now", "not_your_turn")
    if state["phase"] != "day":
        return _night_action(state, seat)
    bumped = state["day"]["bumped"]
    die = bumped["die"] if bumped is not None else board.unplaced(state["players"][seat])[0]
    options = day.place_options(state, seat, [die], helpers=False)
    idle = day.idle_slots(state, seat)
    return next((a for a in options if a["slot"] not in idle), options[0])


# --- What the player needs ------------------------------------------------------------------


def _main_colour(cubes: list[str]) -> tuple[str | None, int]:
    if not cubes:
        return None, 0
    colour, n = Counter(cubes).most_common(1)[0]
    return colour, n


def _full(cubes: list[str]) -> bool:
    """4 cubes of one colour: a room that can build with any blueprint."""
    return len(cubes) == data.ROOM_CUBES and len(set(cubes)) == 1


def _ready_rooms(player: Player) -> list[int]:
    """Rooms with 4 cubes of one colour, when a blueprint in hand fits the wall."""
    if not _hand_fits(player):
        return []
    return [r for r, room in enumerate(player["rooms"]) if _full(room["cubes"])]


def _hand_fits(player: Player) -> bool:
    """Some blueprint in hand has a place in the wall."""
    shapes = {data.blueprint_shape(card) for card in player["hand"]}
    return any(
        board.fit_positions(player["wall"], cells)
        for shape in shapes
        for cells in board.shape_rotations(shape)
    )


def _filling(player: Player) -> int:
    """Rooms that are or soon will be able to build (2+ cubes, a full one counts)."""
    return sum(
        1 for room in player["rooms"] if not room["egg"] and _main_colour(room["cubes"])[1] >= 2
    )


def _cards_short(player: Player) -> bool:
    """Fewer blueprints in hand than rooms filling (or none at all)."""
    return len(player["hand"]) < max(1, _filling(player))


def _colour_want(player: Player, colour: str | None) -> float:
    """How much one more cube of ``colour`` helps: a room already gathering it (the more
    it holds, the more: finishing a room beats starting one), else an empty room to
    start one in."""
    if colour is None:
        return 0
    gathering = 0
    for room in player["rooms"]:
        cubes = room["cubes"]
        if room["egg"] or len(cubes) >= data.ROOM_CUBES:
            continue
        main, n = _main_colour(cubes)
        if main == colour and n == len(cubes):
            gathering = max(gathering, n)
        elif main == colour:
            gathering = max(gathering, n - 1)
    if gathering:
        return 2.5 + gathering
    empty = any(not r["egg"] and not r["cubes"] for r in player["rooms"])
    return 1.5 if empty else 0.3


def _mergeable(player: Player) -> list[tuple[int, int, str]]:
    """Pairs of rooms (a < b) that one F move turns into a room of 4 cubes of one
    colour, when neither holds them yet."""
    rooms = player["rooms"]
    out = []
    for a in range(len(rooms)):
        for b in range(a + 1, len(rooms)):
            if rooms[a]["egg"] or rooms[b]["egg"]:
                continue
            both = Counter(rooms[a]["cubes"] + rooms[b]["cubes"])
            for colour, n in both.items():
                held = max(rooms[a]["cubes"].count(colour), rooms[b]["cubes"].count(colour))
                if n >= data.ROOM_CUBES > held:
                    out.append((a, b, colour))
    return out


def room_value(cubes: list[str]) -> float:
    """How promising a room's cubes are: many of one colour, pure, full above all."""
    if not cubes:
        return 0
    counts = Counter(cubes)
    n = counts.most_common(1)[0][1]
    pure = len(counts) == 1
    return n * n * (1.5 if pure else 1) + (10 if _full(cubes) else 0)


def move_value(player: Player, action: Action) -> float:
    """What an F move (or ``pass``) gains in ``room_value``."""
    if action["type"] == "pass":
        return 0
    a, b = action["rooms"]
    rooms = player["rooms"]
    before = room_value(rooms[a]["cubes"]) + room_value(rooms[b]["cubes"])
    rest = Counter(rooms[a]["cubes"] + rooms[b]["cubes"]) - Counter(action["cubes"])
    after = room_value(action["cubes"]) + room_value(list(rest.elements()))
    return after - before - 0.01


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
    if helper is None:
        return best
    jelly = _jelly_for_helper(ctx, helper)
    return jelly if jelly is not None else helper


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
        score = 5.0 if _cards_short(player) else 1.0 if len(player["hand"]) < 3 else 0
    elif card == "C":
        eggs = sum(1 for room in player["rooms"] if room["egg"])
        hatchable = ctx.kinds["worker"] < data.MAX_WORKERS
        empty = len(board.empty_rooms(player))
        score = 3.0 if not eggs and empty >= 2 and hatchable and not late else 0.8
    elif card == "E":
        score = 4.0 if ctx.pays else 0.3
    elif card == "G":
        score = 3.5 if ctx.lead > 0 else 2.0 if ctx.lead == 0 else 0.5
        if state["round"] >= STALL_ROUND:
            score += 20  # a game this long is stuck (a wall no piece fits): end it
    elif slot.endswith("t"):
        score = _dig_value(state, player, int(slot[1]))  # a tunnel die does not count
    else:
        weight = 2 if kind == "soldier" else 1
        score = _majority_value(ctx, int(slot[1]), weight)
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
            best = max(best, 2.0)
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
        for r, room in enumerate(player["rooms"]):
            colour, n = _main_colour(room["cubes"])
            if colour is None or room["egg"] or n < 2 or len(room["cubes"]) >= data.ROOM_CUBES:
                continue
            area = data.COLOURS.index(colour) + 1
            if n == len(room["cubes"]) and state["stakes"][area - 1]["cubes"]:
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


def _jelly_for_helper(ctx: Context, action: Action) -> Action | None:
    """Royal jelly gives the die the value the helper would (the slot's, or the room's
    chosen value), so the helper die stays free -- when that die has a use of its own
    this round."""
    if "royal_jelly" not in ctx.player["queens"]:
        return None
    options = day.place_options(ctx.state, ctx.seat, [action["helper"]], helpers=False)
    if max((_placement_value(ctx, a) for a in options), default=-1.0) <= 0:
        return None
    parsed = board.parse_slot(action["slot"])
    assert parsed is not None
    value = action["value"] if parsed[0] == "R" else parsed[1]
    return {"type": "play_queen", "card": "royal_jelly", "die": action["die"], "value": value}


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
    """The best-scoring face-up blueprint (or the deck's top), when the hand is short of
    cards for the rooms filling."""
    if not _cards_short(player):
        return None
    options = [{"blueprint": card} for card in state["blueprints"]["face_up"]]
    if state["blueprints"]["deck"]:
        options.append({"blueprint": "deck"})
    if not options:
        return None
    return str(max(options, key=lambda a: _blueprint_value(player, a))["blueprint"])


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


_DECK_POINTS = sum(data.SHAPE_POINTS.values()) / len(data.SHAPE_POINTS)


def _blueprint_value(player: Player, action: Action) -> float:
    """A card's points, a little more for a shape that fits the wall well now (any
    blueprint builds with any colour); the deck's top is worth the mean points."""
    card = action["blueprint"]
    if card == "deck":
        return _DECK_POINTS
    shape = data.blueprint_shape(card)
    wall = player["wall"]
    fit = max(
        (
            _wall_value(wall, _spot_cells(wall, cells, spot))
            for cells in board.shape_rotations(shape)
            for spot in build.piece_spots(wall, cells)
        ),
        default=-1000.0,
    )
    if fit <= -1000:
        return -1
    return data.blueprint_points(card) + 0.02 * (fit - _wall_value(wall, []))


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
    best: tuple[float, int, Action] | None = None
    for order, action in enumerate(options):
        cost = _payment_cost(state, player, action)
        if best is None or (cost, order) < best[:2]:
            best = (cost, order, action)
    assert best is not None
    return best[2] if best[0] <= 2.5 else None


def _payment_cost(state: State, player: Player, action: Action) -> float:
    pay = action["pay"]
    if pay == "cubes":
        cost = 0.0
        for room, colour in action["cubes"]:
            cubes = player["rooms"][room]["cubes"]
            main, n = _main_colour(cubes)
            useful = colour == main and (n >= 2 or len(cubes) == 1)
            cost += 1.5 + n * 0.5 if useful else 0.4
        return cost
    if pay == "egg":
        return 2.5 if state["round"] < LATE_ROUND else 0.8
    if pay == "queen":
        return 1.0 if len(player["queens"]) >= 2 or state["round"] >= LATE_ROUND else 2.5
    card = action["card"]
    if len(player["hand"]) <= _filling(player):
        return 3.0
    return 0.5 + 0.2 * data.blueprint_points(card)


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


LEVELS = (
    BotLevel(
        "easy",
        "Easy",
        "For learning the game: puts its first die on the first space where it does "
        "something, without a plan; builds and trades at night like the strong level.",
        easy_action,
    ),
    BotLevel(
        "strong",
        "Strong",
        "Plans its rooms towards blueprints it holds, uses helper dice and queen cards, "
        "and trades with what the plan does not need.",
        bot_action,
    ),
)
"""The bot levels, weakest first (``Game.bots``)."""
