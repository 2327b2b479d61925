"""The move skeleton's parts: a game's :class:`MoveTable` (each move type's rules and the
private copy of the state they write) and the copies games choose from.

``Game.apply`` runs the skeleton: the common checks, the action's fields against the
game's action schema (:mod:`server.games.fields`), then a private copy of the state
(``MoveTable.copy``), its random generator loaded from ``state["rng"]``, the move's rules
on the copy, and the generator's state stored back.  A move's rules change the copy in
place and return the public events; raising ``IllegalAction`` drops the copy, so the
state a caller holds never changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from tablehub.server.games.base import Action, Event, State, clone
from tablehub.server.games.rng import Rng

Rules: TypeAlias = Callable[[Any, int, Action, Rng], list[Event]]
"""One move's rules: ``(state, seat, action, rng) -> events``.  ``state`` is the move's
private copy (a game may type it with its own ``TypedDict``); ``action`` has passed the
action schema; ``rng`` is the game's generator (a game whose state keeps no ``"rng"``
has no chance: its moves get a generator whose draws are not kept)."""

Copy: TypeAlias = Callable[[State, int], State]
"""The private copy of ``(state, seat)`` a move may change in place: deep enough that
nothing the move changes is shared with the state it was given."""


def deep_copy(state: State, seat: int) -> State:
    """Every dict and list copied: the move may change anything in place."""
    copied: State = clone(state)
    return copied


def copy_levels(depth: int) -> Copy:
    """Dicts and lists copied ``depth`` levels down; below that the move replaces
    (never mutates) what it changes."""

    def copy(state: State, seat: int) -> State:
        copied: State = clone(state, depth)
        return copied

    return copy


@dataclass(frozen=True)
class MoveTable:
    """A game's moves: each action type's rules, and the copy of the state they write."""

    rules: Mapping[str, Rules]
    copy: Copy = deep_copy

    def __contains__(self, kind: object) -> bool:
        return kind in self.rules

    def names(self) -> str:
        """The action types, in words for a refusal (``place, move, resign``)."""
        return ", ".join(self.rules)
