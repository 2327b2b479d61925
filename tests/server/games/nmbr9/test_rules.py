"""9-tower rule tests (docs/games/nmbr9.md): shapes, the four placement conditions at their
edges, levels and scoring, golden counts of legal placements, refusals."""

from __future__ import annotations

import copy
import gc
from typing import Any

import msgpack
import pytest

from tablehub.server.games.base import BadOptions, IllegalAction, final_result
from tablehub.server.games.nmbr9 import GAME
from tablehub.server.games.nmbr9.bot import choose_placement
from tablehub.server.games.nmbr9.rules import (
    check_placement,
    layout_score,
    legal_placements,
    make_tile,
    tile_score,
)
from tablehub.server.games.nmbr9.shapes import DISTINCT_ROTATIONS, ROTATIONS, SQUARES, shape_cells
from tests.server.games.conformance import assert_refused
from tests.server.games.nmbr9.test_oracle import (
    UPRIGHT,
    brute_force,
    build,
    grid_of,
    naive_cells,
    trim,
)

# Two 9s side by side (rows y=0,1 full over x=0..7; row 2 has x=2,3 and 6,7), and two
# 0 rings below them (x=0..7, y=3..5; holes at (1,4),(2,4) and (5,4),(6,4)).
GRID = [(9, 0, 0, 1), (9, 4, 0, 1), (0, 0, 3, 1), (0, 4, 3, 1)]
# Four 9s in a row: rows y=0,1 full over x=0..15.
ROW = [(9, 0, 0, 1), (9, 4, 0, 1), (9, 8, 0, 1), (9, 12, 0, 1)]
# A level-1 "1" on GRID covering (1,0),(2,0),(3,0),(4,0),(1,1): on both 9s.
GRID_T1 = [*GRID, (1, 1, 0, 3)]
# Reaches an 8 on level 2, a 5 on level 1 and a 9 on level 0 (the seed's examples).
SCORING = [
    (9, 0, 0, 0),
    (6, -3, 0, 2),
    (8, -2, 0, 1),
    (3, -4, 2, 2),
    (3, -3, 4, 0),
    (7, -3, 1, 3),
    (8, -3, 1, 1),
    (5, -3, 4, 0),
    (9, -5, -4, 2),
]
# A 12-tile layout on levels 0-2 (a bot game), where a 1 fits on levels 0, 1 and 2.
TOWER = [
    (7, 0, 0, 0),
    (2, 1, 1, 0),
    (5, -3, 0, 0),
    (0, -1, 0, 0),
    (4, 3, 1, 0),
    (8, 2, 2, 1),
    (6, 4, -1, 2),
    (5, 4, -1, 2),
    (9, 2, 2, 1),
    (6, -3, 4, 1),
    (3, -1, 5, 1),
    (4, -3, 3, 1),
]


def refusal(tiles: list[dict[str, Any]], digit: int, x: int, y: int, rot: int) -> str:
    with pytest.raises(IllegalAction) as info:
        check_placement(tiles, digit, x, y, rot)
    assert info.value.code == "illegal_action"
    return info.value.message


# --- shapes ------------------------------------------------------------------------


def test_upright_shapes_are_the_printed_grids() -> None:
    for digit in range(10):
        assert grid_of(shape_cells(digit, 0)) == trim(UPRIGHT[digit])


def test_square_counts_match_the_printed_table() -> None:
    assert SQUARES == {0: 10, 1: 5, 2: 9, 3: 9, 4: 8, 5: 10, 6: 9, 7: 7, 8: 8, 9: 10}
    assert sum(SQUARES.values()) == 85
    for digit in range(10):
        for rot in range(4):
            assert len(ROTATIONS[digit][rot]) == SQUARES[digit]


