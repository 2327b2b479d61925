"""Scenario tests for the number row (docs/games/completto.md, seed 004): the seed's worked
examples, refusals, bonus turns, the face-up pool, setup, rounds and scoring."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.server.games.base import IllegalAction, State, final_result
from tablehub.server.games.completto import GAME, engine
from tablehub.server.games.completto.position import position
from tablehub.server.games.completto.rules import face_down_count
from tablehub.server.games.rng import Rng
from tests.server.games.conformance import assert_refused

N = None
# The seed's first three examples: ... 14 _ _ 33 ...
ROW_14_33: list[Any] = [N, 5, N, N, 14, N, N, 33, N, N, 40, N, N, N, 60, N, N, N, 80, N, N, N]
# The seed's 89/68 example: ... 67 _ 81 ... 85 _ 93 ...
ROW_67_93: list[Any] = [N, 10, N, N, 30, N, N, 50, N, N, 67, N, 81, N, N, 85, N, 93, N, N, N, N]
PLAIN: list[Any] = [N, 2, N, N, N, 20, N, N, N, 45, N, N, N, 70, N, N, N, 95, N, N, N, N]


def other(k: int) -> list[Any]:
    """An opponent's row with the single face-up number 55 + k (21 face down)."""
    return [N] * 10 + [55 + k] + [N] * 11


def rig_draw(state: State, tile: int) -> State:
    """The same position, with ``tile`` the one the next face-down draw turns up (only
    the hidden arrangement changes)."""
    new = {**state, "rows": [[dict(c) for c in row] for row in state["rows"]]}
    pool = list(state["pool"])
    if tile not in pool:
        for row in new["rows"]:
            for cell in row:
                if cell["n"] is None and cell["tile"] == tile:
                    cell["tile"], pool[0] = pool[0], tile
    index = Rng(state["rng"]).below(len(pool))
    here = pool.index(tile)
    pool[here], pool[index] = pool[index], pool[here]
    new["pool"] = pool
    return new


def act(state: State, seat: int, **action: Any) -> tuple[State, list[dict[str, Any]]]:
    return GAME.apply(state, seat, action)


def all_tiles(state: State) -> list[int]:
    tiles = [c["tile"] for row in state["rows"] for c in row]
    tiles += [t for rest in state["setup_tiles"] for t in rest]
    tiles += state["pool"] + state["pool_up"]
    if state["hand"] is not None:
        tiles.append(state["hand"]["tile"])
    return sorted(tiles)


# --------------------------------------------------------------------------- seed examples


def test_seed_21_goes_between_14_and_33_in_either_slot() -> None:
    state = rig_draw(position([ROW_14_33, other(1)]), 21)
    state, events = act(state, 0, type="take", source="pool")
    assert events == [
        {"type": "take", "seat": 0, "source": "pool", "tile": 21, "readings": [21], "fits": True}
    ]
    assert GAME.legal_actions(state, 0) == [
        {"type": "place", "pos": 5, "reading": 21},
        {"type": "place", "pos": 6, "reading": 21},
    ]
    pool_before = len(state["pool"])
    for pos in (5, 6):
        after, events = act(state, 0, type="place", pos=pos, reading=21)
        assert after["rows"][0][pos] == {"tile": 21, "n": 21}
        assert len(after["pool"]) == pool_before + 1  # the replaced tile, face down
        assert state["rows"][0][pos]["tile"] in after["pool"]
        assert events[0] == {
            "type": "place",
            "seat": 0,
            "pos": pos,
            "number": 21,
            "tile": 21,
            "bonus": False,
        }
        assert GAME.status(after)["to_act"] == [1]
        assert all_tiles(after) == list(range(1, 101))


