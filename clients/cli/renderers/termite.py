"""CLI renderer for Termite Towers (``termite``; rules in docs/games/termite.md).

Dice are written ``<seat><kind><value>``: ``0w3`` = seat 0's worker showing 3, ``2s6`` =
seat 2's soldier, ``Nw4`` = a neutral die.  Cubes are colour initials (r y g b p w),
coloured with ANSI.  A wall is drawn top row first with the column numbers underneath.
Face-down stake cards show ``?``; other players' hands show only their size.
"""

from __future__ import annotations

import json
import re
from typing import Any

INPUT_HELP = """\
day:    DIE SLOT [hH [vV]]     place die DIE (index in your dice) on SLOT
          slots: A1-A6 C1-C6 E1-E6 G1-G6, D3t (tunnel of D3), D3c (collect of D3),
          R0-R7 (your rooms);  h5 = die 5 becomes a helper;  v4 = value for a room
          e.g.  "2 A4"   "2 E6 h5"   "2 R1 h5 v4"
        queen royal_jelly DIE VALUE | queen swarm DIE... | queen mandibles STAKE ROOM
        queen nursery ROOM | queen architect CARD|deck
night:  answer the pending choice:
          blueprint: CARD | deck          egg: ROOM          tunnel: EDGE (e.g. S-1a)
          cube: SOURCE ROOM (D3 or D3/1a)  trade: cubes R:COLOUR R:COLOUR | egg ROOM |
          queen CARD | blueprint CARD      trade_take: SOURCE COLUMN
          move: ROOM ROOM COLOUR...  (the colours the first room holds afterwards)
          build: ROOM CARD ROTATION COLUMN    bonus: SPACE
        pass (skip an optional trade, move or build)
any time: resign, or a raw JSON action such as {"type": "pass"}"""

_RESET = "\x1b[0m"
_ANSI = {
    "r": "\x1b[31m",
    "y": "\x1b[33m",
    "g": "\x1b[32m",
    "b": "\x1b[34m",
    "p": "\x1b[35m",
    "w": "\x1b[37m",
}
_CARD_NAMES = {
    "A": "A blueprint",
    "C": "C lay egg ",
    "E": "E trade   ",
    "G": "G queen   ",
}
_SLOT_NAMES = {"A": "blueprint", "C": "egg", "E": "trade", "G": "queen card"}


def _cube(initial: str) -> str:
    return f"{_ANSI[initial]}{initial}{_RESET}" if initial in _ANSI else initial


def _cubes(colours: list[str]) -> str:
    return "".join(_cube(c[0]) for c in colours)


def _die(d: dict[str, Any]) -> str:
    owner = "N" if d["owner"] < 0 else str(d["owner"])
    return f"{owner}{d['kind'][0]}{d['value']}"


def _action_cards(board: dict[str, Any]) -> list[str]:
    lines = ["Action cards (slot value: die):"]
    for card, row in board["cards"].items():
        cells = [f"{v}:{_die(d) if d else '.'}" for v, d in enumerate(row, start=1)]
        lines.append(f"  {_CARD_NAMES[card]}  " + "  ".join(f"{c:<5}" for c in cells))
    return lines


def _stakes(board: dict[str, Any]) -> list[str]:
    lines = ["D stakes (main cubes | tunnel slot | collect slot | stake cards | tunnels):"]
    for st in board["stakes"]:
        cards = " ".join(
            f"{node}:{'?' if c is None else _cube(c['colour'][0]) + 'x' + str(c['cubes'])}"
            for node, c in st["cards"].items()
        )
        tunnels = " ".join(
            f"{edge}:{','.join(str(s) for s in seats)}" for edge, seats in st["tunnels"].items()
        )
        dig = " ".join(_die(d) for d in st["tunnel"]) or "-"
        collect = " ".join(_die(d) for d in st["collect"]) or "-"
        lines.append(
            f"  D{st['area']} {_cube(st['colour'][0])}x{st['cubes']:<2} | t: {dig} | c: {collect}"
            f" | {cards}" + (f" | {tunnels}" if tunnels else "")
        )
    return lines


