"""CLI renderer for the number row (``completto``, docs/games/completto.md).

Rows are printed with their positions above them, counted from 1 as players count them
(and as they are typed and named here; the actions count from 0); face-down tiles show
as ``??``.
"""

from __future__ import annotations

from typing import Any

from tablehub.clients.cli.numbering import seat_words, seats_renamed

INPUT_HELP = """\
Moves (positions count from 1, as printed above your row):
  place P [N]     put the tile you hold (or, in setup, your setup tile) at
                  position P, read as N (only needed for 16/91, 18/81, 19/61,
                  66/99, 68/89, 86/98)
  take            turn up a random face-down tile from the pool
  take N          take the face-up N lying in the pool
  discard         put the tile you hold face up into the pool (it fits nowhere)
  move A B        move your face-down tile at position A to position B
  resign          leave the game"""

DIM = "\x1b[2m"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"


def _tile_text(tile: dict[str, Any]) -> str:
    return "/".join(str(n) for n in tile["readings"])


def _row_lines(row: list[int | None]) -> list[str]:
    positions = "".join(f"{i:>4}" for i in range(1, len(row) + 1))
    cells = "".join(f"{'??' if n is None else n:>4}" for n in row)
    return [f"{DIM}{positions}{RESET}", cells]


def _seat_name(s: int, seat: int | None) -> str:
    return f"{seat_words(s)} (you)" if s == seat else seat_words(s)


def _headline(board: dict[str, Any], seat: int | None) -> str:
    head = f"{BOLD}Number row{RESET} - round {board['round']} of {board['rounds']}"
    if board["phase"] == "setup":
        waiting = " and ".join(_seat_name(s, seat) for s in board["to_act"]) or "nobody"
        return f"{head} - setup: {waiting} still inserting face-up tiles"
    if board["phase"] == "play":
        who = _seat_name(board["current"], seat)
        bonus = " (bonus turn)" if board["bonus"] else ""
        return f"{head} - {who} to play{bonus}"
    return f"{head} - finished"


def render(board: dict[str, Any], seat: int | None) -> str:
    lines = [_headline(board, seat)]
    pool = board["pool"]
    face_up = ", ".join(_tile_text(t) for t in pool["face_up"]) or "none"
    lines.append(f"Pool: {pool['face_down']} face down; face up: {face_up}")
    hand = board["hand"]
    if hand is not None:
        where = "from the pool" if hand["source"] == "pool" else "taken face up"
        fits = "it fits: place it" if hand["fits"] else "it fits nowhere: discard"
        lines.append(f"In hand ({where}): {BOLD}{_tile_text(hand)}{RESET} - {fits}")
    order = list(range(len(board["players"])))
    if seat is not None and 0 <= seat < len(order):
        order = [seat] + [s for s in order if s != seat]
    for s in order:
        player = board["players"][s]
        notes = [f"{player['face_down']} face down", f"penalty {player['penalty']}"]
        if player["resigned"]:
            notes.append("resigned")
        lines.append("")
        lines.append(f"{BOLD}{_seat_name(s, seat)}{RESET}: " + ", ".join(notes))
        lines.extend(_row_lines(player["row"]))
        if player["setup_tile"] is not None:
            lines.append(
                f"  setup tile to insert: {_tile_text(player['setup_tile'])} "
                f"({player['setup_left']} left)"
            )
    for past in board["history"]:
        penalties = ", ".join(str(p) for p in past["penalties"])
        won = "stalled, no winner"
        if past["winner"] is not None:
            won = f"{seat_words(past['winner'])} won"
        lines.append(f"Round {past['round']}: {won}; penalties {penalties}")
    result = board["result"]
    if result is not None:
        winners = ", ".join(seat_words(w) for w in result["winners"]) or "nobody"
        reason = seats_renamed(result["reason"])
        lines.append(f"{BOLD}Game over{RESET}: winner(s) {winners} - {reason}.")
    return "\n".join(lines)


def render_compact(board: dict[str, Any], seat: int | None) -> str:
    """The headline, the pool, your hand and row first; the others on one line each."""
    full = render(board, seat).splitlines()
    lines = full[:3] if board["hand"] is not None else full[:2]
    players = board["players"]
    mine = seat if seat is not None and 0 <= seat < len(players) else None
    order = list(range(len(players)))
    if mine is not None:
        player = players[mine]
        lines.append(f"{BOLD}{_seat_name(mine, seat)}{RESET}: penalty {player['penalty']}")
        lines.extend(_row_lines(player["row"]))
        if player["setup_tile"] is not None:
            lines.append(f"  setup tile to insert: {_tile_text(player['setup_tile'])}")
    for s in order:
        if s != mine:
            player = players[s]
            gone = ", resigned" if player["resigned"] else ""
            lines.append(
                f"  {_seat_name(s, seat)}: {player['face_down']} face down, "
                f"penalty {player['penalty']}{gone}"
            )
    result = board["result"]
    if result is not None:
        lines.append(full[-1])
    return "\n".join(lines)


