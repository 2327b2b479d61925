"""The number row's ``legal`` in both forms (docs/games/completto.md; protocol/README.md
"Compact legal"): where a number fits is exactly where the rules' refusals find nothing;
the compact groups expand to exactly the plain list -- the same actions in the same
order, each with its keys in the same order, each once -- in setup and in play (the
engine writes the two forms out separately, so a rule added to one and not the other
shows here, in the quick run too); and two states with equal ``legal_basis`` give a seat
the same legal actions."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tablehub.protocol.legal import expand
from tablehub.server.games.base import Action, State
from tablehub.server.games.completto import GAME
from tablehub.server.games.completto.engine import legal, legal_basis, legal_compact
from tablehub.server.games.completto.rules import (
    Row,
    insert_problem,
    insertions,
    place_problem,
    placements,
)
from tablehub.server.games.completto.tiles import UPSIDE_DOWN, readings
from tests.server.games.conformance import playout

SHAPES: list[tuple[int, dict[str, Any]]] = [(2, {}), (3, {}), (4, {"rounds": 2})]


def keys(actions: list[Action]) -> list[str]:
    return sorted(json.dumps(action, sort_keys=True) for action in actions)


def random_row(rng: random.Random) -> Row:
    """A row of 0-23 cells whose face-up numbers ascend."""
    length = rng.randint(0, 23)
    shown = sorted(rng.sample(range(1, 101), rng.randint(0, length)))
    row: Row = [{"tile": 1, "n": None} for _ in range(length)]
    for index, number in zip(sorted(rng.sample(range(length), len(shown))), shown, strict=True):
        row[index] = {"tile": number, "n": number}
    return row


def test_placements_and_insertions_are_where_the_rules_refuse_nothing() -> None:
    rng = random.Random(33)
    for _ in range(3000):
        row = random_row(rng)
        tile = rng.choice([*UPSIDE_DOWN, rng.randint(1, 100)])
        assert placements(row, tile) == sorted(
            [pos, number]
            for number in readings(tile)
            for pos in range(len(row))
            if row[pos]["n"] is None and place_problem(row, pos, number) is None
        )
        assert insertions(row, tile) == sorted(
            [pos, number]
            for number in readings(tile)
            for pos in range(len(row) + 1)
            if insert_problem(row, pos, number) is None
        )


def in_order(actions: list[Action]) -> list[str]:
    """The actions as JSON in list order, keys in their own order (no sorting)."""
    return [json.dumps(action) for action in actions]


def check_forms(state: State, seat: int) -> list[Action]:
    """The seat's compact groups are well formed and expand, in order, to exactly its
    plain list; returns that list."""
    plain = legal(state, seat)
    groups = legal_compact(state, seat)
    for group in groups:
        assert group["fields"] and group["values"]
        assert len(group["values"]) % len(group["fields"]) == 0
    assert in_order(expand(groups)) == in_order(plain)
    assert len(plain) == len(set(keys(plain))), "each action once"
    return plain


def test_compact_and_plain_agree_over_a_few_seeded_playouts() -> None:
    """The quick check (the playouts below are slow-only): three seeded tables played
    out, every seat that must act -- setup inserts, takes, moves, places and discards --
    and every listed action of their first 30 positions is one ``apply`` accepts."""
    kinds: set[str] = set()
    for seats, seed in ((2, 0), (2, 1), (3, 2)):
        for step, state in enumerate(playout(GAME, seats, seed, bot_share=0.5).states):
            for seat in GAME.status(state)["to_act"]:
                plain = check_forms(state, seat)
                kinds.update(action["type"] for action in plain)
                if step < 30:
                    for action in plain:
                        GAME.apply(state, seat, action)  # IllegalAction fails the test
    assert kinds == {"insert", "take", "place", "discard", "move"}


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "options"), SHAPES)
def test_compact_groups_expand_to_the_plain_list(seats: int, options: dict[str, Any]) -> None:
    kinds: set[str] = set()
    for seed in range(4):
        for state in playout(GAME, seats, seed, options, bot_share=0.5).states:
            for seat in GAME.status(state)["to_act"]:
                kinds.update(action["type"] for action in check_forms(state, seat))
    assert kinds == {"insert", "take", "place", "discard", "move"}


def test_the_groups_of_a_turn_start() -> None:
    state = next(
        s
        for s in playout(GAME, 2, 5, bot_share=1.0).states
        if s["phase"] == "play" and s["hand"] is None and s["pool_up"]
    )
    seat = state["current"]
    groups = legal_compact(state, seat)
    assert groups[0] == {"fixed": {"type": "take"}, "fields": ["source"], "values": ["pool"]}
    assert groups[1]["fixed"] == {"type": "take", "source": "faceup"}
    row = state["rows"][seat]
    moves = [g for g in groups if g["fixed"]["type"] == "move"]
    assert [g["fixed"]["from"] for g in moves] == [i for i, c in enumerate(row) if c["n"] is None]
    assert all(g["fields"] == ["to"] and len(g["values"]) == len(row) - 1 for g in moves)


@pytest.mark.slow
def test_equal_bases_give_equal_legal_actions() -> None:
    """States of one table whose bases are equal for a seat give it the same legal
    actions: the others inserting during setup, waiting through the others' turns, a
    resignation of another seat."""
    for seats, options in SHAPES:
        for seed in range(3):
            states: list[State] = []
            for state in playout(GAME, seats, seed, options, bot_share=0.5).states:
                states.append(state)
                acting = GAME.status(state)["to_act"]
                idle = [s for s in range(seats) if s not in acting and not state["resigned"][s]]
                if idle and seats > 2 and state["phase"] != "finished":
                    states.append(GAME.apply(state, idle[0], {"type": "resign"})[0])
            for seat in range(seats):
                seen: dict[object, list[str]] = {}
                for state in states:
                    actions = keys(GAME.legal_actions(state, seat))
                    assert seen.setdefault(legal_basis(state, seat), actions) == actions