def test_seed_32_beside_33_gives_a_bonus_turn_then_22_fits_nowhere() -> None:
    row = list(ROW_14_33)
    row[5] = 21  # 14 21 _ 33
    state = position([row, other(1)], hand=32)
    assert GAME.legal_actions(state, 0) == [{"type": "place", "pos": 6, "reading": 32}]
    turn = GAME.status(state)["turn"]
    state, events = act(state, 0, type="place", pos=6, reading=32)
    assert events[0]["bonus"] is True
    assert events[1] == {"type": "turn", "seat": 0, "bonus": True}
    status = engine.status(state)
    assert status["to_act"] == [0] and status["bonus"] is True
    assert status["turn"] == turn + 1  # a bonus turn starts a new deadline
    # The bonus turn draws 22: nothing is left between 21 and 32.
    state = rig_draw(state, 22)
    state, events = act(state, 0, type="take", source="pool")
    assert events[0]["fits"] is False
    assert GAME.legal_actions(state, 0) == [{"type": "discard"}]
    assert_refused(
        GAME,
        state,
        0,
        {"type": "place", "pos": 8, "reading": 22},
        "illegal_action",
        "22 cannot go at position 9: 33 on its left is larger",
    )
    state, events = act(state, 0, type="discard")
    assert events == [
        {"type": "discard", "seat": 0, "tile": 22},
        {"type": "turn", "seat": 1, "bonus": False},
    ]
    assert state["pool_up"] == [22]
    assert GAME.view(state, 1)["pool"]["face_up"] == [{"tile": 22, "readings": [22]}]
    assert GAME.status(state)["to_act"] == [1]
    assert engine.status(state)["bonus"] is False


def test_seed_89_read_as_68_or_89() -> None:
    state = position([ROW_67_93, other(1)], hand=89)
    assert GAME.legal_actions(state, 0) == [
        {"type": "place", "pos": 11, "reading": 68},
        {"type": "place", "pos": 16, "reading": 89},
    ]
    as_68, events = act(state, 0, type="place", pos=11, reading=68)
    assert as_68["rows"][0][11] == {"tile": 89, "n": 68}
    assert events[0]["bonus"] is True and GAME.status(as_68)["to_act"] == [0]
    assert GAME.view(as_68, None)["players"][0]["row"][10:13] == [67, 68, 81]
    as_89, events = act(state, 0, type="place", pos=16, reading=89)
    assert events[0]["bonus"] is False and GAME.status(as_89)["to_act"] == [1]
    # The reading must be one of the tile's, and must fit where it goes.
    assert_refused(
        GAME,
        state,
        0,
        {"type": "place", "pos": 11, "reading": 98},
        "illegal_action",
        "tile 89 cannot be read as 98",
    )
    assert_refused(
        GAME,
        state,
        0,
        {"type": "place", "pos": 11, "reading": 89},
        "illegal_action",
        "89 cannot go at position 12: 81 on its right is smaller",
    )
    # Without a reading the only one that fits at that position is used.
    implied, _ = act(state, 0, type="place", pos=16)
    assert implied["rows"][0][16]["n"] == 89


