"""The table screen as text: pure functions from a table view to lines.

A screen is the hub's part of the view (status, seats and who is connected, who
still has to act, the deadline, scores, the result) followed by the game's own
board text from its renderer.  Nothing here does I/O, so every game's screen can be
checked in tests without a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.numbering import seat_number, seat_words, seats_renamed
from tablehub.clients.cli.rows import rows_of

RULE = "─" * 60
LISTED = 10
"""On big tables (tournaments) seat lists, leaderboards and "to act" stop after this many."""


@dataclass
class Screen:
    lines: list[str]
    deadline_row: int | None = None
    """Index in ``lines`` of the deadline countdown (redrawn in place every second)."""
    deadline_short: bool = False
    """The countdown is the short form, followed on its line by ``deadline_tail``."""
    deadline_tail: str = ""

    def deadline_line(self, deadline_ms: int, now_ms: int) -> str:
        """The deadline row as it reads at ``now_ms``."""
        return deadline_text(deadline_ms, now_ms, self.deadline_short) + self.deadline_tail

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def seat_name(view: dict[str, Any], seat: int) -> str:
    seats = view.get("seats") or []
    name = seats[seat].get("name") if 0 <= seat < len(seats) else None
    return str(name) if name else seat_words(seat)


def scores(view: dict[str, Any]) -> list[int] | None:
    """Scores per seat: the result's, else the board's ``players[i].score`` / ``scores``."""
    result = view.get("result")
    if isinstance(result, dict) and _int_list(result.get("scores")):
        return list(result["scores"])
    board = view.get("board")
    if not isinstance(board, dict):
        return None
    players = board.get("players")
    if isinstance(players, list) and players:
        found = [p.get("score") if isinstance(p, dict) else None for p in players]
        if _int_list(found):
            return [int(s) for s in found if isinstance(s, int)]
    if _int_list(board.get("scores")):
        return list(board["scores"])
    return None


def _int_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def deadline_text(deadline_ms: int, now_ms: int, short: bool = False) -> str:
    left = max(0, (deadline_ms - now_ms + 999) // 1000)
    minutes, seconds = divmod(left, 60)
    clock = f"{minutes}:{seconds:02d}" if minutes else f"{seconds}s"
    if short:
        return f"deadline: {clock} left"
    return f"deadline: {clock} left (then the server moves for whoever has not acted)"


def ranking(points: Sequence[int]) -> list[int]:
    """Seats from the highest score down (ties: lower seat first)."""
    return sorted(range(len(points)), key=lambda s: (-points[s], s))


def final_ranking(view: dict[str, Any], points: Sequence[int], text: GameText) -> list[int]:
    """Seats in final order: the winners first, then by score and the game's tie-breaks."""
    winners = set((view.get("result") or {}).get("winners") or [])
    board = view.get("board")

    def key(s: int) -> tuple[object, ...]:
        return (s not in winners, [-k for k in text.rank_key(board, s, points[s])], s)

    return sorted(range(len(points)), key=key)


def leaderboard(view: dict[str, Any], points: Sequence[int], order: list[int] | None = None) -> str:
    order = ranking(points) if order is None else order
    line = "  ".join(
        f"{rank}. {seat_name(view, s)} {points[s]}" for rank, s in enumerate(order[:LISTED], 1)
    )
    if len(order) > LISTED:
        line += f"  … ({len(order) - LISTED} more)"
    return line


def names_list(view: dict[str, Any], seats: Sequence[int]) -> str:
    names = ", ".join(seat_name(view, s) for s in seats[:LISTED])
    return names + (f" and {len(seats) - LISTED} more" if len(seats) > LISTED else "")


def result_lines(view: dict[str, Any], text: GameText) -> list[str]:
    """The final result in words (empty while the game runs)."""
    result = view.get("result")
    if view.get("status") != "finished" and not result:
        return []
    if not isinstance(result, dict):
        return ["GAME OVER"]
    winners = list(result.get("winners") or [])
    head = f"GAME OVER — winner{'s' if len(winners) > 1 else ''}: {names_list(view, winners)}"
    if not winners:
        head = "GAME OVER — no winner"
    lines = [head]
    if result.get("reason"):
        reason = text.reason(str(result["reason"]))
        lines.append(f"({seats_renamed(reason, lambda s: seat_name(view, s))})")
    points = scores(view)
    if points:
        order = final_ranking(view, points, text)
        lines.append("final ranking: " + leaderboard(view, points, order))
    return lines


