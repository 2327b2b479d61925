"""The game registry: the only way the hub reaches a game (docs/design.md layers).

Adding a game = one module in this package exporting ``GAME`` + one line here.
"""

from __future__ import annotations

import importlib

from tablehub.server.games.base import Game

_MODULES = {
    "nmbr9": "tablehub.server.games.nmbr9",
    "brix": "tablehub.server.games.brix",
    "completto": "tablehub.server.games.completto",
    "termite": "tablehub.server.games.termite",
}

_loaded: dict[str, Game] = {}


def get_game(game_id: str) -> Game | None:
    """The registered game with this id, or None."""
    if game_id not in _MODULES:
        return None
    if game_id not in _loaded:
        _loaded[game_id] = importlib.import_module(_MODULES[game_id]).GAME
    return _loaded[game_id]


def all_games() -> list[Game]:
    return [game for game_id in _MODULES if (game := get_game(game_id)) is not None]
