"""The legal actions as a few decisions: the one place the terminal groups them.

``legal`` lists complete actions (termite offers thousands).  Each game labels an
action as a path of steps (``GameText.steps``: termite says die, then slot, then
helper); :class:`Choices` groups the actions by those labels, one level at a time,
so a turn is a few short lists.  A level with a single option is taken at once, and
the action is played once only one is left.  Games without steps are one flat list,
as before.  Turns the server answers step by step (termite's day) are asked by
:class:`~tablehub.clients.cli.staged.StagedChoices` instead, one request a decision.

Options are typed by their key: the number the game gave them (termite rooms are
typed by their room number) when every option of the level has one, else their
position in the list, from 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablehub.clients.cli.gametext import Steps


@dataclass
class Option:
    key: str
    """What the player types to pick it."""
    label: str
    actions: list[dict[str, Any]]


class Choices:
    def __init__(
        self,
        legal: list[dict[str, Any]],
        steps: Callable[[dict[str, Any]], Steps],
        summary: str | None = None,
    ) -> None:
        self.legal = legal
        self.summary = summary
        """The game's words for the whole list (9-tower: how many places, by level)."""
        self._paths = [steps(action) for action in legal]
        self.path: list[str] = []
        """Labels chosen so far."""

    def _remaining(self) -> list[int]:
        depth = len(self.path)
        return [
            i
            for i, steps in enumerate(self._paths)
            if [label for _, label in steps[:depth]] == self.path
        ]

    def _level(self) -> list[Option]:
        """The options at the current depth, in the order their actions come."""
        depth = len(self.path)
        groups: dict[str, Option] = {}
        keys: dict[str, str | None] = {}
        for i in self._remaining():
            steps = self._paths[i]
            key, label = steps[depth] if depth < len(steps) else (None, "as it is")
            if label not in groups:
                groups[label] = Option("", label, [])
                keys[label] = key
            groups[label].actions.append(self.legal[i])
        options = list(groups.values())
        given = [keys[o.label] for o in options]
        own_keys = all(k for k in given) and len(set(given)) == len(given)
        for n, option in enumerate(options, 1):
            option.key = str(keys[option.label]) if own_keys else str(n)
        return options

    def options(self) -> list[Option]:
        """The current decision's options (levels with one option are taken at once)."""
        options = self._level()
        while len(options) == 1 and len(options[0].actions) > 1:
            self.path.append(options[0].label)
            options = self._level()
        return options

    def pick(self, key: str) -> dict[str, Any] | None:
        """Take the option typed as ``key``: the action when that settles it, else None
        (a new decision follows).  ``KeyError`` when no option has that key."""
        for option in self.options():
            if option.key == key:
                if len(option.actions) == 1:
                    return option.actions[0]
                self.path.append(option.label)
                return None
        raise KeyError(key)

    def reset(self) -> None:
        """Back to the first decision."""
        self.path.clear()

    def back(self) -> bool:
        """Undo the last decision (False when at the first one)."""
        if not self.path:
            return False
        self.path.pop()
        while self.path and len(self._level()) == 1:  # skip levels taken automatically
            self.path.pop()
        return True
