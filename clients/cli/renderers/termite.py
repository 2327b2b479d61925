"""CLI renderer for Termite Towers (``termite``; rules in docs/games/termite.md).

Dice are written ``<owner><kind><value>``: ``0w3`` = seat 0's worker showing 3, ``2s6`` =
seat 2's soldier, ``Nw4`` = a neutral die; cubes are colour initials (r y g b p w),
coloured with ANSI.  Every screen carries the key (``KEY``) so the codes are never
unexplained.  A wall is drawn top row first with the column numbers underneath.
Face-down stake cards show ``?``; other players' hands show only their size.

``render_compact`` (an 80x24 window) shows the pending choice, your own dice, rooms and
wall side by side, the action cards and stakes, and one line per other seat.
``choice_steps`` groups the legal actions into decisions -- a die, then a slot, then
a helper -- so a turn is a few short lists instead of thousands of actions; rooms
are picked by their own number.
"""

from __future__ import annotations

import json
import re
from typing import Any

INPUT_HELP = """\
Easiest: type the number in front of a choice in the list under the board: a
die, then a slot, then a helper.  When the choice is only rooms (an egg, a
cube), type the room's own number (3 = R3).
Or type the move:
day:    DIE SLOT [hH [vV]]   place die DIE (its number in your dice) on SLOT
          slots: A1-A6 C1-C6 E1-E6 G1-G6, D3t (tunnel of D3), D3c (collect
          of D3), R0-R7 (your rooms); h5 = die 5 helps; v4 = value in a room
          e.g.  "2 A4"   "2 E6 h5"   "2 R1 h5 v4"
        queen royal_jelly DIE VALUE | queen swarm DIE... | queen nursery ROOM
        queen mandibles STAKE ROOM | queen architect CARD|deck
night:  answer the pending choice:
          blueprint: CARD | deck        egg: ROOM (3 or R3)
          tunnel: EDGE (e.g. S-1a)      cube: SOURCE ROOM (D3 or D3/1a)
          trade: cubes R:COLOUR R:COLOUR | egg ROOM | queen CARD |
                 blueprint CARD
          trade_take: SOURCE COLUMN [ROW]   bonus: SPACE
          move: ROOM ROOM COLOUR...  (the colours the first room keeps)
          build: ROOM CARD ROTATION COLUMN [ROW]  (no row: dropped down)
          colours in full or by initial: r red, y yellow, g green, b blue,
          p purple, w white
        pass (skip an optional trade, move or build)
any time: resign, or a raw JSON action such as {"type": "pass"}"""

KEY = "key: 0w3 = seat 0's worker showing 3 · s soldier · N neutral · cubes r y g b p w"
"""Under every board; ``help`` spells the cube colours out."""

_RESET = "\x1b[0m"
_ANSI = {
    "r": "\x1b[31m",
    "y": "\x1b[33m",
    "g": "\x1b[32m",
    "b": "\x1b[34m",
    "p": "\x1b[35m",
    "w": "\x1b[37m",
}
_COLOURS = {"r": "red", "y": "yellow", "g": "green", "b": "blue", "p": "purple", "w": "white"}
_CARD_NAMES = {
    "A": "A blueprint",
    "C": "C egg     ",
    "E": "E trade   ",
    "G": "G queen   ",
}
_WIDTH = 79
_SLOT_NAMES = {"A": "blueprint", "C": "egg", "E": "trade", "G": "queen card"}
_SLOT_WORDS = {
    "A": "take a blueprint",
    "C": "lay an egg",
    "E": "trade to build",
    "G": "draw a queen card",
}
_QUEEN_WORDS = {
    "royal_jelly": "royal jelly (set a die to any value)",
    "swarm": "swarm (reroll dice)",
    "mandibles": "mandibles (a cube into a room)",
    "nursery": "nursery (an egg into an empty room)",
    "architect": "architect (take a blueprint)",
}
_BONUS_WORDS = {
    "worker": "+1 worker die",
    "soldier": "+1 soldier die",
    "room": "+1 room",
    "blueprint": "a blueprint",
    "queen": "a queen card",
    "egg": "an egg into an empty room",
    "cubes": "2 cubes of one colour",
    "points": "+2 points",
}


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