def test_rotations_of_1_and_7_literally() -> None:
    assert [grid_of(shape_cells(1, r)) for r in range(4)] == [
        ["##", ".#", ".#", ".#"],
        ["...#", "####"],
        ["#.", "#.", "#.", "##"],
        ["####", "#..."],
    ]
    assert [grid_of(shape_cells(7, r)) for r in range(4)] == [
        ["###", ".#.", "##.", "#.."],
        ["##.#", ".###", "...#"],
        ["..#", ".##", ".#.", "###"],
        ["#...", "###.", "#.##"],
    ]


def test_rotations_are_normalised_and_distinct_counts() -> None:
    for digit in range(10):
        for rot in range(4):
            cells = shape_cells(digit, rot)
            assert min(x for x, _ in cells) == 0 and min(y for _, y in cells) == 0
            width = max(x for x, _ in cells) + 1
            height = max(y for _, y in cells) + 1
            box = (3, 4) if rot % 2 == 0 else (4, 3)
            assert width <= box[0] and height <= box[1]
        distinct = {ROTATIONS[digit][r] for r in range(4)}
        assert len(distinct) == (2 if digit in (0, 8) else 4)
        assert DISTINCT_ROTATIONS[digit] == ((0, 1) if digit in (0, 8) else (0, 1, 2, 3))


def test_only_zero_equals_its_mirror_image() -> None:
    # So forbidding mirrors matters for every other digit: no rotation reaches the mirror.
    for digit in range(10):
        mirror = grid_of([(2 - x, y) for x, y in naive_cells(digit, 0, 0, 0)])
        reachable = [trim(grid_of(shape_cells(digit, r))) for r in range(4)]
        assert (trim(mirror) in reachable) == (digit == 0)


# --- placement conditions -------------------------------------------------------------


def test_first_tile_goes_anywhere_on_level_0() -> None:
    assert check_placement([], 7, -1000, 1000, 3) == 0
    assert check_placement([], 0, 1000, -1000, 1) == 0
    assert check_placement([], 9, 0, 0, 0) == 0


def test_level_0_needs_edge_contact_not_a_corner() -> None:
    tiles = build([(0, 0, 0, 0)])  # ring over x=0..2, y=0..3
    assert check_placement(tiles, 1, 3, 0, 0) == 0  # (3,0) shares an edge with (2,0)
    message = refusal(tiles, 1, 3, 4, 0)  # (3,4) only meets (2,3) at a corner
    assert message == "tile on level 0 must touch your layout along an edge (corners do not count)"
    assert "must touch your layout" in refusal(tiles, 1, 4, 0, 0)  # one cell apart


def test_level_0_tile_may_not_overlap() -> None:
    tiles = build([(0, 0, 0, 0)])
    message = refusal(tiles, 1, 2, 0, 0)  # (2,0) is on the 0, (3,0) on the table
    assert message.startswith("square (3,0) would overhang: nothing under it on level 0")
    assert "(2,0)" in message


def test_new_level_opener_is_exempt_from_contact_but_not_from_support() -> None:
    tiles = build(GRID)
    # Opens level 1 over both 9s: no level-1 tile to touch, two supports.
    assert check_placement(tiles, 1, 1, 0, 3) == 1
    # Same shape entirely on the first 9: one support.
    assert refusal(tiles, 1, 0, 0, 3) == (
        "a level-1 tile must rest on at least two different tiles "
        "(all squares are on the 9 placed in round 1)"
    )


def test_full_support_versus_one_overhanging_square() -> None:
    tiles = build(ROW)
    assert check_placement(tiles, 1, 2, 0, 1) == 1  # (5,0),(2..5,1): fully on the 9s
    message = refusal(tiles, 1, 13, 0, 1)  # (16,0),(13..16,1): x=16 is past the last 9
    assert message == (
        "square (16,0) would overhang: nothing under it on level 0 "
        "(the square at (13,1) lifts the tile to level 1)"
    )


