"""Per-game text renderers for the CLI client.

Each module ``clients/cli/renderers/<game_id>.py`` exports:

* ``render(board: dict, seat: int | None) -> str`` -- the game's view (the ``board``
  part of a table view, exactly what ``server.games.<id>.GAME.view`` returns) as text
  for a terminal (ANSI colours allowed); ``seat`` is the viewer (None = spectator).
* ``describe_action(action: dict) -> str`` -- one short line for a legal action, used
  for the numbered suggestions.
* ``parse_action(text: str, board: dict, seat: int | None) -> dict`` -- a typed move
  (syntax in ``INPUT_HELP``) to an action dict; raises ``ValueError`` with a message
  a person can act on when the text cannot be read.
* ``INPUT_HELP: str`` -- the move syntax, shown on ``help``.

Renderers import nothing from ``server`` (a third-party client could ship them).
"""

from __future__ import annotations

import importlib
from types import ModuleType


def renderer_for(game_id: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"tablehub.clients.cli.renderers.{game_id}")
    except ModuleNotFoundError:
        return None