def render_wall(wall: list[str]) -> list[str]:
    """The wall, top row first, with row numbers and the column numbers underneath."""
    lines = [
        f"    {y} |{''.join(_cube(c) for c in wall[y])}|" for y in range(len(wall) - 1, -1, -1)
    ]
    width = len(wall[0]) if wall else 0
    lines.append("       " + "".join(str(x) for x in range(width)))
    return lines


def _player(board: dict[str, Any], seat: int, viewer: int | None) -> list[str]:
    p = board["players"][seat]
    flags = [f for f, on in (("you", seat == viewer), ("resigned", p["resigned"])) if on]
    if seat == board["start"]:
        flags.append("start player")
    head = f"Seat {seat}" + (f" ({', '.join(flags)})" if flags else "")
    lines = [
        f"{head}: score {p['score']}, rows {p['rows']}, bonus points {p['points']}, "
        f"tunnels left {p['tunnels_left']}, hatched {p['hatched']}"
    ]
    hand = ", ".join(p["hand"]) if p["hand"] is not None else f"{p['hand_count']} card(s)"
    queens = ", ".join(p["queens"]) if p["queens"] is not None else f"{p['queen_count']} card(s)"
    lines.append(f"  hand: {hand or '-'}   queen cards: {queens or '-'}")
    lines.append(
        f"  built: {', '.join(p['built']) or '-'}   bonus spaces: {', '.join(p['bonus']) or '-'}"
    )
    dice = []
    for i, d in enumerate(p["dice"]):
        where = {None: "", "H": "@helper", "X": "@out"}.get(d["at"], f"@{d['at']}")
        dice.append(f"{i}:{d['kind'][0]}{d['value']}{where}")
    lines.append("  dice: " + " ".join(dice))
    rooms = []
    for r, room in enumerate(p["rooms"]):
        content = "egg" if room["egg"] else _cubes(room["cubes"]) or "empty"
        dice_txt = f" d{','.join(str(i) for i in room['dice'])}" if room["dice"] else ""
        rooms.append(f"R{r}[{content}{dice_txt}]")
    lines.append("  rooms: " + " ".join(rooms))
    lines.append("  wall:")
    lines.extend(render_wall(p["wall"]))
    return lines


def render(board: dict[str, Any], seat: int | None) -> str:
    lines = [
        f"Termite Towers: round {board['round']}, {board['phase']}, start player seat "
        f"{board['start']}, game ends at {board['rows_to_end']} rows or an empty queen deck"
    ]
    result = board.get("result")
    if result:
        names = ", ".join(f"seat {s}" for s in result["winners"]) or "nobody"
        lines.append(
            f"Game over ({result['reason']}). Scores: {result['scores']}. Winner(s): {names}"
        )
    pending = board.get("pending")
    if pending:
        who = "you" if pending["seat"] == seat else f"seat {pending['seat']}"
        lines.append(f"Waiting for {who}: {pending['prompt']}")
    elif board["to_act"]:
        who = "you" if board["to_act"][0] == seat else f"seat {board['to_act'][0]}"
        lines.append(f"To place a die: {who}")
    lines.extend(_action_cards(board))
    lines.extend(_stakes(board))
    bps = board["blueprints"]
    lines.append(
        f"Blueprints face up: {', '.join(bps['face_up']) or '-'}; deck {bps['deck']}; "
        f"queen deck {board['queen_deck']}; eggs {board['eggs']}"
    )
    goals = "; ".join(
        f"{g['goal']} (seats {g['seats'][0]}-{g['seats'][1]})" for g in board["goals"]
    )
    lines.append(f"Goal cards: {goals}")
    for s in range(len(board["players"])):
        lines.append("")
        lines.extend(_player(board, s, seat))
    return "\n".join(lines)


