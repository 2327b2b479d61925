"""CLI renderer for Termite Towers (``termite``; rules in docs/games/termite.md).

Dice are written ``<owner><kind><value>``: ``1w3`` = seat 1's worker showing 3, ``2s6`` =
seat 2's soldier, ``Nw4`` = a neutral die (the owner is the seat's number, from 1, as
everywhere on screen); cubes are colour initials (r y g b p w), coloured with ANSI.
Every screen carries the key (``KEY``) so the codes are never unexplained.  A wall is
drawn top row first with the column numbers underneath.
Face-down stake cards show ``?``; other players' hands show only their size.

``render_compact`` (an 80x24 window) shows the pending choice, your own dice, rooms and
wall side by side, the action cards and stakes, and one line per other seat.
``choice_steps`` groups the legal actions into decisions -- a die, then a slot, then
a helper -- so a turn is a few short lists instead of thousands of actions; rooms
are picked by their own number.

One numbering for players, the browser's: seats, dice, rooms, wall columns and rows
count from 1 on screen and in typed moves (die 1 is the action's ``"die": 0``, room 1 is
``"room": 0`` and slot ``R0``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tablehub.clients.cli.numbering import seat_number, seat_words, seats_renamed
from tablehub.clients.cli.rows import wrap

INPUT_HELP = """\
Easiest: type the number in front of a choice in the list under the board: a
die, then a slot, then a helper.  When the choice is only rooms (an egg, a
cube), type the room's own number (3 = room 3).  Dice, rooms, wall columns
and rows are numbered from 1, as on the board.
A helper: another of your unplaced dice sits out this round, and the die you
place counts as the value of the slot (or the value you choose for a room).
Or type the move:
day:    DIE SLOT [hH [vV]]   place die DIE (its number in your dice) on SLOT
          slots: A1-A6 C1-C6 E1-E6 G1-G6, D3t (tunnel of D3), D3c (collect
          of D3), R1-R8 (your rooms); h5 = die 5 helps; v4 = value in a room
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

KEY = "key: 1w3 = seat 1's worker showing 3 · s soldier · N neutral · cubes r y g b p w"
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
_TRADE_GETS = "for 1 cube of any colour straight into your wall"
"""What an E trade gets, whatever is paid."""
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
    owner = "N" if d["owner"] < 0 else str(seat_number(d["owner"]))
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
            f"{edge}:{','.join(str(seat_number(s)) for s in seats)}"
            for edge, seats in st["tunnels"].items()
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
    """The wall, top row first, with row numbers and the column numbers underneath
    (both from 1)."""
    lines = [
        f"    {y + 1} |{''.join(_cube(c) for c in wall[y])}|" for y in range(len(wall) - 1, -1, -1)
    ]
    width = len(wall[0]) if wall else 0
    lines.append("       " + "".join(str(x + 1) for x in range(width)))
    return lines


def _where(at: str | None) -> str:
    """Where a die sits, for the dice line: a slot as printed on the cards, a room by
    its number from 1."""
    if at is None:
        return ""
    if at.startswith("R"):
        return f" R{int(at[1:]) + 1}"
    return {"H": " helper", "X": " out"}.get(at, f" {at}")


def _dice_text(p: dict[str, Any]) -> str:
    """Each die's number, kind, value and place, kept together on one row (a no-break
    space before its place: a window breaks the line between dice)."""
    dice = [
        f"{i + 1}:{d['kind'][0]}{d['value']}{_where(d['at'])}".replace(" ", "\u00a0")
        for i, d in enumerate(p["dice"])
    ]
    return "your dice (number:kind value, where): " + " ".join(dice)


def room_dice_words(p: dict[str, Any], dice: list[int]) -> str:
    """The dice in a room by their numbers and the value they show: "die 5 shows 4",
    "dice 1+2 show 3" (never a bare number that reads like a count)."""
    if not dice:
        return ""
    value = p["dice"][dice[0]]["value"]
    if len(dice) == 1:
        return f"die {dice[0] + 1} shows {value}"
    return f"dice {'+'.join(str(i + 1) for i in dice)} show {value}"


