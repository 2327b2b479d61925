"""Termite Towers: staged ``legal`` (protocol/README.md "Staged legal").

A day turn has thousands of complete actions (every die x slot x helper x value, every
swarm subset); asked with a partial action, this answers the next field's choices
without listing them all:

* ``{}`` -- the action types (``place_die``, ``play_queen``);
* ``place_die`` -- the dice that can go somewhere; with a die, its slots (from the
  slots a die of its kind takes at each value, the same for every helper), then the
  helper, then (for a room) the value, from that one die's options;
* ``play_queen`` -- the cards that can be played; ``swarm`` then takes its ``dice`` one
  at a time, ascending; any other card from that card's options.

At night a build and the traded cube are answered a field at a time from where the
piece fits (``board.wall_spots``); the other night choices are few and are grouped from
the full list.  Every answer is exactly what :func:`tablehub.server.games.staged.group_step`
gives from the full list (the tests walk both), also for fields given odd values: a value is
matched by type and value (:func:`tablehub.server.games.staged.same`), as ``act`` checks
a field, so ``die: 2.0``, ``die: True`` or ``dice: [True]`` chooses nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from tablehub.server.games.base import JSON, Action, State
from tablehub.server.games.staged import Step, StepChoice, group_step, same
from tablehub.server.games.termite import board, build, data, day, gather, night

NOTHING: Step = {"field": None, "choices": [], "complete": False}


def _opening(field: str, values: list[JSON]) -> Step:
    """The step for ``field`` whose choices never complete an action on their own and
    always lead on (no field when there are none)."""
    choices: list[StepChoice] = [
        {"value": value, "complete": False, "more": True} for value in values
    ]
    return {"field": field if choices else None, "choices": choices, "complete": False}


def step(state: State, seat: int, partial: Action) -> Step:
    """The staged ``legal`` of a seat that must act now."""
    if state["phase"] == "night":
        return _night_step(state, partial)
    if not _in_order(partial):
        return group_step(day.legal(state, seat), partial)  # fields asked out of order
    if not partial:
        return _opening("type", _types(state, seat))
    kind = partial["type"]
    if kind == "place_die":
        return _place_step(state, seat, partial)
    if kind == "play_queen" and day.helpers_allowed(state):
        return _queen_step(state, seat, partial)
    return NOTHING


def _in_order(partial: Action) -> bool:
    """Whether the steps can answer ``partial`` from the die or card it chose (else the
    answer is grouped from the full list, as any partial action may be asked).  Looser
    than :func:`_asked_in_order`: a ``place_die`` with its die but other fields out of
    order is still answered from that one die's options (in :func:`_place_step`)."""
    if "type" not in partial:
        return not partial
    if partial["type"] == "place_die":
        return "die" in partial or set(partial) == {"type"}
    if partial["type"] == "play_queen":
        return "card" in partial or set(partial) == {"type"}
    return True


def _types(state: State, seat: int) -> list[JSON]:
    out: list[JSON] = []
    if _dice(state, seat):
        out.append("place_die")
    if day.helpers_allowed(state) and _cards(state, seat):
        out.append("play_queen")
    return out


def _dice(state: State, seat: int) -> list[int]:
    slots = day.Slots(state, seat)
    helpers = day.helpers_allowed(state)
    return [die for die in day.placeable(state, seat) if slots.die_can_go(die, helpers)]


PLACE_FIELDS = ("type", "die", "slot", "helper", "value")
"""The fields of ``place_die`` in the order the steps ask them."""


def _asked_in_order(partial: Action, order: tuple[str, ...]) -> bool:
    """Whether ``partial``'s fields are the first of ``order`` (the steps' own order)."""
    return set(partial) == set(order[: len(partial)])


def _place_step(state: State, seat: int, partial: Action) -> Step:
    if "die" not in partial:
        return _opening("die", list(_dice(state, seat)))
    die = _pick(day.placeable(state, seat), partial["die"])
    if die is None:
        return NOTHING
    helpers = day.helpers_allowed(state)
    if not _asked_in_order(partial, PLACE_FIELDS):
        return group_step(day.place_options(state, seat, [die], helpers), partial)
    if len(partial) == 2:  # {type, die}: its slots, read from the slots it may take
        return _slot_step(state, seat, die, helpers)
    if len(partial) == 3:
        return _helper_step(state, seat, die, partial["slot"], helpers)
    return _value_step(state, seat, die, partial, helpers)