def _stakes_compact(board: dict[str, Any]) -> list[str]:
    """The six stakes in two lines: colour, cubes left, dice on the tunnel/collect slots."""
    parts = []
    for st in board["stakes"]:
        dig = ",".join(_die(d) for d in st["tunnel"]) or "-"
        collect = ",".join(_die(d) for d in st["collect"]) or "-"
        parts.append(f"D{st['area']} {st['colour']} {st['cubes']} t:{dig} c:{collect}")
    return ["stakes: " + " | ".join(parts[:3]), "        " + " | ".join(parts[3:])]


def render_wall(wall: list[str]) -> list[str]:
    """The wall, top row first, with row numbers and the column numbers underneath."""
    lines = [
        f"    {y} |{''.join(_cube(c) for c in wall[y])}|" for y in range(len(wall) - 1, -1, -1)
    ]
    width = len(wall[0]) if wall else 0
    lines.append("       " + "".join(str(x) for x in range(width)))
    return lines


def _dice_text(p: dict[str, Any]) -> str:
    dice = []
    for i, d in enumerate(p["dice"]):
        where = {None: "", "H": " helper", "X": " out"}.get(d["at"], f" {d['at']}")
        dice.append(f"{i}:{d['kind'][0]}{d['value']}{where}")
    return "your dice (number:kind value, where): " + " ".join(dice)


def _rooms_text(p: dict[str, Any]) -> list[str]:
    rooms = []
    for r, room in enumerate(p["rooms"]):
        content = "egg" if room["egg"] else _cubes(room["cubes"]) or "empty"
        dice_txt = f" dice {','.join(str(i) for i in room['dice'])}" if room["dice"] else ""
        rooms.append(f"R{r}[{content}{dice_txt}]")
    half = (len(rooms) + 1) // 2
    return ["rooms: " + " ".join(rooms[:half]), "       " + " ".join(rooms[half:])]


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
    lines.append(f"  blueprints in hand: {hand or '-'}   queen cards: {queens or '-'}")
    lines.append(
        f"  built: {', '.join(p['built']) or '-'}   bonus spaces: {', '.join(p['bonus']) or '-'}"
    )
    lines.append("  " + _dice_text(p))
    lines.extend("  " + line for line in _rooms_text(p))
    lines.append("  wall:")
    lines.extend(render_wall(p["wall"]))
    return lines


def _headline(board: dict[str, Any], seat: int | None) -> list[str]:
    lines = [
        f"Termite Towers: round {board['round']}, {board['phase']}, start player seat "
        f"{board['start']}, game ends at {board['rows_to_end']} rows or an empty queen deck"
    ]
    result = board.get("result")
    if result:
        names = ", ".join(f"seat {s}" for s in result["winners"]) or "nobody"
        points = ", ".join(f"seat {s} {n}" for s, n in enumerate(result["scores"]))
        lines.append(f"Game over: {result['reason']}. Scores: {points}. Winner(s): {names}")
    pending = board.get("pending")
    if pending:
        who = "you" if pending["seat"] == seat else f"seat {pending['seat']}"
        lines.append(f"Waiting for {who}: {_prompt(pending)}")
    elif board["to_act"]:
        who = "you" if board["to_act"][0] == seat else f"seat {board['to_act'][0]}"
        lines.append(f"To place a die: {who}")
    return lines


def render(board: dict[str, Any], seat: int | None) -> str:
    lines = _headline(board, seat)
    lines.append(KEY)
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


