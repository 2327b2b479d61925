"""CLI renderer for ``brix``, the wall duel (docs/games/brix.md).

The wall is drawn with row 0 at the bottom and column numbers underneath.  Each cell
shows its symbol, a colour letter (``o`` orange, ``b`` blue) and the brick id, on an
orange or blue ANSI background, so it reads with and without colours.  The brick that
may not be taken is marked ``*``, the last brick played is bold, winning lines are
shown in reverse video.
"""

from __future__ import annotations

from typing import Any

from tablehub.clients.cli.numbering import seat_words, seats_renamed

INPUT_HELP = """\
place X Y DIR [ORANGE] [FACE]    add a brick to the wall (while any are left)
move ID X Y DIR [ORANGE] [FACE]  move brick ID to X Y (once none are left)
  X Y     the left (h) or lower (v) cube: column X (may be negative), row Y
          (0 = ground)
  DIR     h = horizontal (X,Y)+(X+1,Y), v = vertical (X,Y)+(X,Y+1)
  ORANGE  which cube is orange: 0/left/bottom (default) or 1/right/top
  FACE    xo = orange shows X, blue O (default); ox = orange O, blue X
resign | draw (offer a draw, then still play) | accept (your opponent's offer)
examples: place 3 0 h   |   p 2 1 v top ox   |   move 7 -1 0 h 1 xo"""

_RESET = "\x1b[0m"
_BG = {"orange": "\x1b[48;5;208m\x1b[30m", "blue": "\x1b[44m\x1b[97m"}
_BOLD = "\x1b[1m"
_REVERSE = "\x1b[7m"
_ORANGE_WORDS = {
    "0": 0,
    "left": 0,
    "bottom": 0,
    "lower": 0,
    "1": 1,
    "right": 1,
    "top": 1,
    "upper": 1,
}
_REASONS = {
    "four_in_line": "four in a line",
    "both_lines": "lines for both players; the mover wins",
    "opponent_line": "the mover made only the opponent's line",
    "collapse": "the mover's move collapsed the wall",
    "resign": "resignation",
    "draw_agreed": "draw agreed",
    "move_limit": "move limit reached",
}


def _cells_of(x: int, y: int, d: str) -> list[tuple[int, int]]:
    return [(x, y), (x + 1, y) if d == "h" else (x, y + 1)]


def _faces(orange: int, face: str) -> list[str]:
    cubes = [f"orange {face[0].upper()}", f"blue {face[1].upper()}"]
    return cubes if orange == 0 else cubes[::-1]


def _target_text(values: list[str]) -> str:
    return " or ".join(f"four {v}" for v in values)


def render(board: dict[str, Any], seat: int | None) -> str:
    cells: dict[str, Any] = board["cells"]
    columns = board.get("columns")
    if columns is None:
        lo, hi = 0, 7
    else:
        lo = max(columns[0] - 1, columns[1] - 7)
        hi = min(columns[1] + 1, columns[0] + 7)
    last = board.get("last") or {}
    line_cells = {(c[0], c[1]) for line in board.get("lines", []) for c in line["cells"]}
    locked = board.get("locked")
    lines: list[str] = []
    for y in range(board["height"], -1, -1):
        row = [f"{y:>3} |"]
        for x in range(lo, hi + 1):
            cell = cells.get(f"{x},{y}")
            if cell is None:
                row.append("  .  ")
                continue
            bid = cell["brick"]
            text = f"{cell['mark']}{cell['color'][0]}{bid:>2}{'*' if bid == locked else ' '}"
            style = _BG[cell["color"]]
            if last.get("brick") == bid:
                style += _BOLD
            if (x, y) in line_cells:
                style += _REVERSE
            row.append(f"{style}{text}{_RESET}")
        lines.append("".join(row))
    lines.append("    +" + "-" * 5 * (hi - lo + 1))
    lines.append("     " + "".join(f"{x:^5}" for x in range(lo, hi + 1)))
    lines.append("")
    for s, values in enumerate(board["targets"]):
        who = " (you)" if s == seat else ""
        turn = "  <- to move" if board.get("to_act") == s else ""
        lines.append(f"{seat_words(s)}{who}: {_target_text(values)}{turn}")
    if board["supply"] > 0:
        lines.append(f"supply: {board['supply']} of {board['bricks_total']} bricks left")
    else:
        limit = board["move_limit"]
        played = f"{board['moves']} moves played" + (f" of {limit}" if limit else "")
        lines.append(f"supply empty (move phase): {played}")
    if locked is not None:
        lines.append(f"brick {locked}* may not be taken this turn")
    if last:
        lines.append("last: " + _describe_last(last))
    if board.get("draw_offer") is not None:
        lines.append(f"{seat_words(board['draw_offer'])} offers a draw")
    result = board.get("result")
    if result is not None:
        reason = seats_renamed(_REASONS.get(result["reason"], result["reason"]))
        if result["winners"]:
            lines.append(f"{seat_words(result['winners'][0])} wins: {reason}")
        else:
            lines.append(f"drawn: {reason}")
    return "\n".join(lines)


