"""Number row (数字撞磚, Completto) -- docs/games/completto.md.

Modules: ``tiles`` (the 100 tiles and their readings), ``rules`` (where a number may go,
bonus turns), ``engine`` (setup, actions, rounds, scoring), ``views`` (what each
audience sees), ``bot`` (the bot levels), ``position`` (build a position from a
description, for tests and tools).
"""

from __future__ import annotations

from tablehub.server.games.base import Game
from tablehub.server.games.completto import howto
from tablehub.server.games.completto.bot import LEVELS, strong_action
from tablehub.server.games.completto.engine import (
    MAX_ROUNDS,
    MOVES,
    legal,
    legal_basis,
    legal_compact,
    setup,
    status,
    waiting,
)
from tablehub.server.games.completto.views import reveal, view
from tablehub.server.games.options import Option

HELP = """\
Number row: make your 22 tiles read in ascending order, all face up.
Setup: everyone inserts 5 face-up tiles into a row of 17 face-down ones, anywhere the
face-up numbers ascend:  {"type": "insert", "pos": 4, "reading": 37}.
On your turn either
  take a tile: {"type": "take", "source": "pool"} (random face-down tile) or
  {"type": "take", "source": "faceup", "number": 22}; then, if it fits, replace a
  face-down tile with it: {"type": "place", "pos": 3, "reading": 21} (the replaced tile
  goes face down into the pool), or if it fits nowhere {"type": "discard"} (it lies face
  up in the pool for anyone to take);
or move one of your face-down tiles: {"type": "move", "from": 5, "to": 12}.
Positions count from 0 (a refusal's reason counts them from 1, as players do).
16/91, 18/81, 19/61, 66/99, 68/89, 86/98 may be read either way; the reading is fixed
once placed.  Placing a number next to its neighbour (n-1 on
its left or n+1 on its right) gives one bonus turn.  The first full row ends the round;
everyone scores -1 per face-down tile.  {"type": "resign"} is always allowed.
No progress: after 5 turns per player in a row in which nobody drew a face-down pool
tile or turned a tile face up (moves, face-up tiles that fit nowhere), the round ends
and everyone scores -1 per face-down tile.
House rules: setup insertions give no bonus; the next round's start player is the seat
after the previous one; a resigned seat scores 22 for every round it did not finish.
"""

GAME = Game(
    id="completto",
    name="Number row",
    min_players=2,
    max_players=4,
    initial=setup,
    moves=MOVES,
    choices=legal,
    compact_choices=legal_compact,
    legal_basis=legal_basis,
    view=view,
    reveal=reveal,
    status=status,
    bot_action=strong_action,
    seat_count=lambda state: int(state["seats"]),
    resigned=lambda state, seat: bool(state["resigned"][seat]),
    waiting=waiting,
    bots=LEVELS,
    default_bot_level="strong",
    options={
        "rounds": Option(
            "integer",
            1,
            "rounds to play; each round scores -1 per face-down tile left in your row",
            minimum=1,
            maximum=MAX_ROUNDS,
        )
    },
    help=HELP,
    howto=howto.SECTIONS,
    public_view=False,
)

__all__ = ["GAME"]
