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

Optional (``gametext.GameText`` falls back when one is missing or raises):

* ``render_compact(board, seat) -> str`` -- for a small window (80x24): the current
  card or choice and the viewer's own board first, the other seats condensed.  It may
  also take ``fit`` (columns, rows: the room it has) and ``aim`` (a choice's number and
  action, to draw where it goes).
* ``arrange_choices(legal, board, seat) -> (actions, labels, summary)`` -- a long list
  best first, each action in words, and one line summing the list up (9-tower).
* ``aim_at(text, board, seat) -> (words, keeps) | None`` -- a typed aim (9-tower's
  ``at X Y``): its words and a test of which actions it keeps.
* ``describe_news(old, new, events) -> [(seat | None, phrase)]`` -- what each seat
  did between two boards, as past-tense phrases ("placed the 7 at (2,-1)"), None for
  the table ("round 8: the card is 4").
* ``choice_steps(action, board, seat) -> [(key | None, label)]`` -- the action as a path of
  decisions, so thousands of actions become a few choices (termite: die, slot,
  helper); ``key`` is what the player types for it (None: its number in the list).
* ``stage_option(field, value, partial, board, seat) -> (key | None, label)`` -- a
  choice of a turn asked step by step (``staged(board)`` says which turns are), in words;
  ``stage_rank(field, value, partial, board, seat) -> int`` -- where it comes in its
  list, lowest first (termite: a place where the die would do nothing tonight last).
* ``describe_reason(reason) -> str`` -- a result reason in words.
* ``rank_key(board, seat, score) -> tuple`` -- the final ranking with tie-breaks.

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
