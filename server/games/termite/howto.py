"""Termite Towers, how to play: the rules for players, in plain words.

One source for the browser's "How to play" panel and the terminal's ``help`` (both
read it from ``list_games``) and for the section "How to play" of docs/games/termite.md.
Every number comes from ``data`` -- the same values the engine plays by -- and
tests/server/games/termite/test_howto.py checks the sentences against a real set-up
and against the doc.
"""

from __future__ import annotations

from tablehub.server.games.base import HowTo
from tablehub.server.games.termite import data


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def queen_deck_size(players: int) -> int:
    """The queen deck at set-up: the start cards plus the extra cards for this many players."""
    start = data.QUEEN_START_EACH * len(data.QUEEN_CARDS)
    return start + data.QUEEN_EXTRA_BY_PLAYERS[players]


def _stakes() -> str:
    stakes = [f"D{area} {colour}" for area, colour in enumerate(data.COLOURS, start=1)]
    cards = len(data.STAKE_CARD_CUBES) * len(data.COLOURS)
    shown = _listed([str(n) for n in data.STAKE_CARD_CUBES])
    first_row = sum(1 for node in data.STAKE_CARD_NODES if node.startswith("1"))
    second_row = len(data.STAKE_CARD_NODES) - first_row
    return (
        f"The wood comes in {len(data.COLOURS)} colours, one for each stake: "
        f"{', '.join(stakes)}. Each stake starts "
        f"with {data.MAIN_STAKE_CUBES} cubes of its colour, and {len(data.STAKE_CARD_NODES)} "
        f"stake cards lie face down under it ({first_row} in the first row, {second_row} in "
        f"the second). The {cards} stake cards show {shown} cubes of each colour. That is "
        f"all the wood there is: nothing refills the stakes but cubes paid in trades, and a "
        f"cube built into a wall never comes back."
    )


def _players() -> str:
    return (
        f"Each player starts with {data.START_WORKERS} worker dice and "
        f"{data.START_SOLDIERS} soldier die; {data.SUPPLY_WORKERS} more workers and "
        f"{data.SUPPLY_SOLDIERS} more soldiers wait in their supply for eggs to hatch. "
        f"You also have {data.ROOMS_START} rooms (up to {data.ROOMS_MAX} with bonuses), each "
        f"holding up to {data.ROOM_CUBES} cubes or one egg, {data.TUNNELS_PER_PLAYER} "
        f"tunnels to dig, and a wall {data.WALL_WIDTH} squares wide and {data.WALL_HEIGHT} "
        f"high."
    )


def _cards() -> str:
    decks = _listed(
        [
            f"{queen_deck_size(players)} cards with {players} player{'s' if players > 1 else ''}"
            for players in sorted(data.QUEEN_EXTRA_BY_PLAYERS)
        ]
    )
    return (
        f"Of the {len(data.BLUEPRINTS)} blueprint cards, {data.FACE_UP_BLUEPRINTS} lie "
        f"face up; the rest are the blueprint deck. The queen deck holds {decks}. "
        f"The egg supply holds {data.EGGS} eggs. A goal card lies between each two "
        f"neighbours (2 goal cards in a game of 1 or 2 players)."
    )


def _neutral() -> str:
    sets = _listed(
        [
            f"{data.NEUTRAL_SETS[players]} set{'s' if data.NEUTRAL_SETS[players] > 1 else ''} "
            f"with {players} player{'s' if players > 1 else ''}"
            for players in sorted(data.NEUTRAL_SETS)
            if data.NEUTRAL_SETS[players]
        ]
    )
    cards = len(data.NEUTRAL_CARDS)
    return (
        f"With fewer than four players, neutral grey dice stand in for the empty seats: "
        f"sets of {cards} dice ({sets}), rolled each round onto cards A, C, E, "
        f"G and the collect spaces of the stakes. They block spaces and compete for cubes "
        f"but never collect any, and nobody can push them off."
    )


def _queens() -> str:
    cards = "; ".join(
        f"{name.replace('_', ' ')}: {what}" for name, what in data.QUEEN_CARDS.items()
    )
    return (
        "Queen cards: on your own turn, before you place your die, you may play any number "
        f"of them, each once. {cards[0].upper()}{cards[1:]}."
    )


