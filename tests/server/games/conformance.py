"""Engine-contract checks shared by every game's tests (STYLE.md "Tests follow the layers").

``playout`` drives a game from ``setup`` to the end (or ``max_steps``) choosing, at
each step, a seat that must act and either the bot's move or a random legal action.
``check_playout`` then asserts the contract on the recorded game:

* every state, view and event is plain JSON data, and a state survives the store's
  msgpack round trip (arrays come back as lists: ``Game.restored`` gives the engine's form);
* ``apply`` never mutated the state it was given;
* replaying the log from ``setup`` reproduces every intermediate state exactly;
* for every audience, applying ``diff(old_view, new_view)`` with the independent
  ``jsonpatch`` library gives the new view, and the hash matches; the view the feed
  keeps (``diff_shared``'s, sharing unchanged sub-trees with the previous one) equals
  the fresh view, and the hub's canonical JSON of every view is byte for byte the
  protocol's Python definition (``json.dumps(sort_keys=True, ...)``);
* a game-specific ``leak_check(state, view, seat)`` (hidden information) holds.

``table_shapes`` reads from a game's declaration which tables are worth playing out, so
the suites that run over every game (``all_games()``) need no list of games of their own.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
import msgpack

from tablehub.protocol.viewhash import canonical_json, view_hash
from tablehub.server.games.base import Action, Game, IllegalAction, State
from tablehub.server.games.options import Option
from tablehub.server.tables.viewdiff import diff_shared

LeakCheck = Callable[[State, dict[str, Any], int | None], None]
TableShape = tuple[int, dict[str, Any]]
"""Seats and the table options given (the rest default)."""


def table_shapes(game: Game, most_seats: int = 4) -> list[TableShape]:
    """The tables of ``game`` a suite over every game plays out, from the game's
    declaration alone: the fewest and the most seats it allows (at most ``most_seats``)
    with the default options, then at the fewest seats each option moved off its default
    -- every other choice, a flag turned, an integer to its minimum (one above the
    default when that is the minimum) -- which reaches the phases and endings the
    options exist for (a wall duel with few bricks moves them, a second number-row
    round, a tournament)."""
    fewest = game.min_players
    shapes: list[TableShape] = [(fewest, {})]
    if min(game.max_players, most_seats) > fewest:
        shapes.append((min(game.max_players, most_seats), {}))
    for name, option in game.options.items():
        for value in _off_default(option):
            shapes.append((fewest, {name: value}))
    return shapes


def _off_default(option: Option) -> list[Any]:
    if option.choices is not None:
        return [choice for choice in option.choices if choice != option.default]
    if option.type == "boolean":
        return [not option.default]
    if option.type != "integer":
        return []
    value = option.minimum if option.minimum not in (None, option.default) else option.default + 1
    return [value] if option.maximum is None or value <= option.maximum else []


@dataclass
class Playout:
    game: Game
    options: dict[str, Any]
    seats: int
    seed: int
    states: list[State] = field(default_factory=list)
    log: list[tuple[int, Action]] = field(default_factory=list)
    events: list[list[dict[str, Any]]] = field(default_factory=list)


def assert_plain(value: Any, where: str = "$", safe_ints: bool = True) -> None:
    """JSON-compatible: dict[str, ...] with ASCII keys, list or tuple (an array), str,
    int (within ±2**53), bool, None only."""
    if value is None or isinstance(value, (str, bool)):
        return
    if isinstance(value, int):
        assert not safe_ints or -(2**53) < value < 2**53, (
            f"int {value} at {where} outside the JSON-safe range"
        )
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            assert_plain(item, f"{where}[{i}]", safe_ints)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), f"non-string key {key!r} at {where}"
            assert key.isascii(), f"non-ASCII key {key!r} at {where} (protocol: ASCII keys)"
            assert_plain(item, f"{where}.{key}", safe_ints)
        return
    raise AssertionError(f"{type(value).__name__} at {where} is not plain JSON data")


def playout(
    game: Game,
    seats: int,
    seed: int,
    options: dict[str, Any] | None = None,
    max_steps: int = 5000,
    bot_share: float = 0.5,
) -> Playout:
    """Play one game; ``bot_share`` of the moves are the bot's, the rest random legal."""
    chooser = random.Random(seed)
    resolved = game.validate_options(options)
    result = Playout(game, resolved, seats, seed)
    state = game.setup(resolved, seats, seed)
    result.states.append(state)
    for _ in range(max_steps):
        status = game.status(state)
        if status["finished"]:
            break
        to_act = status["to_act"]
        assert to_act, f"game not finished but nobody to act: {status}"
        seat = chooser.choice(to_act)
        if chooser.random() < bot_share:
            # the fast level: every level's moves are checked in test_bots.py
            action = game.fast_bot_move(state, seat)
        else:
            legal = game.legal_actions(state, seat)
            assert legal, f"seat {seat} must act but has no legal action"
            action = chooser.choice(legal)
        before = copy.deepcopy(state)
        state, events = game.apply(state, seat, action)
        assert result.states[-1] == before, "apply mutated its input state"
        result.states.append(state)
        result.log.append((seat, action))
        result.events.append(events)
    return result


def check_playout(p: Playout, leak_check: LeakCheck | None = None) -> None:
    game = p.game
    # Plain data, msgpack round trip.
    for state in p.states:
        assert_plain(state, safe_ints=False)  # the rng state may use 63 bits
        decoded = msgpack.unpackb(msgpack.packb(state), strict_map_key=True)
        assert game.restored(decoded) == state
    for events in p.events:
        assert_plain(events)
    # Replay equals live.
    state = game.setup(p.options, p.seats, p.seed)
    assert state == p.states[0]
    for i, (seat, action) in enumerate(p.log):
        state, _ = game.apply(state, seat, copy.deepcopy(action))
        assert state == p.states[i + 1], f"replay diverged at step {i}"
    # Views: patches reproduce them, hashes match, nothing hidden leaks.
    audiences: list[int | None] = [None, *range(p.seats)]
    for audience in audiences:
        previous = game.view(p.states[0], audience)
        for state in p.states:
            current = game.view(state, audience)
            assert_plain(current)
            if game.public_view and audience is not None:
                assert current == game.view(state, None), "public_view game differs by seat"
            if leak_check is not None:
                leak_check(state, current, audience)
            ops, shared = diff_shared(previous, current)
            patched = jsonpatch.apply_patch(previous, ops)
            assert patched == current and shared == current
            plain_hash = view_hash(current)
            assert view_hash(patched) == plain_hash
            plain = json.dumps(current, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            assert canonical_json(shared) == plain.encode(), "canonical JSON differs"
            json.dumps(ops)
            previous = shared


def assert_refused(
    game: Game, state: State, seat: int, action: Action, code: str, fragment: str = ""
) -> IllegalAction:
    """``apply`` refuses with ``code`` (and a message containing ``fragment``);
    the state is unchanged."""
    before = copy.deepcopy(state)
    try:
        game.apply(state, seat, action)
    except IllegalAction as err:
        assert err.code == code, f"expected {code}, got {err.code}: {err.message}"
        assert fragment.lower() in err.message.lower(), err.message
        assert state == before
        return err
    raise AssertionError(f"action {action} was accepted; expected {code}")
