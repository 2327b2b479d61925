"""Termite Towers: the day phase (docs/games/termite.md, seed "白天階段").

From the start player, in seat order, each player places one die per turn until all
dice are placed.  Slots: ``A1``-``A6``, ``C*``, ``E*``, ``G*`` (one die of that value
each), ``D<v>t`` / ``D<v>c`` (D<v>'s tunnel / collect slot, any number of dice showing
v), ``R<n>`` (room n of your own board: B dice in a room with an egg, F dice otherwise).
A soldier may take an A/C/E/G slot held by a player's worker; the bumped worker's owner
places it again at once.  Before placing you may make one unplaced die a helper (it
sits out this round) and give the placed die any value.  Queen cards are played on your
own turn before placing.
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import Action, Event, IllegalAction, State
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import board, build, data, gather, night
from tablehub.server.games.turns import first_clockwise

SINGLE = data.SINGLE_SLOT_CARDS


def to_act(state: State) -> int:
    bumped = state["day"]["bumped"]
    return int(bumped["seat"] if bumped else state["day"]["current"])


def check_slot(state: State, seat: int, kind: str, value: int, slot: str) -> tuple[int, int] | None:
    """Raise if a die (kind, value) of ``seat`` may not go to ``slot``; return the worker
    it would bump, if any (seed: soldiers, slot rules)."""
    parsed = board.parse_slot(slot)
    if parsed is None:
        raise IllegalAction(
            f"unknown slot {slot!r} (A1-A6, C1-C6, E1-E6, G1-G6, D1t-D6t, D1c-D6c, R0-R7)",
            "bad_action",
        )
    card, number = parsed
    if card == "R":
        reason = board.room_accepts_die(state["players"][seat], number, value)
        if reason is not None:
            raise IllegalAction(reason)
        return None
    if number != value:
        raise IllegalAction(f"slot {slot} needs a die showing {number}, this die shows {value}")
    if card in ("Dt", "Dc"):
        return None
    holder = board.slot_die(state, slot)
    reason = _taken(state, slot, kind, holder)
    if reason is not None:
        raise IllegalAction(reason)
    return holder


def _taken(state: State, slot: str, kind: str, holder: tuple[int, int] | None) -> str | None:
    """Why a die of ``kind`` may not go to the A/C/E/G ``slot`` that ``holder`` (owner,
    index) holds; None when it may (a free slot, or a soldier bumping a worker)."""
    if holder is None:
        return None
    owner, index = holder
    if owner < 0:
        return f"slot {slot} is blocked by a neutral die"
    if kind != "soldier":
        return f"slot {slot} is taken; only a soldier may bump a worker"
    if state["players"][owner]["dice"][index]["kind"] == "soldier":
        return f"slot {slot} holds a soldier, which cannot be bumped"
    return None


def apply_place(state: State, seat: int, action: Action, rng: Rng, events: list[Event]) -> None:
    """``place_die``: die [+ helper (+ value for a room)] onto a slot (state copied)."""
    player = state["players"][seat]
    index: int = action["die"]
    slot: str = action["slot"]
    if index >= len(player["dice"]):
        raise IllegalAction(f"you have no die {index + 1}", "bad_action")
    bumped = state["day"]["bumped"]
    if bumped is not None and index != bumped["die"]:
        raise IllegalAction(f"place your bumped die {bumped['die'] + 1} first")
    the_die = player["dice"][index]
    if the_die["at"] is not None:
        raise IllegalAction(f"die {index + 1} is already placed")
    value = the_die["value"]
    helper = action.get("helper")
    if helper is not None:
        if bumped is not None:
            raise IllegalAction("a bumped die is placed as it is, without a helper")
        if helper == index or helper >= len(player["dice"]):
            raise IllegalAction("the helper must be another of your dice", "bad_action")
        if player["dice"][helper]["at"] is not None:
            raise IllegalAction(f"die {helper + 1} is already placed and cannot be a helper")
        parsed = board.parse_slot(slot)
        if parsed is not None and parsed[0] == "R":
            if "value" not in action:
                raise IllegalAction(
                    f"a die on {slot} with a helper needs 'value' (1-6): the value it takes",
                    "bad_action",
                )
            value = action["value"]
        elif parsed is not None:
            if "value" in action:
                raise IllegalAction(
                    f"a die on {slot} takes the slot's value: leave out 'value'", "bad_action"
                )
            value = parsed[1]
    elif "value" in action:
        raise IllegalAction("'value' may only be set together with a helper die", "bad_action")
    victim = check_slot(state, seat, the_die["kind"], value, slot)
    if helper is not None:
        player["dice"][helper]["at"] = "H"
    the_die["value"] = value
    the_die["at"] = slot
    events.append(
        {
            "type": "placed",
            "seat": seat,
            "die": index,
            "value": value,
            "slot": slot,
            "helper": helper,
        }
    )
    state["day"]["bumped"] = None
    if victim is not None:
        owner, vindex = victim
        state["players"][owner]["dice"][vindex]["at"] = None
        events.append({"type": "bumped", "seat": owner, "die": vindex, "slot": slot})
        if board.active(state, owner):
            state["day"]["bumped"] = {"seat": owner, "die": vindex}
            if not place_options(state, owner, [vindex], helpers=False):
                # Nowhere legal: the die sits out this round (docs/games/termite.md).
                state["players"][owner]["dice"][vindex]["at"] = "X"
                state["day"]["bumped"] = None
        else:
            state["players"][owner]["dice"][vindex]["at"] = "X"
    if state["day"]["bumped"] is None:
        next_turn(state, rng, events)


def next_turn(state: State, rng: Rng, events: list[Event]) -> None:
    """Pass the turn clockwise to the next player with unplaced dice; night when none."""
    seat = first_clockwise(
        state["seats"],
        (state["day"]["current"] + 1) % state["seats"],
        lambda s: board.active(state, s) and bool(board.unplaced(state["players"][s])),
    )
    if seat is None:
        night.start_night(state, rng, events)
    else:
        state["day"]["current"] = seat


class Slots:
    """Which slots accept a die of ``seat`` of a given kind and value (cached per pair),
    by :func:`check_slot`'s rules read from one pass over the dice: who holds each slot
    (``board.slot_holders``) and the values of the dice in each of the seat's rooms (as
    ``board.room_dice`` finds them)."""

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.player = state["players"][seat]
        self.cache: dict[tuple[str, int], list[str]] = {}
        self.holders = board.slot_holders(state)
        """The die ``board.slot_die`` finds on each taken A/C/E/G slot."""
        self.rooms: list[list[int]] = [[] for _ in self.player["rooms"]]
        """The values of the seat's dice in each of its rooms."""
        tags = {f"R{r}": r for r in range(len(self.rooms))}
        for d in self.player["dice"]:
            room = tags.get(d["at"])
            if room is not None:
                self.rooms[room].append(d["value"])

    def __call__(self, kind: str, value: int) -> list[str]:
        key = (kind, value)
        out = self.cache.get(key)
        if out is None:
            out = [
                slot
                for slot in (f"{card}{value}" for card in SINGLE)
                if _taken(self.state, slot, kind, self.holders.get(slot)) is None
            ]
            out += [f"D{value}t", f"D{value}c"]
            out += [
                f"R{r}"
                for r, values in enumerate(self.rooms)
                if board.room_refusal(r, values, value) is None
            ]
            self.cache[key] = out
        return out

    def die_can_go(self, die: int, helpers: bool) -> bool:
        """Whether ``place_options`` lists anything for this die (without listing it)."""
        d = self.player["dice"][die]
        if self(d["kind"], d["value"]):
            return True
        others = helpers and any(h != die for h in board.unplaced(self.player))
        return others and any(self(d["kind"], value) for value in range(1, 7))