def _rooms_text(p: dict[str, Any]) -> list[str]:
    rooms = []
    for r, room in enumerate(p["rooms"]):
        content = "egg" if room["egg"] else _cubes(room["cubes"]) or "empty"
        dice_txt = room_dice_words(p, room["dice"])
        rooms.append(f"R{r + 1}[{content}{'; ' + dice_txt if dice_txt else ''}]")
    half = (len(rooms) + 1) // 2
    return ["rooms: " + " ".join(rooms[:half]), "       " + " ".join(rooms[half:])]


def _player(board: dict[str, Any], seat: int, viewer: int | None) -> list[str]:
    p = board["players"][seat]
    flags = [f for f, on in (("you", seat == viewer), ("resigned", p["resigned"])) if on]
    if seat == board["start"]:
        flags.append("start player")
    head = f"Seat {seat_number(seat)}" + (f" ({', '.join(flags)})" if flags else "")
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
        f"Termite Towers: round {board['round']}, {board['phase']}, start player "
        f"{seat_words(board['start'])}, game ends at {board['rows_to_end']} rows or an empty "
        "queen deck"
    ]
    result = board.get("result")
    if result:
        names = ", ".join(seat_words(s) for s in result["winners"]) or "nobody"
        points = ", ".join(f"{seat_words(s)} {n}" for s, n in enumerate(result["scores"]))
        reason = seats_renamed(result["reason"])
        lines.append(f"Game over: {reason}. Scores: {points}. Winner(s): {names}")
    pending = board.get("pending")
    if pending:
        who = "you" if pending["seat"] == seat else seat_words(pending["seat"])
        lines.append(f"Waiting for {who}: {_prompt(pending)}")
    elif board["to_act"]:
        who = "you" if board["to_act"][0] == seat else seat_words(board["to_act"][0])
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
        f"{g['goal']} (seats {seat_number(g['seats'][0])}-{seat_number(g['seats'][1])})"
        for g in board["goals"]
    )
    lines.append(f"Goal cards: {goals}")
    for s in range(len(board["players"])):
        lines.append("")
        lines.extend(_player(board, s, seat))
    return "\n".join(lines)


def _beside_the_wall(lines: list[str], width: int) -> list[str]:
    """Lines for the column beside the wall, each broken between words to fit ``width``
    (a long hand was broken by the window, through the wall), the rest of a line
    indented by two."""
    rows: list[str] = []
    for line in lines:
        first, *rest = wrap(line, width)
        rows.append(first)
        if rest:
            rows.extend("  " + row for row in wrap(" ".join(rest), width - 2))
    return rows


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
        f"{'you' if mine == seat else seat_words(mine)}: score {p['score']}, rows {p['rows']}, "
        f"tunnels left {p['tunnels_left']}, hatched {p['hatched']}",
        f"blueprints: {hand or '-'}; queen cards: {queens or '-'}",
        *_rooms_text(p),
        f"face-up blueprints: {', '.join(board['blueprints']['face_up']) or '-'}",
    ]
    wall = [line[3:] for line in render_wall(p["wall"])]
    info = _beside_the_wall(info, _WIDTH - 12)
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
                f"{seat_words(s)}: score {other['score']}, rows {other['rows']}, "
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
                what = f"die {i + 1} ({d['kind']} {d['value']})"
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
    "hatched": "hatched a {kind} die from room {room}",
    "egg": "laid an egg in room {room}",
    "tunnel": "dug tunnel {edge} at D{area}",
    "cube": "took a {colour} cube from {source_words} into room {room}",
    "wall_cube": "put a {colour} cube from {source_words} into wall column {column}",
    "queen_drawn": "drew a queen card",
    "queen_played": "played the queen card {card_words}",
    "passed": "passed ({choice})",
    "trade": "traded to build",
    "moved": "moved cubes between rooms {rooms[0]} and {rooms[1]}",
    "rows": "now has {rows} completed wall rows",
    "resigned": "resigned",
    "bumped": "had die {die} bumped from {slot}",
    "night": "night falls: the actions resolve from A to G",
    "round": "round {round} begins; seat {start} starts",
}
"""Game events in words (``blueprint``, ``bonus`` and ``no_cube`` are worded by
:func:`_event_phrase`); rooms, columns, dice and seats numbered from 1 (:func:`_from_one`)."""