def test_seed_move_closes_the_gap_between_85_and_93() -> None:
    state = position([ROW_67_93, other(1)], hand=89)
    state, _ = act(state, 0, type="place", pos=11, reading=68)  # bonus turn
    hidden_before = sorted(c["tile"] for c in state["rows"][0] if c["n"] is None)
    state, events = act(state, 0, type="move", **{"from": 16, "to": 12})
    assert events == [
        {"type": "move", "seat": 0, "from": 16, "to": 12},
        {"type": "turn", "seat": 1, "bonus": False},
    ]
    row = GAME.view(state, 0)["players"][0]["row"]
    assert row[10:18] == [67, 68, None, 81, N, N, 85, 93]
    assert sorted(c["tile"] for c in state["rows"][0] if c["n"] is None) == hidden_before
    # Nothing fits between 85 and 93 any more; 70 now fits between 68 and 81.
    state = {**state, "current": 0}
    state90 = position([GAME.view(state, 0)["players"][0]["row"], other(1)], hand=90)
    assert GAME.legal_actions(state90, 0) == [{"type": "discard"}]
    state70 = position([GAME.view(state, 0)["players"][0]["row"], other(1)], hand=70)
    assert GAME.legal_actions(state70, 0) == [{"type": "place", "pos": 12, "reading": 70}]


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("pos", "reading", "fragment"),
    [
        (8, 21, "21 cannot go at position 9: 33 on its left is larger"),
        (3, 21, "21 cannot go at position 4: 14 on its right is smaller"),
        (4, 21, "position 5 already holds a face-up 14"),
        (5, 12, "tile 21 cannot be read as 12"),
    ],
)
def test_place_refusals_name_the_rule(pos: int, reading: int, fragment: str) -> None:
    state = position([ROW_14_33, other(1)], hand=21)
    action = {"type": "place", "pos": pos, "reading": reading}
    assert_refused(GAME, state, 0, action, "illegal_action", fragment)


def test_equal_reading_is_refused() -> None:
    row = list(PLAIN)
    row[5] = {"tile": 91, "n": 16}
    state = position([row, other(1)], hand=16)
    assert_refused(
        GAME,
        state,
        0,
        {"type": "place", "pos": 6, "reading": 16},
        "illegal_action",
        "16 on its left is the same number",
    )
    # Row: 2 .. 16 (tile 91 read upside down) .. 45 .. 70 _ _ _ 95: only 91 fits.
    assert GAME.legal_actions(state, 0) == [
        {"type": "place", "pos": p, "reading": 91} for p in (14, 15, 16)
    ]


def test_refusals_for_turn_flow() -> None:
    state = position([ROW_14_33, other(1)])
    assert_refused(GAME, state, 1, {"type": "take", "source": "pool"}, "not_your_turn", "seat 1")
    assert_refused(GAME, state, 0, {"type": "fly"}, "bad_action", "unknown action type")
    assert_refused(GAME, state, 0, {"type": "take", "source": "bag"}, "bad_action", "source")
    assert_refused(
        GAME,
        state,
        0,
        {"type": "place", "pos": 5, "reading": 21},
        "illegal_action",
        "take a tile first",
    )
    assert_refused(GAME, state, 0, {"type": "discard"}, "illegal_action", "take one first")
    assert_refused(
        GAME,
        state,
        0,
        {"type": "take", "source": "faceup", "number": 22},
        "illegal_action",
        "no face-up 22 lies in the pool",
    )
    assert_refused(
        GAME,
        state,
        0,
        {"type": "move", "from": 4, "to": 0},
        "illegal_action",
        "position 5 holds a face-up 14",
    )
    assert_refused(
        GAME, state, 0, {"type": "move", "from": 0, "to": 0}, "illegal_action", "another position"
    )
    assert_refused(GAME, state, 0, {"type": "move", "from": 0, "to": 22}, "bad_action", "'to'")
    assert_refused(
        GAME,
        state,
        0,
        {"type": "insert", "pos": 0, "reading": 3},
        "illegal_action",
        "setup is over",
    )
    held = position([ROW_14_33, other(1)], hand=21)
    assert_refused(
        GAME, held, 0, {"type": "take", "source": "pool"}, "illegal_action", "you already hold 21"
    )
    assert_refused(
        GAME, held, 0, {"type": "move", "from": 0, "to": 3}, "illegal_action", "you hold 21"
    )
    assert_refused(GAME, held, 0, {"type": "discard"}, "illegal_action", "as 21 at positions 6, 7")
    assert_refused(GAME, held, 0, {"type": "place", "pos": 22}, "bad_action", "'pos'")
    empty = {**state, "pool": []}
    assert_refused(
        GAME,
        empty,
        0,
        {"type": "take", "source": "pool"},
        "illegal_action",
        "face-down pool is empty",
    )
    assert {"type": "take", "source": "pool"} not in GAME.legal_actions(empty, 0)


