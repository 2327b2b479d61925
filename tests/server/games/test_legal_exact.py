"""``legal_actions`` is exactly the set of actions ``apply`` accepts, in every game.

Property test over playouts of every registered game, each of its ``table_shapes``
(docs/design.md "Game engine contract"): at sampled positions, for every seat that must act,

* every listed action is accepted (``apply`` does not raise);
* actions outside the list are refused with ``IllegalAction``: each listed action with
  one field changed to another plausible value (values harvested from the game's own
  listed actions, neighbours of integers, reordered lists), and random actions built
  from the game's action vocabulary, also with a field of another action type added
  (a field ``apply`` would silently ignore is a disagreement too).

Meta actions (``resign``, draw offers) are always open and not the subject here.
Any other exception than ``IllegalAction`` is a failure too.

The wall duel, number row and Termite Towers list exactly what ``apply`` accepts.
9-tower's list is compressed by design (docs/games/nmbr9.md): a first tile is listed
only at offset (0, 0), and tiles 0 and 8 only in rotations 0 and 1 since rotations 2
and 3 cover the same cells; a game whose list is compressed so says in its tests package,
``tests/server/games/<id>/listing.py`` with an ``alias`` (an accepted action's listed
form), and an accepted action counts as listed when its alias is listed.
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import Action, Game, IllegalAction, State
from tests.server.games.conformance import playout, table_shapes

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

META = frozenset({"resign", "offer_draw", "accept_draw"})
LISTED_TRIES = 40
"""Listed actions applied per position (all of them when fewer)."""
MUTANTS = 60
"""Changed-field actions tried per position."""
RANDOM_ACTIONS = 20
"""Actions built from the vocabulary per position."""

Alias = Callable[[State, Action], Action]


def key(action: Action) -> str:
    return json.dumps(action, sort_keys=True)


def alias_of(game: Game) -> Alias | None:
    """The game's ``alias`` from ``tests/server/games/<id>/listing.py``, if it has one."""
    try:
        module = importlib.import_module(f"tests.server.games.{game.id}.listing")
    except ModuleNotFoundError:
        return None
    alias: Alias = module.alias
    return alias


@dataclass(frozen=True)
class Case:
    game_id: str
    seats: int
    options: dict[str, Any]


CASES = [
    Case(game.id, seats, options) for game in all_games() for seats, options in table_shapes(game)
]
SEEDS = (1, 2)
POSITIONS = 12
"""Positions checked per playout, spread evenly over it."""


@dataclass(frozen=True)
class Disagreement:
    listed: bool
    """True: a listed action was refused; False: an unlisted one was accepted."""
    action: Action
    reason: str

    def __str__(self) -> str:
        what = "listed but refused" if self.listed else "not listed but accepted"
        return f"{what}: {key(self.action)} ({self.reason})"


def outcome(game: Game, state: State, seat: int, action: Action) -> str | None:
    """None if accepted, else the refusal's message; other exceptions propagate."""
    try:
        game.apply(state, seat, action)
    except IllegalAction as err:
        return err.message
    return None


class Vocabulary:
    """Field values seen in a game's listed actions, to build plausible wrong ones."""

    def __init__(self) -> None:
        self.values: dict[str, list[Any]] = {}
        self.seen: dict[str, set[str]] = {}
        self.shapes: dict[str, list[tuple[str, ...]]] = {}

    def learn(self, actions: list[Action]) -> None:
        for action in actions:
            shape = tuple(sorted(action))
            shapes = self.shapes.setdefault(action["type"], [])
            if shape not in shapes:
                shapes.append(shape)
            for name, value in action.items():
                if name == "type":
                    continue
                text = key(value)
                if text not in self.seen.setdefault(name, set()):
                    self.seen[name].add(text)
                    self.values.setdefault(name, []).append(value)

    def variants(self, name: str, value: Any, rng: random.Random) -> list[Any]:
        out = list(rng.sample(self.values[name], min(4, len(self.values[name]))))
        if isinstance(value, int) and not isinstance(value, bool):
            out += [value - 1, value + 1, value + 2, 0, 7]
        if isinstance(value, list) and value:
            out += [value[::-1], value[:-1], [*value, value[0]]]
            if isinstance(value[0], list):
                out.append([item[::-1] for item in value])
        return [v for v in out if key(v) != key(value)]

    def random_action(self, rng: random.Random) -> Action:
        kind = rng.choice(sorted(self.shapes))
        shape = rng.choice(self.shapes[kind])
        action: Action = {"type": kind}
        for name in shape:
            if name != "type":
                action[name] = rng.choice(self.values[name])
        return action

    def foreign_field(self, action: Action, rng: random.Random) -> Action | None:
        """``action`` plus a field that its type does not carry (from other types)."""
        names = sorted(set(self.values) - set(action))
        if not names:
            return None
        name = rng.choice(names)
        return {**action, name: rng.choice(self.values[name])}


def candidates(listed: list[Action], vocab: Vocabulary, rng: random.Random) -> Iterator[Action]:
    """Changed-field copies of listed actions, then random vocabulary actions, each
    also with a field its type does not carry."""
    plays = [a for a in listed if a["type"] not in META]
    for _ in range(MUTANTS if plays else 0):
        base = rng.choice(plays)
        fields = [name for name in base if name != "type"]
        if not fields:
            continue
        name = rng.choice(fields)
        for value in vocab.variants(name, base[name], rng)[:2]:
            yield {**base, name: value}
    for _ in range(RANDOM_ACTIONS if vocab.shapes else 0):
        action = vocab.random_action(rng)
        yield action
        extended = vocab.foreign_field(action, rng)
        if extended is not None:
            yield extended


def check_position(
    game: Game, state: State, seat: int, vocab: Vocabulary, rng: random.Random, alias: Alias | None
) -> list[Disagreement]:
    listed = game.legal_actions(state, seat)
    vocab.learn(listed)
    found: list[Disagreement] = []
    tries = listed if len(listed) <= LISTED_TRIES else rng.sample(listed, LISTED_TRIES)
    for action in tries:
        reason = outcome(game, state, seat, action)
        if reason is not None:
            found.append(Disagreement(True, action, reason))
    keys = {key(a) for a in listed}
    aliased = {**state, "_seat": seat}
    for action in candidates(listed, vocab, rng):
        if action["type"] in META or key(action) in keys:
            continue
        if alias is not None and key(alias(aliased, action)) in keys:
            continue
        if outcome(game, state, seat, action) is None:
            found.append(Disagreement(False, action, "accepted"))
    return found


def disagreements(case: Case) -> list[Disagreement]:
    """Every disagreement found over the case's playouts."""
    game = get_game(case.game_id)
    assert game is not None
    alias = alias_of(game)
    found: list[Disagreement] = []
    for seed in SEEDS:
        rng = random.Random(seed)
        vocab = Vocabulary()
        played = playout(game, case.seats, seed, case.options, max_steps=3000)
        for state in played.states[:: max(1, len(played.states) // POSITIONS)]:
            for seat in game.status(state)["to_act"]:
                found += check_position(game, state, seat, vocab, rng, alias)
    return found


@pytest.mark.parametrize("case", CASES, ids=[f"{c.game_id}-{c.seats}p-{c.options}" for c in CASES])
def test_legal_is_exactly_what_apply_accepts(case: Case) -> None:
    found = disagreements(case)
    assert not found, f"{len(found)} disagreements, e.g.\n" + "\n".join(map(str, found[:10]))
