"""Termite Towers: status, legal actions and the move table (docs/games/termite.md).

Actions (all from the seat in ``status.to_act``, except ``resign``):

* day:   ``{"type": "place_die", "die": 3, "slot": "A4"}`` (slots A1-A6, C*, E*, G*,
  D1t-D6t tunnel, D1c-D6c collect, R0-R7 own rooms); with a helper die
  ``{"type": "place_die", "die": 3, "slot": "E2", "helper": 5}`` (for a room add
  ``"value": 1-6``); ``{"type": "play_queen", "card": ..., ...}``.
* night: ``{"type": "choose", ...}`` answering ``view.pending``; ``{"type": "pass"}``
  where the choice is optional (trade, move, build).
* ``{"type": "resign"}`` at any time.
"""

from __future__ import annotations

from collections.abc import Callable

from tablehub.server.games.base import (
    Action,
    Event,
    IllegalAction,
    Move,
    State,
    Status,
    check_fields,
    clone,
)
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import board, day, night, scoring

Step = Callable[[State, int, Action, Rng, list[Event]], None]
"""One move's work on a private copy of the state, with the game's Rng."""

QUEEN_FIELDS: dict[str, tuple[str, ...]] = {
    "royal_jelly": ("die", "value"),
    "swarm": ("dice",),
    "mandibles": ("stake", "room"),
    "nursery": ("room",),
    "architect": ("blueprint",),
}
CHOICE_FIELDS: dict[str, tuple[str, ...]] = {
    "blueprint": ("blueprint",),
    "egg": ("room",),
    "tunnel": ("edge",),
    "cube": ("source", "room"),
    "trade_take": ("source", "column", "row"),
    "move": ("rooms", "cubes"),
    "build": ("room", "blueprint", "rotation", "column", "row"),
    "bonus": ("space",),
}
PAY_FIELDS: dict[str, tuple[str, ...]] = {
    "cubes": ("cubes",),
    "egg": ("room",),
    "queen": ("card",),
    "blueprint": ("card",),
}


def allowed_fields(state: State, kind: str, action: Action) -> set[str]:
    """The fields an action of this type may carry now; any other field is refused, so
    the legal list is exactly what the move table accepts (no silently ignored fields).
    An action of the wrong phase is let through here: the phase check names the problem."""
    day_kind = kind in ("place_die", "play_queen")
    if kind == "resign" or day_kind != (state["phase"] == "day"):
        return set() if kind == "resign" else set(action)
    if kind == "place_die":
        return {"die", "slot", "helper", "value"}
    if kind == "play_queen":
        return {"card", *QUEEN_FIELDS.get(str(action.get("card")), ())}
    pending = state["night"]["pending"]
    if kind == "pass":
        return set()
    if pending["t"] == "trade":
        return {"pay", *PAY_FIELDS.get(str(action.get("pay")), ())}
    return set(CHOICE_FIELDS[pending["t"]])


def to_act(state: State) -> list[int]:
    if state["phase"] == "finished":
        return []
    if state["phase"] == "day":
        return [day.to_act(state)]
    pending = state["night"]["pending"]
    return [pending["seat"]] if pending is not None else []


def status(state: State) -> Status:
    return {
        "phase": state["phase"],
        "to_act": to_act(state),
        "turn": state["step"],
        "finished": state["phase"] == "finished",
        "result": state["result"],
    }


def legal(state: State, seat: int) -> list[Action]:
    """Exactly the actions the move table accepts from a seat that must act now, except
    ``resign`` (the day's full list spells out every helper die and value)."""
    if state["phase"] == "night":
        return night.choice_actions(state)
    return day.legal(state, seat)


def _step(kind: str, run: Step) -> Move:
    """A move: fields checked, then ``run`` on a deep copy; the Rng stored, ``step`` counted."""

    def move(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        check_fields(kind, action, allowed_fields(state, kind, action))
        new: State = clone(state)
        rng = board.load_rng(new)
        events: list[Event] = []
        run(new, seat, action, rng, events)
        board.store_rng(new, rng)
        new["step"] += 1
        return new, events

    return move


def _by_day(run: Step) -> Step:
    def checked(state: State, seat: int, action: Action, rng: Rng, events: list[Event]) -> None:
        if state["phase"] != "day":
            raise IllegalAction(f"it is night: {night.prompt(state['night']['pending'])}")
        run(state, seat, action, rng, events)

    return checked


def _choose(state: State, seat: int, action: Action, rng: Rng, events: list[Event]) -> None:
    """``choose`` or ``pass``: the night's pending choice."""
    if state["phase"] == "day":
        raise IllegalAction("it is day: place a die (place_die) or play a queen card")
    night.apply_choice(state, action, rng, events)


def _resign(state: State, seat: int, action: Action, rng: Rng, events: list[Event]) -> None:
    """[house] A resigned seat is out: its unplaced dice sit out, its night tasks are
    skipped, it cannot win.  The game ends when one player (or, solo, nobody) is left."""
    player = state["players"][seat]
    player["resigned"] = True
    events.append({"type": "resigned", "seat": seat})
    left = [s for s in range(state["seats"]) if not state["players"][s]["resigned"]]
    if len(left) <= (1 if state["seats"] > 1 else 0):
        scoring.finish(state, "resignation", events)
        return
    if state["phase"] == "day":
        for d in player["dice"]:
            if d["at"] is None:
                d["at"] = "X"
        bumped = state["day"]["bumped"]
        if bumped is not None and bumped["seat"] == seat:
            state["day"]["bumped"] = None
            day.next_turn(state, rng, events)
        elif bumped is None and state["day"]["current"] == seat:
            day.next_turn(state, rng, events)
    else:
        night.drop_seat(state, seat, rng, events)


MOVES: dict[str, Move] = {
    "place_die": _step("place_die", _by_day(day.apply_place)),
    "play_queen": _step("play_queen", _by_day(day.apply_queen)),
    "choose": _step("choose", _choose),
    "pass": _step("pass", _choose),
    "resign": _step("resign", _resign),
}
"""The move table; the base checks the seat, the turn and the game's end first."""