def test_bridging_a_gap_or_a_hole_is_an_overhang() -> None:
    tiles = build(GRID)
    # Row y=2 is supported at x=2,3 and 6,7 only: a bar from (3,2) to (6,2) bridges a gap.
    message = refusal(tiles, 1, 3, 1, 1)  # cells (6,1),(3,2),(4,2),(5,2),(6,2)
    assert message.startswith("square (4,2) would overhang: nothing under it on level 0")
    # The ring's hole at (1,4),(2,4).
    message = refusal(tiles, 1, 0, 3, 1)  # cells (3,3),(0,4),(1,4),(2,4),(3,4)
    assert message.startswith("square (1,4) would overhang: nothing under it on level 0")


def test_two_supports_versus_one() -> None:
    tiles = build(ROW)
    assert check_placement(tiles, 1, 2, 0, 1) == 1  # on the 9s of rounds 1 and 2
    # (4..7,0),(4,1): fully supported, but all by the 9 of round 2.
    assert refusal(tiles, 1, 4, 0, 3) == (
        "a level-1 tile must rest on at least two different tiles "
        "(all squares are on the 9 placed in round 2)"
    )


def test_uneven_heights_are_refused() -> None:
    tiles = build(GRID_T1)  # height 2 at (1..4,0),(1,1); height 1 around it
    assert refusal(tiles, 1, 0, 0, 3) == (
        "tile would rest on uneven heights (level 0 at (0,0), level 1 at (1,0))"
    )
    # Height 2 and bare table under one tile: an overhang from level 2's point of view.
    message = refusal(tiles, 1, 0, 0, 0)  # (0,0) h1, (1,0),(1,1) h2, (1,2) h0
    assert message.startswith("square (1,2) would overhang: nothing under it on level 1")


def test_same_level_contact_on_upper_levels() -> None:
    tiles = build([*ROW, (1, 2, 0, 1)])  # level-1 bar on (5,0),(2..5,1)
    # A second level-1 tile far away: two supports but no level-1 neighbour.
    assert refusal(tiles, 1, 10, 0, 1) == (
        "tile on level 1 must touch another level-1 tile along an edge (corners do not count)"
    )
    # Next to it: (6,1) touches (5,1).
    assert check_placement(tiles, 1, 6, 0, 1) == 1


def test_corner_only_contact_on_level_1_is_refused() -> None:
    tiles = build(GRID_T1)
    # (2,2),(3,2) on a 9, (3,3..5) on a 0; (2,2) meets the level-1 (1,1) at a corner only.
    message = refusal(tiles, 1, 2, 2, 0)
    assert message.startswith("tile on level 1 must touch another level-1 tile")


def test_levels_and_scores_follow_the_seed_examples() -> None:
    tiles = build(SCORING)
    assert [t["level"] for t in tiles] == [0, 0, 1, 0, 0, 1, 2, 1, 0]
    eight, five, nine = tiles[6], tiles[7], tiles[8]
    assert (eight["digit"], eight["level"], tile_score(eight)) == (8, 2, 16)
    assert (five["digit"], five["level"], tile_score(five)) == (5, 1, 5)
    assert (nine["digit"], nine["level"], tile_score(nine)) == (9, 0, 0)
    assert layout_score(tiles) == 8 * 1 + 7 * 1 + 8 * 2 + 5 * 1


def test_tile_cells_follow_rotation_and_offset() -> None:
    tile = make_tile(1, -2, 5, 1, 0)
    assert tile == {
        "digit": 1,
        "x": -2,
        "y": 5,
        "rot": 1,
        "level": 0,
        "cells": ((1, 5), (-2, 6), (-1, 6), (0, 6), (1, 6)),
    }


def test_a_layout_is_no_work_for_the_garbage_collector() -> None:
    """Tiles hold only ints and tuples: once the collector has seen them (a pass per
    level of nesting) it stops tracking them, so full collections do not walk every
    player's layout."""
    tiles = [make_tile(d, 3 * d, 0, 0, 0) for d in range(10)]
    for _ in range(3):
        gc.collect()
    assert not any(gc.is_tracked(t["cells"]) or gc.is_tracked(t) for t in tiles)