def _from_one(e: dict[str, Any]) -> dict[str, Any]:
    """An event's room, column, row, die and seat numbers as players count them (from 1)."""
    out = dict(e)
    for key in ("room", "column", "row", "die", "start"):
        if isinstance(out.get(key), int):
            out[key] += 1
    if isinstance(out.get("rooms"), list):
        out["rooms"] = [r + 1 for r in out["rooms"]]
    return out


def _no_cube_phrase(e: dict[str, Any]) -> str:
    """Cubes a seat won at a main stake's majority but could not take (event ``no_cube``)."""
    n = int(e["cubes"])
    missed = f"did not get {n} cube{'s' if n > 1 else ''} won at stake D{e['area']}"
    if e.get("reason") == "rooms_full":
        return f"{missed}: no room of theirs had space"
    return f"{missed}: none were left there or on a stake card their tunnels reach"


def _event_phrase(e: dict[str, Any]) -> str | None:
    kind = e.get("type")
    if kind == "blueprint":  # no card: the deck's top, which only its taker sees
        return (
            f"took the blueprint {e['card']}"
            if e.get("card")
            else "took the top blueprint of the deck"
        )
    if kind == "bonus":
        reward = _BONUS_WORDS.get(str(e.get("space")), str(e.get("space")))
        if e.get("lost"):
            return f"chose the bonus {reward}, but there was none left to give"
        return f"took the bonus {reward}"
    if kind == "no_cube":
        return _no_cube_phrase(e)
    words = _EVENT_WORDS.get(str(kind))
    if words is None:
        return None
    card = e.get("card")
    return words.format(
        **_from_one(e),
        card_words=_QUEEN_WORDS.get(str(card), card),
        source_words=source_words(str(e.get("source", ""))),
    )


_PROMPTS = {
    "blueprint": "take a blueprint (a face-up one or the deck's top)",
    "egg": "put an egg into one of your empty rooms",
    "cube": "take a cube from {from} into one of your rooms",
    "trade_take": "take the cube you bought into a wall column",
    "trade": "trade: pay 2 cubes, an egg, a queen card or a blueprint "
    + _TRADE_GETS
    + " (or pass)",
}
_SYNTAX = re.compile(r":?\s*(choose\s+)?\w+=<.*$")


def _prompt(pending: dict[str, Any]) -> str:
    """The pending choice in words (the server's prompt without its ``key=<…>`` syntax)."""
    text = _PROMPTS.get(str(pending.get("kind")))
    if text is not None:
        return text.format(**{"from": pending.get("from", "a main stake")})
    return _SYNTAX.sub("", str(pending["prompt"]))


def _slot_words(slot: str) -> str:
    """``A4`` -> "A4 (take a blueprint)", ``D3c`` -> "D3 collect", ``R2`` -> "room 3"."""
    if slot[:1] in _SLOT_WORDS:
        return f"{slot} ({_SLOT_WORDS[slot[0]]})"
    if slot.startswith("D"):
        return f"D{slot[1:-1]} {'tunnel (dig)' if slot.endswith('t') else 'collect (cubes)'}"
    if slot.startswith("R"):
        return f"room {int(slot[1:]) + 1}"
    return slot


_NODE_WORDS = {
    "1a": "first row, left",
    "1b": "first row, right",
    "2a": "second row, left",
    "2b": "second row, middle",
    "2c": "second row, right",
}
"""A stake card's place in the pyramid under its main stake."""


def source_words(source: str) -> str:
    """``D5`` -> "main stake D5", ``D5/1a`` -> "D5's stake card (first row, left)"."""
    stake, _, node = source.partition("/")
    if not node:
        return f"main stake {stake}"
    return f"{stake}'s stake card ({_NODE_WORDS.get(node, node)})"


