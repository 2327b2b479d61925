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

Night choices are few: they are grouped from the full list.  Every answer is exactly
what :func:`tablehub.server.games.base.group_step` gives from the full list (the tests
walk both).
"""

from __future__ import annotations

from tablehub.server.games.base import JSON, Action, State
from tablehub.server.games.staged import Step, StepChoice, group_step
from tablehub.server.games.termite import board, day, night

NOTHING: Step = {"field": None, "choices": [], "complete": False}


def _opening(values: list[JSON]) -> list[StepChoice]:
    """Choices that never complete an action on their own and always lead on."""
    return [{"value": value, "complete": False, "more": True} for value in values]


def step(state: State, seat: int, partial: Action) -> Step:
    """The staged ``legal`` of a seat that must act now."""
    if state["phase"] == "night":
        return group_step(night.choice_actions(state), partial)
    kind = partial.get("type")
    if not _in_order(partial):
        return group_step(day.legal(state, seat), partial)  # fields asked out of order
    if kind is None:
        return {"field": "type", "choices": _opening(_types(state, seat)), "complete": False}
    if kind == "place_die":
        return _place_step(state, seat, partial)
    if kind == "play_queen" and day.helpers_allowed(state):
        return _queen_step(state, seat, partial)
    return NOTHING


def _in_order(partial: Action) -> bool:
    """Whether ``partial`` chose its fields in the order the steps ask them (else the
    answer is grouped from the full list, as any partial action may be asked)."""
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


def _place_step(state: State, seat: int, partial: Action) -> Step:
    die = partial.get("die")
    if die is None:
        return {"field": "die", "choices": _opening(list(_dice(state, seat))), "complete": False}
    if not isinstance(die, int) or isinstance(die, bool) or die not in day.placeable(state, seat):
        return NOTHING
    helpers = day.helpers_allowed(state)
    if len(partial) == 2:  # {type, die}: its slots, read from the slots it may take
        return _slot_step(state, seat, die, helpers)
    if set(partial) == {"type", "die", "slot"}:
        return _helper_step(state, seat, die, partial["slot"], helpers)
    return group_step(day.place_options(state, seat, [die], helpers), partial)


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
                if slot[0] == "R" or int(slot[1]) == helped:
                    choice = choices.setdefault(
                        slot, {"value": slot, "complete": False, "more": False}
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
    helped = helpers and any(
        slot in slots(kind, v) and (room or int(slot[1]) == v) for v in range(1, 7)
    )
    choices: list[StepChoice] = []
    if helped:
        choices = [
            {"value": other, "complete": not room, "more": room}
            for other in board.unplaced(player)
            if other != die
        ]
    return {"field": "helper" if choices else None, "choices": choices, "complete": complete}


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
    if card is None:
        return {"field": "card", "choices": _opening(list(_cards(state, seat))), "complete": False}
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
    chosen = partial.get("dice", [])
    if set(partial) - {"type", "card", "dice"} or not isinstance(chosen, list):
        return NOTHING
    if any(not isinstance(d, int) or isinstance(d, bool) for d in chosen):
        return NOTHING
    if chosen != sorted(set(chosen)) or any(d not in free for d in chosen):
        return NOTHING
    after = [d for d in free if not chosen or d > chosen[-1]]
    choices: list[StepChoice] = [
        {"value": [*chosen, d], "complete": True, "more": d != after[-1]} for d in after
    ]
    return {"field": "dice" if choices else None, "choices": choices, "complete": bool(chosen)}