def render_compact(board: dict[str, Any], seat: int | None) -> str:
    """The pending choice; your wall with your score, cards, rooms and dice beside it;
    the key to the die codes; the action cards and stakes; one line per other seat."""
    players = board["players"]
    mine = seat if seat is not None and 0 <= seat < len(players) else board["start"]
    p = players[mine]
    headline = _headline(board, seat)
    lines = [f"Round {board['round']}, {board['phase']}" + "".join(f" — {x}" for x in headline[1:])]
    hand = ", ".join(p["hand"]) if p["hand"] is not None else f"{p['hand_count']} cards"
    queens = ", ".join(p["queens"]) if p["queens"] is not None else f"{p['queen_count']} cards"
    info = [
        f"{'you' if mine == seat else f'seat {mine}'}: score {p['score']}, rows {p['rows']}, "
        f"tunnels left {p['tunnels_left']}, hatched {p['hatched']}",
        f"blueprints: {hand or '-'}; queen cards: {queens or '-'}",
        *_rooms_text(p),
        f"face-up blueprints: {', '.join(board['blueprints']['face_up']) or '-'}",
    ]
    wall = [line[3:] for line in render_wall(p["wall"])]
    for n in range(max(len(wall), len(info))):
        left = wall[n] if n < len(wall) else ""
        pad = 12 - len(re.sub(r"\x1b\[[0-9;]*m", "", left))
        right = info[n] if n < len(info) else ""
        lines.append(f"{left}{' ' * pad}{right}".rstrip())
    lines.append(_dice_text(p))
    lines.append(KEY)  # next to the first die codes, so a short window still shows it
    cards = [
        f"{_CARD_NAMES[card].strip()} "
        + " ".join(f"{v}:{_die(d) if d else '·'}" for v, d in enumerate(row, 1))
        for card, row in board["cards"].items()
    ]
    pairs = [f"{a} | {b}" for a, b in zip(cards[::2], cards[1::2], strict=False)]
    lines.extend(pairs if max(map(len, pairs), default=0) <= _WIDTH else cards)
    lines.extend(_stakes_compact(board))
    for s, other in enumerate(players):
        if s != mine:
            placed = sum(1 for d in other["dice"] if d["at"] is not None)
            lines.append(
                f"seat {s}: score {other['score']}, rows {other['rows']}, "
                f"{len(other['dice'])} dice ({placed} placed)"
                + (", resigned" if other["resigned"] else "")
            )
    return "\n".join(lines)


def rank_key(board: dict[str, Any], seat: int, score: int) -> tuple[int, ...]:
    """docs/games/termite.md "End": score, then completed rows, wall cubes, fewer dice."""
    p = board["players"][seat]
    cubes = sum(1 for row in p["wall"] for c in row if c != ".")
    return (score, p["rows"], cubes, -len(p["dice"]))


def describe_reason(reason: str) -> str:
    return reason


def describe_news(
    old: dict[str, Any], new: dict[str, Any], events: list[dict[str, Any]]
) -> list[tuple[int | None, str]]:
    """Dice placed (read from the boards) and the night's events, in words."""
    news: list[tuple[int | None, str]] = []
    for s, player in enumerate(new["players"]):
        before = old["players"][s]["dice"] if s < len(old["players"]) else []
        for i, d in enumerate(player["dice"]):
            was = before[i]["at"] if i < len(before) else None
            if d["at"] != was and d["at"] not in (None, "X"):
                what = f"die {i} ({d['kind']} {d['value']})"
                if d["at"] == "H":
                    news.append((s, f"used {what} as a helper"))
                else:
                    news.append((s, f"put {what} on {_slot_words(str(d['at']))}"))
    for e in events:
        phrase = _event_phrase(e)
        if phrase is not None:
            news.append((e.get("seat") if isinstance(e.get("seat"), int) else None, phrase))
    return news


_EVENT_WORDS = {
    "hatched": "hatched a {kind} die from room R{room}",
    "egg": "laid an egg in room R{room}",
    "tunnel": "dug tunnel {edge} at D{area}",
    "cube": "took a {colour} cube from {source} into room R{room}",
    "wall_cube": "put a {colour} cube from {source} into wall column {column}",
    "queen_drawn": "drew a queen card",
    "queen_played": "played the queen card {card_words}",
    "bonus": "took the bonus {space_words}",
    "passed": "passed ({choice})",
    "trade": "traded to build",
    "moved": "moved cubes between rooms R{rooms[0]} and R{rooms[1]}",
    "rows": "now has {rows} completed wall rows",
    "resigned": "resigned",
    "bumped": "had die {die} bumped from {slot}",
    "night": "night falls: the actions resolve from A to G",
    "round": "round {round} begins; seat {start} starts",
}
"""Game events in words (``blueprint`` is worded by :func:`_event_phrase`)."""


def _event_phrase(e: dict[str, Any]) -> str | None:
    kind = e.get("type")
    if kind == "blueprint":
        return "took a blueprint" + (f": {e['card']}" if e.get("card") else " (none left)")
    words = _EVENT_WORDS.get(str(kind))
    if words is None:
        return None
    card, space = e.get("card"), e.get("space")
    return words.format(
        **e,
        card_words=_QUEEN_WORDS.get(str(card), card),
        space_words=_BONUS_WORDS.get(str(space), space),
    )


