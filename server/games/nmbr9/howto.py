"""9-tower, how to play: the rules for players, in plain words (list_games
``howto``: the browser's "How to play" panel and the terminal's ``help``)."""

from __future__ import annotations

from tablehub.server.games.base import HowTo

SECTIONS: tuple[HowTo, ...] = (
    HowTo(
        "The aim",
        (
            "Build the highest-scoring layout of number tiles. Twenty rounds. Each round a card "
            "shows a digit from 0 to 9, and every player places a tile of that shape in their own"
            " layout at the same time. The deck holds two cards of each digit; the tracker shows "
            "which are still to come.",
        ),
    ),
    HowTo(
        "Placing a tile",
        (
            "A tile lies on the table (level 0) or on top of other tiles. On the table it must "
            "touch your tiles along an edge. On a higher level every square must rest on tiles "
            "below — no overhang, no gaps — and it must lie across at least two different tiles. "
            "A tile on a level that already has tiles must touch one of them along an edge.",
            "Tiles can be turned in quarter steps but never flipped.",
        ),
    ),
    HowTo(
        "Scoring",
        (
            "Each tile scores its digit times its level, so a 9 on level 2 is worth 18 and "
            "anything on the table is worth 0. Highest total after twenty rounds wins.",
        ),
    ),
)
