"""A game's text face: its renderer (``clients/cli/renderers/<game>.py``) or a fallback.

Renderers are written per game (contract in ``renderers/__init__.py``).  This wrapper
never lets a missing or failing renderer stop the client: a game without one, or a
renderer that raises, is shown as indented JSON and moves are typed as JSON objects.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from tablehub.clients.cli.renderers import renderer_for

GENERIC_HELP = """\
This game has no text renderer yet: type a move as a JSON object, e.g.
  {"type": "resign"}
(the numbered suggestions show the exact actions the server accepts)."""

_MAX_JSON_LINES = 80


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def generic_render(board: Any) -> str:
    """Any board as indented JSON, cut after ``_MAX_JSON_LINES`` lines."""
    lines = json.dumps(board, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
    if len(lines) > _MAX_JSON_LINES:
        hidden = len(lines) - _MAX_JSON_LINES
        lines = [*lines[:_MAX_JSON_LINES], f"… ({hidden} more lines)"]
    return "\n".join(lines)


def parse_json_action(text: str) -> dict[str, Any]:
    """A move typed as a JSON object; ``ValueError`` with a readable reason otherwise."""
    try:
        value = json.loads(text)
    except ValueError:
        raise ValueError(f"not a move: {text!r} (type a JSON object such as {{...}})") from None
    if not isinstance(value, dict):
        raise ValueError(f"a move is a JSON object, not {text!r}")
    return value


class GameText:
    """Render boards, describe and parse actions for one game id."""

    def __init__(self, game_id: str, use_renderer: bool = True) -> None:
        self.game_id = game_id
        self.module: ModuleType | None = None
        if use_renderer:
            try:
                self.module = renderer_for(game_id)
            except Exception:  # a renderer that does not even import: fall back
                self.module = None

    @property
    def help(self) -> str:
        text = getattr(self.module, "INPUT_HELP", None)
        return text if isinstance(text, str) else GENERIC_HELP

    def render(self, board: Any, seat: int | None) -> str:
        if self.module is not None:
            try:
                return str(self.module.render(board, seat))
            except Exception as err:
                return f"(the {self.game_id} renderer failed: {err!r})\n{generic_render(board)}"
        return generic_render(board)

    def describe(self, action: dict[str, Any]) -> str:
        if self.module is not None:
            try:
                return str(self.module.describe_action(action))
            except Exception:
                pass
        return compact_json(action)

    def parse(self, text: str, board: Any, seat: int | None) -> dict[str, Any]:
        """A typed move as an action: JSON objects always work, else the game's syntax."""
        text = text.strip()
        if text.startswith("{"):
            return parse_json_action(text)
        if self.module is None:
            return parse_json_action(text)
        action = self.module.parse_action(text, board, seat)  # ValueError = unreadable
        if not isinstance(action, dict):
            raise ValueError(f"could not read {text!r} as a move")
        return action
