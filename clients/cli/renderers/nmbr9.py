"""CLI renderer for 9-tower (``nmbr9``; rules in docs/games/nmbr9.md).

A layout is drawn from above: each cell shows the digit of its topmost tile followed
by that tile's level as a subscript (``7₂`` = a 7 on level 2), coloured by level.
Big tables (more than six players) show a leaderboard and only the viewer's layout
(the leader's for a spectator).
"""

from __future__ import annotations

import re
from typing import Any

from tablehub.clients.cli.numbering import seat_words
from tablehub.clients.cli.renderers.nmbr9_tiles import Worth, cells_of, distinct_rotations, shape

INPUT_HELP = """\
place a tile:  X Y R      (e.g. "3 -1 2": at x=3, y=-1, turned 2 quarter turns
                          clockwise -- the screen draws the card in each turn)
               X Y        (not turned)
               place X Y R  /  X,Y,R  are read the same way
aim:           at X Y     only the places where the card covers the square X Y
               see N      draw choice N on your layout (as ##)
resign:        resign
x grows to the right, y downward; (X, Y) is the top-left of the turned tile's
box.  The choices come best first: the points the tile scores now (its digit
times its level) and about what the next card could score on top of it."""

_SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉"
_COLOURS = ("\x1b[37m", "\x1b[32m", "\x1b[33m", "\x1b[35m", "\x1b[31m", "\x1b[36m")
_RESET = "\x1b[0m"
_BIG_TABLE = 6
_LEADERBOARD = 10
_COMPACT_OTHERS = 3


def _sub(level: int) -> str:
    return "".join(_SUBSCRIPT[int(ch)] for ch in str(level))


def render_layout(tiles: list[dict[str, Any]], colour: bool = True) -> list[str]:
    """The layout seen from above, one string per row (with x/y rulers)."""
    if not tiles:
        return ["  (no tiles yet)"]
    top: dict[tuple[int, int], tuple[int, int]] = {}
    for tile in tiles:
        for x, y in tile["cells"]:
            top[(x, y)] = (tile["digit"], tile["level"])
    xs = [x for x, _ in top]
    ys = [y for _, y in top]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    width = max(len(str(y0)), len(str(y1)))
    ruler = " " * (width + 1) + "".join(f"{x:>3}" for x in range(x0, x1 + 1))
    lines = [ruler]
    for y in range(y0, y1 + 1):
        row = [f"{y:>{width}} "]
        for x in range(x0, x1 + 1):
            if (x, y) not in top:
                row.append("  .")
                continue
            digit, level = top[(x, y)]
            text = f"{digit}{_sub(level)}"
            if colour:
                text = f"{_COLOURS[min(level, len(_COLOURS) - 1)]}{text}{_RESET}"
            row.append(" " + text)
        lines.append("".join(row))
    return lines


def _remaining(board: dict[str, Any]) -> str:
    parts = [f"{d}:{n}" for d, n in enumerate(board["remaining"]) if n]
    return " ".join(parts) if parts else "none"


def _player_line(seat: int, player: dict[str, Any], viewer: int | None) -> str:
    flags = []
    if seat == viewer:
        flags.append("you")
    if player["resigned"]:
        flags.append("resigned")
    elif player["placed"]:
        flags.append("placed")
    else:
        flags.append("thinking")
    score, tiles = count(player["score"], "point"), count(len(player["tiles"]), "tile")
    return f"{seat_words(seat)}: {score}, {tiles} ({', '.join(flags)})"


