"""Turn orders games share (in the manner of boardgame.io's ``TurnOrder`` presets): who
acts next around the table.  Seats sit clockwise in seat order; a game says which seats
may take a turn (not resigned, still holding dice, ...)."""

from __future__ import annotations

from collections.abc import Callable


def clockwise(seats: int, start: int) -> list[int]:
    """Every seat once, clockwise from ``start`` (``start`` first)."""
    return [(start + step) % seats for step in range(seats)]


def first_clockwise(seats: int, start: int, eligible: Callable[[int], bool]) -> int | None:
    """The first seat clockwise from ``start`` (itself first) that is ``eligible``; None
    when no seat is."""
    for seat in clockwise(seats, start):
        if eligible(seat):
            return seat
    return None
