"""The wall duel's ``legal`` in every form (docs/games/brix.md "Placing", "Move phase";
protocol/README.md "Compact legal", "Layered grid legal"): the bit masks give exactly the
positions :meth:`Wall.positions` gives, on the wall and on the wall without each brick;
the compact groups and the layered grids expand to exactly the plain list, each action
once, in both phases;
and two states with equal ``legal_basis`` give a seat the same legal actions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablehub.protocol.legal import expand, expand_grids
from tablehub.server.games.base import Action, State
from tablehub.server.games.brix import GAME
from tablehub.server.games.brix.engine import (
    VARIANTS,
    legal,
    legal_basis,
    legal_compact,
    legal_layered,
    origin,
)
from tablehub.server.games.brix.masks import FLIP, SPARSE, Frame, Walls
from tablehub.server.games.brix.wall import Wall
from tests.server.games.brix.test_rules import GROUND, TOWER, Spec, make, mirror, play
from tests.server.games.conformance import playout

SHAPES: list[dict[str, Any]] = [
    {},
    {"bricks": 4},
    {"bricks": 8, "move_limit": 60},
    {"bricks": 6, "mode": "symbols_vs_colors"},
    {"bricks": 6, "mode": "colors", "move_limit": 40},
]
"""Tables played out: the default supply, and short ones that reach the move phase."""


def keys(actions: list[Action]) -> list[str]:
    return sorted(json.dumps(action, sort_keys=True) for action in actions)


def positions(options: dict[str, Any], seeds: range) -> list[State]:
    """The positions before the end of playouts of tables with ``options``."""
    return [
        state
        for seed in seeds
        for state in playout(GAME, 2, seed, options, bot_share=0.4).states
        if state["result"] is None
    ]


def check_masks(state: State) -> None:
    """The positions of the masks are the wall's, on it and without each brick (a wall
    of two bricks or more, as :meth:`Frame.takings` asks), read back by
    :meth:`Walls.values` as by :meth:`Walls.positions`."""
    bricks = state["bricks"]
    wall = Wall.from_bricks(bricks)
    frame = Frame(bricks)
    placing = frame.placing()
    assert placing.positions(0) == wall.positions()
    check_values(placing)
    if len(bricks) < 2:
        return
    walls = frame.takings(state["locked"])
    takers = [b["id"] for b in bricks if b["id"] != state["locked"]]
    safe = [bid for bid in takers if not wall.collapse_if_removed(bid)]
    assert walls.tags == safe + [bid for bid in takers if bid not in safe]
    assert walls.safe == len(safe)
    for k, bid in enumerate(walls.tags):
        here = origin(bricks[bid])
        assert walls.positions(k) == [p for p in wall.without(bid).positions() if p != here]
    check_values(walls)


def check_values(walls: Walls) -> None:
    for tagged in (False, True):
        flat: list[int] = []
        upright: list[int] = []
        for k, tag in enumerate(walls.tags):
            for x, y, d in walls.positions(k):
                (flat if d == "h" else upright).extend([tag, x, y] if tagged else [x, y])
        assert walls.values(tagged) == (flat, upright)


def check_compact(state: State) -> None:
    """The compact groups and the layered grids expand to exactly the plain list, each
    action once, the collapsing moves after all the safe ones."""
    seat = state["to_act"]
    plain = legal(state, seat)
    groups = legal_compact(state, seat)
    for group in groups:
        assert group["values"] and len(group["values"]) % len(group["fields"]) == 0
    grids = legal_layered(state, seat)
    assert all(int(grid["bits"], 16) and len(grid["each"]) == 4 for grid in grids)
    assert len(grids) <= (1 if state["supply"] else 4)
    for expanded in (expand(groups), expand_grids(grids)):
        assert keys(expanded) == keys(plain)
        assert len(expanded) == len(plain) == len(set(keys(plain))), "each action once"
        if state["supply"] == 0:
            wall = Wall.from_bricks(state["bricks"])
            falls = [bool(wall.collapse_if_removed(action["brick"])) for action in expanded]
            assert falls == sorted(falls), "the collapsing moves after all the safe ones"


@pytest.mark.slow
@pytest.mark.parametrize("options", SHAPES)
def test_masks_and_compact_groups_over_playouts(options: dict[str, Any]) -> None:
    states = positions(options, range(20))
    moving = [state for state in states if state["supply"] == 0]
    assert len(states) > 150
    if options:
        assert len(moving) > 20, "the short tables reach the move phase"
    for state in states:
        check_masks(state)
        check_compact(state)


@pytest.mark.parametrize("seed", range(3))
def test_masks_and_compact_groups_in_the_move_phase(seed: int) -> None:
    """A quick run of the playout check where the masks do the most: moving."""
    moving = [
        state for state in positions({"bricks": 6}, range(seed, seed + 1)) if not state["supply"]
    ]
    assert moving
    for state in moving:
        check_masks(state)
        check_compact(state)


SMALL_WALLS: list[list[Spec]] = [
    [],
    [(3, 0, "h", 0, "xo")],
    GROUND,
    TOWER,
    [(0, 0, "v", 0, "xo"), (1, 0, "v", 1, "ox")],
]


@pytest.mark.parametrize(
    ("specs", "supply"),
    [(specs, True) for specs in SMALL_WALLS]
    # moving needs two bricks or more (Frame.takings); the rules start it at four
    + [(specs, False) for specs in SMALL_WALLS if len(specs) != 1],
)
def test_masks_and_compact_groups_on_small_walls(specs: list[Spec], supply: bool) -> None:
    state = make(specs, bricks=len(specs) + 4 if supply else max(len(specs), 4))
    state["supply"] = 4 if supply else 0
    check_masks(state)
    check_compact(state)


FAR: list[Spec] = [(x, 0, "h", 0, "xo") for x in (0, 2, 4, 6)] + [(0, 1, "v", 1, "ox")]
"""An eight-wide wall whose first column is 0 (frame column 0 at -3)."""


@pytest.mark.parametrize("x0", [-500 - 3, -128, -127, 112, 113, 700 - 3])
@pytest.mark.parametrize("supply", [4, 0])
def test_a_wall_far_from_column_0_and_eight_wide(x0: int, supply: int) -> None:
    """The wall may drift in the move phase: frames far left and right, and at either
    end of the byte read-back's reach (frame column 0 at -127..112, the values all
    within -127..127); the wall's width is at the limit (no position beyond either
    end)."""
    specs = [(x + x0 + 3, y, d, o, f) for x, y, d, o, f in FAR]
    state = make(specs, bricks=len(specs) + supply)
    state["supply"] = supply
    check_masks(state)
    check_compact(state)
    walls = Frame(state["bricks"]).takings(None)
    assert walls.x0 == x0
    assert walls.h.bit_count() + walls.v.bit_count() > SPARSE, "more than read one by one"


EIGHT_WIDE: list[tuple[list[Spec], int | None]] = [
    # flat bricks alone at both ends, each emptying the column next to it too
    ([(x, 0, "h", 0, "xo") for x in (0, 2, 4, 6)], None),
    # the same with the brick at the left end locked (its slot is not there)
    ([(x, 0, "h", 0, "xo") for x in (0, 2, 4, 6)], 0),
    # upright bricks alone at both ends
    (
        [
            (0, 0, "v", 0, "xo"),
            (1, 0, "h", 0, "xo"),
            (3, 0, "h", 0, "xo"),
            (5, 0, "h", 0, "xo"),
            (7, 0, "v", 0, "xo"),
        ],
        None,
    ),
    # two flat bricks at the left end (neither holds the column), an upright one at the right
    (
        [
            (0, 0, "h", 0, "xo"),
            (0, 1, "h", 0, "xo"),
            (2, 0, "h", 0, "xo"),
            (4, 0, "h", 0, "xo"),
            (6, 0, "v", 0, "xo"),
        ],
        None,
    ),
    # a flat brick alone at the right end, the column next to it held by others too (and
    # taking the brick collapses the wall)
    (
        [
            (0, 0, "v", 0, "xo"),
            (1, 0, "h", 0, "xo"),
            (3, 0, "h", 0, "xo"),
            (5, 0, "v", 0, "xo"),
            (6, 0, "h", 0, "xo"),
            (6, 1, "v", 0, "xo"),
        ],
        1,
    ),
]
"""Eight-wide walls where taking a brick out empties an outer column (its slot's width
limit is its own, wider than the wall's) or does not."""


@pytest.mark.parametrize(("specs", "locked"), EIGHT_WIDE)
@pytest.mark.parametrize("mirrored", [False, True])
def test_taking_a_brick_at_an_outer_column(
    specs: list[Spec], locked: int | None, mirrored: bool
) -> None:
    state = make(mirror(specs, 8) if mirrored else specs, bricks=len(specs), locked=locked)
    assert state["supply"] == 0
    check_masks(state)
    check_compact(state)


@pytest.mark.parametrize("supply", [4, 0])
def test_a_wall_that_does_not_stand(supply: int) -> None:
    """A cell hanging at the right end (only a finished game's wall has one): the wall's
    columns, seven, are read from every row, not from its ground row alone (six)."""
    specs: list[Spec] = [(x, 0, "h", 0, "xo") for x in (0, 2, 4)] + [(5, 1, "h", 0, "xo")]
    for wall in (specs, mirror(specs, 7)):
        state = make(wall, bricks=len(wall) + 4)
        state["supply"] = supply
        check_masks(state)
        check_compact(state)


def test_every_layered_grid_lists_the_four_ways_in_the_plain_order() -> None:
    """``each`` is written out in legal_layered: it keeps the order of VARIANTS."""
    for state in (make(GROUND), make(TOWER, bricks=5, locked=3)):
        grids = legal_layered(state, 0)
        assert grids
        for grid in grids:
            assert grid["each"] == [{"orange": o, "face": f} for o, f in VARIANTS]


def built(specs: list[Spec], supply: int) -> State:
    """A state with these bricks in the wall, however many (the options stop at 60)."""
    state = make([], bricks=4)
    state["bricks"] = [
        {"id": i, "x": x, "y": y, "dir": d, "orange": o, "face": f, "by": i % 2}
        for i, (x, y, d, o, f) in enumerate(specs)
    ]
    state["supply"] = supply
    state["turn"] = len(specs)
    return state


@pytest.mark.parametrize("supply", [4, 0])
def test_walls_beyond_a_byte_are_read_position_by_position(supply: int) -> None:
    """A wall of more than ``FLIP`` rows (a tower of 64 vertical bricks and 3 more) and
    one with brick ids of ``FLIP`` and more (33 rows of four flat bricks) give the same
    positions as the wall, where a byte could hold neither the rows nor the ids."""
    tower = [(0, 2 * y, "v", 0, "xo") for y in range(64)] + [
        (x, 0, "h", 0, "xo") for x in (1, 3, 5)
    ]
    rows = [(x, y, "h", 0, "xo") for y in range(33) for x in (0, 2, 4, 6)]
    for specs in (tower, rows):
        state = built(specs, supply)
        frame = Frame(state["bricks"])
        assert frame.rows > FLIP or len(specs) > FLIP
        check_masks(state)
        check_compact(state)


def test_place_groups_name_direction_orange_and_face_with_x_y_varying() -> None:
    state = make([(0, 0, "h", 0, "xo")], to_act=1)
    groups = legal_compact(state, 1)
    assert {json.dumps(g["fixed"], sort_keys=True) for g in groups} == {
        json.dumps({"type": "place", "dir": d, "orange": o, "face": f}, sort_keys=True)
        for d in "hv"
        for o in (0, 1)
        for f in ("xo", "ox")
    }
    assert all(g["fields"] == ["x", "y"] for g in groups)
    flat = next(g for g in groups if g["fixed"]["dir"] == "h")
    assert flat["values"] == [-2, 0, 2, 0, 0, 1]  # by (y, x)


def test_move_groups_vary_brick_x_y_and_list_collapsing_moves_too() -> None:
    state = make(TOWER, bricks=5, locked=3)
    groups = legal_compact(state, 0)
    assert all(g["fields"] == ["brick", "x", "y"] for g in groups)
    expanded = expand(groups)
    assert {"type": "move", "brick": 0, "x": 4, "y": 0, "dir": "h", "orange": 0, "face": "xo"} in (
        expanded
    )  # it collapses the wall: legal, and it loses
    assert {a["brick"] for a in expanded} == {0, 1, 2, 4}  # 3 is locked


def test_a_seat_that_need_not_act_gets_no_groups() -> None:
    state = make(GROUND, to_act=1)
    assert GAME.legal_groups(state, 0) == []
    assert GAME.legal_groups(state, 1)


@pytest.mark.slow
def test_equal_bases_give_equal_legal_actions() -> None:
    """Over playouts with draw offers between the moves: states of one table whose bases
    are equal for a seat give it the same legal actions; a draw offer keeps the basis,
    a resignation changes it."""
    for options in SHAPES:
        for seed in range(3):
            states: list[State] = []
            for state in playout(GAME, 2, seed, options, bot_share=0.5).states:
                states.append(state)
                if state["result"] is None and state["draw_offer"] is None:
                    offered = play(state, {"type": "offer_draw"})
                    assert legal_basis(offered, 0) == legal_basis(state, 0)
                    states.append(offered)
                    resigned, _ = GAME.apply(state, 1 - state["to_act"], {"type": "resign"})
                    assert legal_basis(resigned, 0) != legal_basis(state, 0)
                    states.append(resigned)
            for seat in (0, 1):
                seen: dict[object, list[str]] = {}
                for state in states:
                    actions = keys(GAME.legal_actions(state, seat))
                    assert seen.setdefault(legal_basis(state, seat), actions) == actions