def helpers_allowed(state: State) -> bool:
    """A helper die may be used, except when placing a bumped die again."""
    return state["day"]["bumped"] is None


def place_options(state: State, seat: int, dice: list[int], helpers: bool = True) -> list[Action]:
    """Every legal ``place_die`` for these dice (with every helper when allowed)."""
    player = state["players"][seat]
    free = board.unplaced(player)
    slots = Slots(state, seat)
    actions: list[Action] = []
    for i in dice:
        d = player["dice"][i]
        actions += [
            {"type": "place_die", "die": i, "slot": slot} for slot in slots(d["kind"], d["value"])
        ]
        if not helpers:
            continue
        # With a helper the die takes any value: a room's (named), or the slot's own.
        helped = [(slot, value) for value in range(1, 7) for slot in slots(d["kind"], value)]
        actions += [
            {"type": "place_die", "die": i, "slot": slot, "helper": h, "value": value}
            if slot[0] == "R"
            else {"type": "place_die", "die": i, "slot": slot, "helper": h}
            for h in free
            if h != i
            for slot, value in helped
        ]
    return actions


# --- Queen cards ------------------------------------------------------------------------------


def queen_options(state: State, seat: int, cards: list[str] | None = None) -> list[Action]:
    """Every legal ``play_queen`` now (docs/games/termite.md queen cards), of ``cards``
    only when given."""
    player = state["players"][seat]
    free = board.unplaced(player)
    out: list[Action] = []
    for card in sorted(set(player["queens"])):
        if cards is not None and card not in cards:
            continue
        base = {"type": "play_queen", "card": card}
        if card == "royal_jelly":
            for i in free:
                for v in range(1, 7):
                    if v != player["dice"][i]["value"]:
                        out.append({**base, "die": i, "value": v})
        elif card == "swarm":
            for mask in range(1, 1 << len(free)):
                out.append({**base, "dice": [free[b] for b in range(len(free)) if mask >> b & 1]})
        elif card == "mandibles":
            for area in range(1, 7):
                if state["stakes"][area - 1]["cubes"] > 0:
                    out.extend({**base, "stake": area, "room": r} for r in board.cube_rooms(player))
        elif card == "nursery":
            if state["eggs"] > 0:
                out.extend({**base, "room": r} for r in board.empty_rooms(player))
        elif card == "architect":
            out.extend({**base, "blueprint": c} for c in state["blueprints"]["face_up"])
            if state["blueprints"]["deck"]:
                out.append({**base, "blueprint": "deck"})
    return out