def source_colour(source: str, board: dict[str, Any] | None) -> str | None:
    """The colour of the cubes at a source: the main stake's, or its face-up card's."""
    if board is None:
        return None
    stake, _, node = source.partition("/")
    try:
        st = board["stakes"][int(stake[1:]) - 1]
    except (ValueError, IndexError, KeyError):
        return None
    card = st["cards"].get(node) if node else None
    return str(card["colour"]) if card else (None if node else str(st["colour"]))


def _cube_from(source: str, board: dict[str, Any] | None) -> str:
    """ "a purple cube from D5's stake card (first row, left)"."""
    colour = source_colour(source, board)
    return f"a {colour + ' ' if colour else ''}cube from {source_words(source)}"


# --- Actions --------------------------------------------------------------------------------------


def _n(value: Any) -> str:
    """A die, room, column or row index as players count it (from 1)."""
    return str(int(value) + 1) if isinstance(value, int) else str(value)


_PAY_WORDS = {
    "cubes": "2 cubes",
    "egg": "an egg",
    "queen": "a queen card",
    "blueprint": "a blueprint",
}


def describe_action(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind in ("resign", "pass"):
        return str(kind)
    if kind == "place_die":
        slot = str(action.get("slot", "?"))
        text = f"place die {_n(action.get('die'))} on {slot}"
        if slot[:1] in _SLOT_NAMES:
            text += f" ({_SLOT_NAMES[slot[0]]})"
        elif slot.startswith("D"):
            text += " (tunnel)" if slot.endswith("t") else " (collect)"
        elif slot.startswith("R") and slot[1:].isdigit():
            text = f"place die {_n(action.get('die'))} in {_slot_words(slot)}"
        if "helper" in action:
            text += f", die {_n(action['helper'])} helps (it sits out this round)"
            if "value" in action:
                text += f", as a {action['value']}"
        return text
    if kind == "play_queen":
        card = str(action.get("card"))
        return f"play the queen card {_QUEEN_WORDS.get(card, card)}: {_queen_detail(action)}"
    if kind == "choose":
        return _describe_choice(action)
    return json.dumps(action)


def _queen_detail(action: dict[str, Any]) -> str:
    card = action.get("card")
    if card == "royal_jelly":
        return f"die {_n(action.get('die'))} becomes a {action.get('value')}"
    if card == "swarm":
        return "reroll dice " + ", ".join(_n(d) for d in action.get("dice", []))
    if card == "mandibles":
        return f"a cube from D{action.get('stake')} into room {_n(action.get('room'))}"
    if card == "nursery":
        return f"an egg into room {_n(action.get('room'))}"
    if action.get("blueprint") == "deck":
        return "the top blueprint of the deck"
    return f"blueprint {action.get('blueprint')}"


def _describe_choice(a: dict[str, Any], board: dict[str, Any] | None = None) -> str:
    if "space" in a:
        return f"bonus space: {_BONUS_WORDS.get(str(a['space']), a['space'])}"
    if "edge" in a:
        return f"dig tunnel {a['edge']}"
    if "pay" in a:
        if a["pay"] == "cubes":
            paid = " and ".join(f"a {c} cube from room {_n(r)}" for r, c in a["cubes"])
        elif a["pay"] == "egg":
            paid = f"the egg in room {_n(a['room'])}"
        elif a["pay"] == "queen":
            paid = f"the queen card {_QUEEN_WORDS.get(str(a['card']), a['card'])}"
        else:
            paid = f"the blueprint {a['card']}"
        return f"pay {paid} {_TRADE_GETS}"
    if "rooms" in a:
        keeps = " ".join(a["cubes"]) or "nothing"
        first, second = (_n(r) for r in a["rooms"])
        return f"move cubes: room {first} keeps {keeps}, room {second} the rest"
    if "rotation" in a:
        return (
            f"build {a['blueprint']} from room {_n(a['room'])}, turned {a['rotation'] * 90}°, "
            f"column {_n(a['column'])}{_at_row(a)}"
        )
    if "blueprint" in a:
        return (
            "take the top blueprint of the deck"
            if a["blueprint"] == "deck"
            else f"take blueprint {a['blueprint']}"
        )
    if "column" in a:
        return (
            f"take {_cube_from(str(a['source']), board)} into wall column "
            f"{_n(a['column'])}{_at_row(a)}"
        )
    if "source" in a:
        return f"take {_cube_from(str(a['source']), board)} into room {_n(a['room'])}"
    if "room" in a:
        return f"put an egg into room {_n(a['room'])}"
    return json.dumps(a)


_PLACE = re.compile(r"^(?:place\s+)?(\d+)\s+([a-z]\d[tc]?)(?:\s+h(\d+))?(?:\s+v(\d))?$")


def choice_steps(
    action: dict[str, Any], board: dict[str, Any], seat: int | None
) -> list[tuple[str | None, str]]:
    """The action as decisions: die, slot, helper (day); card, details (queen); the
    night's choice by its parts.  Rooms are keyed by their own number (from 1)."""
    kind = action.get("type")
    if kind == "place_die":
        return _place_steps(action, board, seat)
    if kind == "play_queen":
        card = str(action.get("card"))
        title = f"play the queen card {_QUEEN_WORDS.get(card, card)}"
        return [(None, title), *_queen_steps(action, board, seat)]
    if kind == "choose":
        return _choice_steps(action, board)
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
        return [(None, _die_words(action["die"], board, seat)), (str(value), f"set it to {value}")]
    if card == "swarm":
        dice = list(action["dice"])
        mine = board["players"][seat]["dice"] if seat is not None else []
        free = [i for i, d in enumerate(mine) if d["at"] is None] or dice
        first, second = free[: (len(free) + 1) // 2], free[(len(free) + 1) // 2 :]
        steps: list[tuple[str | None, str]] = []
        for half in (first, second):
            if half:
                picked = ", ".join(_n(d) for d in dice if d in half) or "none"
                steps.append((None, f"reroll of dice {', '.join(map(_n, half))}: {picked}"))
        return steps
    if card == "mandibles":
        room = action["room"]
        cube = _cube_from(f"D{action['stake']}", board)
        return [(None, cube), (_n(room), f"into room {_n(room)}")]
    if "room" in action:
        return [(_n(action["room"]), f"room {_n(action['room'])}")]
    if "blueprint" in action:
        return [(None, f"blueprint {action['blueprint']}")]
    return [(None, describe_action(action))]


def _place_steps(
    action: dict[str, Any], board: dict[str, Any], seat: int | None
) -> list[tuple[str | None, str]]:
    """Die, then the card (or your rooms), then the slot, then the helper (and value)."""
    index = int(action["die"])
    slot = str(action["slot"])
    steps: list[tuple[str | None, str]] = [(None, f"place {_die_words(index, board, seat)}")]
    if slot.startswith("R"):
        steps.append((None, "into one of your rooms"))
        steps.append((_n(int(slot[1:])), _room_choice(int(slot[1:]), board, seat)))
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
        steps.append((None, _slot_choice(slot, index, board, seat)))
    if "helper" not in action:
        steps.append((None, "as it is (no helper)"))
    else:
        steps.append((None, _helper_words(action["helper"], action, board, seat)))
        if "value" in action:
            steps.append((str(action["value"]), f"counting as {action['value']}"))
    return steps


def _row_step(a: dict[str, Any]) -> tuple[str | None, str]:
    """Where in the column a wall piece goes: dropped down, or set at a row."""
    if "row" in a:
        return (None, f"set at row {_n(a['row'])}")
    return (None, "dropped straight down")


def _at_row(a: dict[str, Any]) -> str:
    return f", at row {_n(a['row'])}" if "row" in a else ""


def _choice_steps(
    a: dict[str, Any], board: dict[str, Any] | None = None
) -> list[tuple[str | None, str]]:
    if "source" in a and "room" in a:
        return [
            (None, f"take {_cube_from(str(a['source']), board)}"),
            (_n(a["room"]), f"into room {_n(a['room'])}"),
        ]
    if "source" in a and "column" in a:
        return [
            (None, f"take {_cube_from(str(a['source']), board)}"),
            (None, f"into wall column {_n(a['column'])}"),
            _row_step(a),
        ]
    if "rotation" in a:
        return [
            (None, f"build {a['blueprint']}"),
            (_n(a["room"]), f"with the cubes of room {_n(a['room'])}"),
            (None, f"turned {a['rotation'] * 90}°"),
            (None, f"in column {_n(a['column'])}"),
            _row_step(a),
        ]
    if "rooms" in a:
        first, second = (_n(r) for r in a["rooms"])
        keeps = " ".join(a["cubes"]) or "nothing"
        return [
            (None, f"move cubes between rooms {first} and {second}"),
            (None, f"room {first} keeps {keeps}, room {second} the rest"),
        ]
    if "pay" in a:
        return [
            (None, f"pay {_PAY_WORDS.get(str(a['pay']), a['pay'])} {_TRADE_GETS}"),
            (None, _describe_choice(a, board)),
        ]
    if "room" in a:
        return [(_n(a["room"]), f"room {_n(a['room'])}")]
    return [(None, _describe_choice(a, board))]


def _ints(words: list[str], what: str) -> list[int]:
    try:
        return [int(w) for w in words]
    except ValueError:
        raise ValueError(f"{what} must be whole numbers, got {' '.join(words)!r}") from None


def _index(word: str, what: str) -> int:
    """A die, room, column or row typed as players count it (from 1) -> its index."""
    number = _ints([word], what)[0]
    if number < 1:
        raise ValueError(f"{what} is counted from 1, not {number}")
    return number - 1


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
    if slot.startswith("R"):
        slot = f"R{_index(slot[1:], 'a room')}"
    action: dict[str, Any] = {"type": "place_die", "die": _index(die, "a die"), "slot": slot}
    if helper is not None:
        action["helper"] = _index(helper, "a helper die")
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
        return {**base, "die": _index(rest[0], "DIE"), "value": _ints(rest[1:], "VALUE")[0]}
    if card == "swarm" and rest:
        return {**base, "dice": sorted(_index(w, "dice") for w in rest)}
    if card == "mandibles" and len(rest) == 2:
        stake = _ints([rest[0].lstrip("Dd")], "STAKE")[0]
        return {**base, "stake": stake, "room": _room(rest[1])}
    if card == "nursery" and len(rest) == 1:
        return {**base, "room": _room(rest[0])}
    if card == "architect" and len(rest) == 1:
        return {**base, "blueprint": _card(rest[0])}
    raise ValueError(f"cannot read 'queen {' '.join(words)}' (see help)")


def _room(word: str) -> int:
    """A room typed as ``3`` or ``R3`` (room 3, counted from 1) -> its index."""
    return _index(word.lower().removeprefix("r"), "a room")


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
        taken = {**base, "source": _source(words[0]), "column": _index(words[1], "COLUMN")}
        return taken if n == 2 else {**taken, "row": _index(words[2], "ROW")}
    if kind == "bonus" and n == 1:
        return {**base, "space": words[0].lower()}
    if kind == "build" and n in (4, 5):
        built = {
            **base,
            "room": _room(words[0]),
            "blueprint": _card(words[1]),
            "rotation": _ints(words[2:3], "ROTATION")[0],
            "column": _index(words[3], "COLUMN"),
        }
        return built if n == 4 else {**built, "row": _index(words[4], "ROW")}
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
    """ "die 3: worker showing 5" (numbered from 1)."""
    dice = board["players"][seat]["dice"] if seat is not None else []
    die = dice[index] if isinstance(index, int) and 0 <= index < len(dice) else None
    return f"die {_n(index)}" + (f": {die['kind']} showing {die['value']}" if die else "")


def _helper_words(
    index: Any, partial: dict[str, Any], board: dict[str, Any], seat: int | None
) -> str:
    """A helper choice, with what it means: the helper sits out, the die takes the slot's
    value -- for nothing when the die already shows it."""
    words = f"with {_die_words(index, board, seat)} as helper (it sits out this round"
    slot, die = str(partial.get("slot", "")), partial.get("die")
    if not slot.startswith("R") and _as_rolled(slot, die, board, seat):
        return words + f"; not needed: die {_n(die)} already shows {slot[1:2]})"
    return words + ")"


def _as_rolled(slot: str, die: Any, board: dict[str, Any], seat: int | None) -> bool:
    """Whether the die shows the value of the (non-room) slot."""
    dice = board["players"][seat]["dice"] if seat is not None else []
    return isinstance(die, int) and 0 <= die < len(dice) and str(dice[die]["value"]) == slot[1:2]


def idle_words(slot: str, board: dict[str, Any]) -> str:
    """The warning for a place where a die would do nothing tonight (the view's ``idle``),
    or nothing."""
    reason = (board.get("idle") or {}).get(slot)
    return f" -- does nothing tonight: {reason}" if reason else ""


def _room_choice(room: int, board: dict[str, Any], seat: int | None) -> str:
    """A room as a place for a die: what dice there do (a lone die does nothing), and
    the warning when it is certain to do nothing tonight."""
    player = board["players"][seat] if seat is not None else None
    here = list(player["rooms"][room]["dice"]) if player is not None else []
    egg = player is not None and player["rooms"][room]["egg"]
    if here and player is not None:
        text = f"room {room + 1}: joins {room_dice_words(player, here)}"
    elif egg:
        text = f"room {room + 1} (egg): 2 dice of one value hatch a worker, 3 a soldier"
    else:
        text = f"room {room + 1}: alone a die does nothing; 2 of one value build or move"
    return text + idle_words(f"R{room}", board)


def _slot_choice(slot: str, die: Any, board: dict[str, Any], seat: int | None) -> str:
    if slot.startswith("R"):
        return _room_choice(int(slot[1:]), board, seat)
    words = _SLOT_WORDS.get(slot[0])
    if words is None:  # a stake's: named by its colour, whose cubes it is about
        colour = source_colour(slot[:2], board)
        at = f" at the {colour} stake" if colour else ""
        words = ("dig a tunnel" if slot.endswith("t") else "collect cubes") + at
    rolled = _as_rolled(slot, die, board, seat)
    text = f"slot {slot}: {words}" + (" (as rolled)" if rolled else " (needs a helper die)")
    return text + idle_words(slot, board)


def stage_rank(
    field: str, value: Any, partial: dict[str, Any], board: dict[str, Any], seat: int | None
) -> int:
    """A place where the die would do nothing tonight comes after the others."""
    return int(field == "slot" and bool((board.get("idle") or {}).get(str(value))))


def stage_option(
    field: str, value: Any, partial: dict[str, Any], board: dict[str, Any], seat: int | None
) -> tuple[str | None, str]:
    """One staged choice in words (protocol/README.md "Staged legal"), with its key:
    rooms (from 1) and values are typed by their own number, the rest by their place."""
    if field == "type":
        return (None, "place a die" if value == "place_die" else "play a queen card")
    if field == "die":
        return (None, _die_words(value, board, seat))
    if field == "helper":
        return (None, _helper_words(value, partial, board, seat))
    if field == "slot":
        return (None, _slot_choice(str(value), partial.get("die"), board, seat))
    if field == "value":
        return (str(value), f"counting as {value}" if partial.get("slot") else f"set it to {value}")
    if field == "card":
        return (None, _QUEEN_WORDS.get(str(value), str(value)))
    if field == "dice":
        return (None, f"reroll dice {', '.join(_n(d) for d in value)}")
    if field == "room":
        return (_n(value), f"room {_n(value)}")
    if field == "stake":
        return (None, _cube_from(f"D{value}", board))
    if field == "blueprint":
        return (None, "the top of the blueprint deck" if value == "deck" else f"blueprint {value}")
    return (None, f"{field.replace('_', ' ')} {value}")
