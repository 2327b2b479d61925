"""Termite Towers: queen cards, end triggers, scoring and tie-breakers, resigning and
views (docs/games/termite.md; seed 游戲結束)."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.server.games.base import IllegalAction
from tablehub.server.games.termite import GAME, data, scoring
from tests.server.games.conformance import assert_refused
from tests.server.games.termite.test_helpers import (
    act,
    fresh,
    hold,
    invariants,
    put,
    quiet,
    seat_zero_starts,
    to_night,
)

State = dict[str, Any]


def day4() -> State:
    return seat_zero_starts(4, seed=5)


def with_queen(s: State, seat: int, card: str) -> None:
    s["queen_deck"].remove(card)
    s["players"][seat]["queens"].append(card)


# --- Queen cards ------------------------------------------------------------------------------


def test_royal_jelly_and_turn_stays() -> None:
    s = day4()
    hold(s, 0, 0, 2)
    with_queen(s, 0, "royal_jelly")
    s, events = act(s, 0, {"type": "play_queen", "card": "royal_jelly", "die": 0, "value": 5})
    assert s["players"][0]["dice"][0]["value"] == 5 and s["players"][0]["queens"] == []
    assert events == [
        {"type": "queen_played", "seat": 0, "card": "royal_jelly", "die": 0, "value": 5}
    ]
    assert GAME.status(s)["to_act"] == [0] and GAME.status(s)["turn"] == 1
    assert s["queen_discard"] == ["royal_jelly"]
    assert_refused(
        GAME,
        s,
        0,
        {"type": "play_queen", "card": "royal_jelly", "die": 0, "value": 5},
        "illegal_action",
        "no queen card",
    )
    invariants(s)


def test_swarm_rerolls_publicly() -> None:
    s = day4()
    for i in range(3):
        hold(s, 0, i, 1)
    with_queen(s, 0, "swarm")
    assert (
        len([a for a in GAME.legal_actions(s, 0) if a["type"] == "play_queen"]) == 7
    )  # subsets of 3 dice
    assert_refused(
        GAME, s, 0, {"type": "play_queen", "card": "swarm", "dice": [2, 0]}, "illegal_action"
    )
    s, events = act(s, 0, {"type": "play_queen", "card": "swarm", "dice": [0, 2]})
    assert events[0]["values"] == [s["players"][0]["dice"][i]["value"] for i in (0, 2)]
    assert s["players"][0]["dice"][1]["value"] == 1


def test_mandibles_nursery_architect() -> None:
    s = day4()
    hold(s, 0, 0, 1)
    for card in ("mandibles", "nursery", "architect"):
        with_queen(s, 0, card)
    s, _ = act(s, 0, {"type": "play_queen", "card": "mandibles", "stake": 4, "room": 1})
    assert s["players"][0]["rooms"][1]["cubes"] == ["blue"] and s["stakes"][3]["cubes"] == 5
    assert_refused(
        GAME,
        s,
        0,
        {"type": "play_queen", "card": "nursery", "room": 1},
        "illegal_action",
        "not empty",
    )
    s, _ = act(s, 0, {"type": "play_queen", "card": "nursery", "room": 2})
    assert s["players"][0]["rooms"][2]["egg"]
    card = s["blueprints"]["face_up"][0]
    s, _ = act(s, 0, {"type": "play_queen", "card": "architect", "blueprint": card})
    assert s["players"][0]["hand"] == [card]
    assert GAME.status(s)["to_act"] == [0]
    invariants(s)


def test_queen_cards_only_in_the_day() -> None:
    s = day4()
    put(s, 0, 0, "A1")
    with_queen(s, 0, "swarm")
    s, _ = to_night(s)
    assert_refused(
        GAME, s, 0, {"type": "play_queen", "card": "swarm", "dice": [0]}, "illegal_action", "night"
    )


# --- End triggers -----------------------------------------------------------------------------


def fill_rows(s: State, seat: int, rows: int) -> None:
    for y in range(rows):
        for x in range(data.WALL_WIDTH):
            colour = data.COLOURS[(x + y) % 6]
            s["stakes"][data.COLOURS.index(colour)]["cubes"] -= 1
            s["players"][seat]["wall"][y][x] = colour


@pytest.mark.parametrize("rows_to_end", [5, 7])
def test_end_when_a_wall_has_enough_rows(rows_to_end: int) -> None:
    s = quiet(fresh(2, seed=4, rows_to_end=rows_to_end))
    fill_rows(s, 1, 5)
    s, events = to_night(s)
    if rows_to_end == 5:
        assert s["phase"] == "finished"
        assert s["result"]["reason"] == "a wall has 5 completed rows"
        assert events[-1]["type"] == "finished"
        assert GAME.status(s)["to_act"] == [] and GAME.legal_actions(s, 0) == []
        assert_refused(GAME, s, 0, {"type": "resign"}, "not_your_turn")
    else:
        assert s["phase"] == "day" and s["round"] == 2
        s = quiet(s)
        fill_rows(s, 0, 7)
        s, _ = to_night(s)
        assert s["result"]["reason"] == "a wall has 7 completed rows"


def test_end_when_the_queen_deck_runs_out() -> None:
    s = day4()
    s["players"][2]["queens"] = s["queen_deck"][:-1]
    s["queen_deck"] = s["queen_deck"][-1:]
    put(s, 3, 0, "G4")
    s, _ = to_night(s)
    assert s["phase"] == "finished" and s["result"]["reason"] == "the queen deck is exhausted"
    invariants(s)


def test_round_end_passes_start_player_and_resets() -> None:
    s = quiet(fresh(3, seed=8))
    s["start"] = 2
    s, events = to_night(s)
    assert s["round"] == 2 and s["start"] == 0 and s["phase"] == "day"
    assert len(s["neutral"]) == 5
    assert all(d["at"] is None for p in s["players"] for d in p["dice"])
    assert [e["type"] for e in events[-5:]] == ["round", "rolled", "rolled", "rolled", "neutral"]


# --- Scoring ----------------------------------------------------------------------------------


def scored(s: State) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    scoring.finish(s, "test", events)
    result: dict[str, Any] = s["result"]
    return result


def test_score_sums_blueprints_goals_and_bonus_points() -> None:
    s = quiet(fresh(2))
    s["goals"] = [{"goal": "blueprints", "seats": [0, 1]}, {"goal": "queens", "seats": [0, 1]}]
    s["players"][0]["built"] = ["red-Z", "blue-O"]  # 5 + 2
    s["players"][1]["built"] = ["red-T"]  # 4
    s["players"][1]["points"] = 2
    s["players"][1]["queens"] = ["swarm"]
    result = scored(s)
    assert result["scores"] == [7 + 2, 4 + 2 + 2]
    assert result["winners"] == [0]


def test_goal_tie_gives_both() -> None:
    s = quiet(fresh(2))
    s["goals"] = [{"goal": "dice", "seats": [0, 1]}, {"goal": "tunnels", "seats": [0, 1]}]
    assert scoring.goal_points(s) == [4, 4]
    s["players"][0]["tunnels"][0] = ["S-1a"]
    assert scoring.goal_points(s) == [4, 2]


def test_solo_goal_thresholds() -> None:
    s = quiet(fresh(1))
    s["goals"] = [{"goal": "dice", "seats": [0, 0]}, {"goal": "hatched", "seats": [0, 0]}]
    assert scoring.goal_points(s) == [0]
    s["players"][0]["dice"] += [{"kind": "worker", "value": 1, "at": "X"}] * 2
    assert scoring.goal_points(s) == [2]
    s["players"][0]["hatched"] = 3
    assert scoring.goal_points(s) == [4]


def tie_position() -> State:
    s = quiet(fresh(3))
    s["goals"] = []
    for p in s["players"]:
        p["built"] = ["red-T"]
    return s


def test_tie_break_rows() -> None:
    s = tie_position()
    fill_rows(s, 2, 1)
    fill_rows(s, 1, 2)
    assert scored(s) == {"scores": [4, 4, 4], "winners": [1], "reason": "test"}


def test_tie_break_wall_cubes() -> None:
    s = tie_position()
    fill_rows(s, 0, 1)
    fill_rows(s, 1, 1)
    s["players"][1]["wall"][1][0] = "red"
    s["stakes"][0]["cubes"] -= 1
    assert scored(s)["winners"] == [1]


def test_tie_break_fewer_dice_then_shared() -> None:
    s = tie_position()
    s["players"][0]["dice"].append({"kind": "worker", "value": 1, "at": "X"})
    assert scored(s)["winners"] == [1, 2]


# --- Resigning --------------------------------------------------------------------------------


def test_resign_two_players_other_wins() -> None:
    s = fresh(2)
    s, _ = act(s, 1 - s["start"], {"type": "resign"})
    assert s["phase"] == "finished" and s["result"]["winners"] == [s["start"]]
    assert s["result"]["reason"] == "resignation"


def test_resign_solo_ends_without_winner() -> None:
    s, _ = act(fresh(1), 0, {"type": "resign"})
    assert s["result"]["winners"] == []


def test_resigned_seat_is_skipped() -> None:
    s = day4()
    for seat in range(4):
        hold(s, seat, 0, 1)
    put(s, 1, 1, "A2")
    s, _ = act(s, 0, {"type": "resign"})
    assert GAME.status(s)["to_act"] == [1]
    assert_refused(GAME, s, 0, {"type": "resign"}, "not_your_turn", "resigned")
    s, _ = act(s, 2, {"type": "resign"})  # not its turn: still allowed
    s, _ = act(s, 1, {"type": "place_die", "die": 0, "slot": "D1c"})
    assert GAME.status(s)["to_act"] == [3]
    s, _ = act(s, 3, {"type": "place_die", "die": 0, "slot": "D1c"})
    # Night: seat 1's blueprint choice.
    assert s["night"]["pending"] == {"t": "blueprint", "seat": 1}
    s, _ = act(s, 1, {"type": "resign"})
    assert s["phase"] == "finished" and s["result"]["winners"] == [3]


def test_resign_pending_night_choice_moves_on() -> None:
    s = quiet(fresh(3))
    put(s, 0, 0, "A1")
    put(s, 1, 0, "A2")
    s, _ = to_night(s)
    assert s["night"]["pending"]["seat"] == 0
    s, _ = act(s, 0, {"type": "resign"})
    assert s["night"]["pending"] == {"t": "blueprint", "seat": 1}


# --- Views ------------------------------------------------------------------------------------


def test_views_hide_hands_and_face_down_cards() -> None:
    s = day4()
    s["players"][1]["hand"] = [s["blueprints"]["deck"].pop()]
    with_queen(s, 1, "swarm")
    hold(s, 0, 0, 4)
    mine = GAME.view(s, 1)["players"][1]
    assert mine["hand"] == s["players"][1]["hand"] and mine["queens"] == ["swarm"]
    for audience in (None, 0, 2):
        other = GAME.view(s, audience)["players"][1]
        assert other["hand"] is None and other["queens"] is None
        assert other["hand_count"] == 1 and other["queen_count"] == 1
    spectator = GAME.view(s, None)
    assert spectator["stakes"][0]["cards"] == dict.fromkeys(data.STAKE_CARD_NODES)
    assert spectator["blueprints"]["deck"] == 37
    assert spectator["players"][0]["dice"][0] == {"kind": "worker", "value": 4, "at": None}
    assert spectator["players"][0]["wall"] == ["......"] * 7
    text = str(spectator)
    assert s["blueprints"]["deck"][0] not in text


def test_view_describes_pending_choice() -> None:
    s = day4()
    put(s, 2, 0, "D3c")
    s, _ = to_night(s)
    pending = GAME.view(s, 2)["pending"]
    assert pending["seat"] == 2 and pending["kind"] == "cube" and pending["from"] == "D3"
    assert "cube" in pending["prompt"]
    assert GAME.view(s, None)["pending"] == pending


def test_bot_refuses_a_seat_that_need_not_act() -> None:
    s = fresh(2)
    other = 1 - s["start"]
    assert_refused_bot = GAME.bot_action
    try:
        assert_refused_bot(s, other)
    except IllegalAction as err:
        assert err.code == "not_your_turn"
    else:
        raise AssertionError("bot_action answered for a seat that need not act")