def test_ambiguous_reading_must_be_named() -> None:
    row: list[Any] = [N] * 22
    row[0], row[21] = 3, 99
    state = position([row, other(1)], hand=16)
    assert_refused(
        GAME, state, 0, {"type": "place", "pos": 5}, "illegal_action", "fits here as 16 or 91"
    )


# --------------------------------------------------------------------------- bonus turns


def test_two_matching_neighbours_give_one_bonus_turn() -> None:
    row = list(PLAIN)
    row[6], row[8] = 31, 33  # 20 _ 31 _ 33 _ 45
    row[7] = None
    state = position([row, other(1)], hand=32)
    state, events = act(state, 0, type="place", pos=7, reading=32)
    assert events[0]["bonus"] is True
    state, _ = act(state, 0, type="move", **{"from": 0, "to": 3})
    assert GAME.status(state)["to_act"] == [1]


def test_bonus_turns_chain() -> None:
    row = list(PLAIN)  # 20 at 5, 45 at 9
    row[8] = 44
    state = position([row, other(1)], pool_up=[43, 42])
    state, _ = act(state, 0, type="take", source="faceup", number=43)
    state, events = act(state, 0, type="place", pos=7, reading=43)
    assert events[0]["bonus"] is True and GAME.status(state)["to_act"] == [0]
    state, _ = act(state, 0, type="take", source="faceup", number=42)
    state, events = act(state, 0, type="place", pos=6, reading=42)
    assert events[0]["bonus"] is True and GAME.status(state)["to_act"] == [0]
    state = rig_draw(state, 60)
    state, _ = act(state, 0, type="take", source="pool")
    state, events = act(state, 0, type="place", pos=11, reading=60)
    assert events[0]["bonus"] is False
    assert GAME.status(state)["to_act"] == [1]
    assert GAME.view(state, 1)["players"][0]["row"][5:10] == [20, 42, 43, 44, 45]


def test_take_does_not_change_the_turn_counter() -> None:
    state = rig_draw(position([ROW_14_33, other(1)]), 21)
    turn = GAME.status(state)["turn"]
    state, _ = act(state, 0, type="take", source="pool")
    assert GAME.status(state)["turn"] == turn
    state, _ = act(state, 0, type="place", pos=5, reading=21)
    assert GAME.status(state)["turn"] == turn + 1


# --------------------------------------------------------------------------- face-up pool


def test_face_up_pool_tile_is_taken_later_by_another_player() -> None:
    # Seat 1's row is PLAIN: 20 at 5, then three slots, 45 at 9.
    state = rig_draw(position([[*ROW_14_33[:5], 21, 32, *ROW_14_33[7:]], PLAIN]), 22)
    state, _ = act(state, 0, type="take", source="pool")
    state, _ = act(state, 0, type="discard")
    assert state["pool_up"] == [22]
    view = GAME.view(state, None)
    assert view["pool"]["face_up"] == [{"tile": 22, "readings": [22]}]
    assert {"type": "take", "source": "faceup", "number": 22} in GAME.legal_actions(state, 1)
    state, events = act(state, 1, type="take", source="faceup", number=22)
    assert events[0]["source"] == "faceup" and events[0]["fits"] is True
    assert state["pool_up"] == []
    assert GAME.view(state, 0)["hand"] == {
        "tile": 22,
        "readings": [22],
        "source": "faceup",
        "fits": True,
    }
    state, _ = act(state, 1, type="place", pos=6, reading=22)
    assert state["rows"][1][6] == {"tile": 22, "n": 22}
    assert all_tiles(state) == list(range(1, 101))


def test_reversible_face_up_tile_can_be_named_by_either_reading() -> None:
    state = position([PLAIN, other(1)], pool_up=[89])
    taken, _ = act(state, 0, type="take", source="faceup", number=68)
    assert taken["hand"] == {"tile": 89, "source": "faceup"}
    view = GAME.view(taken, 1)
    assert view["hand"]["readings"] == [68, 89]


