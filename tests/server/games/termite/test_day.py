"""Termite Towers setup and day phase scenarios (docs/games/termite.md; the rulebook's 白天階段)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tablehub.server.games.base import BadOptions
from tablehub.server.games.termite import GAME, data
from tests.server.games.conformance import assert_refused
from tests.server.games.termite.test_helpers import (
    act,
    fresh,
    hold,
    invariants,
    put,
    quiet,
    seat_zero_starts,
)

# --- Setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "neutral", "queens", "goals"),
    [(1, 15, 10, 2), (2, 10, 15, 2), (3, 5, 20, 3), (4, 0, 30, 4)],
)
def test_setup_by_player_count(seats: int, neutral: int, queens: int, goals: int) -> None:
    s = fresh(seats, seed=seats)
    invariants(s)
    assert len(s["neutral"]) == neutral
    assert len(s["queen_deck"]) == queens
    assert len(s["goals"]) == goals
    assert len({g["goal"] for g in s["goals"]}) == goals
    assert len(s["blueprints"]["face_up"]) == 4 and len(s["blueprints"]["deck"]) == 38
    assert s["eggs"] == 16
    for p in s["players"]:
        assert Counter(d["kind"] for d in p["dice"]) == {"worker": 6, "soldier": 1}
        assert all(d["at"] is None and 1 <= d["value"] <= 6 for d in p["dice"])
        assert len(p["rooms"]) == 6 and p["hand"] == [] and p["queens"] == []
    cards = [c for st in s["stakes"] for c in st["cards"].values()]
    assert all(st["cubes"] == 6 for st in s["stakes"])
    assert not any(c["up"] for c in cards)
    assert Counter((c["colour"], c["cubes"]) for c in cards) == Counter(
        (colour, n) for colour in data.COLOURS for n in data.STAKE_CARD_CUBES
    )
    status = GAME.status(s)
    assert status == {
        "phase": "day",
        "to_act": [s["start"]],
        "turn": 0,
        "finished": False,
        "result": None,
    }


def test_neutral_dice_sets() -> None:
    """One set (3 players) or two (2 players): 5 dice of different values on A, C, D
    (collect), E, G; never two dice on one A/C/E/G slot."""
    for seed in range(30):
        for seats, sets in ((3, 1), (2, 2)):
            s = fresh(seats, seed=seed)
            for k in range(sets):
                dice = s["neutral"][5 * k : 5 * k + 5]
                assert len({d["value"] for d in dice}) == 5
                assert [d["at"][0] for d in dice] == ["A", "C", "D", "E", "G"]
                assert all(d["at"][1] == str(d["value"]) for d in dice)
                assert dice[2]["at"].endswith("c")
            invariants(s)


def test_goal_cards_between_neighbours() -> None:
    assert [g["seats"] for g in fresh(1)["goals"]] == [[0, 0], [0, 0]]
    assert [g["seats"] for g in fresh(2)["goals"]] == [[0, 1], [0, 1]]
    assert [g["seats"] for g in fresh(3)["goals"]] == [[0, 1], [1, 2], [2, 0]]
    assert [g["seats"] for g in fresh(4)["goals"]] == [[0, 1], [1, 2], [2, 3], [3, 0]]


def test_bad_options() -> None:
    with pytest.raises(BadOptions):
        GAME.setup({"rows_to_end": 6}, 2, 1)
    with pytest.raises(BadOptions):
        GAME.setup({"rows_to_end": 5}, 5, 1)
    with pytest.raises(BadOptions):
        GAME.validate_options({"rows_to_end": 9})


def test_setup_is_deterministic() -> None:
    assert fresh(3, seed=9) == fresh(3, seed=9)
    assert fresh(3, seed=9) != fresh(3, seed=10)


# --- Placing dice -------------------------------------------------------------------------------


def day4() -> dict[str, Any]:
    """4 players, start player 0, nobody holding dice."""
    s = quiet(fresh(4))
    s["start"] = 0
    s["day"]["current"] = 0
    return s


def test_single_slot_rules() -> None:
    s = day4()
    hold(s, 0, 0, 3)
    hold(s, 1, 0, 3)
    hold(s, 1, 1, 4)
    assert_refused(
        GAME,
        s,
        0,
        {"type": "place_die", "die": 0, "slot": "A4"},
        "illegal_action",
        "needs a die showing 4",
    )
    assert_refused(GAME, s, 1, {"type": "place_die", "die": 0, "slot": "A3"}, "not_your_turn")
    assert_refused(
        GAME, s, 0, {"type": "place_die", "die": 0, "slot": "B3"}, "bad_action", "unknown slot"
    )
    assert_refused(GAME, s, 0, {"type": "place_die", "die": 9, "slot": "A3"}, "bad_action")
    assert_refused(
        GAME,
        s,
        0,
        {"type": "place_die", "die": 1, "slot": "A3"},
        "illegal_action",
        "already placed",
    )
    s, events = act(s, 0, {"type": "place_die", "die": 0, "slot": "A3"})
    assert s["players"][0]["dice"][0]["at"] == "A3"
    assert events[0] == {
        "type": "placed",
        "seat": 0,
        "die": 0,
        "value": 3,
        "slot": "A3",
        "helper": None,
    }
    assert GAME.status(s)["to_act"] == [1] and GAME.status(s)["turn"] == 1
    # A worker cannot take a held slot.
    assert_refused(
        GAME,
        s,
        1,
        {"type": "place_die", "die": 0, "slot": "A3"},
        "illegal_action",
        "only a soldier",
    )
    invariants(s)


def test_d_slots_take_any_number() -> None:
    s = day4()
    for seat in range(4):
        hold(s, seat, 0, 2)
        hold(s, seat, 6, 2)
    for seat in range(4):
        slot = "D2t" if seat % 2 else "D2c"
        s, _ = act(s, seat, {"type": "place_die", "die": 0, "slot": slot})
    for seat in range(4):
        s, _ = act(s, seat, {"type": "place_die", "die": 6, "slot": "D2c"})
    assert s["phase"] == "night"
    stake = GAME.view(s, None)["stakes"][1]
    assert [(d["owner"], d["die"]) for d in stake["tunnel"]] == [(1, 0), (3, 0)]
    assert len(stake["collect"]) == 6
    assert GAME.view(s, None)["pending"]["kind"] == "tunnel"


def test_neutral_die_blocks_slot() -> None:
    s = seat_zero_starts(3)
    s["neutral"] = [{"kind": "worker", "value": 5, "at": "C5"}]
    hold(s, 0, 6, 5)  # the soldier
    assert_refused(
        GAME, s, 0, {"type": "place_die", "die": 6, "slot": "C5"}, "illegal_action", "neutral"
    )


def test_soldier_bumps_worker_who_places_again_at_once() -> None:
    s = day4()
    put(s, 0, 0, "E4")
    hold(s, 0, 1, 1)
    hold(s, 1, 6, 4)  # seat 1's soldier
    hold(s, 2, 0, 6)
    s["day"]["current"] = 1
    s, events = act(s, 1, {"type": "place_die", "die": 6, "slot": "E4"})
    assert s["players"][1]["dice"][6]["at"] == "E4"
    assert s["players"][0]["dice"][0]["at"] is None
    assert events[-1] == {"type": "bumped", "seat": 0, "die": 0, "slot": "E4"}
    assert GAME.status(s)["to_act"] == [0]
    view = GAME.view(s, 0)
    assert view["pending"]["kind"] == "bumped" and view["pending"]["die"] == 0
    legal = GAME.legal_actions(s, 0)
    assert all(a.get("die") == 0 and "helper" not in a for a in legal)
    assert {"type": "place_die", "die": 0, "slot": "D4c"} in legal
    assert_refused(
        GAME, s, 0, {"type": "place_die", "die": 1, "slot": "A1"}, "illegal_action", "bumped die 1"
    )
    assert_refused(
        GAME,
        s,
        0,
        {"type": "place_die", "die": 0, "slot": "R1", "helper": 1, "value": 2},
        "illegal_action",
    )
    s["players"][0]["queens"] = ["swarm"]
    s["queen_deck"].pop()
    assert_refused(
        GAME, s, 0, {"type": "play_queen", "card": "swarm", "dice": [1]}, "illegal_action", "bumped"
    )
    s, _ = act(s, 0, {"type": "place_die", "die": 0, "slot": "D4c"})
    # The turn goes on after the soldier's owner (seat 1): seat 2.
    assert GAME.status(s)["to_act"] == [2]
    invariants(s)


def test_soldier_cannot_bump_soldier_or_be_refused_elsewhere() -> None:
    s = day4()
    put(s, 0, 6, "G2")
    hold(s, 1, 6, 2)
    s["day"]["current"] = 1
    assert_refused(
        GAME,
        s,
        1,
        {"type": "place_die", "die": 6, "slot": "G2"},
        "illegal_action",
        "holds a soldier",
    )


def test_helper_die() -> None:
    s = day4()
    hold(s, 0, 0, 2)
    hold(s, 0, 1, 5)
    hold(s, 0, 2, 5)
    s, events = act(s, 0, {"type": "place_die", "die": 0, "slot": "G6", "helper": 1})
    player = s["players"][0]
    assert player["dice"][0] == {"kind": "worker", "value": 6, "at": "G6"}
    assert player["dice"][1]["at"] == "H"
    assert events[0]["helper"] == 1
    # The helper sits out: seat 0 still has die 2 and is alone, so it places again.
    s2 = day4()
    for i in range(3):
        hold(s2, 0, i, 1)
    assert_refused(
        GAME,
        s2,
        0,
        {"type": "place_die", "die": 0, "slot": "R1", "helper": 1},
        "bad_action",
        "value",
    )
    assert_refused(
        GAME,
        s2,
        0,
        {"type": "place_die", "die": 0, "slot": "R1", "value": 3},
        "bad_action",
        "helper",
    )
    assert_refused(
        GAME, s2, 0, {"type": "place_die", "die": 0, "slot": "A1", "helper": 0}, "bad_action"
    )
    s2["players"][0]["dice"][2]["at"] = "A1"
    assert_refused(
        GAME,
        s2,
        0,
        {"type": "place_die", "die": 0, "slot": "A2", "helper": 2},
        "illegal_action",
        "already placed",
    )
    s2, _ = act(s2, 0, {"type": "place_die", "die": 0, "slot": "R1", "helper": 1, "value": 4})
    assert s2["players"][0]["dice"][0] == {"kind": "worker", "value": 4, "at": "R1"}


def test_room_dice_rules() -> None:
    s = day4()
    for i, v in enumerate([3, 3, 3, 3, 5]):
        hold(s, 0, i, v)
    for i in range(3):
        s, _ = act(s, 0, {"type": "place_die", "die": i, "slot": "R2"})
    assert_refused(
        GAME,
        s,
        0,
        {"type": "place_die", "die": 3, "slot": "R2"},
        "illegal_action",
        "already holds 3 dice",
    )
    s, _ = act(s, 0, {"type": "place_die", "die": 3, "slot": "R4"})
    assert_refused(
        GAME,
        s,
        0,
        {"type": "place_die", "die": 4, "slot": "R4"},
        "illegal_action",
        "holds dice showing 3",
    )
    assert_refused(
        GAME, s, 0, {"type": "place_die", "die": 4, "slot": "R6"}, "illegal_action", "no room 7"
    )
    view = GAME.view(s, None)
    assert view["players"][0]["rooms"][2]["dice"] == [0, 1, 2]


def test_turn_order_from_start_player_then_night() -> None:
    s = day4()
    s["start"] = s["day"]["current"] = 2
    for seat in range(4):
        hold(s, seat, 0, 1)
        hold(s, seat, 1, 1)
    order = []
    while s["phase"] == "day" and s["round"] == 1:
        seat = GAME.status(s)["to_act"][0]
        order.append(seat)
        s, _ = act(
            s,
            seat,
            {
                "type": "place_die",
                "die": 0 if s["players"][seat]["dice"][0]["at"] is None else 1,
                "slot": "D1c",
            },
        )
    assert order == [2, 3, 0, 1, 2, 3, 0, 1]


def test_players_without_dice_are_skipped() -> None:
    s = day4()
    hold(s, 0, 0, 1)
    hold(s, 0, 1, 1)
    hold(s, 2, 0, 1)
    s, _ = act(s, 0, {"type": "place_die", "die": 0, "slot": "D1c"})
    assert GAME.status(s)["to_act"] == [2]
    s, _ = act(s, 2, {"type": "place_die", "die": 0, "slot": "D1c"})
    assert GAME.status(s)["to_act"] == [0]


def test_legal_place_count_golden() -> None:
    """One die showing 3 on an empty board: A3 C3 E3 G3 D3t D3c + 6 rooms = 12.  Two dice
    (3 and 5): 12 each plus, per (die, helper) pair, 6 values x (6 slots + 6 rooms)."""
    s = day4()
    hold(s, 0, 0, 3)
    legal = GAME.legal_actions(s, 0)
    assert len(legal) == 12
    hold(s, 0, 1, 5)
    legal = GAME.legal_actions(s, 0)
    assert len(legal) == 24 + 2 * 72
    assert GAME.legal_actions(s, 1) == []


def test_wrong_phase_actions() -> None:
    s = day4()
    hold(s, 0, 0, 3)
    assert_refused(GAME, s, 0, {"type": "choose", "room": 1}, "illegal_action", "day")
    assert_refused(GAME, s, 0, {"type": "pass"}, "illegal_action", "day")
    assert_refused(GAME, s, 0, {"type": "dance"}, "bad_action", "unknown action")
    assert_refused(GAME, s, 0, {"kind": "x"}, "bad_action")
