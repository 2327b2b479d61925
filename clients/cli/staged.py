"""A turn asked from the server one field at a time (protocol/README.md "Staged legal").

Where the full ``legal`` list is thousands of actions (a termite day turn), the
terminal does not fetch it: :meth:`StagedChoices.open` asks ``legal`` with the empty
partial action, and each pick asks for the next field's choices with the action so
far -- a turn is a few small requests, one per decision.  It offers what
:class:`~tablehub.clients.cli.choices.Choices` offers (``options``, ``pick``,
``back``, ``path``), so the screen shows both alike:

* a choice that completes the action and leads nowhere plays it;
* one that may go on (a slot that takes a helper die) asks the next field, and that
  decision lists "as it is" first when the action so far is already complete;
* a decision with one way on and nothing to play is taken at once;
* where the game ranks a decision's options (``rank``: termite puts the places where
  a die would do nothing tonight last), they are listed in that order, else in the
  server's.

Options are typed by the key the game gives them (a room's number) when every option
of the decision has one, else by their place in the list, from 1.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

Ask = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Staged ``legal``: the server's reply for a partial action."""
Label = Callable[[str, Any, dict[str, Any]], tuple[str | None, str]]
"""A choice in words: (field, value, partial action so far) -> (key or None, label)."""
Rank = Callable[[str, Any, dict[str, Any]], int]
"""Where a choice comes in its list, lowest first (ties: the server's order)."""

AS_IT_IS = "as it is (nothing more)"


@dataclass
class StagedOption:
    key: str
    """What the player types to pick it."""
    label: str
    action: dict[str, Any]
    """The partial action with this choice made."""
    complete: bool
    more: bool


@dataclass
class Level:
    label: str
    """The choice that led here ("" for the first decision)."""
    options: list[StagedOption]


class StagedChoices:
    def __init__(self, ask: Ask, label: Label, rank: Rank | None = None) -> None:
        self._ask = ask
        self._label = label
        self._rank = rank
        self._levels: list[Level] = []

    @classmethod
    async def open(cls, ask: Ask, label: Label, rank: Rank | None = None) -> StagedChoices:
        """The first decision of the turn, fetched from the server."""
        choices = cls(ask, label, rank)
        await choices._descend({}, "")
        return choices

    @property
    def path(self) -> list[str]:
        """Labels chosen so far."""
        return [level.label for level in self._levels[1:]]

    def options(self) -> list[StagedOption]:
        return self._levels[-1].options if self._levels else []

    def reset(self) -> None:
        """Back to the first decision."""
        del self._levels[1:]

    def back(self) -> bool:
        """Undo the last decision (False when at the first one)."""
        if len(self._levels) < 2:
            return False
        self._levels.pop()
        return True

    async def pick(self, key: str) -> dict[str, Any] | None:
        """Take the option typed as ``key``: the action when that settles it, else None
        (the next decision has been fetched).  ``KeyError`` when no option has that key."""
        for option in self.options():
            if option.key == key:
                if option.complete and not option.more:
                    return option.action
                return await self._descend(option.action, option.label)
        raise KeyError(key)

    async def _descend(self, partial: dict[str, Any], label: str) -> dict[str, Any] | None:
        """Fetch the decisions after ``partial``, taking single ways on at once."""
        while True:
            reply = await self._ask(partial)
            field = reply.get("field")
            options: list[StagedOption] = []
            keys: list[str | None] = []
            found = list(reply.get("choices") or [])
            if self._rank is not None:
                rank = self._rank
                found.sort(key=lambda choice: rank(str(field), choice["value"], partial))
            for choice in found:
                key, words = self._label(str(field), choice["value"], partial)
                action = {**partial, str(field): choice["value"]}
                options.append(
                    StagedOption("", words, action, bool(choice["complete"]), bool(choice["more"]))
                )
                keys.append(key)
            if reply.get("complete") and partial:
                options.insert(0, StagedOption("", AS_IT_IS, partial, True, False))
                keys.insert(0, None)
            if not options and reply.get("complete"):
                return partial
            own_keys = all(keys) and len(set(keys)) == len(keys)
            for n, (option, key) in enumerate(zip(options, keys, strict=True), 1):
                option.key = str(key) if own_keys else str(n)
            if len(options) == 1 and options[0].more and not options[0].complete:
                partial, label = options[0].action, options[0].label
                continue
            self._levels.append(Level(label, options))
            return None
