"""Termite Towers: tablehub's edition of the card data (docs/games/termite.md, all **[house]**).

The seed gives the flow of the game but not the card contents; everything here is
plain data so the edition can be revised without touching the rules modules.
"""

from __future__ import annotations

# --- Wood -------------------------------------------------------------------------------

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "purple", "white")
"""One wood colour per main stake: D1 is red, ..., D6 is white."""

MAIN_STAKE_CUBES = 6
"""Cubes of its colour on each main stake at the start."""

STAKE_CARD_CUBES: tuple[int, ...] = (1, 1, 2, 2, 3)
"""The 5 stake cards of each colour show this many cubes of their colour (30 cards)."""

STAKE_CARD_NODES: tuple[str, ...] = ("1a", "1b", "2a", "2b", "2c")
"""Face-down cards under a main stake: row 1 two cards, row 2 three (a pyramid)."""

TUNNEL_EDGES: tuple[tuple[str, str], ...] = (
    ("S", "1a"),
    ("S", "1b"),
    ("1a", "2a"),
    ("1a", "2b"),
    ("1b", "2b"),
    ("1b", "2c"),
)
"""Tunnel edges of one area; ``S`` is the main stake."""

EDGE_NAMES: tuple[str, ...] = tuple(f"{a}-{b}" for a, b in TUNNEL_EDGES)

# --- Players ----------------------------------------------------------------------------

TUNNELS_PER_PLAYER = 12
ROOMS_START = 6
ROOMS_MAX = 8
ROOM_CUBES = 4
"""A room holds at most this many cubes, or one egg."""
ROOM_DICE = 3
"""[house] A room holds at most 3 dice, all showing the same value."""
WALL_WIDTH = 6
WALL_HEIGHT = 7
START_WORKERS = 6
START_SOLDIERS = 1
SUPPLY_WORKERS = 10
SUPPLY_SOLDIERS = 3
"""A player's supply (the seed: the dice not taken at the start form the supply) holds
10 workers and 3 soldiers of the player's colour, beside the 6 + 1 start dice."""
MAX_WORKERS = START_WORKERS + SUPPLY_WORKERS
MAX_SOLDIERS = START_SOLDIERS + SUPPLY_SOLDIERS
EGGS = 16
FACE_UP_BLUEPRINTS = 4

# --- Blueprints -------------------------------------------------------------------------

SHAPES: dict[str, tuple[tuple[int, int], ...]] = {
    # (x, y) cells, y grows upwards; rotations are computed, never mirrored.
    "O": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "I": ((0, 0), (1, 0), (2, 0), (3, 0)),
    "L": ((0, 0), (1, 0), (2, 0), (2, 1)),
    "J": ((0, 0), (1, 0), (2, 0), (0, 1)),
    "T": ((0, 0), (1, 0), (2, 0), (1, 1)),
    "S": ((0, 0), (1, 0), (1, 1), (2, 1)),
    "Z": ((1, 0), (2, 0), (0, 1), (1, 1)),
}

SHAPE_POINTS: dict[str, int] = {"O": 2, "I": 3, "L": 3, "J": 3, "T": 4, "S": 5, "Z": 5}

BLUEPRINTS: tuple[str, ...] = tuple(f"{c}-{s}" for c in COLOURS for s in SHAPES)
"""42 blueprint ids ``"<colour>-<shape>"``: every tetromino in every colour."""


def blueprint_colour(card: str) -> str:
    return card.split("-", 1)[0]


def blueprint_shape(card: str) -> str:
    return card.split("-", 1)[1]


def blueprint_points(card: str) -> int:
    return SHAPE_POINTS[blueprint_shape(card)]


# --- Queen cards ------------------------------------------------------------------------

QUEEN_CARDS: dict[str, str] = {
    "royal_jelly": "set one of your unplaced dice to any value",
    "swarm": "reroll any of your unplaced dice",
    "mandibles": "take 1 cube from any main stake into a room",
    "nursery": "put an egg into an empty room",
    "architect": "take a blueprint (face up or the deck's top)",
}
QUEEN_START_EACH = 2
"""The start deck: 2 of each queen card (10 cards)."""
QUEEN_EXTRA_EACH = 4
"""The extra pile: 4 of each (20 cards), of which some are added by player count."""
QUEEN_EXTRA_BY_PLAYERS: dict[int, int] = {1: 0, 2: 5, 3: 10, 4: 20}

# --- Goal cards ---------------------------------------------------------------------------

GOALS: dict[str, str] = {
    "rows": "most completed wall rows",
    "dice": "most dice",
    "blueprints": "most completed blueprints",
    "wall_cubes": "most cubes in the wall",
    "tunnels": "most tunnels",
    "hatched": "most dice hatched",
    "queens": "most queen cards kept",
    "colours": "most colours in the wall",
}
GOAL_SOLO_THRESHOLD: dict[str, int] = {
    "rows": 4,
    "dice": 9,
    "blueprints": 4,
    "wall_cubes": 24,
    "tunnels": 6,
    "hatched": 3,
    "queens": 2,
    "colours": 5,
}
GOAL_POINTS = 2

# --- Bonus spaces -----------------------------------------------------------------------

BONUS_SPACES: dict[str, str] = {
    "worker": "+1 worker die",
    "soldier": "+1 soldier die",
    "room": "+1 room (at most 8)",
    "blueprint": "a blueprint",
    "queen": "a queen card",
    "egg": "an egg into an empty room",
    "cubes": "2 cubes of one colour from a main stake or a stake card you reach",
    "points": "+2 points",
}
BONUS_POINTS = 2

# --- Action cards -----------------------------------------------------------------------

SINGLE_SLOT_CARDS: tuple[str, ...] = ("A", "C", "E", "G")
"""Cards with one slot per die value, one die each."""
NEUTRAL_CARDS: tuple[str, ...] = ("A", "C", "D", "E", "G")
"""Each neutral set puts one die on each of these (2-3 players)."""
NEUTRAL_SETS: dict[int, int] = {1: 3, 2: 2, 3: 1, 4: 0}
"""Neutral sets by player count: one per empty seat of a 4-player table (the seed: one
set with 3 players, twice that with 2, and the set-up applies to 1-3 players)."""
ROWS_TO_END_CHOICES: tuple[int, ...] = (5, 7)
