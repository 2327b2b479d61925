"""Termite Towers: what each audience sees (docs/games/termite.md; hidden information).

Public: action cards and dice (values are public once rolled), main stakes, face-up
stake cards, tunnels, rooms, walls, bonus markers, completed blueprints, face-up
blueprints, goal cards, counts of decks and hands, the pending choice.  A seat also
sees its own blueprint hand and queen cards.  Never shown: deck order, face-down stake
cards, other seats' hands, the RNG.

The all-seeing view (:func:`reveal`, a finished game's replay only) is the spectators'
view with every seat's hand and queen cards, and ``revealed``: the face-down stake
cards and both decks in the order they are drawn.
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import State, View
from tablehub.server.games.termite import board, data, day, night, scoring
from tablehub.server.games.termite.engine import to_act


def _die(state: State, owner: int, index: int) -> dict[str, Any]:
    d = board.die(state, owner, index)
    who = board.rival(state, owner, index)
    return {"owner": who, "die": index, "kind": d["kind"], "value": d["value"]}


def _cards(state: State) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    holders = board.slot_holders(state)
    for card in data.SINGLE_SLOT_CARDS:
        row: list[Any] = []
        for value in range(1, 7):
            holder = holders.get(f"{card}{value}")
            row.append(None if holder is None else _die(state, *holder))
        out[card] = row
    return out


def _stakes(state: State) -> list[dict[str, Any]]:
    out = []
    for area in range(1, 7):
        stake = state["stakes"][area - 1]
        cards: dict[str, Any] = {}
        for node in data.STAKE_CARD_NODES:
            card = stake["cards"][node]
            cards[node] = {"colour": card["colour"], "cubes": card["cubes"]} if card["up"] else None
        tunnels: dict[str, list[int]] = {}
        for seat, player in enumerate(state["players"]):
            for edge in player["tunnels"][area - 1]:
                tunnels.setdefault(edge, []).append(seat)
        out.append(
            {
                "area": area,
                "colour": data.COLOURS[area - 1],
                "cubes": stake["cubes"],
                "tunnel": [_die(state, *h) for h in board.dice_at(state, f"D{area}t")],
                "collect": [_die(state, *h) for h in board.dice_at(state, f"D{area}c")],
                "cards": cards,
                "tunnels": tunnels,
            }
        )
    return out


def _player(state: State, seat: int, viewer: int | None, score: int) -> dict[str, Any]:
    p = state["players"][seat]
    mine = viewer == seat
    return {
        "seat": seat,
        "dice": [{"kind": d["kind"], "value": d["value"], "at": d["at"]} for d in p["dice"]],
        "rooms": [
            {"egg": room["egg"], "cubes": list(room["cubes"]), "dice": board.room_dice(p, r)}
            for r, room in enumerate(p["rooms"])
        ],
        "wall": ["".join(c[0] if c else "." for c in row) for row in p["wall"]],
        "rows": scoring.rows_done(p),
        "bonus": list(p["bonus"]),
        "built": list(p["built"]),
        "tunnels_left": data.TUNNELS_PER_PLAYER - board.tunnels_used(p),
        "hatched": p["hatched"],
        "points": p["points"],
        "score": score,
        "resigned": p["resigned"],
        "hand": list(p["hand"]) if mine else None,
        "hand_count": len(p["hand"]),
        "queens": list(p["queens"]) if mine else None,
        "queen_count": len(p["queens"]),
    }


def _pending(state: State) -> dict[str, Any] | None:
    if state["phase"] == "finished":
        return None
    if state["phase"] == "day":
        bumped = state["day"]["bumped"]
        if bumped is None:
            return None
        return {
            "seat": bumped["seat"],
            "kind": "bumped",
            "die": bumped["die"],
            "prompt": f"your die {bumped['die'] + 1} was bumped: place it again now",
        }
    task = state["night"]["pending"]
    if task is None:
        return None
    out = {"seat": task["seat"], "kind": task["t"], "prompt": night.prompt(task)}
    for key in ("area", "value", "used", "colour"):
        if key in task and task[key] is not None:
            out[key] = task[key]
    if task["t"] == "cube":
        out["from"] = f"D{task['scope']}" if task["scope"] else "any main stake"
    return out


def view(state: State, seat: int | None) -> View:
    scores = scoring.scores(state)
    # Walls are rows (bottom first) of colour initials, "." = empty.
    bps = state["blueprints"]
    return {
        "seats": state["seats"],
        "you": seat,
        "round": state["round"],
        "phase": state["phase"],
        "start": state["start"],
        "to_act": to_act(state),
        "rows_to_end": state["options"]["rows_to_end"],
        "colours": list(data.COLOURS),
        "cards": _cards(state),
        "stakes": _stakes(state),
        "blueprints": {
            "face_up": list(bps["face_up"]),
            "deck": len(bps["deck"]),
            "discard": list(bps["discard"]),
        },
        "queen_deck": len(state["queen_deck"]),
        "queen_discard": list(state["queen_discard"]),
        "eggs": state["eggs"],
        "goals": [{"goal": g["goal"], "seats": list(g["seats"])} for g in state["goals"]],
        "players": [_player(state, s, seat, scores[s]) for s in range(state["seats"])],
        "pending": _pending(state),
        "idle": day.idle_slots(state, seat) if seat is not None else {},
        "result": state["result"],
    }


def reveal(state: State) -> View:
    """Everything in ``state`` a player may see once the game is over (not the RNG)."""
    out = view(state, None)
    for seat, player in enumerate(out["players"]):
        hidden = state["players"][seat]
        player["hand"] = list(hidden["hand"])
        player["queens"] = list(hidden["queens"])
    revealed: list[dict[str, Any]] = []
    for area, stake in enumerate(state["stakes"], start=1):
        down = [
            f"{node} {card['colour']} with {card['cubes']} cube{'s' if card['cubes'] != 1 else ''}"
            for node, card in stake["cards"].items()
            if not card["up"]
        ]
        if down:
            revealed.append(
                {"seat": None, "what": f"Face-down stake cards of area D{area}", "items": down}
            )
    revealed.append(
        {
            "seat": None,
            "what": "Blueprint deck, next drawn first",
            "items": list(state["blueprints"]["deck"]),
        }
    )
    revealed.append(
        {
            "seat": None,
            "what": "Queen deck, next drawn first",
            "items": [card.replace("_", " ") for card in state["queen_deck"]],
        }
    )
    out["revealed"] = revealed
    return out