def _night_cards() -> list[str]:
    per_room = data.ROOM_CUBES
    return [
        "A: take a blueprint card, one of the face-up ones or the top of the deck.",
        "B (your rooms with an egg): an egg with 2 dice of one value hatches a new worker "
        "die from your supply, with 3 dice a soldier; the egg goes back to the supply.",
        "C: lay an egg from the supply in one of your empty rooms (no egg, no cubes, no dice).",
        "D (the stakes): first every tunnel space: each die digs one tunnel, a step from the "
        "stake or from your own tunnels towards the stake cards; a tunnel that reaches a "
        "face-down card turns it up and puts its cubes on it. Then every collect space: the "
        "player with the most dice there takes 2 cubes, the second 1 cube (a soldier "
        "counts as 2 dice; a tie for most gives each tied player 1 cube and nobody is "
        "second). You take the cubes from that stake or from any face-up stake card your "
        "tunnels reach, into your rooms.",
        "E: trade: pay 2 cubes from your rooms (they go back to their stakes), an egg, a "
        "queen card or a blueprint card, and take 1 cube of any colour from any face-up "
        "stake card straight into your wall.",
        "F (your rooms without an egg): 2 rooms holding dice of the same value may move "
        f"cubes between them (at most {per_room} in a room). A room with 2 dice of one "
        f"value and {per_room} cubes of one colour builds one of your blueprints: the cubes "
        "go into your wall in the card's shape, in their colour. Any blueprint builds with "
        "any colour.",
        "G: draw a queen card.",
    ]


def _bonuses() -> str:
    spaces = _listed(list(data.BONUS_SPACES.values()))
    return (
        f"Each time a wall row of {data.WALL_WIDTH} squares is complete, put a marker on a "
        f"free bonus space and take its reward: {spaces}. A reward your supply cannot give "
        "is lost."
    )


def _points() -> str:
    shapes = ", ".join(f"{shape} {points}" for shape, points in data.SHAPE_POINTS.items())
    return (
        f"Each blueprint you built scores by its shape: {shapes}. The bonus space of points "
        f"gives {data.BONUS_POINTS} more."
    )


def _goals() -> str:
    goals = _listed(list(data.GOALS.values()))
    solo = ", ".join(
        f"{data.GOALS[goal].removeprefix('most ')} {threshold}"
        for goal, threshold in data.GOAL_SOLO_THRESHOLD.items()
    )
    return (
        f"Each goal card gives {data.GOAL_POINTS} points to each of its two neighbours who "
        f"does at least as well as the other at it: {goals}. Playing alone, you score a "
        f"goal card by reaching its number: {solo}."
    )


def _ending() -> str:
    rows = " or ".join(str(n) for n in data.ROWS_TO_END_CHOICES)
    return (
        f"The table chooses before the game whether {rows} completed wall rows end it. The "
        "game ends at the end of the round in which a player's wall reaches that many "
        "completed rows, or in which the queen deck runs out."
    )


SECTIONS: tuple[HowTo, ...] = (
    HowTo(
        "The aim",
        (
            "You are a termite colony building a tower. Gather cubes of wood into your "
            "rooms, then build them into your wall in the shapes of your blueprint cards. "
            "Built blueprints, goal cards and bonus spaces score points; the most points "
            "wins.",
        ),
    ),
    HowTo("Set-up", (_stakes(), _players(), _cards(), _neutral())),
    HowTo(
        "A day",
        (
            "Everyone rolls all their dice. Starting with the start player and going round "
            "the table, each player puts one die at a time on a free space, until all dice "
            "are placed.",
            "Cards A, C, E and G have one space for each value from 1 to 6, each holding one "
            "die showing that value. Each stake has a tunnel space and a collect space, each "
            "holding any number of dice showing the stake's number. Your own rooms take dice "
            f"too: up to {data.ROOM_DICE} dice in a room, all showing one value. Cards B "
            "and F are your rooms: a room with an egg hatches, a room without one moves "
            "cubes or builds.",
            "A helper die: before you place a die, you may set one of your other unplaced "
            "dice aside as its helper. The helper does nothing this round, and the die you "
            "place counts as any value you like: the value of the space you put it on, or "
            "the value you choose for a room.",
            "A soldier may push a worker (anyone's, even your own) off a space on A, C, E or "
            "G; that worker's owner places it again at once, without a helper. Soldiers "
            "cannot be pushed off. On a collect space a soldier counts as 2 dice.",
            _queens(),
            "When a die would do nothing tonight as the table stands, the space says so "
            "before you place the die: placing it there is allowed, but it is wasted.",
        ),
    ),
    HowTo(
        "The night",
        (
            "The actions happen card by card from A to G, and on each card from value 1 to "
            "6; when several players act at the same point, the start player goes first.",
            *_night_cards(),
            "A piece in the wall may be turned but not flipped, and at least one of its "
            "squares must rest on the bottom row or on a cube just below it.",
            _bonuses(),
            "Then the dice come back, and the next player round the table becomes the "
            "start player.",
        ),
    ),
    HowTo("Scoring", (_points(), _goals())),
    HowTo(
        "How it ends",
        (
            _ending(),
            "The most points wins. A tie goes to more completed wall rows, then more cubes "
            "in the wall, then fewer dice.",
        ),
    ),
)