def test_tiles_read_back_from_the_store_get_their_engine_form() -> None:
    game = GAME
    state = game.setup({}, 2, 5)
    for _ in range(6):
        seat = game.status(state)["to_act"][0]
        state, _ = game.apply(state, seat, game.legal_actions(state, seat)[0])
    decoded = msgpack.unpackb(msgpack.packb(state))
    assert decoded != state  # the store's arrays come back as lists
    assert game.restored(decoded) == state


# --- golden counts (perft-style) --------------------------------------------------------

GOLDEN = [
    ("one 9", [(9, 0, 0, 0)], 7, 84, {0: 84}),
    ("grid", GRID, 1, 167, {0: 141, 1: 26}),
    ("grid + level 1", GRID_T1, 4, 146, {0: 144, 1: 2}),
    ("scoring", SCORING, 0, 88, {0: 88}),
    ("tower", TOWER, 1, 169, {0: 166, 1: 1, 2: 2}),
    ("tower", TOWER, 8, 83, {0: 83}),
]


@pytest.mark.parametrize(("name", "specs", "digit", "total", "per_level"), GOLDEN)
def test_golden_counts(
    name: str, specs: list[Any], digit: int, total: int, per_level: dict[int, int]
) -> None:
    tiles = build(specs)
    legal = legal_placements(tiles, digit)
    assert len(legal) == total
    counts: dict[int, int] = {}
    for level, *_ in legal:
        counts[level] = counts.get(level, 0) + 1
    assert counts == per_level
    # The naive oracle finds exactly the same placements (as covered-cell sets).
    fast = {
        (level, frozenset((x + dx, y + dy) for dx, dy in shape_cells(digit, rot)))
        for level, rot, x, y in legal
    }
    assert len(fast) == total  # deduplicated
    assert brute_force(tiles, digit) == fast
    # And apply's checker agrees with every listed level.
    for level, rot, x, y in legal:
        assert check_placement(tiles, digit, x, y, rot) == level


def test_legal_placements_order_is_deterministic_and_highest_first() -> None:
    tiles = build(TOWER)
    legal = legal_placements(tiles, 1)
    assert legal == legal_placements(copy.deepcopy(tiles), 1)
    assert [p[0] for p in legal[:3]] == [2, 2, 1]
    assert legal == sorted(legal, key=lambda p: (-p[0], p[3], p[2], p[1]))


def test_empty_layout_lists_one_placement_per_distinct_rotation() -> None:
    assert legal_placements([], 7) == [(0, r, 0, 0) for r in range(4)]
    assert legal_placements([], 8) == [(0, 0, 0, 0), (0, 1, 0, 0)]


def test_legal_placements_respect_the_coordinate_bound() -> None:
    tiles = build([(1, 1000, 1000, 0)])
    legal = legal_placements(tiles, 1)
    assert legal
    assert all(-1000 <= x <= 1000 and -1000 <= y <= 1000 for _, _, x, y in legal)


def test_bot_prefers_points_now() -> None:
    tiles = build(TOWER)
    level, rot, x, y = choose_placement(tiles, 1)
    assert level == 2
    assert check_placement(tiles, 1, x, y, rot) == 2


# --- engine: setup, refusals, rounds ---------------------------------------------------


def fresh(seats: int = 2, seed: int = 5, **options: Any) -> dict[str, Any]:
    return GAME.setup(GAME.validate_options(options), seats, seed)


def with_deck(state: dict[str, Any], deck: list[int]) -> dict[str, Any]:
    """Test-only: force the card order (keeping two of each digit)."""
    assert sorted(deck) == sorted(state["deck"])
    return {**state, "deck": list(deck)}


