"""9-tower (数字9乘塔): build a layered layout of digit tiles (docs/games/nmbr9.md).

Modules: ``engine`` (deck, simultaneous rounds, the move table, status), ``views`` (the
public view), ``bot`` (the bot levels: greedy ``easy``, also the deadline fallback, and
``strong``, built from ``evaluation`` and ``search``), and the domain modules ``shapes`` (the ten
tiles and their rotations) and ``rules`` (placement legality, levels, scoring, legal
placements).
"""

from __future__ import annotations

from tablehub.server.games.base import Game
from tablehub.server.games.nmbr9 import howto
from tablehub.server.games.nmbr9.bot import LEVELS, strong_action
from tablehub.server.games.nmbr9.engine import (
    DEFAULT_MAX_PLAYERS,
    MOVES,
    legal,
    legal_basis,
    legal_compact,
    legal_grid,
    legal_layered,
    max_players,
    restore,
    setup,
    status,
    waiting,
)
from tablehub.server.games.nmbr9.views import view
from tablehub.server.games.options import Option

HELP = """\
9-tower: 20 rounds. Each round a card (a digit 0-9) is revealed and every player places
a tile of that digit into their own layout, all at the same time. The deck holds two
cards of each digit; the order is hidden, the cards still to come are counted for all.

Place: {"type": "place", "x": X, "y": Y, "rot": R}. R = quarter turns clockwise (0-3);
the rotated tile is shifted so its top-left corner of the bounding box is at (X, Y).
x grows to the right, y downward; negative values are fine (|x|, |y| <= 1000).
Tiles are never mirrored.

A tile's level is the height it rests at: on the table = level 0, entirely on level-L
tiles = level L+1. All its squares must rest at the same height. Legal when:
 1. it is your first tile (anywhere), or
 2. it shares an edge with a tile on its own level (corners do not count) - unless it
    is the first tile of a new level;
 3. on level 1 or higher, every square lies on a square of the level below (no
    overhang, no bridging a gap);
 4. on level 1 or higher, it rests on at least two different tiles.
Score: the sum of digit x level. Highest total wins; ties share the win.

House rules: the tile supply is unlimited. A player who misses the round deadline gets
the placement of the easy bot. Resigning: you stop placing, your layout stays visible,
and you are out of the ranking (cannot win); the others play on, and if everyone
resigns the game ends with no winner. Table option "tournament" allows up to 1000 players, all
playing the same deck (a duplicate tournament)."""

GAME = Game(
    id="nmbr9",
    name="9-tower",
    min_players=1,
    max_players=DEFAULT_MAX_PLAYERS,
    initial=setup,
    moves=MOVES,
    choices=legal,
    compact_choices=legal_compact,
    grid_choices=legal_grid,
    layered_choices=legal_layered,
    legal_basis=legal_basis,
    view=view,
    status=status,
    bot_action=strong_action,
    seat_count=lambda state: len(state["players"]),
    resigned=lambda state, seat: bool(state["players"][seat]["resigned"]),
    waiting=waiting,
    bots=LEVELS,
    default_bot_level="strong",
    fast_bot_level="easy",
    options={
        "tournament": Option(
            type="boolean",
            default=False,
            description="tournament table: up to 1000 players on the same deck",
        ),
    },
    help=HELP,
    howto=howto.SECTIONS,
    restore=restore,
    public_view=True,
    counts_rounds=True,
    max_players_with_options=max_players,
)

__all__ = ["GAME"]
