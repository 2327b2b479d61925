"""Number row, how to play: the rules for players, in plain words (list_games
``howto``: the browser's "How to play" panel and the terminal's ``help``)."""

from __future__ import annotations

from tablehub.server.games.base import HowTo

SECTIONS: tuple[HowTo, ...] = (
    HowTo(
        "The aim",
        (
            "Make your row of 22 tiles read in rising order, all face up. At the start everyone "
            "slips 5 face-up tiles into a row of 17 face-down ones, anywhere the face-up numbers "
            "still rise.",
        ),
    ),
    HowTo(
        "A turn",
        (
            "On your turn take a tile — a random face-down one from the pool, or a face-up one "
            "lying there. If it fits in your row (the face-up numbers still rise), it replaces "
            "one of your face-down tiles, which goes face down into the pool; if it fits nowhere,"
            " it goes face up into the pool. Instead of taking a tile you may move one of your "
            "face-down tiles elsewhere in your row.",
            "Some tiles read two ways (6 and 9, for instance); you choose.",
        ),
    ),
    HowTo(
        "The end of a round",
        (
            "The first player with every tile face up ends the round; each face-down tile left "
            "costs a point.",
        ),
    ),
)
