"""Termite Towers: end triggers, final scoring and tie-breakers (docs/games/termite.md, seed
"游戲結束").

Score = completed blueprints' points + goal cards (+2 to each player who does at least
as well as the neighbour the card is shared with; solo: reaches the card's threshold)
+ bonus points.  Ties: more completed rows, then more wall cubes, then fewer dice; a
tie after all that is shared.
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.base import Event, State
from tablehub.server.games.termite import board, data


def rows_done(player: dict[str, Any]) -> int:
    return len(board.full_rows(player["wall"]))


def goal_metric(player: dict[str, Any], goal: str) -> int:
    """The quantity a goal card compares (data.GOALS)."""
    if goal == "rows":
        return rows_done(player)
    if goal == "dice":
        return len(player["dice"])
    if goal == "blueprints":
        return len(player["built"])
    if goal == "wall_cubes":
        return board.wall_cubes(player["wall"])
    if goal == "tunnels":
        return board.tunnels_used(player)
    if goal == "hatched":
        return int(player["hatched"])
    if goal == "queens":
        return len(player["queens"])
    if goal == "colours":
        return board.wall_colours(player["wall"])
    raise ValueError(f"unknown goal {goal}")


def goal_points(state: State) -> list[int]:
    """Points each seat earns from the goal cards beside it."""
    points = [0] * state["seats"]
    for card in state["goals"]:
        goal = card["goal"]
        a, b = card["seats"]
        pa = state["players"][a]
        if a == b:  # solo: the card's threshold stands in for the neighbour
            if goal_metric(pa, goal) >= data.GOAL_SOLO_THRESHOLD[goal]:
                points[a] += data.GOAL_POINTS
            continue
        ma, mb = goal_metric(pa, goal), goal_metric(state["players"][b], goal)
        if ma >= mb:
            points[a] += data.GOAL_POINTS
        if mb >= ma:
            points[b] += data.GOAL_POINTS
    return points


def blueprint_points(player: dict[str, Any]) -> int:
    return sum(data.blueprint_points(card) for card in player["built"])


def scores(state: State) -> list[int]:
    goals = goal_points(state)
    return [
        blueprint_points(p) + goals[s] + int(p["points"]) for s, p in enumerate(state["players"])
    ]


def rank_key(state: State, seat: int, score: int) -> tuple[int, int, int, int]:
    """Higher is better: score, rows, wall cubes, fewer dice."""
    p = state["players"][seat]
    return (score, rows_done(p), board.wall_cubes(p["wall"]), -len(p["dice"]))


def end_reason(state: State) -> str | None:
    """The end triggers checked at round end: someone completed ``rows_to_end`` rows,
    or the queen deck is exhausted."""
    target = state["options"]["rows_to_end"]
    if any(rows_done(p) >= target for p in state["players"]):
        return f"a wall has {target} completed rows"
    if not state["queen_deck"]:
        return "the queen deck is exhausted"
    return None


def finish(state: State, reason: str, events: list[Event]) -> None:
    """Score the game; resigned seats are scored but cannot win."""
    final = scores(state)
    contenders = [s for s in range(state["seats"]) if not state["players"][s]["resigned"]]
    winners: list[int] = []
    if contenders:
        best = max(rank_key(state, s, final[s]) for s in contenders)
        winners = [s for s in contenders if rank_key(state, s, final[s]) == best]
    state["phase"] = "finished"
    state["night"]["pending"] = None
    state["night"]["tasks"] = []
    state["day"]["bumped"] = None
    state["result"] = {"scores": final, "winners": winners, "reason": reason}
    events.append({"type": "finished", "scores": final, "winners": winners, "reason": reason})