def _slot_step(state: State, seat: int, die: int, helpers: bool) -> Step:
    """The slots of ``die``: what ``group_step`` gives from ``day.place_options`` for
    that die, without listing every helper and value (the slots a die of a kind and
    value may take are the same for every helper)."""
    slots = day.Slots(state, seat)
    player = state["players"][seat]
    kind, value = player["dice"][die]["kind"], player["dice"][die]["value"]
    choices: dict[str, StepChoice] = {
        slot: {"value": slot, "complete": True, "more": False} for slot in slots(kind, value)
    }
    if helpers and any(other != die for other in board.unplaced(player)):
        for helped in range(1, 7):  # the value a helper gives: a room's, or the slot's own
            for slot in slots(kind, helped):
                choice = choices.setdefault(
                    slot, StepChoice(value=slot, complete=False, more=False)
                )
                choice["more"] = True
    field = "slot" if choices else None
    return {"field": field, "choices": list(choices.values()), "complete": False}


def _helper_step(state: State, seat: int, die: int, slot: JSON, helpers: bool) -> Step:
    """The helpers of ``die`` on ``slot``: what ``group_step`` gives from
    ``day.place_options`` for that die, from the values that take the slot."""
    if not isinstance(slot, str):
        return NOTHING
    slots = day.Slots(state, seat)
    player = state["players"][seat]
    kind, value = player["dice"][die]["kind"], player["dice"][die]["value"]
    complete = slot in slots(kind, value)
    room = slot[:1] == "R"
    helped = helpers and bool(_values_taking(slots, kind, slot))
    choices: list[StepChoice] = []
    if helped:
        choices = [
            {"value": other, "complete": not room, "more": room}
            for other in board.unplaced(player)
            if other != die
        ]
    return {"field": "helper" if choices else None, "choices": choices, "complete": complete}


def _value_step(state: State, seat: int, die: int, partial: Action, helpers: bool) -> Step:
    """A die with its slot and helper: for a room, the values the room takes from it;
    elsewhere the die takes the slot's value, and nothing follows."""
    slot = partial["slot"]
    player = state["players"][seat]
    if not helpers or not isinstance(slot, str):
        return NOTHING
    if (
        _pick([other for other in board.unplaced(player) if other != die], partial["helper"])
        is None
    ):
        return NOTHING
    slots = day.Slots(state, seat)
    kind = player["dice"][die]["kind"]
    values: list[JSON] = list(_values_taking(slots, kind, slot))
    if slot[:1] != "R":  # a slot takes dice of its own value only
        return {"field": None, "choices": [], "complete": bool(values) and "value" not in partial}
    if "value" in partial:
        return {
            "field": None,
            "choices": [],
            "complete": _pick(values, partial["value"]) is not None,
        }
    return {
        "field": "value" if values else None,
        "choices": [{"value": v, "complete": True, "more": False} for v in values],
        "complete": False,
    }


def _values_taking(slots: day.Slots, kind: str, slot: str) -> list[int]:
    """The values a die of ``kind`` may show to go on ``slot`` (the die's own, or one a
    helper gives it): ``Slots`` lists only rooms and the slots of the value asked."""
    return [v for v in range(1, 7) if slot in slots(kind, v)]


def _cards(state: State, seat: int) -> list[str]:
    held = sorted(set(state["players"][seat]["queens"]))
    free = board.unplaced(state["players"][seat])
    return [
        card
        for card in held
        if (free if card == "swarm" else day.queen_options(state, seat, [card]))
    ]


def _queen_step(state: State, seat: int, partial: Action) -> Step:
    card = partial.get("card")
    if "card" not in partial:
        return _opening("card", list(_cards(state, seat)))
    if card != "swarm":
        if not isinstance(card, str):
            return NOTHING
        return group_step(day.queen_options(state, seat, [card]), partial)
    if "swarm" not in state["players"][seat]["queens"]:
        return NOTHING
    return _swarm_step(board.unplaced(state["players"][seat]), partial)


def _swarm_step(free: list[int], partial: Action) -> Step:
    """Swarm's ``dice``: distinct unplaced dice, ascending, at least one; chosen one at a
    time (each choice is the list so far plus one die)."""
    asked = partial.get("dice", [])
    if set(partial) - {"type", "card", "dice"} or not isinstance(asked, list):
        return NOTHING
    # a list chosen so far is matched as ``staged.extends`` does: item by item, each of
    # the same type and equal (``[True]`` or ``[1.0]`` is not ``[1]``)
    picked = [_pick(free, item) for item in asked]
    chosen = [d for d in picked if d is not None]
    if len(chosen) != len(asked) or chosen != sorted(set(chosen)):
        return NOTHING
    after = [d for d in free if not chosen or d > chosen[-1]]
    choices: list[StepChoice] = [
        {"value": [*chosen, d], "complete": True, "more": d != after[-1]} for d in after
    ]
    return {"field": "dice" if choices else None, "choices": choices, "complete": bool(chosen)}


# --- Night: wall pieces -------------------------------------------------------------------
#
# A build lists every room x blueprint x rotation x place in the wall (a thousand
# actions with a few cards in hand), a traded cube every stake card x place: these are
# answered a field at a time from where each piece fits (``board.wall_spots``, kept per
# wall and shape).  The other night choices are short lists, grouped as they are.

