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
from functools import cache

from tablehub.server.games import fields
from tablehub.server.games.base import Action, Event, IllegalAction, State, Status
from tablehub.server.games.moves import MoveTable, Rules
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import day, night, scoring

Step = Callable[[State, int, Action, Rng, list[Event]], None]
"""One move's work on the move's private copy of the state, with the game's Rng."""

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


@cache
def _queen_fields() -> fields.MoveFields:
    schema = fields.load("termite")
    if schema is None:
        raise LookupError("the protocol has no action schema for termite")
    return schema.moves["play_queen"]


def allowed_fields(state: State, kind: str, action: Action) -> set[str] | None:
    """The fields a ``play_queen`` or night action may carry now, narrower than the action
    schema (which only says what each field is): a queen card takes the fields its card
    needs (the schema's ``if card ... then required``), a night choice the fields of the
    pending choice.  Any other field is refused, so the legal list is exactly what the
    move table accepts.  None: as the schema says (``place_die``, ``pass``, ``resign``,
    and an action of the wrong phase, which the phase check names)."""
    if kind not in ("play_queen", "choose") or (kind == "play_queen") != (state["phase"] == "day"):
        return None
    if kind == "play_queen":
        return {"card", *_queen_fields().needed("card", action["card"])}
    pending = state["night"]["pending"]
    if pending["t"] == "trade":
        return {"pay", *PAY_FIELDS.get(str(action.get("pay")), ())}
    return set(CHOICE_FIELDS[pending["t"]])


def _check_fields(state: State, kind: str, action: Action) -> None:
    allowed = allowed_fields(state, kind, action)
    if allowed is None:
        return
    extra = sorted(set(action) - allowed - {"type"})
    if extra:
        takes = ", ".join(repr(f) for f in sorted(allowed)) or "no other field"
        raise IllegalAction(
            f"here a {kind} action takes {takes}, not {', '.join(repr(f) for f in extra)}",
            "bad_action",
        )


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


def _step(kind: str, run: Step) -> Rules:
    """A move: the fields the state allows checked, then ``run`` on the base's deep copy,
    ``step`` counted."""

    def move(state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        _check_fields(state, kind, action)
        events: list[Event] = []
        run(state, seat, action, rng, events)
        state["step"] += 1
        return events

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


MOVES = MoveTable(
    rules={
        "place_die": _step("place_die", _by_day(day.apply_place)),
        "play_queen": _step("play_queen", _by_day(day.apply_queen)),
        "choose": _step("choose", _choose),
        "pass": _step("pass", _choose),
        "resign": _step("resign", _resign),
    }
)
"""The move table; the base checks the seat, the turn, the game's end and the action's
fields first, and hands each move a deep copy of the state (the default copy)."""