def apply_queen(state: State, seat: int, action: Action, rng: Rng, events: list[Event]) -> None:
    """``play_queen``: a one-shot card, on your own day turn before placing a die."""
    if state["day"]["bumped"] is not None:
        raise IllegalAction("place your bumped die first; queen cards wait for your own turn")
    player = state["players"][seat]
    card: str = action["card"]
    if card not in player["queens"]:
        raise IllegalAction(f"you hold no queen card {card}")
    event: dict[str, Any] = {"type": "queen_played", "seat": seat, "card": card}
    if card == "royal_jelly":
        index, value = action["die"], action["value"]
        if index >= len(player["dice"]) or player["dice"][index]["at"] is not None:
            raise IllegalAction(f"die {index + 1} is not one of your unplaced dice")
        if player["dice"][index]["value"] == value:
            raise IllegalAction(f"die {index + 1} already shows {value}")
        player["dice"][index]["value"] = value
        event.update(die=index, value=value)
    elif card == "swarm":
        dice: list[int] = action["dice"]
        free = board.unplaced(player)
        if not dice:
            raise IllegalAction("'dice' must list your unplaced dice to reroll", "bad_action")
        if sorted(set(dice)) != dice or any(i not in free for i in dice):
            raise IllegalAction("'dice' must list distinct unplaced dice of yours, ascending")
        for i in dice:
            player["dice"][i]["value"] = rng.below(6) + 1
        event.update(dice=dice, values=[player["dice"][i]["value"] for i in dice])
    elif card == "mandibles":
        area, room = action["stake"], action["room"]
        if state["stakes"][area - 1]["cubes"] <= 0:
            raise IllegalAction(f"main stake D{area} has no cubes")
        if not 0 <= room < len(player["rooms"]) or not board.room_takes_cube(player, room):
            raise IllegalAction(f"room {room + 1} cannot take a cube")
        colour = board.take_from_source(state, f"D{area}")
        player["rooms"][room]["cubes"] = sorted([*player["rooms"][room]["cubes"], colour])
        event.update(stake=area, room=room)
    elif card == "nursery":
        gather.place_egg(state, seat, action["room"], events)
    elif card == "architect":
        gather.take_blueprint(state, seat, action["blueprint"], events)
    player["queens"].remove(card)
    state["queen_discard"].append(card)
    events.append(event)


def placeable(state: State, seat: int) -> list[int]:
    """The dice ``seat`` may place now: the bumped die, or every unplaced die."""
    bumped = state["day"]["bumped"]
    if bumped is not None:
        return [int(bumped["die"])]
    return board.unplaced(state["players"][seat])


def legal(state: State, seat: int) -> list[Action]:
    dice = placeable(state, seat)
    if not helpers_allowed(state):
        return place_options(state, seat, dice, helpers=False)
    return place_options(state, seat, dice) + queen_options(state, seat)


# --- Dice that would do nothing tonight ---------------------------------------------------
#
# Issue 27, docs/games/termite.md "A die that will do nothing says so": the rules let a
# die go on any free slot, and some of them cannot do anything at night as the table
# stands (no blueprint left, no stake card with a cube to trade for, no tunnel left...).
# ``idle_slots`` names those for one seat in plain words, so both clients can say so
# beside the choice before the player commits it.  Only what is certain is named: a slot
# whose use depends on what others do first (a majority, a trade paid with a cube still
# to be collected) is not, nor one a dig already placed for tonight could still open.