PIECE_FIELDS: dict[str, tuple[str, ...]] = {
    "build": ("type", "room", "blueprint", "rotation", "column", "row"),
    "trade_take": ("type", "source", "column", "row"),
}
"""The night choices answered a field at a time, and their fields in the actions' order."""


def _night_step(state: State, partial: Action) -> Step:
    task = state["night"]["pending"]
    order = PIECE_FIELDS.get(task["t"])
    if order is None or not _asked_in_order(partial, order):
        return group_step(night.choice_actions(state), partial)
    passable = night.CHOICES[task["t"]].passable
    pieces = _build_step if task["t"] == "build" else _take_step
    if not partial:  # choose when something fits, then pass
        kinds = _opening(
            "type", ["choose"] if pieces(state, task, {"type": "choose"})["field"] else []
        )
        if passable:
            kinds["field"] = "type"
            kinds["choices"].append({"value": "pass", "complete": True, "more": False})
        return kinds
    if partial["type"] == "pass":
        return {"field": None, "choices": [], "complete": passable and len(partial) == 1}
    return pieces(state, task, partial) if partial["type"] == "choose" else NOTHING


def _pick(values: Iterable[JSON], wanted: JSON) -> JSON | None:
    """The one of ``values`` a partial action's ``wanted`` chooses, as :func:`group_step`
    matches them (:func:`~tablehub.server.games.staged.same`: of the same type and
    equal, as ``act`` checks a field); None when none is."""
    return next((value for value in values if same(value, wanted)), None)


def _build_step(state: State, task: gather.Task, partial: Action) -> Step:
    """A ``choose`` of a build: room, blueprint, rotation, then the place."""
    seat = task["seat"]
    player = state["players"][seat]
    wall = board.wall_mask(player["wall"])
    rooms = [room for room, _ in build.build_rooms(state, seat, task["value"])]
    cards = [
        card
        for card in dict.fromkeys(player["hand"])
        if any(_fits(wall, cells) for cells in _shapes(card))
    ]
    if not rooms or not cards:
        return NOTHING
    if len(partial) == 1:
        return _opening("room", list(rooms))
    if _pick(rooms, partial["room"]) is None:
        return NOTHING
    if len(partial) == 2:
        return _opening("blueprint", list(cards))
    card = _pick(cards, partial["blueprint"])
    if card is None:
        return NOTHING
    shapes = _shapes(card)
    if len(partial) == 3:
        turns: list[JSON] = [k for k, cells in enumerate(shapes) if _fits(wall, cells)]
        return _opening("rotation", turns)
    rotation = _pick(range(len(shapes)), partial["rotation"])
    if rotation is None:
        return NOTHING
    return _spot_step(wall, shapes[rotation], partial)


def _take_step(state: State, task: gather.Task, partial: Action) -> Step:
    """A ``choose`` of the traded cube: the stake card, then the place."""
    wall = board.wall_mask(state["players"][task["seat"]]["wall"])
    sources = list(dict.fromkeys(build.trade_sources(state, task["seat"])))
    if not sources or not _fits(wall, build.CUBE):
        return NOTHING
    if len(partial) == 1:
        return _opening("source", list(sources))
    if _pick(sources, partial["source"]) is None:
        return NOTHING
    return _spot_step(wall, build.CUBE, partial)


def _shapes(card: str) -> list[tuple[board.Cell, ...]]:
    return [tuple(cells) for cells in board.shape_rotations(data.blueprint_shape(card))]


def _fits(wall: int, cells: tuple[board.Cell, ...]) -> bool:
    drops, fits = board.wall_spots(wall, cells)
    return bool(drops or fits)


def _spot_step(wall: int, cells: tuple[board.Cell, ...], partial: Action) -> Step:
    """A piece's place (``build.piece_spots``): the columns it drops into (complete) or
    rests in somewhere (a row to follow), then the rows it rests at in that column."""
    drops, fits = board.wall_spots(wall, cells)
    if "column" not in partial:
        choices = {x: StepChoice(value=x, complete=True, more=False) for x in drops}
        for x, _ in fits:
            choices.setdefault(x, StepChoice(value=x, complete=False, more=True))["more"] = True
        return {
            "field": "column" if choices else None,
            "choices": list(choices.values()),
            "complete": False,
        }
    column = _pick(range(data.WALL_WIDTH), partial["column"])
    rows: list[JSON] = [y for x, y in fits if x == column]
    if "row" in partial:
        return {"field": None, "choices": [], "complete": _pick(rows, partial["row"]) is not None}
    return {
        "field": "row" if rows else None,
        "choices": [{"value": y, "complete": True, "more": False} for y in rows],
        "complete": column in drops,
    }
