"""Termite Towers: the engine entry points (legal_actions, apply, status), docs/games/termite.md.

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

from typing import Any

from tablehub.server.games.base import Action, Event, IllegalAction, State, action_type
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import board, day, night, scoring

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
    the legal list is exactly what ``apply`` accepts (no silently ignored fields).  An
    action of the wrong phase is let through here: the phase check names the problem."""
    day_kind = kind in ("place_die", "play_queen")
    if kind == "resign" or day_kind != (state["phase"] == "day"):
        return {"type"} if kind == "resign" else set(action)
    if kind == "place_die":
        return {"type", "die", "slot", "helper", "value"}
    if kind == "play_queen":
        return {"type", "card", *QUEEN_FIELDS.get(str(action.get("card")), ())}
    pending = state["night"]["pending"]
    if kind == "pass":
        return {"type"}
    if pending["t"] == "trade":
        return {"type", "pay", *PAY_FIELDS.get(str(action.get("pay")), ())}
    return {"type", *CHOICE_FIELDS[pending["t"]]}


def to_act(state: State) -> list[int]:
    if state["phase"] == "finished":
        return []
    if state["phase"] == "day":
        return [day.to_act(state)]
    pending = state["night"]["pending"]
    return [pending["seat"]] if pending is not None else []


def status(state: State) -> dict[str, Any]:
    return {
        "phase": state["phase"],
        "to_act": to_act(state),
        "turn": state["step"],
        "finished": state["phase"] == "finished",
        "result": state["result"],
    }


def legal_actions(state: State, seat: int) -> list[Action]:
    """Exactly the actions ``apply`` accepts from ``seat`` now, ``resign`` included (the
    day's full list spells out every helper die and value; empty when not to act)."""
    if seat not in to_act(state):
        return []
    night_phase = state["phase"] == "night"
    actions = night.choice_actions(state) if night_phase else day.legal(state, seat)
    return [*actions, {"type": "resign"}]


def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    kind = action_type(action)
    if state["phase"] == "finished":
        raise IllegalAction("the game is over", "not_your_turn")
    if not 0 <= seat < state["seats"]:
        raise IllegalAction(f"there is no seat {seat}", "not_your_turn")
    if state["players"][seat]["resigned"]:
        raise IllegalAction("you have resigned", "not_your_turn")
    if kind not in ("place_die", "play_queen", "choose", "pass", "resign"):
        raise IllegalAction(
            f"unknown action type {kind!r} (place_die, play_queen, choose, pass, resign)",
            "bad_action",
        )
    if kind != "resign" and seat not in to_act(state):
        raise IllegalAction("it is not your turn", "not_your_turn")
    allowed = allowed_fields(state, kind, action)
    extra = sorted(set(action) - allowed)
    if extra:
        takes = ", ".join(repr(f) for f in sorted(allowed - {"type"})) or "no other field"
        raise IllegalAction(
            f"this {kind} takes {takes}, not {', '.join(repr(f) for f in extra)}", "bad_action"
        )
    new: State = board.clone(state)
    rng = board.load_rng(new)
    events: list[Event] = []
    if kind == "resign":
        _resign(new, seat, rng, events)
    elif new["phase"] == "day":
        if kind == "place_die":
            day.apply_place(new, seat, action, rng, events)
        elif kind == "play_queen":
            day.apply_queen(new, seat, action, rng, events)
        else:
            raise IllegalAction("it is day: place a die (place_die) or play a queen card")
    else:
        if kind in ("place_die", "play_queen"):
            raise IllegalAction(f"it is night: {night.prompt(new['night']['pending'])}")
        night.apply_choice(new, action, rng, events)
    board.store_rng(new, rng)
    new["step"] += 1
    return new, events


def _resign(state: State, seat: int, rng: Rng, events: list[Event]) -> None:
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