def _describe_last(last: dict[str, Any]) -> str:
    return f"{seat_words(last['seat'])} {_last_phrase(last)}"


def _last_phrase(last: dict[str, Any]) -> str:
    """The last brick played, as a phrase: "placed brick 5 at (3,0)+(4,0)"."""
    to = last["to"]
    where = "+".join(f"({x},{y})" for x, y in _cells_of(to["x"], to["y"], to["dir"]))
    verb = "placed" if last["type"] == "place" else "moved"
    text = f"{verb} brick {last['brick']} to {where}"
    if last.get("collapse"):
        text += " -- the wall collapsed"
    return text


def describe_action(action: dict[str, Any]) -> str:
    """The move exactly as it is typed (``parse_action`` reads it back), then its cubes."""
    kind = action.get("type")
    if kind in ("place", "move"):
        x, y, d = action["x"], action["y"], action["dir"]
        pair = _cells_of(x, y, d)
        faces = _faces(action["orange"], action["face"])
        body = ", ".join(f"({cx},{cy}) {f}" for (cx, cy), f in zip(pair, faces, strict=True))
        orange = ("left", "right") if d == "h" else ("bottom", "top")
        typed = f"{x} {y} {d} {orange[action['orange']]} {action['face']}"
        if kind == "place":
            return f"place {typed}  — {body}"
        return f"move {action['brick']} {typed}  — {body}"
    if kind == "offer_draw":
        return "offer a draw"
    if kind == "accept_draw":
        return "accept the draw"
    if kind == "resign":
        return "resign"
    return str(action)


def describe_reason(reason: str) -> str:
    return _REASONS.get(reason, reason.replace("_", " "))


def describe_news(
    old: dict[str, Any], new: dict[str, Any], events: list[dict[str, Any]]
) -> list[tuple[int | None, str]]:
    """The brick played (the board's ``last``), draw offers and resignations."""
    news: list[tuple[int | None, str]] = []
    last = new.get("last")
    if last and last != old.get("last"):
        news.append((last["seat"], _last_phrase(last)))
    for event in events:
        kind = event.get("type")
        if kind == "draw_offered":
            news.append((event["seat"], "offered a draw"))
        elif kind == "draw_agreed":
            news.append((event["seat"], "accepted the draw"))
        elif kind == "resign":
            news.append((event["seat"], "resigned"))
    return news


def _int(token: str, what: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, not {token!r}") from None


def parse_action(text: str, board: dict[str, Any], seat: int | None) -> dict[str, Any]:
    tokens = text.strip().lower().split()
    if not tokens:
        raise ValueError("type a move, e.g. 'place 3 0 h' (see help)")
    word = tokens[0]
    if word == "resign":
        return {"type": "resign"}
    if word in ("draw", "offer", "offer_draw"):
        return {"type": "offer_draw"}
    if word in ("accept", "accept_draw"):
        return {"type": "accept_draw"}
    if word in ("place", "p"):
        return {"type": "place", **_placement(tokens[1:])}
    if word in ("move", "m"):
        if len(tokens) < 2:
            raise ValueError("move needs a brick id: move ID X Y DIR [ORANGE] [FACE]")
        brick = _int(tokens[1], "the brick id")
        return {"type": "move", "brick": brick, **_placement(tokens[2:])}
    raise ValueError(f"unknown command {word!r}; use place, move, resign, draw or accept")


def _placement(tokens: list[str]) -> dict[str, Any]:
    if len(tokens) < 3:
        raise ValueError("give X Y DIR, e.g. '3 0 h' (column 3, row 0, horizontal)")
    x = _int(tokens[0], "X")
    y = _int(tokens[1], "Y")
    d = tokens[2]
    if d not in ("h", "v"):
        raise ValueError(f"DIR must be h (horizontal) or v (vertical), not {d!r}")
    orange, face = 0, "xo"
    for token in tokens[3:]:
        if token in ("xo", "ox"):
            face = token
        elif token in _ORANGE_WORDS:
            orange = _ORANGE_WORDS[token]
        else:
            raise ValueError(
                f"{token!r} is neither ORANGE (0/left/bottom, 1/right/top) nor FACE (xo/ox)"
            )
    return {"x": x, "y": y, "dir": d, "orange": orange, "face": face}
