"""CLI renderer for 9-tower (``nmbr9``; rules in docs/games/nmbr9.md).

A layout is drawn from above: each cell shows the digit of its topmost tile followed
by that tile's level as a subscript (``7₂`` = a 7 on level 2), coloured by level.
Big tables (more than six players) show a leaderboard and only the viewer's layout
(the leader's for a spectator).
"""

from __future__ import annotations

import re
from typing import Any

INPUT_HELP = """\
place a tile:  X Y R      (e.g. "3 -1 2": at x=3, y=-1, turned 2 quarter turns
                          clockwise)
               X Y        (rotation 0)
               place X Y R  /  X,Y,R  are read the same way
resign:        resign
x grows to the right, y downward; (X, Y) is the top-left of the turned tile's
box."""

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
    return f"seat {seat}: {score}, {tiles} ({', '.join(flags)})"


def count(n: int, word: str) -> str:
    """``n`` and the word, plural unless one: "1 point", "38 points"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render(board: dict[str, Any], seat: int | None) -> str:
    players: list[dict[str, Any]] = board["players"]
    lines: list[str] = []
    if board["finished"]:
        winners = board.get("winners") or []
        names = ", ".join(f"seat {s}" for s in winners) or "nobody"
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


def render_compact(board: dict[str, Any], seat: int | None) -> str:
    """The card and the viewer's layout first (the leader's for a spectator), then one
    line per other seat."""
    players: list[dict[str, Any]] = board["players"]
    if not players:
        return render(board, seat)
    order = sorted(range(len(players)), key=lambda s: (-players[s]["score"], s))
    mine = seat if seat is not None and 0 <= seat < len(players) else order[0]
    if board["finished"]:
        head = f"game over after round {board['round']}"
    else:
        head = f"round {board['round']}/{board['rounds']} · card {board['card']}"
    lines = [f"{head} · {_player_line(mine, players[mine], seat)}"]
    lines.extend(render_layout(players[mine]["tiles"]))
    others = [s for s in order if s != mine]
    for s in others[:_COMPACT_OTHERS]:
        lines.append("  " + _player_line(s, players[s], seat))
    if len(others) > _COMPACT_OTHERS:
        lines.append(f"  … and {len(others) - _COMPACT_OTHERS} more players")
    lines.append(f"cards still to come (digit:count): {_remaining(board)}")
    return "\n".join(lines)


def describe_news(
    old: dict[str, Any], new: dict[str, Any], events: list[dict[str, Any]]
) -> list[tuple[int | None, str]]:
    """Placements and resignations, in words (the new card is in the header)."""
    news: list[tuple[int | None, str]] = []
    for event in events:
        kind = event.get("type")
        if kind == "placed":
            rot = event["rot"]
            turned = f", turned {rot}×90°" if rot else ""
            news.append(
                (
                    event["seat"],
                    f"placed the {event['digit']} at ({event['x']},{event['y']}){turned}, "
                    f"level {event['level']} ({count(event['score'], 'point')})",
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
        turn = f", turned {rot}×90° clockwise" if rot else ""
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
