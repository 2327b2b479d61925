"""9-tower state machine: deck, simultaneous rounds, the move table, status (docs/games/nmbr9.md).

State (plain data; ``deck`` and ``rng`` are hidden and never reach a view or event)::

    {"round": 1..20,              # current round; its card is deck[round - 1]
     "deck": [digit x 20],        # the shuffled cards, in reveal order
     "rng": int,                  # Rng state after the shuffle
     "players": [{"tiles": [tile, ...], "score": int, "resigned": bool,
                  "placed": int}, ...],  # placed = last round this seat placed in
     "active": int,               # seats not resigned
     "placed_count": int,         # active seats that placed in the current round
     "finished": bool, "reason": str | None}

A round is simultaneous: every active seat whose ``placed`` is not the current round
must act.  A move copies only what changes -- the top-level dict, the list of players
(a shallow copy) and the acting seat's entry -- so a 1000-seat table costs a list copy
per action, never a deep copy.

[house] Resign: the seat stops placing (it is never waited for again), keeps its tiles
and score in the view, and is out of the ranking (it cannot win).  The others play on;
if every seat resigns the game ends at once with no winner.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from tablehub.server.games.base import (
    Action,
    Event,
    LegalGrid,
    LegalGroup,
    Result,
    State,
    Status,
    clone,
)
from tablehub.server.games.moves import MoveTable
from tablehub.server.games.nmbr9.rules import (
    ROUNDS,
    check_placement,
    legal_actions,
    legal_grids,
    legal_groups,
    legal_layered_grids,
    make_tile,
    restore_tiles,
    tile_score,
)
from tablehub.server.games.nmbr9.shapes import DIGITS, canonical_rotation
from tablehub.server.games.rng import Rng


class Nmbr9State(TypedDict):
    """The state's top level (the module docstring); the rules below are typed with it."""

    round: int
    deck: list[int]
    rng: int
    players: list[dict[str, Any]]
    active: int
    placed_count: int
    finished: bool
    reason: str | None


DEFAULT_MAX_PLAYERS = 4
TOURNAMENT_MAX_PLAYERS = 1000


def max_players(options: dict[str, Any]) -> int:
    """Seat limit: 4, or 1000 on a ``tournament`` table (a duplicate tournament)."""
    return TOURNAMENT_MAX_PLAYERS if options.get("tournament") else DEFAULT_MAX_PLAYERS


def setup(options: dict[str, Any], seats: int, seed: int) -> Nmbr9State:
    """Shuffle the 20 cards (two of each digit), seat the players (docs/games/nmbr9.md "Deck")."""
    rng = Rng.from_seed(seed)
    deck = rng.shuffled([d for d in DIGITS for _ in range(2)])
    return {
        "round": 1,
        "deck": deck,
        "rng": rng.state,
        "players": [
            {"tiles": [], "score": 0, "resigned": False, "placed": 0} for _ in range(seats)
        ],
        "active": seats,
        "placed_count": 0,
        "finished": False,
        "reason": None,
    }


def restore(state: State) -> State:
    """A state decoded from the store, with its tiles as ``make_tile`` makes them."""
    return {
        **state,
        "players": [{**p, "tiles": restore_tiles(p["tiles"])} for p in state["players"]],
    }


def current_card(state: Mapping[str, Any]) -> int:
    return int(state["deck"][state["round"] - 1])


def must_act(state: State, seat: int) -> bool:
    """True when ``seat`` still has to place its tile this round."""
    if state["finished"] or not 0 <= seat < len(state["players"]):
        return False
    player = state["players"][seat]
    return not player["resigned"] and player["placed"] != state["round"]


def waiting(state: State, seat: int) -> str:
    """Why a seat that placed this round must wait (its tile is down)."""
    return (
        f"you already placed your tile in round {state['round']}; "
        "wait for the others to place theirs"
    )


def legal(state: State, seat: int) -> list[Action]:
    """Every legal placement of the current card for a seat that must act (docs/games/nmbr9.md)."""
    return legal_actions(state["players"][seat]["tiles"], current_card(state))


def legal_basis(state: State, seat: int) -> tuple[object, ...]:
    """What the seat's legal placements depend on (``Game.legal_basis``): whether it
    must place and, if so, the card and its own layout (its tiles, which never change
    once placed)."""
    if not must_act(state, seat):
        return (False,)
    return True, current_card(state), tuple(state["players"][seat]["tiles"])


