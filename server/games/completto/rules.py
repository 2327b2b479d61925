"""Row rules: where a face-up number may go, and when it earns a bonus turn.

docs/games/completto.md.  A row is a list of cells ``{"tile": t, "n": reading}`` where ``n`` is
``None`` while the tile is face down.  The face-up readings of a row always ascend
strictly from left to right; every function here keeps that invariant and only
needs to look at the nearest face-up neighbours of a position.

Positions are 0-based indices into the row, as in the actions and views; the reasons
returned here name them counted from 1, as players count them.
"""

from __future__ import annotations

from typing import Any

from tablehub.server.games.completto.tiles import readings

Cell = dict[str, Any]
Row = list[Cell]


def face_down(cell: Cell) -> bool:
    return cell["n"] is None


def face_down_count(row: Row) -> int:
    return sum(1 for cell in row if cell["n"] is None)


def complete(row: Row) -> bool:
    """All tiles face up (docs/games/completto.md "End")."""
    return bool(row) and all(cell["n"] is not None for cell in row)


def nearest_left(row: Row, pos: int) -> int | None:
    """The face-up number nearest to the left of ``pos`` (exclusive), if any."""
    for i in range(pos - 1, -1, -1):
        if row[i]["n"] is not None:
            return int(row[i]["n"])
    return None


def nearest_right(row: Row, pos: int) -> int | None:
    """The face-up number nearest to the right of ``pos`` (inclusive of ``pos``)."""
    for i in range(pos, len(row)):
        if row[i]["n"] is not None:
            return int(row[i]["n"])
    return None


def _order_problem(number: int, left: int | None, right: int | None, where: str) -> str | None:
    if left is not None and left >= number:
        how = "larger" if left > number else "the same number"
        return f"{number} cannot go {where}: {left} on its left is {how}"
    if right is not None and right <= number:
        how = "smaller" if right < number else "the same number"
        return f"{number} cannot go {where}: {right} on its right is {how}"
    return None


def place_problem(row: Row, pos: int, number: int) -> str | None:
    """Why ``number`` may not replace the tile at ``pos`` (None = it may).

    docs/games/completto.md "Take and place": a face-up tile replaces a face-down tile of the row
    at a position where the face-up numbers still ascend.
    """
    if not 0 <= pos < len(row):
        return f"position {pos + 1} is outside the row (1-{len(row)})"
    if row[pos]["n"] is not None:
        return (
            f"position {pos + 1} already holds a face-up {row[pos]['n']}; "
            "a drawn tile can only replace a face-down tile"
        )
    return _order_problem(
        number, nearest_left(row, pos), nearest_right(row, pos + 1), f"at position {pos + 1}"
    )


def insert_problem(row: Row, pos: int, number: int) -> str | None:
    """Why ``number`` may not be inserted before index ``pos`` (None = it may).

    docs/games/completto.md "Setup": the setup tiles are inserted anywhere in the row so that the
    face-up numbers ascend; ``pos`` is the new tile's index in the longer row.
    """
    if not 0 <= pos <= len(row):
        return f"position {pos + 1} is outside the row (1-{len(row) + 1})"
    return _order_problem(
        number, nearest_left(row, pos), nearest_right(row, pos), f"at position {pos + 1}"
    )


def gap(row: Row, number: int) -> tuple[int, int] | None:
    """Where ``number`` fits between the face-up numbers: the indices of the face-up tile
    nearest below it and nearest above it (-1 and ``len(row)`` when there is none), or
    None when a face-up tile shows ``number`` itself.  The face-up readings ascend, so
    these two are the ones the rules of :func:`place_problem` and :func:`insert_problem`
    compare with at every position between them, and at no other position."""
    below, above = -1, len(row)
    for index, cell in enumerate(row):
        shown = cell["n"]
        if shown is None:
            continue
        if shown > number:
            above = index
            break
        if shown == number:
            return None
        below = index
    return below, above


def placements(row: Row, tile: int) -> list[list[int]]:
    """Every legal ``[pos, reading]`` for ``tile`` replacing a face-down tile (the
    positions where :func:`place_problem` finds none), sorted."""
    out: list[list[int]] = []
    for number in readings(tile):
        fits = gap(row, number)
        if fits is not None:
            out += ([pos, number] for pos in range(fits[0] + 1, fits[1]) if row[pos]["n"] is None)
    out.sort()
    return out


def insertions(row: Row, tile: int) -> list[list[int]]:
    """Every legal ``[pos, reading]`` for inserting ``tile`` during setup (the positions
    where :func:`insert_problem` finds none), sorted."""
    out: list[list[int]] = []
    for number in readings(tile):
        fits = gap(row, number)
        if fits is not None:
            out += ([pos, number] for pos in range(fits[0] + 1, fits[1] + 1))
    out.sort()
    return out


def gives_bonus(row: Row, pos: int) -> bool:
    """docs/games/completto.md "Bonus turn": the face-up tile at ``pos`` has n-1 just left of it or
    n+1 just right of it (one bonus however many neighbours match)."""
    number = row[pos]["n"]
    if number is None:
        return False
    left = row[pos - 1]["n"] if pos > 0 else None
    right = row[pos + 1]["n"] if pos + 1 < len(row) else None
    return bool(left == number - 1 or right == number + 1)