def count(n: int, word: str) -> str:
    """``n`` and the word, plural unless one: "1 point", "38 points"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render(board: dict[str, Any], seat: int | None) -> str:
    players: list[dict[str, Any]] = board["players"]
    lines: list[str] = []
    if board["finished"]:
        winners = board.get("winners") or []
        names = ", ".join(seat_words(s) for s in winners) or "nobody"
        lines.append(f"9-tower: game over after round {board['round']}. Winner(s): {names}")
    else:
        waiting = sum(1 for p in players if not p["resigned"] and not p["placed"])
        lines.append(
            f"9-tower: round {board['round']}/{board['rounds']}, card {board['card']} "
            f"({waiting} player(s) still to place)"
        )
    lines.append(f"cards still to come (digit:count): {_remaining(board)}")
    if len(players) <= _BIG_TABLE:
        shown = list(range(len(players)))
    else:
        order = sorted(range(len(players)), key=lambda s: (-players[s]["score"], s))
        lines.append("leaderboard:")
        lines.extend("  " + _player_line(s, players[s], seat) for s in order[:_LEADERBOARD])
        if seat is not None and seat not in order[:_LEADERBOARD]:
            rank = order.index(seat) + 1
            lines.append(f"  #{rank} " + _player_line(seat, players[seat], seat))
        shown = [seat if seat is not None and 0 <= seat < len(players) else order[0]]
    for s in shown:
        lines.append("")
        lines.append(_player_line(s, players[s], seat))
        lines.extend(render_layout(players[s]["tiles"]))
    return "\n".join(lines)


def _tops(tiles: list[dict[str, Any]]) -> dict[tuple[int, int], tuple[int, int]]:
    """Each covered square's top tile: (digit, level)."""
    top: dict[tuple[int, int], tuple[int, int]] = {}
    for tile in tiles:
        for x, y in tile["cells"]:
            top[(x, y)] = (tile["digit"], tile["level"])
    return top