def test_seat_counts_and_options() -> None:
    assert GAME.seat_limit({"tournament": False}) == 4
    assert GAME.seat_limit({"tournament": True}) == 1000
    fresh(1)
    fresh(4)
    fresh(1000, tournament=True)
    for seats, options in ((0, {}), (5, {}), (1001, {"tournament": True})):
        with pytest.raises(BadOptions):
            fresh(seats, **options)
    with pytest.raises(BadOptions):
        GAME.validate_options({"tournament": "yes"})
    with pytest.raises(BadOptions):
        GAME.validate_options({"rounds": 3})


def test_deck_is_two_of_each_digit_and_seeded() -> None:
    state = fresh(2, seed=11)
    assert sorted(state["deck"]) == sorted(list(range(10)) * 2)
    assert fresh(2, seed=11)["deck"] == state["deck"]
    assert any(fresh(2, seed=s)["deck"] != state["deck"] for s in range(12, 20))


def test_view_shows_card_and_counts_but_not_the_order() -> None:
    deck = [9, 6, 8, 3, 3, 7, 8, 5, 9, 0, 0, 1, 1, 2, 2, 4, 4, 5, 6, 7]
    state = with_deck(fresh(2), deck)
    board = GAME.view(state, 0)
    assert board["round"] == 1 and board["card"] == 9 and board["rounds"] == 20
    assert board["remaining"] == [2, 2, 2, 2, 2, 2, 2, 2, 2, 1]  # one 9 is face up
    assert board == GAME.view(state, None) == GAME.view(state, 1)
    assert "deck" not in board and "rng" not in board
    assert board["players"] == [
        {"tiles": [], "score": 0, "resigned": False, "placed": False} for _ in range(2)
    ]


def test_a_round_is_simultaneous_and_ends_when_all_placed() -> None:
    deck = [9, 6, 8, 3, 3, 7, 8, 5, 9, 0, 0, 1, 1, 2, 2, 4, 4, 5, 6, 7]
    state = with_deck(fresh(3), deck)
    assert GAME.status(state) == {
        "phase": "place",
        "to_act": [0, 1, 2],
        "turn": 1,
        "finished": False,
        "result": None,
    }
    state, events = GAME.apply(state, 1, {"type": "place", "x": 0, "y": 0, "rot": 0})
    assert events == [
        {
            "type": "placed",
            "seat": 1,
            "round": 1,
            "digit": 9,
            "x": 0,
            "y": 0,
            "rot": 0,
            "level": 0,
            "score": 0,
        }
    ]
    assert GAME.status(state)["to_act"] == [0, 2]
    assert GAME.view(state, None)["players"][1]["placed"] is True
    assert GAME.legal_actions(state, 1) == []
    assert_refused(
        GAME,
        state,
        1,
        {"type": "place", "x": 5, "y": 5, "rot": 0},
        "not_your_turn",
        "already placed your tile in round 1",
    )
    state, _ = GAME.apply(state, 0, {"type": "place", "x": 50, "y": 50, "rot": 2})
    state, events = GAME.apply(state, 2, {"type": "place", "x": -3, "y": 0, "rot": 1})
    assert events[-1] == {"type": "card", "round": 2, "digit": 6}
    status = GAME.status(state)
    assert status["turn"] == 2 and status["to_act"] == [0, 1, 2]
    assert GAME.view(state, None)["card"] == 6