_PROMPTS = {
    "blueprint": "take a blueprint (a face-up one or the deck's top)",
    "egg": "put an egg into one of your empty rooms",
    "cube": "take a cube from {from} into one of your rooms",
    "trade_take": "take the cube you bought into a wall column",
}
_SYNTAX = re.compile(r":?\s*(choose\s+)?\w+=<.*$")


def _prompt(pending: dict[str, Any]) -> str:
    """The pending choice in words (the server's prompt without its ``key=<…>`` syntax)."""
    text = _PROMPTS.get(str(pending.get("kind")))
    if text is not None:
        return text.format(**{"from": pending.get("from", "a main stake")})
    return _SYNTAX.sub("", str(pending["prompt"]))


def _slot_words(slot: str) -> str:
    """``A4`` -> "A4 (take a blueprint)", ``D3c`` -> "D3 collect", ``R2`` -> "room R2"."""
    if slot[:1] in _SLOT_WORDS:
        return f"{slot} ({_SLOT_WORDS[slot[0]]})"
    if slot.startswith("D"):
        return f"D{slot[1:-1]} {'tunnel (dig)' if slot.endswith('t') else 'collect (cubes)'}"
    if slot.startswith("R"):
        return f"room R{slot[1:]}"
    return slot


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
            f"column {a['column']}{_at_row(a)}"
        )
    if "blueprint" in a:
        return (
            "take the top blueprint of the deck"
            if a["blueprint"] == "deck"
            else f"take blueprint {a['blueprint']}"
        )
    if "column" in a:
        return f"take a cube from {a['source']} into wall column {a['column']}{_at_row(a)}"
    if "source" in a:
        return f"take a cube from {a['source']} into room {a['room']}"
    if "room" in a:
        return f"put an egg into room {a['room']}"
    return json.dumps(a)


_PLACE = re.compile(r"^(?:place\s+)?(\d+)\s+([a-z]\d[tc]?)(?:\s+h(\d+))?(?:\s+v(\d))?$")


def choice_steps(
    action: dict[str, Any], board: dict[str, Any], seat: int | None
) -> list[tuple[str | None, str]]:
    """The action as decisions: die, slot, helper (day); card, details (queen); the
    night's choice by its parts.  Rooms are keyed by their own number."""
    kind = action.get("type")
    if kind == "place_die":
        return _place_steps(action, board, seat)
    if kind == "play_queen":
        card = str(action.get("card"))
        title = f"play the queen card {_QUEEN_WORDS.get(card, card)}"
        return [(None, title), *_queen_steps(action, board, seat)]
    if kind == "choose":
        return _choice_steps(action)
    if kind == "pass":
        return [("pass", "pass (skip this)")]
    if kind == "resign":
        return [("resign", "resign (leave the game)")]
    return [(None, describe_action(action))]


