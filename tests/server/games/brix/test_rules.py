"""Scenario tests for the wall duel, one per rule at its edge (docs/games/brix.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.server.games.base import BadOptions, IllegalAction, State, final_result
from tablehub.server.games.brix import GAME
from tests.server.games.conformance import assert_refused

Spec = tuple[int, int, str, int, str]  # x, y, dir, orange, face


def make(
    specs: list[Spec],
    *,
    mode: str = "symbols",
    bricks: int = 36,
    to_act: int = 0,
    locked: int | None = None,
    move_limit: int = 0,
) -> State:
    """A state with these bricks already in the wall (no rule checks)."""
    state = GAME.setup(
        GAME.validate_options({"mode": mode, "bricks": bricks, "move_limit": move_limit}), 2, 7
    )
    state["bricks"] = [
        {"id": i, "x": x, "y": y, "dir": d, "orange": o, "face": f, "by": i % 2}
        for i, (x, y, d, o, f) in enumerate(specs)
    ]
    state["supply"] = bricks - len(specs)
    state["to_act"] = to_act
    state["turn"] = len(specs)
    state["locked"] = locked
    return state


def place(x: int, y: int, d: str, orange: int = 0, face: str = "xo") -> dict[str, Any]:
    return {"type": "place", "x": x, "y": y, "dir": d, "orange": orange, "face": face}


def move(brick: int, x: int, y: int, d: str, orange: int = 0, face: str = "xo") -> dict[str, Any]:
    return {**place(x, y, d, orange, face), "type": "move", "brick": brick}


def play(state: State, *actions: dict[str, Any]) -> State:
    for action in actions:
        state, _ = GAME.apply(state, state["to_act"], action)
    return state


def mirror(specs: list[Spec], width: int) -> list[Spec]:
    """The same bricks mirrored left-right within columns 0..width-1."""
    out: list[Spec] = []
    for x, y, d, o, f in specs:
        if d == "h":
            out.append((width - 2 - x, y, d, 1 - o, f))
        else:
            out.append((width - 1 - x, y, d, o, f))
    return out


# -- setup and options ----------------------------------------------------------------


def test_setup_defaults_and_seat_zero_starts() -> None:
    state = GAME.setup(GAME.validate_options({}), 2, 1)
    status = GAME.status(state)
    assert status == {
        "phase": "place",
        "to_act": [0],
        "turn": 0,
        "finished": False,
        "result": None,
    }
    assert state["supply"] == 36
    assert state["targets"] == [["X"], ["O"]]


@pytest.mark.parametrize(
    ("mode", "targets"),
    [
        ("symbols", [["X"], ["O"]]),
        ("colors", [["orange"], ["blue"]]),
        ("symbols_vs_colors", [["X", "O"], ["orange", "blue"]]),
    ],
)
def test_modes_give_targets(mode: str, targets: list[list[str]]) -> None:
    state = GAME.setup(GAME.validate_options({"mode": mode}), 2, 1)
    assert GAME.view(state, None)["targets"] == targets


def test_bad_options_and_seat_count() -> None:
    with pytest.raises(BadOptions):
        GAME.validate_options({"bricks": 3})
    with pytest.raises(BadOptions):
        GAME.validate_options({"mode": "shapes"})
    with pytest.raises(BadOptions):
        GAME.setup(GAME.validate_options({}), 3, 1)


# -- placing --------------------------------------------------------------------------


def test_first_brick_lies_on_the_ground_within_columns_0_to_7() -> None:
    state = make([])
    assert len(GAME.legal_actions(state, 0)) == 15 * 4  # 7 h + 8 v positions, 4 faces
    assert_refused(GAME, state, 0, place(7, 0, "h"), "illegal_action", "columns 0..7")
    assert_refused(GAME, state, 0, place(-1, 0, "v"), "illegal_action", "columns 0..7")
    assert_refused(GAME, state, 0, place(3, 1, "v"), "illegal_action", "hang")
    new = play(state, place(6, 0, "h"))
    assert [b["x"] for b in new["bricks"]] == [6]


def test_width_eight_accepted_nine_refused() -> None:
    wall = make([(0, 0, "h", 0, "xo"), (2, 0, "h", 0, "ox"), (4, 0, "h", 0, "xo")])
    play(wall, place(6, 0, "h"))  # columns 0..7: 8 wide
    play(wall, place(-2, 0, "h"))  # columns -2..5: 8 wide, growing left
    wider = make([*wall_specs(wall), (6, 0, "v", 0, "xo")])
    play(wider, place(7, 0, "v"))  # columns 0..7
    play(wider, place(-1, 0, "v"))  # columns -1..6
    assert_refused(GAME, wider, 0, place(7, 0, "h"), "illegal_action", "9 cells wide")
    assert_refused(GAME, wider, 0, place(-2, 0, "h"), "illegal_action", "limit is 8")


def wall_specs(state: State) -> list[Spec]:
    return [(b["x"], b["y"], b["dir"], b["orange"], b["face"]) for b in state["bricks"]]


def test_unsupported_cell_refused() -> None:
    state = make([(0, 0, "h", 0, "xo")])
    err = assert_refused(GAME, state, 0, place(1, 1, "h"), "illegal_action", "hang")
    assert "(2,1)" in err.message and "(2,0)" in err.message
    play(state, place(0, 1, "h"))  # both cells rest on the brick below
    play(state, place(1, 1, "v"))  # the upper cube rests on its own lower cube


def test_corner_only_contact_refused_edge_contact_accepted() -> None:
    state = make([(0, 0, "h", 0, "xo")])
    assert_refused(GAME, state, 0, place(2, 1, "v"), "illegal_action", "only at a corner")
    assert_refused(GAME, state, 0, place(3, 0, "h"), "illegal_action", "not touch")
    play(state, place(2, 0, "v"))  # shares the edge (1,0)|(2,0)


def test_occupied_cell_refused() -> None:
    state = make([(0, 0, "h", 0, "xo")])
    assert_refused(GAME, state, 0, place(1, 0, "v"), "illegal_action", "taken by brick 0")


def test_legal_placements_after_one_brick() -> None:
    state = make([(0, 0, "h", 0, "xo")], to_act=1)
    cells = {(a["x"], a["y"], a["dir"]) for a in GAME.legal_actions(state, 1)}
    assert cells == {
        (-2, 0, "h"),
        (-1, 0, "v"),
        (2, 0, "h"),
        (2, 0, "v"),
        (0, 1, "h"),
        (0, 1, "v"),
        (1, 1, "v"),
    }
    assert len(GAME.legal_actions(state, 1)) == 7 * 4
    assert GAME.legal_actions(state, 0) == []


def test_face_variants_in_view() -> None:
    state = make([(0, 0, "h", 0, "xo"), (2, 0, "h", 1, "xo"), (4, 0, "v", 0, "ox")])
    state = play(state, place(5, 0, "v", 1, "ox"))
    cells = GAME.view(state, None)["cells"]
    assert cells["0,0"] == {"color": "orange", "mark": "X", "brick": 0}
    assert cells["1,0"] == {"color": "blue", "mark": "O", "brick": 0}
    assert cells["2,0"] == {"color": "blue", "mark": "O", "brick": 1}
    assert cells["3,0"] == {"color": "orange", "mark": "X", "brick": 1}
    assert cells["4,0"] == {"color": "orange", "mark": "O", "brick": 2}
    assert cells["4,1"] == {"color": "blue", "mark": "X", "brick": 2}
    assert cells["5,0"] == {"color": "blue", "mark": "X", "brick": 3}
    assert cells["5,1"] == {"color": "orange", "mark": "O", "brick": 3}


# -- winning --------------------------------------------------------------------------

# Seat 0 (X) completes (0,0) (1,1) (2,2) (3,3) with a vertical brick at (3,3).
DIAGONAL: list[Spec] = [
    (0, 0, "h", 0, "xo"),  # (0,0) X  (1,0) O
    (1, 1, "v", 0, "xo"),  # (1,1) X  (1,2) O
    (2, 0, "h", 0, "ox"),  # (2,0) O  (3,0) X
    (2, 1, "v", 1, "xo"),  # (2,1) O  (2,2) X
    (3, 1, "v", 0, "ox"),  # (3,1) O  (3,2) X
]


@pytest.mark.parametrize("mirrored", [False, True], ids=["rising", "falling"])
def test_diagonal_four_wins(mirrored: bool) -> None:
    specs = mirror(DIAGONAL, 4) if mirrored else DIAGONAL
    x = 0 if mirrored else 3
    state = make(specs)
    assert GAME.status(state)["finished"] is False
    state, events = GAME.apply(state, 0, place(x, 3, "v", 0, "xo"))
    status = GAME.status(state)
    assert status["finished"] and status["result"] == {
        "scores": [1, 0],
        "winners": [0],
        "reason": "four_in_line",
    }
    expected = [[0, 3], [1, 2], [2, 1], [3, 0]] if mirrored else [[0, 0], [1, 1], [2, 2], [3, 3]]
    assert state["lines"] == [{"value": "X", "seat": 0, "cells": expected}]
    assert [e["type"] for e in events] == ["place", "line", "game_over"]
    assert GAME.legal_actions(state, 1) == []
    assert_refused(GAME, state, 1, place(0, 2, "v"), "not_your_turn", "over")


def test_three_in_a_diagonal_is_not_a_line() -> None:
    state = play(make(DIAGONAL), place(3, 3, "v", 0, "ox"))  # (3,3) shows O
    assert GAME.status(state)["finished"] is False


# Columns 0..2 hold X at row 0 and O at row 1; a vertical brick at column 3 can make both.
DOUBLE: list[Spec] = [(0, 0, "v", 0, "xo"), (1, 0, "v", 0, "xo"), (2, 0, "v", 0, "xo")]


@pytest.mark.parametrize("mover", [0, 1])
def test_lines_for_both_the_mover_wins(mover: int) -> None:
    state = make(DOUBLE, to_act=mover)
    state, _ = GAME.apply(state, mover, place(3, 0, "v", 0, "xo"))
    result = final_result(GAME.status(state))
    assert result["winners"] == [mover] and result["reason"] == "both_lines"
    assert {(line["value"], line["seat"]) for line in state["lines"]} == {("X", 0), ("O", 1)}


def test_line_for_the_opponent_only_the_opponent_wins() -> None:
    state = make(DOUBLE, to_act=1)
    state, _ = GAME.apply(state, 1, place(3, 0, "h", 0, "xo"))  # (3,0) X (4,0) O
    result = final_result(GAME.status(state))
    assert result == {"scores": [1, 0], "winners": [0], "reason": "opponent_line"}


@pytest.mark.parametrize(
    ("mode", "face", "winner"),
    [
        ("colors", "xo", 0),  # row 0 is orange: seat 0's colour
        ("symbols_vs_colors", "ox", 1),  # orange row for seat 1, marks mixed
        ("symbols_vs_colors", "xo", 0),  # X row and orange row: the mover (0) wins
    ],
)
def test_colour_lines(mode: str, face: str, winner: int) -> None:
    state = make([(0, 0, "v", 0, face), (1, 0, "v", 0, "xo"), (2, 0, "v", 0, face)], mode=mode)
    state, _ = GAME.apply(state, 0, place(3, 0, "h", 0, "xo"))
    assert final_result(GAME.status(state))["winners"] == [winner]


# -- move phase -----------------------------------------------------------------------

GROUND: list[Spec] = [(0, 0, "h", 0, "xo"), (2, 0, "h", 0, "xo"), (4, 0, "h", 0, "xo")]


def test_move_phase_starts_when_supply_is_empty() -> None:
    state = make(GROUND, bricks=4)
    state = play(state, place(6, 0, "h"))
    assert GAME.status(state)["phase"] == "move"
    assert GAME.view(state, None)["locked"] == 3
    assert_refused(GAME, state, 1, place(0, 1, "h"), "illegal_action", "supply is empty")
    actions = GAME.legal_actions(state, 1)
    assert actions and all(a["type"] == "move" for a in actions)
    assert {a["brick"] for a in actions} == {0, 1, 2}


def test_move_in_place_phase_refused() -> None:
    state = make(GROUND)
    assert_refused(GAME, state, 0, move(0, 0, 1, "h"), "illegal_action", "place one")


def test_brick_just_played_cannot_be_taken() -> None:
    state = play(make(GROUND, bricks=4), place(6, 0, "h"))
    assert_refused(GAME, state, 1, move(3, 0, 1, "h"), "illegal_action", "just played")
    state = play(state, move(0, 2, 1, "h"))  # seat 1 moves brick 0 on top of brick 1
    assert state["locked"] == 0
    assert_refused(GAME, state, 0, move(0, 4, 1, "h"), "illegal_action", "brick 0")
    state = play(state, move(3, 4, 1, "h"))  # seat 0 may now take brick 3
    assert state["bricks"][3]["x"] == 4 and state["bricks"][3]["y"] == 1


def test_move_must_change_cells_and_brick_must_exist() -> None:
    state = play(make(GROUND, bricks=4), place(6, 0, "h"))
    assert_refused(GAME, state, 1, move(1, 2, 0, "h", 1, "ox"), "illegal_action", "different")
    assert_refused(GAME, state, 1, move(9, 0, 1, "h"), "illegal_action", "no brick 9")
    assert_refused(GAME, state, 1, move(0, 7, 1, "h"), "illegal_action", "hang")
    # Partial overlap with its own old cells is a different position.
    moved = play(state, move(2, 5, 0, "v"))
    assert moved["bricks"][2] == {
        "id": 2,
        "x": 5,
        "y": 0,
        "dir": "v",
        "orange": 0,
        "face": "xo",
        "by": 1,
    }


def test_moved_brick_follows_placement_rules_on_the_wall_without_it() -> None:
    # Brick 0 is the only support of (1,0)'s edge for a brick at (-1,0): without it the
    # wall starts at column 2, so (-1,0) no longer touches anything.
    state = play(make(GROUND, bricks=4), place(6, 0, "h"))
    assert_refused(GAME, state, 1, move(0, -2, 0, "h"), "illegal_action", "not touch")
    # Width is judged on the wall without the brick: columns 2..7 plus 8..9 is 8 wide.
    state2 = play(state, move(0, 8, 0, "h"))
    assert GAME.view(state2, None)["columns"] == [2, 9]


# Row 0: O X X X at columns 0..3 (vertical bricks, row 1 shows X O O O), and a
# horizontal brick on top of columns 0..1.
TOWER: list[Spec] = [
    (0, 0, "v", 0, "ox"),
    (1, 0, "v", 0, "xo"),
    (2, 0, "v", 0, "xo"),
    (3, 0, "v", 0, "xo"),
    (0, 2, "h", 0, "xo"),
]


def test_removing_a_support_collapses_and_the_mover_loses() -> None:
    state = make(TOWER, bricks=5, locked=3)
    assert GAME.status(state)["phase"] == "move"
    collapsing = move(0, 4, 0, "h")  # would make X X X X on row 0 -- still a collapse
    legal = GAME.legal_actions(state, 0)
    assert collapsing in legal  # legal, and it loses
    assert {a["brick"] for a in legal} == {0, 1, 2, 4}  # 3 is locked
    # Safe moves first: 0 and 1 carry brick 4, so their moves come last.
    bricks = [a["brick"] for a in legal]
    assert set(bricks[: bricks.index(0)]) == {2, 4}
    state, events = GAME.apply(state, 0, collapsing)
    assert GAME.status(state)["result"] == {
        "scores": [0, 1],
        "winners": [1],
        "reason": "collapse",
    }
    assert state["last"]["collapse"] == [[0, 2]]
    assert state["lines"] == []
    assert [e["type"] for e in events] == ["move", "collapse", "game_over"]


def test_refilling_the_gap_does_not_save_the_wall() -> None:
    # Brick 0 carries brick 2 at (0,1); put back at (-1,0)+(0,0) it would hold it again,
    # but taking it out already brought the wall down.
    specs: list[Spec] = [(0, 0, "h", 0, "xo"), (2, 0, "v", 0, "xo"), (0, 1, "v", 0, "ox")]
    state = make([*specs, (3, 0, "v", 1, "xo")], bricks=4, locked=1)
    state = play(state, move(0, -1, 0, "h"))
    assert final_result(GAME.status(state))["reason"] == "collapse"
    assert state["last"]["collapse"] == [[0, 1]]


def test_collapsing_move_with_a_bad_destination_is_refused() -> None:
    state = make(TOWER, bricks=5, locked=3)
    assert_refused(GAME, state, 0, move(0, 9, 0, "h"), "illegal_action", "not touch")


def test_only_collapsing_moves_left_are_listed() -> None:
    # A tower of vertical bricks: only the top one is free, and it is locked.
    tower: list[Spec] = [(0, 0, "v", 0, "xo"), (0, 2, "v", 0, "ox")]
    state = make([*tower, (0, 4, "v", 1, "xo"), (0, 6, "v", 1, "ox")], bricks=4, locked=3)
    legal = GAME.legal_actions(state, 0)
    assert legal and {a["brick"] for a in legal} == {0, 1, 2}
    assert GAME.bot_action(state, 0) in legal
    after, _ = GAME.apply(state, 0, legal[0])
    assert final_result(GAME.status(after))["reason"] == "collapse"


def test_move_limit_draw() -> None:
    state = make(GROUND, bricks=4, move_limit=2)
    state = play(state, place(6, 0, "h"), move(0, 2, 1, "h"))
    assert GAME.status(state)["finished"] is False and state["moves"] == 1
    state = play(state, move(3, 4, 1, "h"))
    assert GAME.status(state)["result"] == {"scores": [0, 0], "winners": [], "reason": "move_limit"}
    assert GAME.view(state, None)["moves"] == 2


def test_no_draw_by_exhaustion_without_move_limit() -> None:
    state = play(make(GROUND, bricks=4), place(6, 0, "h"), move(0, 2, 1, "h"))
    state = play(state, move(3, 4, 1, "h"), move(0, 6, 0, "h"))
    assert GAME.status(state)["finished"] is False
    assert GAME.status(state)["turn"] == 4 + 3


# -- resign and draws -----------------------------------------------------------------


def test_resign_any_time() -> None:
    state = make(GROUND)
    state, events = GAME.apply(state, 1, {"type": "resign"})  # not seat 1's turn: fine
    assert GAME.status(state)["result"] == {"scores": [1, 0], "winners": [0], "reason": "resign"}
    assert events[0] == {"type": "resign", "seat": 1}
    assert_refused(GAME, state, 0, {"type": "resign"}, "not_your_turn", "over")


def test_agreed_draw() -> None:
    state = make(GROUND)
    state = play(state, {"type": "offer_draw"})
    assert GAME.status(state)["to_act"] == [0]  # the offerer still places
    assert_refused(GAME, state, 0, {"type": "offer_draw"}, "illegal_action", "already")
    assert_refused(GAME, state, 1, {"type": "accept_draw"}, "not_your_turn")
    state = play(state, place(6, 0, "h"))
    assert GAME.view(state, None)["draw_offer"] == 0
    assert_refused(GAME, state, 1, {"type": "offer_draw"}, "illegal_action", "accept_draw")
    state, events = GAME.apply(state, 1, {"type": "accept_draw"})
    assert GAME.status(state)["result"] == {
        "scores": [0, 0],
        "winners": [],
        "reason": "draw_agreed",
    }
    assert events[0]["type"] == "draw_agreed"


def test_draw_offer_lapses_when_the_opponent_moves_instead() -> None:
    state = play(make(GROUND), {"type": "offer_draw"}, place(6, 0, "h"), place(0, 1, "h"))
    assert state["draw_offer"] is None
    assert_refused(GAME, state, 0, {"type": "accept_draw"}, "illegal_action", "no draw offer")


# -- malformed actions ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ({"type": "jump"}, "unknown action type"),
        ({"x": 1}, "type"),
        ({"type": "place", "y": 0, "dir": "h", "orange": 0, "face": "xo"}, "'x'"),
        ({**place(0, 0, "h"), "dir": "d"}, "'dir'"),
        ({**place(0, 0, "h"), "orange": 2}, "'orange'"),
        ({**place(0, 0, "h"), "orange": True}, "'orange'"),
        ({**place(0, 0, "h"), "face": "xx"}, "'face'"),
        ({**place(0, 0, "h"), "y": -1}, "'y'"),
        ({**place(0, 0, "h"), "x": 10**9}, "'x'"),
    ],
)
def test_malformed_actions(action: dict[str, Any], fragment: str) -> None:
    assert_refused(GAME, make(GROUND), 0, action, "bad_action", fragment)


def test_wrong_seat() -> None:
    state = make(GROUND)
    assert_refused(GAME, state, 1, place(6, 0, "h"), "not_your_turn", "seat 1")
    assert_refused(GAME, state, 5, place(6, 0, "h"), "not_your_turn")
    with pytest.raises(IllegalAction):
        GAME.bot_action(state, 1)


def test_legal_lists_collapsing_moves_beside_safe_ones() -> None:
    """Issue 14's reproduction: a collapsing move is listed, accepted, and loses."""
    state = GAME.setup(GAME.validate_options({"bricks": 4, "mode": "symbols"}), 2, 1)
    state = play(state, place(0, 0, "h"), place(0, 1, "h"), place(2, 0, "h"), place(4, 0, "h"))
    legal = GAME.legal_actions(state, 0)
    collapsing = move(0, 6, 0, "h")
    assert collapsing in legal
    assert len(legal) > 104 and {a["brick"] for a in legal} == {0, 1, 2}
    state, _ = GAME.apply(state, 0, collapsing)
    assert state["result"] == {"scores": [0, 1], "winners": [1], "reason": "collapse"}
