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

RULE = "─" * 60
LISTED = 10
"""On big tables (tournaments) seat lists, leaderboards and "to act" stop after this many."""


@dataclass
class Screen:
    lines: list[str]
    deadline_row: int | None = None
    """Index in ``lines`` of the deadline countdown (redrawn in place every second)."""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def seat_name(view: dict[str, Any], seat: int) -> str:
    seats = view.get("seats") or []
    name = seats[seat].get("name") if 0 <= seat < len(seats) else None
    return str(name) if name else f"seat {seat}"


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


def deadline_text(deadline_ms: int, now_ms: int) -> str:
    left = max(0, (deadline_ms - now_ms + 999) // 1000)
    minutes, seconds = divmod(left, 60)
    clock = f"{minutes}:{seconds:02d}" if minutes else f"{seconds}s"
    return f"deadline: {clock} left (then the server moves for whoever has not acted)"


def ranking(points: Sequence[int]) -> list[int]:
    """Seats from the highest score down (ties: lower seat first)."""
    return sorted(range(len(points)), key=lambda s: (-points[s], s))


def leaderboard(view: dict[str, Any], points: Sequence[int]) -> str:
    order = ranking(points)
    line = "  ".join(
        f"{rank}. {seat_name(view, s)} {points[s]}" for rank, s in enumerate(order[:LISTED], 1)
    )
    if len(order) > LISTED:
        line += f"  … ({len(order) - LISTED} more)"
    return line


def names_list(view: dict[str, Any], seats: Sequence[int]) -> str:
    names = ", ".join(seat_name(view, s) for s in seats[:LISTED])
    return names + (f" and {len(seats) - LISTED} more" if len(seats) > LISTED else "")


def result_lines(view: dict[str, Any]) -> list[str]:
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
        lines.append(f"({result['reason']})")
    points = scores(view)
    if points:
        lines.append("final scores: " + leaderboard(view, points))
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
    digits = len(str(len(seats) - 1))
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
        lines.append(
            f" {marker} {i:>{digits}}  {name:<{width}}  {score}  {', '.join(tags)}".rstrip()
        )
    if len(shown) < len(seats):
        connected = sum(1 for s in online if s.get("connected"))
        lines.append(f"   … {len(seats)} seats in all, {connected} connected")
    return lines


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
) -> Screen:
    """The whole screen for ``seat`` (None = spectator)."""
    status = str(view.get("status", "?"))
    title = [game_name or str(view.get("game", "?")), f"table {view.get('table', '?')}", status]
    if status == "playing":
        title.append(f"{view.get('phase')} · turn {view.get('turn')}")
    if version >= 0:
        title.append(f"v{version}")
    lines = ["tablehub · " + " · ".join(title)]
    if status == "waiting":
        lines.extend(banner)
        seats = view.get("seats") or []
        taken = sum(1 for s in seats if s.get("name") or s.get("bot"))
        lines.append(f"waiting for players: {taken} of {len(seats)} seats taken")
    points = scores(view)
    lines.append("")
    lines.extend(_seat_lines(view, presence, seat, points))
    spectators = presence.get("spectators")
    if spectators:
        lines.append(f"   + {spectators} spectator{'s' if spectators != 1 else ''}")
    deadline_row = None
    if status == "playing":
        waiting = list(view.get("to_act") or [])
        if waiting:
            lines.append("to act: " + names_list(view, waiting))
        if points:
            lines.append("leaderboard: " + leaderboard(view, points))
        deadline = view.get("deadline")
        if isinstance(deadline, int):
            deadline_row = len(lines)
            lines.append(deadline_text(deadline, now_ms))
    lines.append(RULE)
    lines.extend(text.render(view.get("board"), seat).splitlines())
    final = result_lines(view)
    if final:
        lines.append(RULE)
        lines.extend(final)
    return Screen(lines, deadline_row)