def test_full_game_with_the_seed_scoring_examples() -> None:
    deck = [9, 6, 8, 3, 3, 7, 8, 5, 9, 0, 0, 1, 1, 2, 2, 4, 4, 5, 6, 7]
    state = with_deck(fresh(1), deck)
    for digit, x, y, rot in SCORING:
        assert GAME.view(state, None)["card"] == digit
        state, _ = GAME.apply(state, 0, {"type": "place", "x": x, "y": y, "rot": rot})
    assert state["players"][0]["score"] == 36
    while not GAME.status(state)["finished"]:
        state, _ = GAME.apply(state, 0, GAME.bot_action(state, 0))
    status = GAME.status(state)
    tiles = state["players"][0]["tiles"]
    assert [t["digit"] for t in tiles] == deck
    assert status["result"] == {
        "scores": [layout_score(tiles)],
        "winners": [0],
        "reason": "all 20 cards were played",
    }
    assert status["turn"] == 20 and status["to_act"] == []
    board = GAME.view(state, None)
    assert board["finished"] is True and board["winners"] == [0]
    assert board["remaining"] == [0] * 10
    assert_refused(GAME, state, 0, {"type": "place", "x": 0, "y": 0, "rot": 0}, "not_your_turn")
    assert_refused(GAME, state, 0, {"type": "resign"}, "not_your_turn", "finished")
    assert GAME.legal_actions(state, 0) == []


def test_ties_share_the_win() -> None:
    state = fresh(2, seed=3)
    while not GAME.status(state)["finished"]:
        seat = GAME.status(state)["to_act"][0]
        state, _ = GAME.apply(state, seat, GAME.fast_bot_move(state, seat))
    result = final_result(GAME.status(state))
    assert result["scores"][0] == result["scores"][1]  # same deck, same bot
    assert result["winners"] == [0, 1]


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ("place", "must be a map"),
        ({}, "'type'"),
        ({"type": 3}, "'type'"),
        ({"type": "pass"}, "unknown action type 'pass'"),
        ({"type": "place", "y": 0, "rot": 0}, "'x'"),
        ({"type": "place", "x": True, "y": 0, "rot": 0}, "'x'"),
        ({"type": "place", "x": 1.0, "y": 0, "rot": 0}, "'x'"),
        ({"type": "place", "x": 0, "y": "0", "rot": 0}, "'y'"),
        ({"type": "place", "x": 1001, "y": 0, "rot": 0}, "at most 1000"),
        ({"type": "place", "x": 0, "y": -1001, "rot": 0}, "at least -1000"),
        ({"type": "place", "x": 0, "y": 0, "rot": 4}, "'rot'"),
        ({"type": "place", "x": 0, "y": 0, "rot": -1}, "'rot'"),
        ({"type": "place", "x": 0, "y": 0}, "'rot'"),
    ],
)
def test_malformed_actions_are_bad_action(action: Any, fragment: str) -> None:
    assert_refused(GAME, fresh(2), 0, action, "bad_action", fragment)


def test_illegal_placement_is_refused_with_the_reason() -> None:
    deck = [9, 9, 8, 3, 3, 7, 8, 5, 6, 0, 0, 1, 1, 2, 2, 4, 4, 5, 6, 7]
    state = with_deck(fresh(1), deck)
    state, _ = GAME.apply(state, 0, {"type": "place", "x": 0, "y": 0, "rot": 0})
    assert_refused(
        GAME,
        state,
        0,
        {"type": "place", "x": 5, "y": 5, "rot": 0},
        "illegal_action",
        "tile on level 0 must touch your layout along an edge",
    )
    assert_refused(
        GAME,
        state,
        0,
        {"type": "place", "x": 0, "y": 0, "rot": 0},
        "illegal_action",
        "a level-1 tile must rest on at least two different tiles",
    )


def test_unknown_seat_is_refused() -> None:
    assert_refused(GAME, fresh(2), 2, {"type": "resign"}, "not_your_turn", "no seat 3")
    assert GAME.legal_actions(fresh(2), 7) == []


def test_rotation_2_of_an_8_is_stored_as_rotation_0() -> None:
    deck = [8, 8, 9, 3, 3, 7, 0, 5, 6, 0, 9, 1, 1, 2, 2, 4, 4, 5, 6, 7]
    state = with_deck(fresh(1), deck)
    state, events = GAME.apply(state, 0, {"type": "place", "x": 1, "y": 1, "rot": 2})
    tile = state["players"][0]["tiles"][0]
    assert tile["rot"] == 0 and events[0]["rot"] == 0
    assert tile["cells"] == make_tile(8, 1, 1, 0, 0)["cells"]