def _window(lo: int, hi: int, size: int, focus: tuple[int, int] | None) -> tuple[int, int]:
    """``size`` consecutive coordinates out of lo..hi: all when they fit, else centred on
    ``focus`` (a span that must stay in view) or on the middle."""
    if hi - lo + 1 <= size:
        return lo, hi
    a, b = focus if focus is not None else ((lo + hi) // 2, (lo + hi) // 2)
    start = (a + b + 1) // 2 - size // 2
    start = max(lo, min(start, hi - size + 1))
    return start, start + size - 1


def _area(
    top: dict[tuple[int, int], tuple[int, int]],
    xs: tuple[int, int],
    ys: tuple[int, int],
    ghost: set[tuple[int, int]],
    cell: int,
) -> list[str]:
    """Rows of a part of a layout (with x/y rulers), ``cell`` columns a square; the
    squares of ``ghost`` are drawn ``##`` (where a choice would put the card)."""
    y_width = max(len(str(ys[0])), len(str(ys[1])))
    lines = [" " * (y_width + 1) + "".join(f"{x:>{cell}}" for x in range(xs[0], xs[1] + 1))]
    for y in range(ys[0], ys[1] + 1):
        row = [f"{y:>{y_width}} "]
        for x in range(xs[0], xs[1] + 1):
            pad = " " * (cell - 2)
            if (x, y) in ghost:
                row.append(pad + "##")
            elif (x, y) in top:
                digit, level = top[(x, y)]
                colour = _COLOURS[min(level, len(_COLOURS) - 1)]
                row.append(f"{pad}{colour}{digit}{_sub(level)}{_RESET}")
            else:
                row.append(pad + " .")
        lines.append("".join(row))
    return lines


def _width(line: str) -> int:
    return len(re.sub(r"\x1b\[[0-9;]*m", "", line))


def _layout_view(
    tiles: list[dict[str, Any]],
    ghost: list[tuple[int, int]],
    columns: int,
    rows: int,
    cell: int = 3,
) -> tuple[list[str], bool]:
    """A layout in at most ``columns`` x ``rows`` (rulers included), with room around it
    for the next tile, centred on the ghost when it does not fit whole; and whether
    part of it is out of view."""
    top = _tops(tiles)
    squares = [*top, *ghost] or [(0, 0)]
    x0, x1 = min(x for x, _ in squares) - 1, max(x for x, _ in squares) + 1
    y0, y1 = min(y for _, y in squares) - 1, max(y for _, y in squares) + 1
    y_width = max(len(str(y0)), len(str(y1))) + 1
    across = max(1, (columns - y_width) // cell)
    down = max(1, rows - 1)
    gx = (min(x for x, _ in ghost), max(x for x, _ in ghost)) if ghost else None
    gy = (min(y for _, y in ghost), max(y for _, y in ghost)) if ghost else None
    xs = _window(x0, x1, across, gx)
    ys = _window(y0, y1, down, gy)
    cut = xs != (x0, x1) or ys != (y0, y1)
    return _area(top, xs, ys, set(ghost), cell), cut


def card_panel(digit: int, rows: int) -> list[str]:
    """The card drawn in each of its turns (``turned R``: R quarter turns clockwise),
    two turns a band when ``rows`` allows eight rows, else all in one band."""
    rots = distinct_rotations(digit)
    bands = [rots[:2], rots[2:]] if rows >= 8 and len(rots) > 2 else [rots]
    lines: list[str] = []
    for band in bands:
        drawn = []
        for rot in band:
            cells = set(shape(digit, rot))
            w = max(x for x, _ in cells) + 1
            grid = [
                "".join("##" if (x, y) in cells else "  " for x in range(w))
                for y in range(max(y for _, y in cells) + 1)
            ]
            drawn.append((f"turned {rot}", grid, 2 * w))
        height = max(len(grid) for _, grid, _ in drawn)
        columns = [(label, grid, max(w, len(label))) for label, grid, w in drawn]
        lines.append("  ".join(label.ljust(w) for label, _, w in columns))
        for y in range(height):
            parts = [(grid[y] if y < len(grid) else "").ljust(w) for _, grid, w in columns]
            lines.append("  ".join(parts).rstrip())
    return lines


def render_compact(
    board: dict[str, Any],
    seat: int | None,
    fit: tuple[int, int] | None = None,
    aim: tuple[str, dict[str, Any]] | None = None,
) -> str:
    """For a small window (``fit``: columns, rows at most): the card and the viewer's
    layout -- the part around ``aim`` (a choice's name and action: drawn ``##``) when
    it does not fit -- with the card in each turn beside it; a spectator sees every
    seat's layout side by side.  Scores and names are on the screen's seats line."""
    players: list[dict[str, Any]] = board["players"]
    if not players:
        return render(board, seat)
    columns, rows = fit if fit is not None else (80, 40)
    if board["finished"]:
        head = f"game over after round {board['round']}"
    else:
        head = f"round {board['round']}/{board['rounds']} · card {board['card']}"
    cards = f"cards still to come (digit:count): {_remaining(board)}"
    if seat is None or not 0 <= seat < len(players):
        return "\n".join([head, *_side_by_side(players, columns, rows - 2), cards])
    mine = players[seat]
    lines = [f"{head} · you: {_player_line(seat, mine, None).split(': ', 1)[1]}"]
    room = max(4, rows - 2 - (1 if aim else 0))
    panel = [] if board["finished"] else card_panel(board["card"], room)
    panel_width = max((len(line) for line in panel), default=0)
    ghost: list[tuple[int, int]] = []
    if aim is not None and aim[1].get("type") == "place" and not board["finished"]:
        action = aim[1]
        ghost = cells_of(
            board["card"], int(action["x"]), int(action["y"]), int(action.get("rot", 0))
        )
    space = columns - (panel_width + 3 if panel else 0)
    layout, cut = _layout_view(mine["tiles"], ghost, space, room)
    if not mine["tiles"] and not ghost:
        layout = ["  (no tiles yet)"]
    width = max(_width(line) for line in layout)
    for i in range(max(len(layout), len(panel))):
        left = layout[i] if i < len(layout) else ""
        right = panel[i] if i < len(panel) else ""
        lines.append(
            (left + " " * (width - _width(left)) + "   " + right).rstrip() if right else left
        )
    if aim is not None and ghost:
        seen = " (part of your layout: 'board' shows it all)" if cut else ""
        lines.append(f"## = where choice {aim[0]} puts the {board['card']}{seen}")
    elif cut:
        lines.append("(part of your layout: 'board' shows it all)")
    lines.append(cards)
    return "\n".join(lines)


def _side_by_side(players: list[dict[str, Any]], columns: int, rows: int) -> list[str]:
    """Every seat's layout (the four best on a big table), small, side by side."""
    order = sorted(range(len(players)), key=lambda s: (-players[s]["score"], s))
    shown = sorted(order[:4])
    gap = 3
    width = max(12, (columns - gap * (len(shown) - 1)) // len(shown))
    blocks = []
    for s in shown:
        player = players[s]
        layout, _ = _layout_view(player["tiles"], [], width, max(2, rows - 1), cell=2)
        if not player["tiles"]:
            layout = ["(no tiles yet)"]
        title = f"{seat_words(s)}: {count(player['score'], 'point')}"
        blocks.append([title[:width], *layout])
    lines = []
    for i in range(max(len(b) for b in blocks)):
        parts = [(b[i] if i < len(b) else "") for b in blocks]
        lines.append("".join(p + " " * (width + gap - _width(p)) for p in parts[:-1]) + parts[-1])
    if len(players) > len(shown):
        lines.append(f"(the {len(shown)} best of {len(players)} players)")
    return lines


def arrange_choices(
    legal: list[dict[str, Any]], board: dict[str, Any], seat: int | None
) -> tuple[list[dict[str, Any]], list[str], str]:
    """The placements best first -- by what they bring now and for the next card, then
    level, points, fit and position -- each in words, and a line that groups them by
    level."""
    tiles = board["players"][seat]["tiles"] if seat is not None else []
    worth = Worth(tiles, board["card"], list(board["remaining"]))
    ranked = worth.rank(legal)
    labels = []
    levels: dict[int, int] = {}
    for action, value in ranked:
        if action.get("type") != "place":
            labels.append(describe_action(action))
            continue
        level, points = worth.level(action), worth.points(action)
        levels[level] = levels.get(level, 0) + 1
        rot = int(action.get("rot", 0))
        turned = f" turned {rot}" if rot else ""
        later = round(value - points)
        then = f", then about {later} from the next card" if later > 0 else ""
        labels.append(
            f"({action['x']},{action['y']}){turned}: level {level}, {count(points, 'point')}{then}"
        )
    groups = ", ".join(f"{n} on level {level}" for level, n in sorted(levels.items(), reverse=True))
    summary = f"{count(len(legal), 'place')} for the {board['card']} ({groups}), best first"
    return [a for a, _ in ranked], labels, summary


def aim_at(text: str, board: dict[str, Any], seat: int | None) -> tuple[str, Any] | None:
    """``at X Y``: the placements that cover the square (X, Y), and those words."""
    match = re.fullmatch(r"\s*at\s+\(?\s*(-?\d+)\s*[, ]\s*(-?\d+)\s*\)?\s*", text.lower())
    if match is None or board["finished"]:
        return None
    square = (int(match.group(1)), int(match.group(2)))
    digit = board["card"]

    def covers(action: dict[str, Any]) -> bool:
        if action.get("type") != "place":
            return False
        return square in cells_of(
            digit, int(action["x"]), int(action["y"]), int(action.get("rot", 0))
        )

    return f"the places where the {digit} covers ({square[0]},{square[1]})", covers


def describe_news(
    old: dict[str, Any], new: dict[str, Any], events: list[dict[str, Any]]
) -> list[tuple[int | None, str]]:
    """Placements and resignations, in words (the new card is in the header)."""
    news: list[tuple[int | None, str]] = []
    for event in events:
        kind = event.get("type")
        if kind == "placed":
            rot = event["rot"]
            turned = f" turned {rot}" if rot else ""
            news.append(
                (
                    event["seat"],
                    f"placed the {event['digit']} at ({event['x']},{event['y']}){turned}, "
                    f"level {event['level']} ({count(event['score'], 'point')} in all)",
                )
            )
        elif kind == "resigned":
            news.append((event["seat"], "resigned"))
    return news


def describe_action(action: dict[str, Any]) -> str:
    if action.get("type") == "resign":
        return "resign"
    if action.get("type") == "place":
        rot = action.get("rot", 0)
        turn = f" turned {rot}" if rot else ""
        return f"place at ({action.get('x')},{action.get('y')}){turn}"
    return str(action)


def parse_action(text: str, board: dict[str, Any], seat: int | None) -> dict[str, Any]:
    words = text.strip().lower()
    if words == "resign":
        return {"type": "resign"}
    words = re.sub(r"^place\b", "", words)
    numbers = [w for w in re.split(r"[\s,()]+", words) if w]
    if len(numbers) not in (2, 3):
        raise ValueError(f"expected X Y [R] or 'resign', got {text!r}")
    try:
        values = [int(n) for n in numbers]
    except ValueError:
        raise ValueError(f"X, Y and R must be whole numbers, got {text!r}") from None
    x, y = values[0], values[1]
    rot = values[2] if len(values) == 3 else 0
    if not 0 <= rot <= 3:
        raise ValueError(f"rotation must be 0, 1, 2 or 3 quarter turns, not {rot}")
    return {"type": "place", "x": x, "y": y, "rot": rot}