def idle_slots(state: State, seat: int) -> dict[str, str]:
    """Slot or room -> why a die of ``seat`` there does nothing tonight (day only)."""
    if state["phase"] != "day" or not board.active(state, seat):
        return {}
    player = state["players"][seat]
    out: dict[str, str] = {}
    bps = state["blueprints"]
    reasons = {
        "A": None if bps["deck"] or bps["face_up"] else "no blueprint is left to take",
        "C": _egg_reason(state, seat),
        "E": _trade_reason(state, seat),
        "G": None if state["queen_deck"] else "the queen deck is empty",
    }
    for card, reason in reasons.items():
        if reason is not None:
            out.update({f"{card}{v}": reason for v in range(1, 7)})
    for area in range(1, 7):
        if board.tunnels_used(player) >= data.TUNNELS_PER_PLAYER:
            out[f"D{area}t"] = "you have no tunnels left to dig"
        elif not board.open_edges(player, area):
            out[f"D{area}t"] = f"your tunnels already cover every edge of D{area}"
        reason = _collect_reason(state, seat, area)
        if reason is not None:
            out[f"D{area}c"] = reason
    for room in range(len(player["rooms"])):
        reason = _room_reason(player, room) or _lone_die_reason(player, room)
        if reason is not None:
            out[f"R{room}"] = reason
    return out


def _egg_reason(state: State, seat: int) -> str | None:
    if state["eggs"] <= 0:
        return "no eggs are left in the supply"
    if not board.empty_rooms(state["players"][seat]):
        return "you have no empty room for an egg"
    return None


def _trade_reason(state: State, seat: int) -> str | None:
    player = state["players"][seat]
    if not board.fit_positions(player["wall"], [(0, 0)]):
        return "your wall has no place for a cube"
    if not build.trade_sources(state, seat) and not _tunnel_dice_tonight(state):
        return "no face-up stake card has a cube to trade for"
    return _payment_reason(state, seat)


def _payment_reason(state: State, seat: int) -> str | None:
    """E needs a payment: 2 cubes, an egg, a queen card or a blueprint.  Tonight's A, C,
    D (collect) or an earlier E (a row bonus) of this seat may still bring one."""
    player = state["players"][seat]
    cubes = sum(len(room["cubes"]) for room in player["rooms"])
    eggs = any(room["egg"] for room in player["rooms"])
    if cubes >= 2 or eggs or player["queens"] or player["hand"]:
        return None
    feeding = [f"{card}{v}" for card in ("A", "C", "E") for v in range(1, 7)]
    feeding += [f"D{area}c" for area in range(1, 7)]
    if any(owner == seat for slot in feeding for owner, _ in board.dice_at(state, slot)):
        return None
    return "you have nothing to pay with (2 cubes, an egg, a queen card or a blueprint)"


def _tunnel_dice_tonight(state: State) -> bool:
    """Whether a die already waits on a tunnel slot (a dig tonight may turn a card up)."""
    return any(board.dice_at(state, f"D{area}t") for area in range(1, 7))


def _collect_reason(state: State, seat: int, area: int) -> str | None:
    player = state["players"][seat]
    if not board.cube_rooms(player):
        return "none of your rooms can take a cube"
    task = {"t": "cube", "seat": seat, "scope": area, "colour": None}
    digs = any(o == seat for a in range(1, 7) for o, _ in board.dice_at(state, f"D{a}t"))
    if gather.cube_sources(state, task) or digs:
        return None  # a dig of yours tonight may reach a card first
    return f"main stake D{area} and the stake cards you reach have no cubes"


def _lone_die_reason(player: board.Player, room: int) -> str | None:
    """Your last die, alone in a room: an egg hatches from 2 dice of one value; without
    an egg, building needs 2 dice in the room and moving cubes a second room with dice
    of the same value."""
    free = board.unplaced(player)
    if len(free) != 1 or board.room_dice(player, room):
        return None
    value = player["dice"][free[0]]["value"]
    if player["rooms"][room]["egg"]:
        return "an egg hatches from 2 dice of one value, and this is your last die"
    partners = [
        r
        for r in range(len(player["rooms"]))
        if r != room and not player["rooms"][r]["egg"] and board.room_dice(player, r)
    ]
    if any(player["dice"][board.room_dice(player, r)[0]]["value"] == value for r in partners):
        return None
    return (
        "a die alone in a room does nothing (building needs 2 dice there, moving cubes "
        "a second room with dice of its value), and this is your last die"
    )


def _room_reason(player: board.Player, room: int) -> str | None:
    """A room with an egg hatches only while the supply has a die to give."""
    if not player["rooms"][room]["egg"]:
        return None
    kinds = [d["kind"] for d in player["dice"]]
    workers = kinds.count("worker") < data.MAX_WORKERS
    soldiers = kinds.count("soldier") < data.MAX_SOLDIERS
    if not workers and not soldiers:
        return "your supply has no die left to hatch"
    return None
