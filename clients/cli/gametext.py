"""A game's text face: its renderer (``clients/cli/renderers/<game>.py``) or a fallback.

Renderers are written per game (contract in ``renderers/__init__.py``).  This wrapper
never lets a missing or failing renderer stop the client: a game without one, or a
renderer that raises, is shown as indented JSON and moves are typed as JSON objects.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from tablehub.clients.cli.renderers import renderer_for

News = list[tuple[int | None, str]]
"""What happened: (the seat that did it, or None for the table; a past-tense phrase)."""
Steps = list[tuple[str | None, str]]
"""An action as a path of decisions: (what to type for it, or None = its number; label)."""


@dataclass
class Arranged:
    """A game's order for the legal actions: best first, each labelled, summed up."""

    actions: list[dict[str, Any]]
    labels: list[str]
    summary: str


@dataclass
class Aim:
    """Choices narrowed by what the player typed (9-tower's ``at X Y``)."""

    words: str
    keeps: Callable[[dict[str, Any]], bool]


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

    def render_compact(
        self,
        board: Any,
        seat: int | None,
        fit: tuple[int, int] | None = None,
        aim: tuple[str, dict[str, Any]] | None = None,
    ) -> str:
        """The viewer's part first (card or choice, own board), the others condensed;
        ``fit`` (columns, rows) and ``aim`` (a choice's name and action, to show where
        it goes) are passed to a hook that takes them."""
        hook = getattr(self.module, "render_compact", None)
        if hook is not None:
            try:
                extra: dict[str, Any] = {}
                takes = inspect.signature(hook).parameters
                if "fit" in takes:
                    extra["fit"] = fit
                if "aim" in takes:
                    extra["aim"] = aim
                return str(hook(board, seat, **extra))
            except Exception:  # the full render (or its own fallback) still shows the table
                pass
        return self.render(board, seat)

    def arrange(self, legal: list[dict[str, Any]], board: Any, seat: int | None) -> Arranged | None:
        """The game's order for a long list of choices (best first), their labels and
        a line that sums them up; None: the list as the server gave it."""
        hook = getattr(self.module, "arrange_choices", None)
        if hook is None or not legal:
            return None
        try:
            actions, labels, summary = hook(legal, board, seat)
        except Exception:  # the server's order still offers every action
            return None
        return Arranged(list(actions), [str(label) for label in labels], str(summary))

    def aim(self, text: str, board: Any, seat: int | None) -> Aim | None:
        """A typed aim (9-tower: ``at X Y``): its words and which actions it keeps."""
        hook = getattr(self.module, "aim_at", None)
        if hook is None:
            return None
        try:
            found = hook(text, board, seat)
        except Exception:  # not an aim: read as a move
            return None
        return None if found is None else Aim(str(found[0]), found[1])

    def news(self, old: Any, new: Any, events: list[dict[str, Any]]) -> News:
        """What each seat did between two boards (with the game events in between)."""
        hook = getattr(self.module, "describe_news", None)
        if hook is not None:
            try:
                return list(hook(old, new, events))
            except Exception:  # fall back to the events' own words
                pass
        return [
            (e["seat"], str(e["type"]).replace("_", " "))
            for e in events
            if isinstance(e.get("seat"), int) and isinstance(e.get("type"), str)
        ]

    def steps(self, action: dict[str, Any], board: Any, seat: int | None) -> Steps:
        """The decisions that lead to ``action`` (one, its description, unless the game
        groups its actions, e.g. termite: die, then slot, then helper)."""
        hook = getattr(self.module, "choice_steps", None)
        if hook is not None:
            try:
                return list(hook(action, board, seat))
            except Exception:  # one flat decision still lists every action
                pass
        return [(None, self.describe(action))]

    def staged(self, board: Any) -> bool:
        """Whether this turn is asked step by step from the server (staged ``legal``)
        rather than grouped from the full list: the game's ``staged`` hook says."""
        hook = getattr(self.module, "staged", None)
        return hook is not None and bool(hook(board))

    def stage_option(
        self, field: str, value: Any, partial: dict[str, Any], board: Any, seat: int | None
    ) -> tuple[str | None, str]:
        """A staged choice in words, with the key typed to pick it (None: its place in
        the list)."""
        hook = getattr(self.module, "stage_option", None)
        if hook is not None:
            return hook(field, value, partial, board, seat)  # type: ignore[no-any-return]
        return (None, f"{field.replace('_', ' ')} {value}")

    def stage_rank(
        self, field: str, value: Any, partial: dict[str, Any], board: Any, seat: int | None
    ) -> int:
        """Where a staged choice comes in its list, lowest first (0 without the game's
        ``stage_rank`` hook: the server's order)."""
        hook = getattr(self.module, "stage_rank", None)
        if hook is not None:
            try:
                return int(hook(field, value, partial, board, seat))
            except Exception:  # the server's order still offers every choice
                pass
        return 0

    def reason(self, reason: str) -> str:
        """A result's reason in words."""
        hook = getattr(self.module, "describe_reason", None)
        if hook is not None:
            try:
                return str(hook(reason))
            except Exception:  # the reason as sent, made readable below
                pass
        return reason.replace("_", " ")

    def rank_key(self, board: Any, seat: int, score: int) -> tuple[int, ...]:
        """Final ranking key, higher is better: the score, then the game's tie-breaks."""
        hook = getattr(self.module, "rank_key", None)
        if hook is not None:
            try:
                return tuple(hook(board, seat, score))
            except Exception:  # the score alone still ranks
                pass
        return (score,)

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
