"""Lines as rows of a window: their width on screen (colour codes take none) and where
they break -- between words, never inside one."""

from __future__ import annotations

import re

_SGR = re.compile(r"\x1b\[[0-9;]*m")


def strip_colours(text: str) -> str:
    return _SGR.sub("", text)


class Unbroken(str):
    """A line never broken between words (a command to copy and paste as it is)."""


def visible(text: str) -> int:
    """Columns ``text`` takes on screen (colour codes take none)."""
    return len(strip_colours(text))


def wrap(line: str, width: int) -> list[str]:
    """``line`` as rows of at most ``width`` columns, broken between words; the rows
    after the first keep the line's indent.  A word wider than the window is the only
    thing ever cut; an :class:`Unbroken` line is one row (the terminal folds it)."""
    width = max(width, 1)
    if isinstance(line, Unbroken) or visible(line) <= width:
        return [line]
    body = line.lstrip(" ")
    indent = " " * min(len(line) - len(body), width // 2)
    rows: list[str] = []
    row, used = indent, len(indent)
    for word in body.split(" "):
        size = visible(word)
        if used > len(indent) and used + 1 + size > width:
            rows.append(row)
            row, used = indent, len(indent)
        if used > len(indent):
            row, used = row + " ", used + 1
        while used + size > width:  # a word wider than the window: cut, the only way
            take = width - used
            rows.append(row + word[:take])
            word, size = word[take:], size - take
            row, used = indent, len(indent)
        row, used = row + word, used + size
    rows.append(row)
    return rows


def rows_of(line: str, width: int) -> int:
    """How many rows of a ``width``-column window a line takes."""
    if isinstance(line, Unbroken):
        return max(1, -(-visible(line) // max(width, 1)))
    return len(wrap(line, width))
