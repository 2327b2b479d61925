"""The compact and grid forms of ``legal`` (protocol/README.md "Compact legal", "Grid
legal") stand for exactly the plain list: expanded, each is the same set of actions, each
once -- so, with test_legal_exact.py, exactly the set ``act`` accepts.

Property test over random positions of every game that has a compact or a grid form
(``Game.compact_choices``, ``Game.grid_choices``), through the table core as the hub
answers it; a game without a compact form answers the compact ask with the plain list,
one without a grid form the grid ask as the compact one.  9-tower's groups and grids are
also checked on its every digit at each position and on a layout at the edge of the
coordinate bound.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tablehub.protocol.legal import (
    COMPACT,
    GRID,
    LAYERED,
    PLAIN,
    expand,
    expand_grids,
    listed_actions,
)
from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import Action
from tablehub.server.games.nmbr9.rules import (
    legal_actions,
    legal_grids,
    legal_groups,
    legal_layered_grids,
    legal_placements,
)
from tablehub.server.tables.core import Legal, Table, handle
from tablehub.server.tables.record import TableRecord, TableStatus
from tests.server.games.conformance import playout, table_shapes
from tests.server.games.nmbr9.test_oracle import build
from tests.server.tables.test_core import NOW, seated

SEEDS = range(6)
POSITIONS = 20
"""Positions checked per playout, spread evenly over it."""


def keys(actions: list[Action]) -> list[str]:
    return sorted(json.dumps(action, sort_keys=True) for action in actions)


def at(table: Table, state: dict[str, object]) -> Table:
    """``table`` (its seats taken) at another state of its game."""
    record = TableRecord(**{**table.record.__dict__, "state": state})
    return Table.of(record)


WITH_COMPACT = sorted(game.id for game in all_games() if game.compact_choices is not None)
WITH_GRID = sorted(game.id for game in all_games() if game.grid_choices is not None)
WITH_LAYERED = sorted(game.id for game in all_games() if game.layered_choices is not None)


def test_9_tower_has_a_compact_a_grid_and_a_layered_form() -> None:
    assert "nmbr9" in WITH_COMPACT and "nmbr9" in WITH_GRID and "nmbr9" in WITH_LAYERED
    assert "brix" in WITH_LAYERED


def well_formed(part: dict[str, Any]) -> bool:
    """A group with a whole number of actions, at least one; or a grid with some bit set
    in its first row."""
    if "values" in part:
        return bool(part["values"]) and len(part["values"]) % len(part["fields"]) == 0
    bits = int(part["bits"], 16)
    if "layers" in part:  # layers of width x height bits, the first rows maybe empty
        layer: int = part["width"] * part["height"]
        return 0 < bits < 1 << layer * len(part["layers"]["values"])
    return bits > 0 and (bits & -bits).bit_length() <= part["width"]


FORMS = [
    (COMPACT, "groups", WITH_COMPACT),
    (GRID, "grids", WITH_GRID),
    (LAYERED, "grids", WITH_LAYERED),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game_id", "form", "field"),
    [(game_id, form, field) for form, field, ids in FORMS for game_id in ids],
)
@pytest.mark.parametrize("seed", SEEDS)
def test_each_form_expands_to_exactly_the_plain_set(
    game_id: str, form: str, field: str, seed: int
) -> None:
    game = get_game(game_id)
    assert game is not None
    for seats, options in table_shapes(game):
        if seats > 4:
            continue
        table = seated(game_id, seats)
        assert table.record.status is TableStatus.PLAYING
        states = playout(game, seats, seed, options, bot_share=0.3).states
        step = max(1, len(states) // POSITIONS)
        for state in states[::step]:
            here = at(table, state)
            for seat in range(seats):
                plain = handle(here, Legal(seat), NOW).reply
                reply = handle(here, Legal(seat, form=form), NOW).reply
                assert plain is not None and reply is not None
                assert reply["version"] == plain["version"]
                assert set(reply) == {field, "version"}
                assert all(well_formed(part) for part in reply[field])
                expanded = listed_actions(reply)
                assert keys(expanded) == keys(plain["actions"])
                assert len(set(keys(expanded))) == len(expanded), "each action once"


@pytest.mark.parametrize(
    ("form", "choices", "instead"),
    [
        (COMPACT, "compact_choices", PLAIN),
        (GRID, "grid_choices", COMPACT),
        (LAYERED, "layered_choices", GRID),
    ],
)
def test_games_without_a_form_answer_it_as_the_next_cheaper_ask(
    form: str, choices: str, instead: str
) -> None:
    for game in all_games():
        if getattr(game, choices) is not None:
            continue
        table = seated(game.id, game.min_players if game.min_players > 1 else 2)
        reply = handle(table, Legal(0, form=form), NOW).reply
        assert reply == handle(table, Legal(0, form=instead), NOW).reply


def test_the_staged_form_ignores_the_form() -> None:
    table = seated("nmbr9")
    for form in (COMPACT, GRID, LAYERED):
        staged = handle(table, Legal(0, {}, form=form), NOW).reply
        assert staged == handle(table, Legal(0, {}), NOW).reply


@pytest.mark.slow
def test_nine_tower_groups_for_every_digit_on_random_layouts() -> None:
    game = get_game("nmbr9")
    assert game is not None
    rng = random.Random(33)
    for seed in range(10):
        for state in playout(game, 1, seed, bot_share=rng.random()).states:
            tiles = state["players"][0]["tiles"]
            for digit in range(10):
                plain = keys(legal_actions(tiles, digit))
                level = {(rot, x, y): lvl for lvl, rot, x, y in legal_placements(tiles, digit)}
                groups, grids = legal_groups(tiles, digit), legal_grids(tiles, digit)
                layered = legal_layered_grids(tiles, digit)
                for expanded in (expand(groups), expand_grids(grids), expand_grids(layered)):
                    assert keys(expanded) == plain
                    levels = [level[(a["rot"], a["x"], a["y"])] for a in expanded]
                    assert levels == sorted(levels, reverse=True), "highest level first"


def test_nine_tower_groups_far_from_the_origin_and_at_the_coordinate_bound() -> None:
    for corner in ((200, -300, 0), (1000, 1000, 0), (-1000, -1000, 1), (998, -1000, 2)):
        tiles = build([(1, *corner)])
        for digit in (0, 1, 8):
            groups = legal_groups(tiles, digit)
            assert groups
            assert keys(expand(groups)) == keys(legal_actions(tiles, digit))
            values = [v for group in groups for v in group["values"]]
            assert all(-1000 <= v <= 1000 for v in values)
            for grids in (legal_grids(tiles, digit), legal_layered_grids(tiles, digit)):
                assert keys(expand_grids(grids)) == keys(legal_actions(tiles, digit))


def test_nine_tower_groups_of_a_layout_taller_than_any_game_makes() -> None:
    tiles = build([(1, 0, 4 * k - 64, 0) for k in range(32)])  # 137 rows, within -127..127
    for digit in (1, 6):
        plain = keys(legal_actions(tiles, digit))
        assert keys(expand(legal_groups(tiles, digit))) == plain
        assert keys(expand_grids(legal_grids(tiles, digit))) == plain
        assert keys(expand_grids(legal_layered_grids(tiles, digit))) == plain