def _seat_lines(
    view: dict[str, Any], presence: dict[str, Any], seat: int | None, points: list[int] | None
) -> list[str]:
    seats = view.get("seats") or []
    online = presence.get("seats") or []
    to_act = set(view.get("to_act") or [])
    shown = list(range(len(seats)))
    if len(seats) > LISTED + 2:  # a big table: the leaders and you
        shown = ranking(points)[:LISTED] if points else shown[:LISTED]
        if seat is not None and seat not in shown:
            shown.append(seat)
    width = max([len(seat_name(view, i)) for i in shown] + [6])
    digits = len(str(len(seats)))
    lines = []
    for i in shown:
        info = seats[i]
        marker = "▶" if i in to_act and view.get("status") == "playing" else " "
        name = seat_name(view, i) if info.get("name") or info.get("bot") else "(free)"
        tags = []
        if i == seat:
            tags.append("you")
        if info.get("bot"):
            tags.append("bot")
        elif i < len(online) and info.get("name"):
            tags.append("online" if online[i].get("connected") else "offline")
        score = f"{points[i]:>5} pts" if points and i < len(points) else ""
        number = f"{seat_number(i):>{digits}}"
        lines.append(f" {marker} {number}  {name:<{width}}  {score}  {', '.join(tags)}".rstrip())
    if len(shown) < len(seats):
        connected = sum(1 for s in online if s.get("connected"))
        lines.append(f"   … {len(seats)} seats in all, {connected} connected")
    return lines


def _seats_line(
    view: dict[str, Any], presence: dict[str, Any], seat: int | None, points: list[int] | None
) -> str:
    """Every seat on one line (the first few on a big table): ▶ marks who is to act."""
    seats = view.get("seats") or []
    online = presence.get("seats") or []
    to_act = set(view.get("to_act") or []) if view.get("status") == "playing" else set()
    shown = list(range(len(seats)))[:4]
    if seat is not None and seat not in shown and seat < len(seats):
        shown = [seat, *shown[:3]]
    parts = []
    for i in shown:
        info = seats[i]
        taken = info.get("name") or info.get("bot")
        name = seat_name(view, i) if taken else f"{seat_words(i)} free"
        tags = []
        if i == seat:
            tags.append("you")
        if info.get("bot"):
            tags.append("bot")
        elif i < len(online) and info.get("name") and not online[i].get("connected"):
            tags.append("offline")
        score = f" {points[i]}" if points and i < len(points) else ""
        mark = "▶" if i in to_act else " "
        parts.append(f"{mark}{name}{' (' + ', '.join(tags) + ')' if tags else ''}{score}")
    line = " ".join(parts)
    if len(shown) < len(seats):
        line += f"  … {len(seats)} seats"
    spectators = presence.get("spectators")
    if spectators:
        line += f"  +{spectators} watching"
    return line


def compose(
    view: dict[str, Any],
    presence: dict[str, Any],
    *,
    seat: int | None,
    text: GameText,
    game_name: str = "",
    version: int = -1,
    banner: Sequence[str] = (),
    now_ms: int = 0,
    compact: bool = False,
    fit: tuple[int, int] | None = None,
    aim: tuple[str, dict[str, Any]] | None = None,
) -> Screen:
    """The whole screen for ``seat`` (None = spectator); ``compact`` fits a small window:
    the seats on one line and the game's compact board (the viewer's part first), made
    to fit ``fit`` (columns, rows) where the game can and showing where the choice
    ``aim`` (its name and action) would go."""
    status = str(view.get("status", "?"))
    title = [game_name or str(view.get("game", "?")), f"table {view.get('table', '?')}", status]
    if status == "playing":
        title.append(f"{view.get('phase')} · turn {view.get('turn')}")
    if version >= 0:
        title.append(f"v{version}")
    lines = ["tablehub · " + " · ".join(title)]
    lines.extend(result_lines(view, text))  # first: a cut screen still shows it
    if status == "waiting":
        lines.extend(banner)
        seats = view.get("seats") or []
        taken = sum(1 for s in seats if s.get("name") or s.get("bot"))
        lines.append(f"waiting for players: {taken} of {len(seats)} seats taken")
    points = scores(view)
    spectators = presence.get("spectators")
    deadline = view.get("deadline") if status == "playing" else None
    deadline_row = None
    tail = ""
    if compact:
        tail = "  " + _seats_line(view, presence, seat, points)
        if isinstance(deadline, int):  # one line: the countdown, then the seats
            deadline_row = len(lines)
            lines.append(deadline_text(deadline, now_ms, short=True) + tail)
        else:
            lines.append(tail.strip())
    else:
        lines.append("")
        lines.extend(_seat_lines(view, presence, seat, points))
        if spectators:
            lines.append(f"   + {spectators} spectator{'s' if spectators != 1 else ''}")
    if status == "playing" and not compact:
        waiting = list(view.get("to_act") or [])
        if waiting:
            lines.append("to act: " + names_list(view, waiting))
        if points:
            lines.append("leaderboard: " + leaderboard(view, points))
        if isinstance(deadline, int):
            deadline_row = len(lines)
            lines.append(deadline_text(deadline, now_ms))
    if not compact:
        lines.append(RULE)
    board = view.get("board")
    if compact:
        room = None  # the board's part of ``fit``: what the lines above leave
        if fit is not None:
            room = (fit[0], fit[1] - sum(rows_of(line, fit[0]) for line in lines))
        shown = text.render_compact(board, seat, room, aim)
    else:
        shown = text.render(board, seat)
    lines.extend(shown.splitlines())
    return Screen(lines, deadline_row, deadline_short=compact, deadline_tail=tail)