# --------------------------------------------------------------------------- setup


def test_setup_deals_and_shows_only_the_setup_tile() -> None:
    state = GAME.setup(GAME.validate_options({}), 3, 7)
    status = GAME.status(state)
    assert status["phase"] == "setup" and status["to_act"] == [0, 1, 2]
    assert len(state["pool"]) == 100 - 3 * 22
    view = GAME.view(state, 1)
    for s, player in enumerate(view["players"]):
        assert player["row"] == [None] * 17
        assert player["setup_left"] == 5
        tile = state["setup_tiles"][s][0]
        assert player["setup_tile"]["tile"] == tile
    assert view["pool"] == {"face_down": 34, "face_up": []}
    assert all_tiles(state) == list(range(1, 101))


def test_setup_insertions_ascend_and_give_no_bonus() -> None:
    state = GAME.setup(GAME.validate_options({}), 2, 3)
    state = {**state, "setup_tiles": [[40, 41, 39, 10, 90], list(state["setup_tiles"][1])]}
    state, events = act(state, 0, type="insert", pos=17, reading=40)
    assert events == [
        {"type": "insert", "seat": 0, "pos": 17, "number": 40, "tile": 40},
        {"type": "reveal", "seat": 0, "tile": 41},
    ]
    assert_refused(
        GAME,
        state,
        0,
        {"type": "insert", "pos": 3, "reading": 41},
        "illegal_action",
        "41 cannot go at position 4: 40 on its right is smaller",
    )
    state, _ = act(state, 0, type="insert", pos=18, reading=41)  # beside 40: no bonus
    state, _ = act(state, 0, type="insert", pos=17, reading=39)
    assert [c["n"] for c in state["rows"][0]][-3:] == [39, 40, 41]
    assert GAME.status(state)["to_act"] == [0, 1]
    state, _ = act(state, 0, type="insert", pos=0, reading=10)
    turn = GAME.status(state)["turn"]
    state, _ = act(state, 0, type="insert", pos=21, reading=90)
    assert GAME.status(state)["to_act"] == [1]
    assert GAME.status(state)["turn"] == turn + 1
    assert_refused(
        GAME,
        state,
        0,
        {"type": "insert", "pos": 0, "reading": 1},
        "not_your_turn",
        "wait for the others",
    )
    while GAME.status(state)["phase"] == "setup":
        state, events = GAME.apply(state, 1, GAME.bot_action(state, 1))
    assert events[-1] == {"type": "turn", "seat": state["start"], "bonus": False}
    assert GAME.status(state)["to_act"] == [state["start"]]
    for row in state["rows"]:
        numbers = [c["n"] for c in row if c["n"] is not None]
        assert len(row) == 22 and len(numbers) == 5 and numbers == sorted(numbers)


def test_start_player_comes_from_the_seed() -> None:
    starts = {GAME.setup({"rounds": 1}, 4, seed)["start"] for seed in range(40)}
    assert starts == {0, 1, 2, 3}
    assert GAME.setup({"rounds": 1}, 4, 11) == GAME.setup({"rounds": 1}, 4, 11)


# --------------------------------------------------------------------------- rounds


def nearly_full(last_missing: int, base: int = 1) -> list[Any]:
    """``base .. base+22`` without ``base+11``, face up except position ``last_missing``
    (position 11 is where ``base+11`` fits)."""
    numbers = [n for n in range(base, base + 23) if n != base + 11]
    row: list[Any] = list(numbers)
    row[last_missing] = None
    return row