def describe_news(
    old: dict[str, Any], new: dict[str, Any], events: list[dict[str, Any]]
) -> list[tuple[int | None, str]]:
    """Takes, placements, discards, moves and round ends, in words."""
    news: list[tuple[int | None, str]] = []
    for e in events:
        kind = e.get("type")
        if kind == "take":
            where = "a face-down tile" if e["source"] == "pool" else "a face-up tile"
            shown = "/".join(str(n) for n in e["readings"])
            news.append((e["seat"], f"took {where} from the pool: {shown}"))
        elif kind == "place":
            bonus = " (bonus turn)" if e.get("bonus") else ""
            news.append((e["seat"], f"placed {e['number']} at position {e['pos'] + 1}{bonus}"))
        elif kind == "insert":
            news.append((e["seat"], f"inserted {e['number']} at position {e['pos'] + 1}"))
        elif kind == "discard":
            news.append((e["seat"], "put the tile face up into the pool"))
        elif kind == "move":
            src, dst = e["from"] + 1, e["to"] + 1
            news.append(
                (e["seat"], f"moved a face-down tile from position {src} to position {dst}")
            )
        elif kind == "resign":
            news.append((e["seat"], "resigned"))
        elif kind == "round_end":
            winner = "nobody" if e["winner"] is None else seat_words(e["winner"])
            news.append((None, f"round {e['round']} is over: {winner} won it"))
    return news


def describe_action(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "insert":
        if "reading" not in action:
            return f"insert your setup tile at position {action['pos'] + 1}"
        return f"insert your setup tile as {action['reading']} at position {action['pos'] + 1}"
    if kind == "take":
        if action.get("source") == "faceup":
            return f"take the face-up {action.get('number')} from the pool"
        return "turn up a face-down tile from the pool"
    if kind == "place":
        if "reading" not in action:
            return f"place the tile you hold at position {action['pos'] + 1}"
        return f"place {action['reading']} at position {action['pos'] + 1}"
    if kind == "discard":
        return "put the tile face up into the pool (it fits nowhere)"
    if kind == "move":
        src, dst = action["from"] + 1, action["to"] + 1
        return f"move the face-down tile at position {src} to position {dst}"
    if kind == "resign":
        return "resign"
    return str(action)


def _number(token: str, what: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise ValueError(f"{what} must be a number, not {token!r}") from None


def _position(token: str, what: str) -> int:
    """A position as typed, counted from 1; the action's index, from 0."""
    number = _number(token, what)
    if number < 1:
        raise ValueError(f"positions are numbered from 1, as printed above your row, not {number}")
    return number - 1


def parse_action(text: str, board: dict[str, Any], seat: int | None) -> dict[str, Any]:
    words = [w for w in text.lower().replace(",", " ").split() if w not in ("as", "to", "at")]
    if not words:
        raise ValueError("type a move; 'help' lists them")
    verb, args = words[0], words[1:]
    if verb == "resign" and not args:
        return {"type": "resign"}
    if verb == "discard" and not args:
        return {"type": "discard"}
    if verb in ("take", "draw"):
        if not args or args == ["pool"]:
            return {"type": "take", "source": "pool"}
        if len(args) == 1:
            return {"type": "take", "source": "faceup", "number": _number(args[0], "the tile")}
        raise ValueError("use 'take' or 'take N' (N = a face-up pool tile)")
    if verb in ("place", "insert", "put"):
        if len(args) not in (1, 2):
            raise ValueError("use 'place P' or 'place P N' (position, then reading)")
        kind = "insert" if board.get("phase") == "setup" else "place"
        action: dict[str, Any] = {"type": kind, "pos": _position(args[0], "the position")}
        if len(args) == 2:
            action["reading"] = _number(args[1], "the reading")
        return action
    if verb == "move":
        if len(args) != 2:
            raise ValueError("use 'move A B': the face-down tile at A goes to position B")
        return {
            "type": "move",
            "from": _position(args[0], "the position to move from"),
            "to": _position(args[1], "the position to move to"),
        }
    raise ValueError(f"unknown move {text.strip()!r}; 'help' lists the moves")
