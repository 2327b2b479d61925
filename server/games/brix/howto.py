"""Wall duel, how to play: the rules for players, in plain words (list_games
``howto``: the browser's "How to play" panel and the terminal's ``help``)."""

from __future__ import annotations

from tablehub.server.games.base import HowTo

SECTIONS: tuple[HowTo, ...] = (
    HowTo(
        "The wall",
        (
            "Two players build one wall, seen from the side. A brick is two cubes, one orange and"
            " one blue; one shows X, the other O. You choose how it lies (flat or standing), "
            "which end is orange and which symbols show.",
        ),
    ),
    HowTo(
        "A turn",
        (
            "A brick must rest on the ground or on bricks below, touch the wall after the first "
            "brick, and the wall may never be more than 8 cells wide. When the supply runs out, a"
            " turn is: take a brick out of the wall and put it back somewhere else — not the one "
            "your opponent just moved, and if the wall falls, you lose.",
        ),
    ),
    HowTo(
        "Winning",
        (
            "Four in a straight line (across, up or diagonal) of your target wins: X against O, "
            "orange against blue, or symbols against colours, as the table was set up. If your "
            "turn makes lines for both players, you win. You may offer a draw or resign at any "
            "time.",
        ),
    ),
)