# --- Actions --------------------------------------------------------------------------------------


def describe_action(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind in ("resign", "pass"):
        return str(kind)
    if kind == "place_die":
        slot = str(action.get("slot", "?"))
        text = f"place die {action.get('die')} on {slot}"
        if slot[:1] in _SLOT_NAMES:
            text += f" ({_SLOT_NAMES[slot[0]]})"
        elif slot.startswith("D"):
            text += " (tunnel)" if slot.endswith("t") else " (collect)"
        if "helper" in action:
            text += f", die {action['helper']} becomes the helper"
            if "value" in action:
                text += f", as a {action['value']}"
        return text
    if kind == "play_queen":
        details = " ".join(f"{k}={v}" for k, v in action.items() if k not in ("type", "card"))
        return f"play queen card {action.get('card')} {details}".strip()
    if kind == "choose":
        return _describe_choice(action)
    return json.dumps(action)


def _describe_choice(a: dict[str, Any]) -> str:
    if "space" in a:
        return f"bonus space: {a['space']}"
    if "edge" in a:
        return f"dig tunnel {a['edge']}"
    if "pay" in a:
        if a["pay"] == "cubes":
            return "trade 2 cubes: " + ", ".join(f"{c} from room {r}" for r, c in a["cubes"])
        if a["pay"] == "egg":
            return f"trade the egg in room {a['room']}"
        return f"trade {a['pay']} card {a['card']}"
    if "rooms" in a:
        keeps = " ".join(a["cubes"]) or "nothing"
        return f"move cubes: room {a['rooms'][0]} keeps {keeps}, room {a['rooms'][1]} the rest"
    if "rotation" in a:
        return (
            f"build {a['blueprint']} from room {a['room']}, rotation {a['rotation']}, "
            f"column {a['column']}"
        )
    if "blueprint" in a:
        return (
            "take the top blueprint of the deck"
            if a["blueprint"] == "deck"
            else f"take blueprint {a['blueprint']}"
        )
    if "column" in a:
        return f"take a cube from {a['source']} into wall column {a['column']}"
    if "source" in a:
        return f"take a cube from {a['source']} into room {a['room']}"
    if "room" in a:
        return f"put an egg into room {a['room']}"
    return json.dumps(a)


_PLACE = re.compile(r"^(?:place\s+)?(\d+)\s+([a-z]\d[tc]?)(?:\s+h(\d+))?(?:\s+v(\d))?$")


def _ints(words: list[str], what: str) -> list[int]:
    try:
        return [int(w) for w in words]
    except ValueError:
        raise ValueError(f"{what} must be whole numbers, got {' '.join(words)!r}") from None


def parse_action(text: str, board: dict[str, Any], seat: int | None) -> dict[str, Any]:
    raw = text.strip()
    if raw.startswith("{"):
        try:
            decoded = json.loads(raw)
        except json.JSONDecodeError as err:
            raise ValueError(f"not valid JSON: {err}") from None
        if not isinstance(decoded, dict):
            raise ValueError("a JSON action must be an object with a 'type'")
        return dict(decoded)
    words = raw.split()
    low = raw.lower()
    if low in ("resign", "pass"):
        return {"type": low}
    if not words:
        raise ValueError("type a move (see help)")
    if words[0].lower() == "queen":
        return _parse_queen(words[1:])
    pending = board.get("pending")
    if board.get("phase") == "night" and pending:
        return _parse_choice(pending["kind"], words)
    match = _PLACE.match(low)
    if not match:
        raise ValueError(f"expected DIE SLOT [hHELPER [vVALUE]] such as '2 A4', got {text!r}")
    die, slot, helper, value = match.groups()
    slot = slot[0].upper() + slot[1:]
    action: dict[str, Any] = {"type": "place_die", "die": int(die), "slot": slot}
    if helper is not None:
        action["helper"] = int(helper)
    if value is not None:
        if helper is None:
            raise ValueError("a value (vN) needs a helper die (hN)")
        action["value"] = int(value)
    return action


def _parse_queen(words: list[str]) -> dict[str, Any]:
    if not words:
        raise ValueError("queen needs a card: royal_jelly, swarm, mandibles, nursery, architect")
    card, rest = words[0].lower(), words[1:]
    base: dict[str, Any] = {"type": "play_queen", "card": card}
    if card == "royal_jelly" and len(rest) == 2:
        die, value = _ints(rest, "DIE and VALUE")
        return {**base, "die": die, "value": value}
    if card == "swarm" and rest:
        return {**base, "dice": sorted(_ints(rest, "dice"))}
    if card == "mandibles" and len(rest) == 2:
        stake, room = _ints([w.lstrip("Dd") for w in rest], "STAKE and ROOM")
        return {**base, "stake": stake, "room": room}
    if card == "nursery" and len(rest) == 1:
        return {**base, "room": _ints(rest, "ROOM")[0]}
    if card == "architect" and len(rest) == 1:
        return {**base, "blueprint": _card(rest[0])}
    raise ValueError(f"cannot read 'queen {' '.join(words)}' (see help)")


def _source(word: str) -> str:
    return word[0].upper() + word[1:].lower()


def _card(word: str) -> str:
    """``red-t`` -> ``red-T``; ``deck`` stays."""
    colour, dash, shape = word.partition("-")
    return f"{colour.lower()}-{shape.upper()}" if dash else word.lower()


def _edge(word: str) -> str:
    return "-".join(
        part.upper() if part.lower() == "s" else part.lower() for part in word.split("-")
    )


def _parse_choice(kind: str, words: list[str]) -> dict[str, Any]:
    base: dict[str, Any] = {"type": "choose"}
    n = len(words)
    if kind == "blueprint" and n == 1:
        return {**base, "blueprint": _card(words[0])}
    if kind == "egg" and n == 1:
        return {**base, "room": _ints(words, "ROOM")[0]}
    if kind == "tunnel" and n == 1:
        return {**base, "edge": _edge(words[0])}
    if kind == "cube" and n == 2:
        return {**base, "source": _source(words[0]), "room": _ints(words[1:], "ROOM")[0]}
    if kind == "trade_take" and n == 2:
        return {**base, "source": _source(words[0]), "column": _ints(words[1:], "COLUMN")[0]}
    if kind == "bonus" and n == 1:
        return {**base, "space": words[0].lower()}
    if kind == "build" and n == 4:
        room, rotation, column = _ints([words[0], words[2], words[3]], "ROOM, ROTATION, COLUMN")
        return {
            **base,
            "room": room,
            "blueprint": _card(words[1]),
            "rotation": rotation,
            "column": column,
        }
    if kind == "move" and n >= 2:
        a, b = _ints(words[:2], "ROOM ROOM")
        return {**base, "rooms": [a, b], "cubes": sorted(w.lower() for w in words[2:])}
    if kind == "trade" and n >= 2:
        pay = words[0].lower()
        if pay == "cubes" and n == 3:
            cubes: list[list[Any]] = []
            for item in words[1:]:
                room_text, _, colour = item.partition(":")
                cubes.append([_ints([room_text], "ROOM")[0], colour.lower()])
            return {**base, "pay": "cubes", "cubes": sorted(cubes)}
        if pay == "egg" and n == 2:
            return {**base, "pay": "egg", "room": _ints(words[1:], "ROOM")[0]}
        if pay == "queen" and n == 2:
            return {**base, "pay": pay, "card": words[1].lower()}
        if pay == "blueprint" and n == 2:
            return {**base, "pay": pay, "card": _card(words[1])}
    raise ValueError(f"cannot read {' '.join(words)!r} as a {kind} choice (see help)")
