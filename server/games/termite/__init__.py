"""Termite Towers (白蟻之塔): rules in docs/games/termite.md.

Modules: ``engine`` (status, legal actions, the move table), ``views``, ``bot`` (levels
easy and strong), ``howto`` (how to play, for players), and the domain modules ``data``
(the edition's cards, all [house]), ``board`` (shared queries), ``setup`` (setup, round
start), ``day`` (dice placement, helper, bumping, queen cards), ``night`` (the night's
task queue), ``gather`` (A, B, C, D, G, row bonus), ``build`` (E, F, the Tetris wall),
``scoring`` (end, goals, tie-breaks), ``stages`` (staged ``legal``).

Actions:

* ``{"type": "place_die", "die": 3, "slot": "A4"}`` -- die index into your dice list.
  Slots: ``A1``-``A6``, ``C1``-``C6``, ``E1``-``E6``, ``G1``-``G6`` (one die of that
  value), ``D1t``-``D6t`` / ``D1c``-``D6c`` (tunnel / collect slot of D1-D6, dice
  showing that value), ``R0``-``R7`` (your rooms).  Helper: add ``"helper": 5`` (that die
  sits out) and the die takes the slot's value; for a room add ``"value": 1-6``.
* ``{"type": "play_queen", "card": "royal_jelly", "die": 2, "value": 6}``;
  ``"swarm", "dice": [0, 2]``; ``"mandibles", "stake": 3, "room": 1``;
  ``"nursery", "room": 4``; ``"architect", "blueprint": "red-T" | "deck"``.
* ``{"type": "choose", ...}`` answers the night's pending choice (``view.pending``):
  blueprint ``{"blueprint": "red-T" | "deck"}``; egg ``{"room": 2}``; tunnel
  ``{"edge": "S-1a"}``; cube ``{"source": "D3" | "D3/1a", "room": 1}``; trade
  ``{"pay": "cubes", "cubes": [[0, "red"], [2, "blue"]]}`` / ``{"pay": "egg", "room": 1}``
  / ``{"pay": "queen", "card": "swarm"}`` / ``{"pay": "blueprint", "card": "red-T"}``;
  trade_take ``{"source": "D1/1a", "column": 4}``; move ``{"rooms": [1, 3], "cubes":
  [<colours room 1 holds afterwards, sorted>]}``; build ``{"room": 1, "blueprint":
  "red-T", "rotation": 0, "column": 2}``; bonus ``{"space": "points"}``.  A wall piece
  (trade_take, build) may add ``"row": 3`` to rest there instead of dropping straight
  down in its column.
* ``{"type": "pass"}`` declines an optional choice (trade, move, build).
* ``{"type": "resign"}``.
"""

from __future__ import annotations

from tablehub.server.games.base import Game
from tablehub.server.games.options import Option
from tablehub.server.games.termite import bot, data, engine, howto, setup, stages, views

HELP = """Termite Towers (1-4 players). Each round: everyone rolls; in turn each places
one die on an action card (A blueprint, B hatch in an egg room, C lay an egg, D dig a
tunnel / collect cubes, E trade to build, F move cubes / build in a room, G queen card).
A soldier may bump a worker from A/C/E/G and counts 2 collecting on D. A helper lets another
die take any value. At night actions resolve A to G, die value 1 to 6.

Moves: place_die {die, slot[, helper[, value]]}; slots A1-A6 C1-C6 E1-E6 G1-G6,
D<v>t (tunnel), D<v>c (collect), R<n> (your room n). play_queen {card, ...}.
At night answer the pending choice with choose {...} or pass (trade, move, build).

Edition [house]: 6 colours (D1 red, D2 yellow, D3 green, D4 blue, D5 purple, D6 white);
stake cards 1,1,2,2,3 cubes per colour, 5 face down under each main stake; 42 blueprints
(O2 I3 L3 J3 T4 S5 Z5 points; a card's colour is only its label: any card builds from a
room of 4 cubes of any one colour, the piece taking that colour); queen cards royal_jelly,
swarm, mandibles, nursery, architect; goal cards +2 when at least as good as the
neighbour (solo: a threshold); bonus spaces worker, soldier, room, blueprint, queen,
egg, cubes, points (+2); a reward the supply cannot give is lost.
House rulings: your supply holds 10 workers and 3 soldiers beside your start dice.
Only collect-slot dice count for a main stake's majority (a soldier 2); tunnel-slot
dice dig, one tunnel each (a soldier too); each neutral colour is its own rival; a tie
for most gives each tied player 1 cube and nobody is second. Players may share a tunnel
edge. Collected cubes come from that main stake or a stake card your tunnels reach; the
traded (E) cube from any face-up stake card with cubes, tunnels or not. A main stake is
stocked once (6 cubes) and never refilled from the cube supply; cubes paid in a trade go
back to their colour's main stake. Rooms hold up
to 3 dice of one value; an empty room has no egg, cubes or dice. Any number of queen
cards on your turn before your die; a soldier may bump any worker, even your own; a
bumped die is placed again at once, without a helper. Two rooms move cubes once per die
value. A wall piece goes anywhere it rests on the bottom or on a cube (add "row" to
choose; without it, it drops straight down). Neutral dice cannot be bumped; solo games
have 3 neutral sets. A resigned player is out (the game ends when one player is left).
Option rows_to_end: 5 or 7 completed rows end the game (or an empty queen deck)."""

GAME = Game(
    id="termite",
    name="Termite Towers",
    min_players=1,
    max_players=4,
    initial=setup.setup,
    moves=engine.MOVES,
    choices=engine.legal,
    view=views.view,
    reveal=views.reveal,
    status=engine.status,
    bot_action=bot.bot_action,
    bots=bot.LEVELS,
    # The deadline falls back on the strong level: it is fast (no full legal list), so
    # it thinks on the event loop, as the game's only bot did before it had levels.
    fast_bot_level="strong",
    seat_count=lambda state: int(state["seats"]),
    resigned=lambda state, seat: bool(state["players"][seat]["resigned"]),
    stepper=stages.step,
    options={
        "rows_to_end": Option(
            type="integer",
            default=5,
            description="completed wall rows that end the game (5 or 7)",
            choices=data.ROWS_TO_END_CHOICES,
        ),
    },
    help=HELP,
    howto=howto.SECTIONS,
    public_view=False,
    counts_rounds=True,
)
