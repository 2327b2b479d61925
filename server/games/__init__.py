"""The game registry: the only way the hub reaches a game (docs/design.md layers).

Adding a game = one package in this directory exporting ``GAME`` + one line in
``_MODULES`` (docs/contributing.md "Adding a game").  Everything else that needs the
list of games (tests, the load generator, the fuzzer, the clients' help) asks
:func:`all_games`, or the protocol's ``index.json`` where it may not import the server.
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
_registered: dict[str, Game] = {}
"""Games added at run time by :func:`register`, after the built-in ones."""


def get_game(game_id: str) -> Game | None:
    """The registered game with this id, or None."""
    if game_id in _registered:
        return _registered[game_id]
    if game_id not in _MODULES:
        return None
    if game_id not in _loaded:
        _loaded[game_id] = importlib.import_module(_MODULES[game_id]).GAME
    return _loaded[game_id]


def all_games() -> list[Game]:
    """Every game: the built-in ones in ``_MODULES`` order, then the registered ones."""
    built_in = [game for game_id in _MODULES if (game := get_game(game_id)) is not None]
    return [*built_in, *_registered.values()]


def register(game: Game) -> None:
    """Add ``game`` in this process (tests, plugins): from now on :func:`get_game` and
    :func:`all_games` give it like a built-in game, so a hub started in this process
    offers it.  Its schemas are not added to the protocol: the hub then leaves its
    actions to the engine alone.  Raises ``ValueError`` for an id already taken."""
    if game.id in _MODULES or game.id in _registered:
        raise ValueError(f"a game with id {game.id!r} is already registered")
    _registered[game.id] = game


def unregister(game_id: str) -> None:
    """Remove a game added by :func:`register` (a test's throwaway game); built-in games
    stay.  Raises ``KeyError`` when no game of that id was registered."""
    del _registered[game_id]
