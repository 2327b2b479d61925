"""``brix`` -- the wall duel (争墙斗胜): rules in docs/games/brix.md.

Two players build one shared wall of two-cube bricks; four equal symbols or colours in a
straight line win.  Modules: ``engine`` (setup, status, legal moves, the move table),
``views`` (the public view), ``bot`` (the bot levels), ``wall`` (geometry, support,
lines).

Actions (all JSON objects):

* ``{"type": "place", "x": 3, "y": 0, "dir": "h", "orange": 0, "face": "xo"}`` -- while
  the supply lasts: a new brick with its left (``dir`` ``"h"``) or lower (``"v"``) cube
  at column ``x``, row ``y`` (row 0 = ground; ``x`` may be negative); ``orange`` 0 =
  the left/lower cube is orange, 1 = the right/upper cube is; ``face`` ``"xo"`` = the
  orange cube shows X and the blue one O, ``"ox"`` = orange O and blue X.
* ``{"type": "move", "brick": 7, "x": 4, "y": 2, "dir": "v", "orange": 1, "face": "ox"}``
  -- once the supply is empty: take brick 7 out and put it back at other cells.
* ``{"type": "resign"}`` (any time), ``{"type": "offer_draw"}`` (on your turn; you
  still place or move), ``{"type": "accept_draw"}`` (on your turn, when the opponent
  offers).
"""

from __future__ import annotations

from tablehub.server.games.base import Game
from tablehub.server.games.brix import howto
from tablehub.server.games.brix.bot import LEVELS, strong_action
from tablehub.server.games.brix.engine import (
    MOVES,
    OPTIONS,
    legal,
    legal_basis,
    legal_compact,
    legal_layered,
    setup,
    status,
)
from tablehub.server.games.brix.views import view

HELP = """\
Wall duel (争墙斗胜). Two players build one wall, seen from the side: column x (may be
negative), row y (0 = ground). A brick is two cubes, one orange and one blue; one shows X,
the other O. Seat 0 starts.

Goal (option mode): symbols -- seat 0 wins with four X in a straight line, seat 1 with four O;
colors -- seat 0 four orange, seat 1 four blue; symbols_vs_colors -- seat 0 four X or four
O, seat 1 four orange or four blue. Lines are horizontal, vertical or diagonal. If your turn
makes lines for both players, you win; if it makes only your opponent's, they win.

Placing (while the supply lasts, option bricks, default 36): the brick lies horizontal
(dir h: cells (x,y),(x+1,y)) or vertical (dir v: cells (x,y),(x,y+1)). Every cell must
stand on the ground or on an occupied cell (a vertical brick's top rests on its own bottom);
after the first brick (which lies within columns 0..7) it must share an edge with the wall
(a corner is not enough); the wall may be at most 8 columns wide.
  {"type":"place","x":3,"y":0,"dir":"h","orange":0,"face":"xo"}
orange: 0 = the left/lower cube is orange, 1 = the right/upper one. face: xo = the orange
cube shows X and the blue one O; ox = orange O, blue X.

Moving (once the supply is empty and nobody has won): take one brick out and put it back at
other cells, by the placing rules on the wall without it. You may not take the brick your
opponent placed or moved on their last turn.
  {"type":"move","brick":7,"x":4,"y":2,"dir":"v","orange":1,"face":"ox"}
[house] If taking the brick out leaves any cube hanging, the wall collapses: the move is
accepted and you lose at once (it never counts as a line). The list of legal moves holds
such moves too, after all the safe ones.

[house] Ending without a line: {"type":"resign"} at any time; {"type":"offer_draw"} on your
turn (you still place or move), then your opponent may {"type":"accept_draw"} on their turn
-- the offer lapses if they place or move instead. Option move_limit (default 0 = off) draws
the game after that many turns of the move phase.
"""

GAME = Game(
    id="brix",
    name="Wall duel",
    min_players=2,
    max_players=2,
    initial=setup,
    moves=MOVES,
    choices=legal,
    compact_choices=legal_compact,
    layered_choices=legal_layered,
    legal_basis=legal_basis,
    view=view,
    status=status,
    bot_action=strong_action,
    seat_count=lambda state: 2,
    resigned=lambda state, seat: False,
    bots=LEVELS,
    default_bot_level="strong",
    options=OPTIONS,
    help=HELP,
    howto=howto.SECTIONS,
    public_view=True,
)

__all__ = ["GAME"]