def legal_compact(state: State, seat: int) -> list[LegalGroup]:
    """:func:`legal` grouped per level and rotation, ``x`` and ``y`` varying
    (``Game.compact_choices``; ``rules.legal_groups``)."""
    return legal_groups(state["players"][seat]["tiles"], current_card(state))


def legal_grid(state: State, seat: int) -> list[LegalGrid]:
    """:func:`legal` as a mask of offsets per level and rotation (``Game.grid_choices``;
    ``rules.legal_grids``)."""
    return legal_grids(state["players"][seat]["tiles"], current_card(state))


def legal_layered(state: State, seat: int) -> list[LegalGrid]:
    """:func:`legal` as one grid per level, the rotations' masks stacked as layers
    (``Game.layered_choices``; ``rules.legal_layered_grids``)."""
    return legal_layered_grids(state["players"][seat]["tiles"], current_card(state))


def _copy(state: State, seat: int) -> State:
    """A new state sharing all but the top level, the players list and ``seat``'s entry."""
    new: State = clone(state, 1)
    new["players"] = clone(state["players"], 1)
    new["players"][seat] = clone(state["players"][seat], 1)
    return new


def _place(state: Nmbr9State, seat: int, action: Action, rng: Rng) -> list[Event]:
    """Place the current card's tile (docs/games/nmbr9.md "Round", "Action")."""
    x, y, rot = action["x"], action["y"], action["rot"]
    digit = current_card(state)
    player = state["players"][seat]
    level = check_placement(player["tiles"], digit, x, y, rot)
    tile = make_tile(digit, x, y, canonical_rotation(digit, rot), level)
    player["tiles"] = [*player["tiles"], tile]
    player["score"] += tile_score(tile)
    player["placed"] = state["round"]
    state["placed_count"] += 1
    events: list[Event] = [
        {
            "type": "placed",
            "seat": seat,
            "round": state["round"],
            "digit": digit,
            "x": x,
            "y": y,
            "rot": tile["rot"],
            "level": level,
            "score": player["score"],
        }
    ]
    _advance(state, events)
    return events


def _resign(state: Nmbr9State, seat: int, action: Action, rng: Rng) -> list[Event]:
    """[house] The seat stops placing; see the module docstring."""
    player = state["players"][seat]
    player["resigned"] = True
    state["active"] -= 1
    if player["placed"] == state["round"]:
        state["placed_count"] -= 1
    events: list[Event] = [{"type": "resigned", "seat": seat}]
    _advance(state, events)
    return events


MOVES = MoveTable(rules={"place": _place, "resign": _resign}, copy=_copy)
"""The move table; the base checks the seat, the game's end, the round and the action's
fields first, and hands each move a copy of the state sharing all but the top level,
the players list and the acting seat's entry."""


def _advance(new: Nmbr9State, events: list[Event]) -> None:
    """End the round when every active seat has placed; reveal the next card or finish."""
    if new["active"] == 0:
        new["finished"] = True
        new["reason"] = "every player resigned"
    elif new["placed_count"] < new["active"]:
        return
    elif new["round"] == ROUNDS:
        new["finished"] = True
        new["reason"] = f"all {ROUNDS} cards were played"
    else:
        new["round"] = new["round"] + 1
        new["placed_count"] = 0
        events.append({"type": "card", "round": new["round"], "digit": current_card(new)})
        return
    final = result(new)
    events.append({"type": "finished", "scores": final["scores"], "winners": final["winners"]})


def result(state: Mapping[str, Any]) -> Result:
    scores = [p["score"] for p in state["players"]]
    ranked = [s for s, p in enumerate(state["players"]) if not p["resigned"]]
    best = max((scores[s] for s in ranked), default=None)
    winners = [s for s in ranked if scores[s] == best]
    return {"scores": scores, "winners": winners, "reason": state["reason"]}


def remaining_counts(state: State) -> list[int]:
    """How many cards of each digit are still to come (after the current one)."""
    counts = [0] * 10
    if not state["finished"]:
        for digit in state["deck"][state["round"] :]:
            counts[digit] += 1
    return counts


def status(state: State) -> Status:
    if state["finished"]:
        return {
            "phase": "finished",
            "to_act": [],
            "turn": state["round"],
            "finished": True,
            "result": result(state),
        }
    rnd = state["round"]
    return {
        "phase": "place",
        "to_act": [
            s for s, p in enumerate(state["players"]) if not p["resigned"] and p["placed"] != rnd
        ],
        "turn": rnd,
        "finished": False,
        "result": None,
    }