# --- resign -------------------------------------------------------------------------


def test_resign_before_placing_lets_the_round_end_without_that_seat() -> None:
    state = fresh(2)
    state, events = GAME.apply(state, 1, {"type": "resign"})
    assert events == [{"type": "resigned", "seat": 1}]
    assert GAME.status(state)["to_act"] == [0]
    assert_refused(GAME, state, 1, {"type": "resign"}, "not_your_turn", "resigned")
    assert_refused(GAME, state, 1, {"type": "place", "x": 0, "y": 0, "rot": 0}, "not_your_turn")
    assert GAME.legal_actions(state, 1) == []
    with pytest.raises(IllegalAction):
        GAME.bot_action(state, 1)
    state, events = GAME.apply(state, 0, GAME.bot_action(state, 0))
    assert events[-1]["type"] == "card" and GAME.status(state)["to_act"] == [0]
    while not GAME.status(state)["finished"]:
        state, _ = GAME.apply(state, 0, GAME.bot_action(state, 0))
    result = final_result(GAME.status(state))
    assert result["winners"] == [0]
    assert result["scores"][1] == 0
    assert GAME.view(state, None)["players"][1]["resigned"] is True


def test_resign_after_placing_keeps_the_tile_and_the_round_waits_for_the_rest() -> None:
    state = fresh(3)
    state, _ = GAME.apply(state, 0, GAME.bot_action(state, 0))
    state, _ = GAME.apply(state, 0, {"type": "resign"})
    assert GAME.status(state)["to_act"] == [1, 2]
    assert len(GAME.view(state, None)["players"][0]["tiles"]) == 1
    state, _ = GAME.apply(state, 1, GAME.bot_action(state, 1))
    assert GAME.status(state)["turn"] == 1
    state, _ = GAME.apply(state, 2, {"type": "resign"})  # the last one to place resigns
    status = GAME.status(state)
    assert status["turn"] == 2 and status["to_act"] == [1]


def test_when_everyone_resigns_the_game_ends_without_winner() -> None:
    state = fresh(2)
    state, _ = GAME.apply(state, 0, {"type": "resign"})
    state, events = GAME.apply(state, 1, {"type": "resign"})
    assert events[-1] == {"type": "finished", "scores": [0, 0], "winners": []}
    status = GAME.status(state)
    assert status["finished"] and final_result(status)["winners"] == []
    assert final_result(status)["reason"] == "every player resigned"


# --- big tables -----------------------------------------------------------------------


def test_apply_on_a_1000_seat_table_copies_only_the_acting_seat() -> None:
    state = fresh(1000, tournament=True)
    before = copy.deepcopy(state)
    new, _ = GAME.apply(state, 437, GAME.bot_action(state, 437))
    assert state == before
    assert new["players"] is not state["players"]
    assert new["players"][437] is not state["players"][437]
    assert all(new["players"][s] is state["players"][s] for s in range(1000) if s != 437)
    assert new["deck"] is state["deck"]
    assert len(GAME.status(new)["to_act"]) == 999


def test_solo_game_plays_to_the_end() -> None:
    state = fresh(1, seed=99)
    rounds = 0
    while not GAME.status(state)["finished"]:
        assert GAME.status(state)["to_act"] == [0]
        state, _ = GAME.apply(state, 0, GAME.bot_action(state, 0))
        rounds += 1
    assert rounds == 20
    assert final_result(GAME.status(state))["winners"] == [0]


def test_help_mentions_the_house_rules() -> None:
    assert "resign" in GAME.help.lower() and "tournament" in GAME.help
    assert GAME.public_view is True
    assert GAME.describe()["options"]["tournament"]["default"] is False