def test_first_full_row_wins_the_round() -> None:
    row = nearly_full(11)  # 1..11 _ 13..23: 12 fits at position 11
    state = position([other(0), row], current=1, hand=12)
    state, events = act(state, 1, type="place", pos=11, reading=12)
    penalties = [face_down_count(state["rows"][0]), 0]
    assert penalties == [21, 0]
    assert {"type": "round_end", "round": 1, "winner": 1, "penalties": penalties} in events
    status = GAME.status(state)
    assert status["finished"] is True and status["to_act"] == []
    assert status["result"] == {
        "scores": [-21, 0],
        "winners": [1],
        "reason": "seat 1 turned all 22 tiles face up",
    }
    assert events[-1] == {"type": "game_end", "result": status["result"]}
    assert_refused(GAME, state, 0, {"type": "take", "source": "pool"}, "not_your_turn", "over")
    assert GAME.legal_actions(state, 0) == []


def test_multi_round_scoring_and_new_deal() -> None:
    row = nearly_full(11)
    state = position([other(0), row, ROW_67_93[11:] + [N] * 11], current=1, hand=12, rounds=2)
    state, events = act(state, 1, type="place", pos=11, reading=12)
    assert events[-1] == {"type": "round_start", "round": 2, "start": 1}
    assert state["penalties"] == [[21, 0, 19]]
    status = GAME.status(state)
    assert status["phase"] == "setup" and status["to_act"] == [0, 1, 2] and not status["finished"]
    view = GAME.view(state, 2)
    assert view["round"] == 2
    assert [p["penalty"] for p in view["players"]] == [21, 0, 19]
    assert view["history"] == [{"round": 1, "winner": 1, "penalties": [21, 0, 19]}]
    assert all(p["row"] == [None] * 17 for p in view["players"])
    assert view["pool"] == {"face_down": 100 - 66, "face_up": []}
    assert all_tiles(state) == list(range(1, 101))
    # Round 2 (after a first round scored 17, 0, 15): seat 0 goes out first, but seat 2
    # has the fewest minus points over both rounds.
    last = position(
        [nearly_full(11), other(1), nearly_full(0, base=70)],
        hand=12,
        rounds=2,
        round_number=2,
        penalties=[[17, 0, 15]],
        round_winners=[1],
    )
    assert [face_down_count(r) for r in last["rows"]] == [1, 21, 1]
    last, _ = act(last, 0, type="place", pos=11, reading=12)
    assert GAME.status(last)["result"] == {
        "scores": [-17, -21, -16],
        "winners": [2],
        "reason": "fewest face-down tiles over 2 rounds (16)",
    }


def test_ties_share_the_win() -> None:
    state = position(
        [nearly_full(11), nearly_full(0, base=40)],
        hand=12,
        rounds=2,
        round_number=2,
        penalties=[[1, 0]],
        round_winners=[1],
    )
    state, _ = act(state, 0, type="place", pos=11, reading=12)
    result = final_result(GAME.status(state))
    assert result["scores"] == [-1, -1] and result["winners"] == [0, 1]


# --------------------------------------------------------------------------- resign


def test_resign_in_two_player_game_ends_it() -> None:
    state = position([PLAIN, other(1)])
    state, events = act(state, 1, type="resign")
    assert events[0] == {"type": "resign", "seat": 1}
    result = final_result(GAME.status(state))
    assert result["winners"] == [0]


def test_resign_with_a_tile_in_hand_passes_the_turn() -> None:
    state = position([PLAIN, other(1), other(2)], hand=21)
    state, _ = act(state, 0, type="resign")
    assert state["pool_up"] == [21] and state["hand"] is None
    assert GAME.status(state)["to_act"] == [1]
    state, _ = act(state, 1, type="move", **{"from": 0, "to": 1})
    state, _ = act(state, 2, type="move", **{"from": 0, "to": 1})
    assert GAME.status(state)["to_act"] == [1]  # seat 0 is skipped
    assert_refused(GAME, state, 0, {"type": "take", "source": "pool"}, "not_your_turn", "resigned")


