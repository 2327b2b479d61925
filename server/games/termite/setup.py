"""Termite Towers: setup and the start of each round (docs/games/termite.md "Setup").

``setup`` deals the stake cards face down, shuffles blueprints (4 face up), builds the
queen deck by player count, places goal cards between neighbours, chooses a start player
and starts round 1.  ``start_round`` rolls every player's dice and sets the neutral dice
(2-3 players).
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import JSON, Event, State
from tablehub.server.games.rng import Rng
from tablehub.server.games.termite import data
from tablehub.server.games.turns import first_clockwise


def setup(options: dict[str, JSON], seats: int, seed: int) -> State:
    """A new game (options and seat count validated by the base)."""
    rows_to_end = options["rows_to_end"]
    rng = Rng.from_seed(seed)

    # Step 1: stake cards, 5 per colour, shuffled and dealt 5 under each main stake.
    stake_cards = [
        {"colour": colour, "cubes": cubes, "up": False}
        for colour in data.COLOURS
        for cubes in data.STAKE_CARD_CUBES
    ]
    stake_cards = rng.shuffled(stake_cards)
    stakes = []
    for area in range(6):
        dealt = stake_cards[area * 5 : area * 5 + 5]
        stakes.append(
            {
                "cubes": data.MAIN_STAKE_CUBES,
                "cards": dict(zip(data.STAKE_CARD_NODES, dealt, strict=True)),
            }
        )

    # Step 5: blueprints, 4 face up.
    deck = rng.shuffled(list(data.BLUEPRINTS))
    face_up = deck[: data.FACE_UP_BLUEPRINTS]
    deck = deck[data.FACE_UP_BLUEPRINTS :]

    # Step 8: queen deck = 10 start cards + extra cards by player count.
    start = [name for name in data.QUEEN_CARDS for _ in range(data.QUEEN_START_EACH)]
    extra = rng.shuffled([name for name in data.QUEEN_CARDS for _ in range(data.QUEEN_EXTRA_EACH)])
    queen_deck = rng.shuffled(start + extra[: data.QUEEN_EXTRA_BY_PLAYERS[seats]])

    # Step 9: a goal card between each two neighbours (2 in a 2- or 1-player game).
    goal_names = rng.shuffled(list(data.GOALS))
    goals = []
    for i in range(max(seats, 2)):
        pair = [i % seats, (i + 1) % seats] if seats > 1 else [0, 0]
        if seats == 2:
            pair = [0, 1]
        goals.append({"goal": goal_names[i], "seats": pair})

    players = [_new_player() for _ in range(seats)]
    state: dict[str, Any] = {
        "seats": seats,
        "options": {"rows_to_end": rows_to_end},
        "rng": 0,
        "step": 0,
        "round": 0,
        "phase": "day",
        "start": rng.below(seats),  # step 10
        "players": players,
        "neutral": [],
        "stakes": stakes,
        "blueprints": {"deck": deck, "face_up": face_up, "discard": []},
        "queen_deck": queen_deck,
        "queen_discard": [],
        "eggs": data.EGGS,
        "goals": goals,
        "day": {"current": 0, "bumped": None},
        "night": {"tasks": [], "pending": None, "b_rooms": []},
        "result": None,
    }
    start_round(state, rng, [])
    state["rng"] = rng.state
    return state


def _new_player() -> dict[str, Any]:
    dice = [{"kind": "worker", "value": 1, "at": None} for _ in range(data.START_WORKERS)]
    dice += [{"kind": "soldier", "value": 1, "at": None} for _ in range(data.START_SOLDIERS)]
    return {
        "dice": dice,
        "rooms": [{"egg": False, "cubes": []} for _ in range(data.ROOMS_START)],
        "wall": [[None] * data.WALL_WIDTH for _ in range(data.WALL_HEIGHT)],
        "bonus": [],
        "hand": [],
        "queens": [],
        "built": [],
        "tunnels": [[] for _ in range(6)],
        "hatched": 0,
        "points": 0,
        "resigned": False,
    }


def start_round(state: State, rng: Rng, events: list[Event]) -> None:
    """Begin a day (state already copied): every active player rolls all dice; neutral
    dice are set (seed setup step 4, round end step 3)."""
    state["round"] += 1
    state["phase"] = "day"
    events.append({"type": "round", "round": state["round"], "start": state["start"]})
    for seat, player in enumerate(state["players"]):
        for d in player["dice"]:
            d["at"] = None
            if not player["resigned"]:
                d["value"] = rng.below(6) + 1
        if not player["resigned"]:
            values = [d["value"] for d in player["dice"]]
            events.append({"type": "rolled", "seat": seat, "values": values})
        else:
            for d in player["dice"]:
                d["at"] = "X"
    state["neutral"] = _roll_neutral(state["seats"], rng)
    if state["neutral"]:
        events.append(
            {"type": "neutral", "dice": [[d["value"], d["at"]] for d in state["neutral"]]}
        )
    first = first_clockwise(
        state["seats"], state["start"], lambda s: not state["players"][s]["resigned"]
    )
    if first is None:
        first = state["start"]
    state["day"] = {"current": first, "bumped": None}
    state["night"] = {"tasks": [], "pending": None, "b_rooms": []}


def _roll_neutral(seats: int, rng: Rng) -> list[dict[str, Any]]:
    """Each neutral set is 5 dice with different values, one on each of A, C, D, E, G
    (on D in the collect slot of its value); a later set (1-2 players) may not land on
    an A/C/E/G slot an earlier set already holds, so it is rolled again until it fits.
    ``set`` tells the sets apart: each is its own rival on a main stake."""
    out: list[dict[str, Any]] = []
    for number in range(data.NEUTRAL_SETS[seats]):
        while True:
            values = rng.shuffled([1, 2, 3, 4, 5, 6])[:5]
            dice: list[dict[str, Any]] = []
            for card, value in zip(data.NEUTRAL_CARDS, values, strict=True):
                slot = f"D{value}c" if card == "D" else f"{card}{value}"
                dice.append({"kind": "worker", "value": value, "at": slot, "set": number})
            taken = {str(d["at"]) for d in out}
            if not any(str(d["at"]) in taken and str(d["at"])[0] != "D" for d in dice):
                break
        out.extend(dice)
    return out
