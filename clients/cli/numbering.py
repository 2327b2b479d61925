"""Seats as a person reads and types them: counted from 1, as the browser counts them.

The protocol numbers seats from 0 (``"seat": 0`` is the first seat); every seat number
the terminal shows or reads goes through here, so the screen, the messages and the
``--seat`` options all say "seat 1" for the protocol's seat 0.  What a program reads
(``--script`` and ``watch --json`` lines) stays the protocol's own numbers.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

_SEAT_IN_WORDS = re.compile(r"\bseat (\d+)\b")


def seat_number(seat: int) -> int:
    """The number a person reads for the protocol's ``seat`` (seat 0 is seat 1)."""
    return seat + 1


def seat_words(seat: int) -> str:
    """``"seat 1"`` for the protocol's seat 0."""
    return f"seat {seat_number(seat)}"


def seat_index(number: int) -> int:
    """The protocol's seat for the number a person typed (ValueError below 1)."""
    if number < 1:
        raise ValueError(f"seats are numbered from 1, not {number}")
    return number - 1


def seats_renamed(text: str, name: Callable[[int], str] = seat_words) -> str:
    """A game's result reason, whose "seat N" counts from 0 as the protocol does, with
    each such seat as ``name`` says it (default "seat N+1"; the screen passes the
    player's name), as the browser reads reasons."""
    return _SEAT_IN_WORDS.sub(lambda m: name(int(m.group(1))), text)


def seat_option(text: str) -> int:
    """An argparse ``type`` for ``--seat N``: the seat numbered from 1, as the protocol's
    index."""
    try:
        return seat_index(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a seat: seats are numbered from 1, as on the screen"
        ) from None