def _queen_steps(
    action: dict[str, Any], board: dict[str, Any], seat: int | None
) -> list[tuple[str | None, str]]:
    """A queen card's details as decisions (a swarm: which of your first unplaced dice,
    then which of the others -- two lists of at most 32 instead of hundreds)."""
    card = action.get("card")
    if card == "royal_jelly":
        value = action["value"]
        return [(None, f"die {action['die']}"), (str(value), f"set it to {value}")]
    if card == "swarm":
        dice = list(action["dice"])
        mine = board["players"][seat]["dice"] if seat is not None else []
        free = [i for i, d in enumerate(mine) if d["at"] is None] or dice
        first, second = free[: (len(free) + 1) // 2], free[(len(free) + 1) // 2 :]
        steps: list[tuple[str | None, str]] = []
        for half in (first, second):
            if half:
                picked = ", ".join(str(d) for d in dice if d in half) or "none"
                steps.append((None, f"reroll of dice {', '.join(map(str, half))}: {picked}"))
        return steps
    if card == "mandibles":
        room = action["room"]
        return [(None, f"a cube from D{action['stake']}"), (str(room), f"into room R{room}")]
    if "room" in action:
        return [(str(action["room"]), f"room R{action['room']}")]
    if "blueprint" in action:
        return [(None, f"blueprint {action['blueprint']}")]
    return [(None, describe_action(action))]


def _place_steps(
    action: dict[str, Any], board: dict[str, Any], seat: int | None
) -> list[tuple[str | None, str]]:
    """Die, then the card (or your rooms), then the slot, then the helper (and value)."""
    index = int(action["die"])
    dice = board["players"][seat]["dice"] if seat is not None else []
    die = dice[index] if 0 <= index < len(dice) else None
    label = f"die {index}" + (f": {die['kind']} showing {die['value']}" if die else "")
    slot = str(action["slot"])
    steps: list[tuple[str | None, str]] = [(None, f"place {label}")]
    if slot.startswith("R"):
        steps.append((None, "into one of your rooms"))
        steps.append((slot[1:], f"room R{slot[1:]}" + idle_words(slot, board)))
    else:
        card = (
            slot[0]
            if slot[:1] in _SLOT_WORDS
            else f"D {'tunnel' if slot.endswith('t') else 'collect'}"
        )
        words = _SLOT_WORDS.get(slot[0]) or (
            "dig a tunnel" if slot.endswith("t") else "collect cubes"
        )
        steps.append((None, f"on {card}: {words}"))
        value = slot[1:2]
        rolled = die is not None and str(die["value"]) == value
        as_rolled = " (as rolled)" if rolled else " (needs a helper die)"
        steps.append((None, f"slot {slot}{as_rolled}{idle_words(slot, board)}"))
    if "helper" not in action:
        steps.append((None, "as it is (no helper)"))
    else:
        steps.append((None, f"with die {action['helper']} as its helper"))
        if "value" in action:
            steps.append((str(action["value"]), f"counting as {action['value']}"))
    return steps


def _row_step(a: dict[str, Any]) -> tuple[str | None, str]:
    """Where in the column a wall piece goes: dropped down, or set at a row."""
    if "row" in a:
        return (None, f"set at row {a['row']}")
    return (None, "dropped straight down")


def _at_row(a: dict[str, Any]) -> str:
    return f", at row {a['row']}" if "row" in a else ""


def _choice_steps(a: dict[str, Any]) -> list[tuple[str | None, str]]:
    if "source" in a and "room" in a:
        return [
            (None, f"take a cube from {a['source']}"),
            (str(a["room"]), f"into room R{a['room']}"),
        ]
    if "source" in a and "column" in a:
        return [
            (None, f"take a cube from {a['source']}"),
            (None, f"into wall column {a['column']}"),
            _row_step(a),
        ]
    if "rotation" in a:
        return [
            (None, f"build {a['blueprint']}"),
            (str(a["room"]), f"with the cubes of room R{a['room']}"),
            (None, f"turned {a['rotation']}×90°"),
            (None, f"in column {a['column']}"),
            _row_step(a),
        ]
    if "rooms" in a:
        first, second = a["rooms"]
        keeps = " ".join(a["cubes"]) or "nothing"
        return [
            (None, f"move cubes between rooms R{first} and R{second}"),
            (None, f"R{first} keeps {keeps}, R{second} the rest"),
        ]
    if "pay" in a:
        return [
            (None, f"pay with {'cubes' if a['pay'] == 'cubes' else 'a ' + a['pay']}"),
            (None, _describe_choice(a)),
        ]
    if "room" in a:
        return [(str(a["room"]), f"room R{a['room']}")]
    return [(None, _describe_choice(a))]


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


def _room(word: str) -> int:
    """A room typed as ``3`` or ``R3``."""
    return _ints([word.lower().removeprefix("r")], "ROOM")[0]


def _colour(word: str) -> str:
    """A cube colour typed in full or by its initial (``r`` = red, ``p`` = purple)."""
    low = word.lower()
    return _COLOURS.get(low, low)


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
        return {**base, "room": _room(words[0])}
    if kind == "egg" and n == 2 and words[0].lower() == "room":
        return {**base, "room": _room(words[1])}
    if kind == "tunnel" and n == 1:
        return {**base, "edge": _edge(words[0])}
    if kind == "cube" and n == 2:
        return {**base, "source": _source(words[0]), "room": _room(words[1])}
    if kind == "trade_take" and n in (2, 3):
        at = _ints(words[1:], "COLUMN [ROW]")
        taken = {**base, "source": _source(words[0]), "column": at[0]}
        return taken if n == 2 else {**taken, "row": at[1]}
    if kind == "bonus" and n == 1:
        return {**base, "space": words[0].lower()}
    if kind == "build" and n in (4, 5):
        room = _room(words[0])
        numbers = _ints(words[2:], "ROTATION, COLUMN [ROW]")
        built = {
            **base,
            "room": room,
            "blueprint": _card(words[1]),
            "rotation": numbers[0],
            "column": numbers[1],
        }
        return built if n == 4 else {**built, "row": numbers[2]}
    if kind == "move" and n >= 2:
        a, b = _room(words[0]), _room(words[1])
        return {**base, "rooms": [a, b], "cubes": sorted(_colour(w) for w in words[2:])}
    if kind == "trade" and n >= 2:
        pay = words[0].lower()
        if pay == "cubes" and n == 3:
            cubes: list[list[Any]] = []
            for item in words[1:]:
                room_text, _, colour = item.partition(":")
                cubes.append([_room(room_text), _colour(colour)])
            return {**base, "pay": "cubes", "cubes": sorted(cubes)}
        if pay == "egg" and n == 2:
            return {**base, "pay": "egg", "room": _room(words[1])}
        if pay == "queen" and n == 2:
            return {**base, "pay": pay, "card": words[1].lower()}
        if pay == "blueprint" and n == 2:
            return {**base, "pay": pay, "card": _card(words[1])}
    raise ValueError(f"cannot read {' '.join(words)!r} as a {kind} choice (see help)")


def staged(board: Any) -> bool:
    """A day turn is asked step by step (thousands of actions); the night's few
    choices are grouped from the full list."""
    return isinstance(board, dict) and board.get("phase") == "day"


def _die_words(index: Any, board: dict[str, Any], seat: int | None) -> str:
    dice = board["players"][seat]["dice"] if seat is not None else []
    die = dice[index] if isinstance(index, int) and 0 <= index < len(dice) else None
    return f"die {index}" + (f": {die['kind']} showing {die['value']}" if die else "")


def idle_words(slot: str, board: dict[str, Any]) -> str:
    """The warning for a place where a die would do nothing tonight (the view's ``idle``),
    or nothing."""
    reason = (board.get("idle") or {}).get(slot)
    return f" -- does nothing tonight: {reason}" if reason else ""


def _slot_choice(slot: str, die: Any, board: dict[str, Any], seat: int | None) -> str:
    if slot.startswith("R"):
        return f"room R{slot[1:]}: into one of your rooms" + idle_words(slot, board)
    words = _SLOT_WORDS.get(slot[0]) or ("dig a tunnel" if slot.endswith("t") else "collect cubes")
    dice = board["players"][seat]["dice"] if seat is not None else []
    rolled = isinstance(die, int) and 0 <= die < len(dice) and str(dice[die]["value"]) == slot[1:2]
    text = f"slot {slot}: {words}" + (" (as rolled)" if rolled else " (needs a helper die)")
    return text + idle_words(slot, board)


def stage_option(
    field: str, value: Any, partial: dict[str, Any], board: dict[str, Any], seat: int | None
) -> tuple[str | None, str]:
    """One staged choice in words (protocol/README.md "Staged legal"), with its key:
    rooms and values are typed by their own number, the rest by their place."""
    if field == "type":
        return (None, "place a die" if value == "place_die" else "play a queen card")
    if field in ("die", "helper"):
        words = _die_words(value, board, seat)
        return (None, f"with {words} as its helper" if field == "helper" else words)
    if field == "slot":
        return (None, _slot_choice(str(value), partial.get("die"), board, seat))
    if field == "value":
        return (str(value), f"counting as {value}" if partial.get("slot") else f"set it to {value}")
    if field == "card":
        return (None, _QUEEN_WORDS.get(str(value), str(value)))
    if field == "dice":
        return (None, f"reroll dice {', '.join(str(d) for d in value)}")
    if field == "room":
        return (str(value), f"room R{value}")
    if field == "stake":
        return (None, f"a cube from D{value}")
    if field == "blueprint":
        return (None, "the top of the blueprint deck" if value == "deck" else f"blueprint {value}")
    return (None, f"{field.replace('_', ' ')} {value}")