def test_resign_during_setup() -> None:
    state = GAME.setup({"rounds": 1}, 3, 5)
    front = state["setup_tiles"][2][0]
    state, _ = act(state, 2, type="resign")
    assert GAME.status(state)["to_act"] == [0, 1]
    assert state["pool_up"] == [front]
    assert all_tiles(state) == list(range(1, 101))
    assert GAME.view(state, 0)["players"][2]["setup_tile"] is None


def test_bad_options_and_seats() -> None:
    from tablehub.server.games.base import BadOptions

    with pytest.raises(BadOptions):
        GAME.setup({"rounds": 1}, 5, 1)
    with pytest.raises(BadOptions):
        GAME.validate_options({"rounds": 0})
    with pytest.raises(IllegalAction):
        GAME.apply(position([PLAIN, other(1)]), 0, {"type": "take"})


# --------------------------------------------------------------------------- no progress


def test_both_readings_of_a_face_up_tile_are_listed_and_pool_draws_name_no_number() -> None:
    state = position([PLAIN, other(1)], pool_up=[16, 89])
    takes = [a for a in GAME.legal_actions(state, 0) if a["type"] == "take"]
    assert takes == [
        {"type": "take", "source": "pool"},
        *({"type": "take", "source": "faceup", "number": n} for n in (16, 68, 89, 91)),
    ]
    assert_refused(GAME, state, 0, {"type": "take", "source": "pool", "number": 16}, "bad_action")


def test_stalling_moves_end_the_round_without_a_row_winner() -> None:
    """docs/games/completto.md "No progress": two players who only move face-down tiles
    end the round after 5 turns each; fewest face-down tiles wins."""
    state = position([PLAIN, other(1)])  # seat 0: 17 face down; seat 1: 21
    events: list[dict[str, Any]] = []
    for turn in range(10):
        assert GAME.view(state, None)["idle_turns"] == turn
        state, events = act(state, turn % 2, type="move", **{"from": 2, "to": 3})
    assert state["phase"] == "finished"
    assert {
        "type": "round_end",
        "round": 1,
        "winner": None,
        "penalties": [17, 21],
        "stalled": True,
    } in events
    assert state["result"]["winners"] == [0]
    assert "stalled" in state["result"]["reason"]
    assert GAME.view(state, None)["history"] == [
        {"round": 1, "winner": None, "penalties": [17, 21]}
    ]


def test_a_pool_draw_or_a_placement_resets_the_count() -> None:
    state = position([PLAIN, other(1)], pool_up=[3])
    state, _ = act(state, 0, type="move", **{"from": 2, "to": 3})
    state, _ = act(state, 1, type="take", source="faceup", number=3)
    assert state["idle"] == 1
    state, _ = act(state, 1, type="place", pos=0, reading=3)
    assert state["idle"] == 0
    state, _ = act(state, 0, type="take", source="pool")
    assert state["idle"] == 0


def test_face_up_tile_taken_back_counts_as_no_progress() -> None:
    state = position([nearly_full(11), other(1)], pool_up=[50])  # 50 fits nowhere
    state = {**state, "idle": 3}
    state, _ = act(state, 0, type="take", source="faceup", number=50)
    state, _ = act(state, 0, type="discard")
    assert state["idle"] == 4 and state["pool_up"] == [50]


def test_a_stalling_game_ends_with_bots_that_only_stall() -> None:
    """Players who always move (the worst case) cannot keep a table open forever."""
    state = GAME.setup({"rounds": 2}, 3, 5)
    for _ in range(200):
        status = GAME.status(state)
        if status["finished"]:
            break
        seat = status["to_act"][0]
        legal = GAME.legal_actions(state, seat)
        moves = [a for a in legal if a["type"] == "move"]
        state, _ = GAME.apply(state, seat, moves[0] if moves else legal[0])
    assert GAME.status(state)["finished"]
    assert state["round_winners"] == [None, None]
