"""Termite Towers: one test per rule decided in docs/games/termite.md "House edition,
decided" (the seed is the authority where it speaks; the rest is [house])."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tablehub.server.games.base import BadOptions
from tablehub.server.games.termite import GAME, board, data, gather
from tests.server.games.conformance import assert_refused
from tests.server.games.termite.test_helpers import (
    act,
    choose,
    fresh,
    hold,
    invariants,
    pending,
    put,
    quiet,
    reveal,
    to_night,
)
from tests.server.games.termite.test_night import (
    board4,
    build_position,
    give_cubes,
    give_egg,
    give_wall,
)

State = dict[str, Any]


def awards(s: State, area: int) -> list[tuple[int, int]]:
    return gather.majority(s, area)[1]


def two_player_d3(neutral_dice: int) -> State:
    """2 players, start player 0; the first ``neutral_dice`` on D3 alternate between the
    two neutral sets (set 0, set 1, set 0, ...)."""
    s = quiet(fresh(2, seed=4))
    s["start"] = 0
    s["neutral"] = [
        {"kind": "worker", "value": 3, "at": "D3c", "set": k % 2} for k in range(neutral_dice)
    ]
    return s


# --- Neutral dice ----------------------------------------------------------------------------


def test_each_neutral_colour_is_its_own_rival() -> None:
    """Issue 14 item 2: two neutral sets with one die each are two 1-die rivals."""
    s = two_player_d3(2)
    put(s, 0, 0, "D3c")
    put(s, 0, 1, "D3c")
    assert awards(s, 3) == [(0, 2)]  # 2 dice beat two rivals of 1 (was a tie with 2)
    s = two_player_d3(2)
    put(s, 0, 0, "D3c")
    put(s, 1, 0, "D3c")
    assert awards(s, 3) == [(0, 1), (1, 1)]  # four rivals tied at 1 (was: nothing)
    view = GAME.view(s, None)
    assert [d["owner"] for d in view["stakes"][2]["collect"]] == [-1, -2, 0, 1]


def test_solo_games_have_three_neutral_sets() -> None:
    """The seed's round end re-sets the neutral dice for 1-3 players: one set per empty
    seat of a 4-player table, so 3 sets solo, each on different A/C/E/G slots."""
    for seed in range(20):
        s = fresh(1, seed=seed)
        assert Counter(d["set"] for d in s["neutral"]) == {0: 5, 1: 5, 2: 5}
        singles = [d["at"] for d in s["neutral"] if d["at"][0] in data.SINGLE_SLOT_CARDS]
        assert len(singles) == len(set(singles)) == 12
        invariants(s)


# --- The supply -----------------------------------------------------------------------------


def test_the_supply_holds_ten_workers_and_three_soldiers_beside_the_start_dice() -> None:
    s = board4()
    p = s["players"][0]
    p["dice"] += [{"kind": "worker", "value": 1, "at": "X"} for _ in range(9)]  # 15 workers
    for room in (0, 1):
        give_egg(s, 0, room)
    put(s, 0, 0, "R0", 2)
    put(s, 0, 1, "R0", 2)
    put(s, 0, 2, "R1", 3)
    put(s, 0, 3, "R1", 3)
    s, events = to_night(s)
    kinds = Counter(d["kind"] for d in s["players"][0]["dice"])
    assert kinds["worker"] == data.MAX_WORKERS == 16
    assert [e["type"] for e in events if e["type"] in ("hatched", "no_hatch")] == [
        "hatched",
        "no_hatch",
    ]
    assert s["players"][0]["rooms"][1]["egg"]  # the egg stays


# --- Action D --------------------------------------------------------------------------------


def test_only_collect_slot_dice_count_for_a_majority() -> None:
    """The seed's collect action counts the dice on each main stake; the tunnel slot's
    dice do the dig action and do not count, so a collect-slot die is never worth less
    than a tunnel-slot die for cubes."""
    s = board4()
    put(s, 0, 0, "D5t")
    put(s, 0, 1, "D5t")
    put(s, 1, 0, "D5c")
    assert gather.stake_counts(s, 5) == {1: 1}
    assert awards(s, 5) == [(1, 2)]
    put(s, 0, 2, "D5c")
    assert awards(s, 5) == [(0, 1), (1, 1)]  # one collect die each: a tie for most
    s = board4()
    put(s, 0, 0, "D5t")
    s, events = to_night(s)
    s = choose(s, 0, edge="S-1a")  # the tunnel die digs; nobody collects on D5
    assert not [e for e in events if e["type"] == "majority" and e["area"] == 5]
    assert s["stakes"][4]["cubes"] == data.MAIN_STAKE_CUBES


def test_a_soldier_digs_one_tunnel_and_counts_two_in_the_collect_slot() -> None:
    s = board4()
    put(s, 0, 6, "D2t")  # seat 0's soldier digs
    put(s, 1, 0, "D2c")
    s, _ = to_night(s)
    assert pending(s)["t"] == "tunnel"
    s = choose(s, 0, edge="S-1a")
    assert s["players"][0]["tunnels"][1] == ["S-1a"]
    assert pending(s) == {"t": "cube", "seat": 1, "scope": 2, "colour": None}
    s = board4()
    put(s, 0, 6, "D2c")  # a soldier collecting counts 2
    put(s, 1, 0, "D2c")
    put(s, 2, 0, "D2c")
    assert gather.stake_counts(s, 2) == {0: 2, 1: 1, 2: 1}
    assert awards(s, 2) == [(0, 2)]


def test_with_a_tie_for_most_nobody_is_second() -> None:
    """The tied rivals hold first and second place (1, 1, 3): the next gets nothing."""
    s = board4()
    for seat in (0, 1):
        put(s, seat, 0, "D1c")
        put(s, seat, 1, "D1c")
    put(s, 2, 0, "D1c")
    assert awards(s, 1) == [(0, 1), (1, 1)]


def test_cube_sources_collected_and_traded() -> None:
    """Collected cubes: the stake's own main stake or any stake card your tunnels reach;
    the E cube: any face-up stake card with cubes, reached or not (the seed: "taken from
    the stake cards"), never a main stake."""
    s = board4()
    reveal(s, 2, "1a", "green", 3)
    s["players"][0]["tunnels"][1] = ["S-1a"]
    reveal(s, 3, "1b", "white", 2)  # face up, but no tunnel of seat 0 reaches it
    put(s, 0, 0, "D6c")
    put(s, 0, 1, "E1")
    give_cubes(s, 0, 0, ["red", "red"])
    s, _ = to_night(s)
    assert pending(s)["t"] == "cube"
    sources = {a["source"] for a in GAME.legal_actions(s, 0) if "source" in a}
    assert sources == {"D6", "D2/1a"}
    s = choose(s, 0, source="D6", room=1)
    s = choose(s, 0, source="D6", room=1)
    s = choose(s, 0, pay="cubes", cubes=[[0, "red"], [0, "red"]])
    assert {a["source"] for a in GAME.legal_actions(s, 0) if "source" in a} == {
        "D2/1a",
        "D3/1b",
    }
    assert_refused(
        GAME, s, 0, {"type": "choose", "source": "D6", "column": 0}, "illegal_action", "main stake"
    )
    s = choose(s, 0, source="D3/1b", column=0)
    assert s["players"][0]["wall"][0][0] == "white"


def test_main_stakes_are_not_refilled_from_the_supply() -> None:
    """The seed stocks each main stake once (set-up step 1: 6 cubes of its colour) and
    draws on the cube supply beside D (step 7) only when a tunnel turns a stake card up
    ("place cubes of its colour and number on it"); the round end's three steps refill
    nothing.  An emptied main stake stays empty into the next round, and a card turned up
    gets the cubes it shows, no more."""
    s = board4()
    give_cubes(s, 0, 0, ["red"] * 4)
    give_cubes(s, 0, 1, ["red"] * 2)
    assert s["stakes"][0]["cubes"] == 0
    # Swap a face-down card showing 3 cubes into D1's first row (cards stay conserved).
    card = s["stakes"][0]["cards"]["1a"]
    three = next(c for stake in s["stakes"] for c in stake["cards"].values() if c["cubes"] == 3)
    for field in ("colour", "cubes"):
        card[field], three[field] = three[field], card[field]
    colour = card["colour"]
    put(s, 1, 0, "D1t")
    put(s, 1, 1, "D1c")
    round_before = s["round"]
    s, _ = to_night(s)
    assert pending(s)["t"] == "tunnel"
    s = choose(s, 1, edge="S-1a")
    assert card_after(s, 1, "1a") == (True, 3)
    assert pending(s)["t"] == "cube"
    assert {a["source"] for a in GAME.legal_actions(s, 1) if "source" in a} == {"D1/1a"}
    s = choose(s, 1, source="D1/1a", room=0)
    s = choose(s, 1, source="D1/1a", room=0)
    assert s["phase"] == "day" and s["round"] == round_before + 1
    assert s["stakes"][0]["cubes"] == 0
    assert card_after(s, 1, "1a") == (True, 1)
    assert s["players"][1]["rooms"][0]["cubes"] == [colour, colour]
    invariants(s)


def card_after(s: State, area: int, node: str) -> tuple[bool, int]:
    card = s["stakes"][area - 1]["cards"][node]
    return bool(card["up"]), int(card["cubes"])


def test_e_trades_without_tunnels() -> None:
    """A player with no tunnel at all trades for a cube from any face-up stake card."""
    s = board4()
    reveal(s, 4, "2b", "blue", 1)
    give_egg(s, 0, 3)
    put(s, 0, 0, "E2")
    s, _ = to_night(s)
    assert pending(s)["t"] == "trade"
    s = choose(s, 0, pay="egg", room=3)
    assert pending(s)["t"] == "trade_take"
    s = choose(s, 0, source="D4/2b", column=5)
    assert s["players"][0]["wall"][0][5] == "blue"
    assert s["stakes"][3]["cards"]["2b"]["cubes"] == 0


def test_any_blueprint_builds_with_any_colour() -> None:
    """The seed's build needs "1 blueprint card and a room with 4 cubes of the same colour
    and 2 dice of the same value": the card's colour is only its label, and the piece
    takes the colour of the room's cubes."""
    s = build_position(["red-I"], cubes="green")
    s, _ = to_night(s)
    assert pending(s)["t"] == "build"
    s = choose(s, 0, room=2, blueprint="red-I", rotation=0, column=0)
    player = s["players"][0]
    assert player["wall"][0][:4] == ["green"] * 4
    assert player["built"] == ["red-I"] and player["rooms"][2]["cubes"] == []


# --- Rooms, eggs, dice -----------------------------------------------------------------------


def test_an_empty_room_has_no_egg_no_cubes_and_no_dice() -> None:
    s = board4()
    give_cubes(s, 0, 0, ["red"])
    give_egg(s, 0, 1)
    put(s, 0, 1, "R2", 4)
    assert board.empty_rooms(s["players"][0]) == [3, 4, 5]


def test_a_room_holds_up_to_three_dice_of_one_value() -> None:
    s = board4()
    for i in range(3):
        put(s, 0, i, "R0", 2)
    player = s["players"][0]
    assert (
        board.room_accepts_die(player, 0, 2) == "room 1 already holds 3 dice"
    )  # rooms counted from 1
    assert board.room_accepts_die(player, 1, 2) is None


# --- The day ---------------------------------------------------------------------------------


def test_several_queen_cards_in_one_turn_before_the_die() -> None:
    s = board4()
    hold(s, 0, 0, 2)
    hold(s, 0, 1, 4)
    for card in ("royal_jelly", "swarm"):
        s["queen_deck"].remove(card)
        s["players"][0]["queens"].append(card)
    s, _ = act(s, 0, {"type": "play_queen", "card": "royal_jelly", "die": 0, "value": 6})
    s, _ = act(s, 0, {"type": "play_queen", "card": "swarm", "dice": [1]})
    assert GAME.status(s)["to_act"] == [0]
    s, _ = act(s, 0, {"type": "place_die", "die": 0, "slot": "A6"})
    assert s["players"][0]["queens"] == []


def test_a_soldier_may_bump_its_owners_own_worker() -> None:
    s = board4()
    put(s, 0, 0, "C3")
    hold(s, 0, 6, 3)  # seat 0's soldier
    s, events = act(s, 0, {"type": "place_die", "die": 6, "slot": "C3"})
    assert {"type": "bumped", "seat": 0, "die": 0, "slot": "C3"} in events
    assert GAME.status(s)["to_act"] == [0]
    assert s["day"]["bumped"] == {"seat": 0, "die": 0}


def test_a_bumped_die_takes_no_helper() -> None:
    s = board4()
    put(s, 1, 0, "A5")
    hold(s, 0, 6, 5)
    hold(s, 1, 1, 2)
    s, _ = act(s, 0, {"type": "place_die", "die": 6, "slot": "A5"})
    assert_refused(
        GAME,
        s,
        1,
        {"type": "place_die", "die": 0, "slot": "A2", "helper": 1},
        "illegal_action",
        "without a helper",
    )


# --- Action F and the wall -------------------------------------------------------------------


def test_f_moves_pair_rooms_each_once_per_value() -> None:
    s = board4()
    for i, room in enumerate((0, 1, 2, 3)):
        put(s, 0, i, f"R{room}", 3)
    give_cubes(s, 0, 0, ["red", "blue"])
    give_cubes(s, 0, 1, ["red"])
    give_cubes(s, 0, 2, ["blue"])
    s, _ = to_night(s)
    pairs = {tuple(a["rooms"]) for a in GAME.legal_actions(s, 0) if "rooms" in a}
    assert pairs == {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}
    s = choose(s, 0, rooms=[0, 1], cubes=["red", "red"])
    pairs = {tuple(a["rooms"]) for a in GAME.legal_actions(s, 0) if "rooms" in a}
    assert pairs == {(2, 3)}


def test_a_piece_may_rest_anywhere_it_touches_the_bottom_or_a_cube() -> None:
    """The seed: touching the wall's bottom or other cubes, like Tetris -- also under an
    overhang a straight drop cannot reach; never floating."""
    s = build_position(["green-I"])
    # A roof over columns 0-3 at row 1, held up by column 0: row 0, columns 1-4 free.
    give_wall(s, 0, [(0, 0), (0, 1), (1, 1), (2, 1), (3, 1)])
    s, _ = to_night(s)
    listed = GAME.legal_actions(s, 0)
    slid = {"type": "choose", "room": 2, "blueprint": "green-I", "rotation": 0, "column": 1}
    assert {**slid, "row": 0} in listed
    assert_refused(GAME, s, 0, {**slid, "row": 3}, "illegal_action", "resting")
    s, events = act(s, 0, {**slid, "row": 0})
    assert events[0]["cells"] == [[1, 0], [2, 0], [3, 0], [4, 0]]
    # Without a row the piece drops straight down: onto the roof.
    t = build_position(["green-I"])
    give_wall(t, 0, [(0, 0), (0, 1), (1, 1), (2, 1), (3, 1)])
    t, _ = to_night(t)
    t, events = act(t, 0, slid)
    assert events[0]["cells"] == [[1, 2], [2, 2], [3, 2], [4, 2]]


# --- Bonus spaces, solo, options -------------------------------------------------------------


def test_a_bonus_the_supply_cannot_give_is_lost_but_marked() -> None:
    s = build_position(["green-I"])
    give_wall(s, 0, [(0, 0), (1, 0)])
    s["players"][0]["dice"] += [{"kind": "soldier", "value": 1, "at": "X"} for _ in range(3)]
    s, _ = to_night(s)
    s = choose(s, 0, room=2, blueprint="green-I", rotation=0, column=2)
    dice = len(s["players"][0]["dice"])
    s, events = act(s, 0, {"type": "choose", "space": "soldier"})
    assert {"type": "bonus", "seat": 0, "space": "soldier", "lost": True} in events
    assert len(s["players"][0]["dice"]) == dice and s["players"][0]["bonus"] == ["soldier"]


def test_solo_goal_cards_and_queen_deck() -> None:
    s = fresh(1, seed=2)
    assert len(s["queen_deck"]) == 10  # the 10 start cards, no extras
    assert [g["seats"] for g in s["goals"]] == [[0, 0], [0, 0]]
    assert all(g["goal"] in data.GOAL_SOLO_THRESHOLD for g in s["goals"])


@pytest.mark.parametrize("rows", [5, 7])
def test_rows_to_end_is_five_or_seven(rows: int) -> None:
    assert fresh(2, rows_to_end=rows)["options"]["rows_to_end"] == rows


def test_rows_to_end_six_is_refused() -> None:
    with pytest.raises(BadOptions, match="5 or 7"):
        fresh(2, rows_to_end=6)


def test_a_die_that_will_do_nothing_says_so() -> None:
    """The seat's view names each place where a die would do nothing tonight, in words;
    placing there stays legal.  A slot that something already placed could still open
    (a dig tonight may turn a stake card up) is not named."""
    s = board4()
    # The first day: no stake card is face up yet, so E has nothing to trade for.
    assert set(GAME.view(s, 0)["idle"]) == {f"E{v}" for v in range(1, 7)}
    assert GAME.view(s, None)["idle"] == {}
    s["players"][0]["tunnels"][0] = list(data.EDGE_NAMES)
    s["queen_deck"] = []
    give_egg(s, 0, 5)
    s["players"][0]["dice"] += [{"kind": "worker", "value": 1, "at": "X"}] * 10
    s["players"][0]["dice"] += [{"kind": "soldier", "value": 1, "at": "X"}] * 3
    idle = GAME.view(s, 0)["idle"]
    assert idle["E3"] == "no face-up stake card has a cube to trade for"
    assert idle["G6"] == "the queen deck is empty"
    assert idle["D1t"] == "your tunnels already cover every edge of D1"
    assert idle["R5"] == "your supply has no die left to hatch"
    assert "A1" not in idle and "D1c" not in idle and "R0" not in idle
    hold(s, 0, 0, 3)
    assert {"type": "place_die", "die": 0, "slot": "E3"} in GAME.legal_actions(s, 0)
    put(s, 1, 0, "D2t")  # a dig tonight may turn a card up before E
    assert "E3" not in GAME.view(s, 0)["idle"]
    assert GAME.view(s, 1)["idle"]["G1"] == "the queen deck is empty"
