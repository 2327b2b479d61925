"""The 100 number tiles and their readings (docs/games/completto.md "Tiles").

A tile is identified by the number printed on it (1..100).  Twelve tiles can also be
read upside down as another number; the player who turns one face up into a row
chooses the reading, and it stays fixed from then on.  A tile that is not in a row
(face-down pool, face-up pool, in hand) has no fixed reading.
"""

from __future__ import annotations

ALL_TILES = tuple(range(1, 101))
ROW_LENGTH = 22
"""Tiles in a complete row."""
FACE_DOWN_DEAL = 17
"""Face-down tiles each player starts the row with (docs/games/completto.md "Setup")."""
SETUP_TILES = 5
"""Tiles each player then turns up and inserts one at a time."""

UPSIDE_DOWN: dict[int, int] = {
    16: 91,
    91: 16,
    18: 81,
    81: 18,
    19: 61,
    61: 19,
    66: 99,
    99: 66,
    68: 89,
    89: 68,
    86: 98,
    98: 86,
}
"""Reversible tiles: printed number -> the number it shows upside down."""


def readings(tile: int) -> list[int]:
    """The numbers ``tile`` may be read as, ascending (one or two)."""
    other = UPSIDE_DOWN.get(tile)
    if other is None:
        return [tile]
    return sorted((tile, other))


def tiles_reading(number: int) -> list[int]:
    """The tiles that can be read as ``number`` (the tile itself, maybe its partner)."""
    other = UPSIDE_DOWN.get(number)
    if other is None:
        return [number]
    return sorted((number, other))
