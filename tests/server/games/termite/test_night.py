"""Termite Towers night scenarios, actions A-G one by one (docs/games/termite.md, seed 夜晚階段)."""

from __future__ import annotations

from typing import Any

from tablehub.server.games.termite import GAME, data, gather
from tests.server.games.conformance import assert_refused
from tests.server.games.termite.test_helpers import (
    act,
    choose,
    fresh,
    invariants,
    pending,
    put,
    quiet,
    reveal,
    seat_zero_starts,
    to_night,
)

State = dict[str, Any]


def board4() -> State:
    return seat_zero_starts(4, seed=3)


def give_cubes(s: State, seat: int, room: int, cubes: list[str]) -> None:
    """Move cubes from their main stakes into a room (keeps cubes conserved)."""
    for colour in cubes:
        s["stakes"][data.COLOURS.index(colour)]["cubes"] -= 1
    s["players"][seat]["rooms"][room]["cubes"] = sorted(cubes)


def give_wall(s: State, seat: int, cells: list[tuple[int, int]], colour: str = "red") -> None:
    for x, y in cells:
        s["stakes"][data.COLOURS.index(colour)]["cubes"] -= 1
        s["players"][seat]["wall"][y][x] = colour


def give_egg(s: State, seat: int, room: int) -> None:
    s["eggs"] -= 1
    s["players"][seat]["rooms"][room]["egg"] = True


# --- A --------------------------------------------------------------------------------------


def test_a_take_face_up_or_deck_and_refill() -> None:
    s = board4()
    put(s, 1, 0, "A2")
    put(s, 0, 0, "A5")
    face_up = list(s["blueprints"]["face_up"])
    deck = list(s["blueprints"]["deck"])
    s, events = to_night(s)
    assert pending(s) == {"t": "blueprint", "seat": 1}
    assert GAME.status(s)["to_act"] == [1]
    assert_refused(
        GAME, s, 1, {"type": "choose", "blueprint": "nope-X"}, "illegal_action", "not face up"
    )
    assert_refused(GAME, s, 0, {"type": "choose", "blueprint": "deck"}, "not_your_turn")
    s, events = GAME.apply(s, 1, {"type": "choose", "blueprint": face_up[2]})
    assert s["players"][1]["hand"] == [face_up[2]]
    assert s["blueprints"]["face_up"] == [*face_up[:2], deck[0], face_up[3]]
    assert events[0] == {"type": "blueprint", "seat": 1, "card": face_up[2]}
    s, events = GAME.apply(s, 0, {"type": "choose", "blueprint": "deck"})
    assert s["players"][0]["hand"] == [deck[1]]
    assert events[0] == {"type": "blueprint", "seat": 0, "card": None}  # hidden
    assert s["round"] == 2
    invariants(s)


def test_a_with_a_single_option_is_automatic() -> None:
    s = board4()
    s["blueprints"]["discard"] = s["blueprints"]["deck"] + s["blueprints"]["face_up"][1:]
    s["blueprints"]["deck"] = []
    s["blueprints"]["face_up"] = s["blueprints"]["face_up"][:1]
    card = s["blueprints"]["face_up"][0]
    put(s, 2, 0, "A1")
    s, _ = to_night(s)
    assert s["players"][2]["hand"] == [card] and s["blueprints"]["face_up"] == []
    put(s, 2, 0, "A1")
    s, _ = to_night(s)  # nothing left to take: skipped
    assert s["players"][2]["hand"] == [card]


# --- B --------------------------------------------------------------------------------------


def test_b_hatch_worker_and_soldier() -> None:
    s = board4()
    for room in (0, 2, 3):
        give_egg(s, 0, room)
    put(s, 0, 0, "R0", 2)
    put(s, 0, 1, "R0", 2)
    put(s, 0, 2, "R2", 4)
    put(s, 0, 3, "R2", 4)
    put(s, 0, 6, "R2", 4)
    put(s, 0, 4, "R3", 1)
    eggs = s["eggs"]
    s, events = to_night(s)
    p = s["players"][0]
    assert [room["egg"] for room in p["rooms"][:4]] == [False, False, False, True]
    assert [d["kind"] for d in p["dice"][7:]] == ["worker", "soldier"]
    assert p["hatched"] == 2 and s["eggs"] == eggs + 2
    assert [e for e in events if e["type"] == "hatched"] == [
        {"type": "hatched", "seat": 0, "room": 0, "kind": "worker"},
        {"type": "hatched", "seat": 0, "room": 2, "kind": "soldier"},
    ]
    invariants(s)


def test_b_without_supply_the_egg_stays() -> None:
    """The supply holds 3 soldiers beside the start soldier: a fifth cannot hatch."""
    s = board4()
    s["players"][0]["dice"] += [{"kind": "soldier", "value": 1, "at": "X"} for _ in range(3)]
    give_egg(s, 0, 1)
    for i in range(3):
        put(s, 0, i, "R1", 6)
    s, events = to_night(s)
    assert s["players"][0]["rooms"][1]["egg"] and len(s["players"][0]["dice"]) == 10
    assert {"type": "no_hatch", "seat": 0, "room": 1, "kind": "soldier"} in events


# --- C --------------------------------------------------------------------------------------


def test_c_egg_into_an_empty_room() -> None:
    s = board4()
    give_cubes(s, 3, 0, ["red"])
    put(s, 3, 0, "C3")
    put(s, 3, 1, "R1", 5)
    s, _ = to_night(s)
    assert pending(s) == {"t": "egg", "seat": 3}
    assert {a.get("room") for a in GAME.legal_actions(s, 3)} == {2, 3, 4, 5}
    assert_refused(GAME, s, 3, {"type": "choose", "room": 0}, "illegal_action", "not empty")
    assert_refused(GAME, s, 3, {"type": "choose", "room": 1}, "illegal_action", "not empty")
    assert_refused(GAME, s, 3, {"type": "pass"}, "illegal_action", "cannot be passed")
    assert_refused(GAME, s, 3, {"type": "choose", "egg": 1}, "bad_action", "room")
    s = choose(s, 3, room=4)
    assert s["players"][3]["rooms"][4]["egg"] and s["eggs"] == 15
    invariants(s)


# --- D: tunnels ----------------------------------------------------------------------------------


def test_d_tunnel_extends_network_and_reveals() -> None:
    s = board4()
    s["start"] = 1
    put(s, 0, 0, "D2t")
    put(s, 1, 0, "D2t")
    put(s, 1, 1, "D2t")
    hidden = dict(s["stakes"][1]["cards"]["1b"])
    s, _ = to_night(s)
    assert pending(s) == {"t": "tunnel", "seat": 1, "area": 2}  # start player first
    assert GAME.view(s, None)["pending"]["area"] == 2
    assert_refused(
        GAME, s, 1, {"type": "choose", "edge": "1b-2c"}, "illegal_action", "does not touch"
    )
    assert_refused(
        GAME, s, 1, {"type": "choose", "edge": "S-9"}, "bad_action", "unknown tunnel edge"
    )
    s, events = GAME.apply(s, 1, {"type": "choose", "edge": "S-1b"})
    assert events[1] == {
        "type": "revealed",
        "area": 2,
        "card": "1b",
        "colour": hidden["colour"],
        "cubes": hidden["cubes"],
    }
    assert GAME.view(s, 2)["stakes"][1]["cards"]["1b"] == {
        "colour": hidden["colour"],
        "cubes": hidden["cubes"],
    }
    assert_refused(GAME, s, 1, {"type": "choose", "edge": "S-1b"}, "illegal_action", "already")
    s = choose(s, 1, edge="1b-2c")
    assert s["players"][1]["tunnels"][1] == ["S-1b", "1b-2c"]
    assert pending(s) == {"t": "tunnel", "seat": 0, "area": 2}
    s = choose(s, 0, edge="S-1b")  # a second player may use the same edge; no new reveal
    assert s["players"][0]["tunnels"][1] == ["S-1b"]
    invariants(s)


def test_d_no_tunnels_left_skips() -> None:
    s = board4()
    s["players"][0]["tunnels"] = [list(data.EDGE_NAMES)] * 2 + [[]] * 4
    put(s, 0, 0, "D3t")
    s, _ = to_night(s)
    assert s["players"][0]["tunnels"][2] == []
    # A tunnel-slot die does not count for D3's majority (docs/games/termite.md "Which
    # dice count for a D majority"): nothing is left to do tonight.
    assert s["phase"] == "day" and s["round"] == 2


# --- D: collecting -------------------------------------------------------------------------------


def awards(s: State, area: int) -> list[tuple[int, int]]:
    return gather.majority(s, area)[1]


def test_majority_most_two_second_one() -> None:
    s = board4()
    put(s, 0, 0, "D4c")
    put(s, 0, 1, "D4c")
    put(s, 1, 0, "D4c")
    assert awards(s, 4) == [(0, 2), (1, 1)]


def test_soldier_counts_two() -> None:
    s = board4()
    put(s, 2, 6, "D4c")  # soldier = 2
    put(s, 1, 0, "D4c")
    assert awards(s, 4) == [(2, 2), (1, 1)]
    put(s, 1, 1, "D4c")
    assert awards(s, 4) == [(1, 1), (2, 1)]  # 2 v 2: tie for most


def test_tie_for_most_each_one_and_no_second() -> None:
    s = board4()
    s["start"] = 2
    for seat in (0, 3):
        put(s, seat, 0, "D1c")
        put(s, seat, 1, "D1c")
    put(s, 1, 0, "D1c")
    assert awards(s, 1) == [(3, 1), (0, 1)]  # seat order from the start player


def test_tie_for_second_gets_nothing() -> None:
    s = board4()
    for i in range(3):
        put(s, 0, i, "D6c")
    put(s, 1, 0, "D6c")
    put(s, 2, 0, "D6c")
    assert awards(s, 6) == [(0, 2)]


def test_neutral_dice_take_places_but_no_cubes() -> None:
    s = quiet(fresh(3))
    s["start"] = 0
    s["neutral"] = [{"kind": "worker", "value": 2, "at": "D2c"}]
    put(s, 0, 0, "D2c")
    assert awards(s, 2) == [(0, 1)]  # tie with neutral for most
    s["neutral"].append({"kind": "worker", "value": 2, "at": "D2c"})
    assert awards(s, 2) == [(0, 1)]  # neutral most, seat 0 second
    put(s, 1, 0, "D2c")
    assert awards(s, 2) == []  # neutral most, tie for second


def test_collect_into_rooms_from_stake_or_reached_card() -> None:
    s = board4()
    put(s, 0, 0, "D3c")
    put(s, 0, 1, "D3c")
    put(s, 1, 0, "D3c")
    reveal(s, 5, "1a", "green", 2)
    reveal(s, 5, "2a", "blue", 3)
    s["players"][0]["tunnels"][4] = ["S-1a"]
    give_cubes(s, 0, 0, ["red", "red", "red", "red"])
    give_egg(s, 0, 1)
    s, events = to_night(s)
    assert events[-1]["type"] == "majority" and events[-1]["awards"] == [[0, 2], [1, 1]]
    assert pending(s) == {"t": "cube", "seat": 0, "scope": 3, "colour": None}
    legal = GAME.legal_actions(s, 0)
    assert {a["source"] for a in legal if "source" in a} == {"D3", "D5/1a"}
    assert {a["room"] for a in legal if "room" in a} == {2, 3, 4, 5}  # room limit
    assert_refused(
        GAME, s, 0, {"type": "choose", "source": "D3", "room": 0}, "illegal_action", "full"
    )
    assert_refused(
        GAME, s, 0, {"type": "choose", "source": "D3", "room": 1}, "illegal_action", "egg"
    )
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "source": "D5/2a", "room": 2},
        "illegal_action",
        "cannot take",
    )
    assert_refused(
        GAME, s, 0, {"type": "choose", "source": "D4", "room": 2}, "illegal_action", "cannot take"
    )
    s = choose(s, 0, source="D5/1a", room=2)
    s = choose(s, 0, source="D3", room=2)
    assert s["players"][0]["rooms"][2]["cubes"] == ["green", "green"]
    assert s["stakes"][4]["cards"]["1a"]["cubes"] == 1 and s["stakes"][2]["cubes"] == 5
    s = choose(s, 1, source="D3", room=0)
    assert s["players"][1]["rooms"][0]["cubes"] == ["green"]
    invariants(s)


def test_collected_cube_that_fits_nowhere_is_not_taken() -> None:
    s = board4()
    put(s, 0, 0, "D1c")
    for room in range(6):
        give_cubes(s, 0, room, ["yellow"] * 4 if room % 2 else ["blue"] * 4)
    s, _ = to_night(s)
    assert s["round"] == 2 and s["stakes"][0]["cubes"] == 6


def won_at_the_green_stake(left: int) -> State:
    """Seat 0 wins the green stake's majority (D3) with two collect dice and seat 1 comes
    second with one; the stake holds ``left`` of its 6 cubes (the rest in seat 2's rooms)."""
    s = board4()
    put(s, 0, 0, "D3c")
    put(s, 0, 1, "D3c")
    put(s, 1, 0, "D3c")
    give_cubes(s, 2, 0, ["green"] * 4)
    give_cubes(s, 2, 1, ["green"] * (2 - left))
    return s


def test_cubes_won_at_an_empty_stake_are_said_not_taken() -> None:
    # The majority's awards are the cubes each place wins; a main stake is never refilled
    # and no tunnel of theirs reaches a stake card, so nobody takes any: the events say so
    # (docs/games/termite.md "A won cube nobody can give").
    s = won_at_the_green_stake(left=0)
    assert s["stakes"][2]["cubes"] == 0
    s, events = to_night(s)
    assert s["round"] == 2, "nothing to choose: no cube can be taken"
    night = events[[e["type"] for e in events].index("majority") :]
    assert night[0]["awards"] == [[0, 2], [1, 1]]
    assert night[1:3] == [
        {"type": "no_cube", "seat": 0, "area": 3, "cubes": 2, "reason": "none_left"},
        {"type": "no_cube", "seat": 1, "area": 3, "cubes": 1, "reason": "none_left"},
    ]
    assert not [e for e in events if e["type"] == "cube"]
    invariants(s)


def test_the_last_cube_of_a_stake_goes_to_the_first_and_the_rest_is_said_missed() -> None:
    s, _ = to_night(won_at_the_green_stake(left=1))
    assert pending(s) == {"t": "cube", "seat": 0, "scope": 3, "colour": None}
    s, events = act(s, 0, {"type": "choose", "source": "D3", "room": 0})
    assert [e["type"] for e in events[:3]] == ["cube", "no_cube", "no_cube"]
    assert events[1] == {"type": "no_cube", "seat": 0, "area": 3, "cubes": 1, "reason": "none_left"}
    assert events[2] == {"type": "no_cube", "seat": 1, "area": 3, "cubes": 1, "reason": "none_left"}
    assert s["players"][0]["rooms"][0]["cubes"] == ["green"]
    invariants(s)


def test_a_won_cube_no_room_can_hold_is_said_not_taken() -> None:
    s = board4()
    put(s, 0, 0, "D1c")
    for room in range(6):
        s["players"][0]["rooms"][room]["cubes"] = ["blue"] * 4
    s, events = to_night(s)
    assert {"type": "no_cube", "seat": 0, "area": 1, "cubes": 2, "reason": "rooms_full"} in events


def test_tunnels_before_collection() -> None:
    s = board4()
    put(s, 0, 0, "D5c")
    put(s, 0, 1, "D5t")
    reveal(s, 5, "1a", "purple", 3)  # already up; the tunnel reaches it tonight
    s, _ = to_night(s)
    s = choose(s, 0, edge="S-1a")
    assert pending(s)["t"] == "cube"
    assert {a["source"] for a in GAME.legal_actions(s, 0) if "source" in a} == {"D5", "D5/1a"}


# --- E --------------------------------------------------------------------------------------


def reach(s: State, seat: int, area: int, colour: str, cubes: int = 3) -> str:
    """Give ``seat`` a tunnel to stake card 1a of ``area``, face up with these cubes."""
    reveal(s, area, "1a", colour, cubes)
    s["players"][seat]["tunnels"][area - 1] = ["S-1a"]
    return f"D{area}/1a"


def test_e_trade_two_cubes_for_a_wall_cube() -> None:
    s = board4()
    reach(s, 0, 4, "blue")
    put(s, 0, 0, "E1")
    give_cubes(s, 0, 0, ["red", "white"])
    give_cubes(s, 0, 3, ["red"])
    s, _ = to_night(s)
    assert pending(s) == {"t": "trade", "seat": 0}
    legal = GAME.legal_actions(s, 0)
    assert {"type": "pass"} in legal
    assert {"type": "choose", "pay": "cubes", "cubes": [[0, "red"], [0, "white"]]} in legal
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "pay": "cubes", "cubes": [[0, "red"], [0, "red"]]},
        "illegal_action",
        "does not hold 2 red",
    )
    s = choose(s, 0, pay="cubes", cubes=[[0, "red"], [3, "red"]])
    # [house] paid cubes go back to their main stake.
    assert s["players"][0]["rooms"][0]["cubes"] == ["white"] and s["stakes"][0]["cubes"] == 6
    assert pending(s) == {"t": "trade_take", "seat": 0}
    assert_refused(GAME, s, 0, {"type": "pass"}, "illegal_action", "cannot be passed")
    assert_refused(GAME, s, 0, {"type": "choose", "source": "D4/1a", "column": 6}, "bad_action")
    assert_refused(
        GAME, s, 0, {"type": "choose", "source": "D4", "column": 2}, "illegal_action", "main stake"
    )
    s = choose(s, 0, source="D4/1a", column=2)
    assert s["players"][0]["wall"][0][2] == "blue"
    s2 = board4()
    reach(s2, 0, 4, "blue")
    put(s2, 0, 0, "E1")
    give_wall(s2, 0, [(2, y) for y in range(7)])
    s2["players"][0]["queens"] = [s2["queen_deck"].pop()]
    s2, _ = to_night(s2)
    s2 = choose(s2, 0, pay="queen", card=s2["players"][0]["queens"][0])
    assert_refused(
        GAME,
        s2,
        0,
        {"type": "choose", "source": "D4/1a", "column": 2},
        "illegal_action",
        "does not fit",
    )
    invariants(s)


def test_e_pass_and_pay_with_blueprint_or_egg() -> None:
    s = board4()
    put(s, 0, 0, "E1")
    put(s, 0, 1, "E2")
    put(s, 0, 2, "E3")
    s["players"][0]["hand"] = [s["blueprints"]["deck"].pop()]
    reach(s, 0, 1, "red")
    give_egg(s, 0, 5)
    card = s["players"][0]["hand"][0]
    s, _ = to_night(s)
    s, events = GAME.apply(s, 0, {"type": "pass"})
    assert events[0] == {"type": "passed", "seat": 0, "choice": "trade"}
    s = choose(s, 0, pay="blueprint", card=card)
    assert s["blueprints"]["discard"] == [card] and s["players"][0]["hand"] == []
    s = choose(s, 0, source="D1/1a", column=0)
    s = choose(s, 0, pay="egg", room=5)
    s = choose(s, 0, source="D1/1a", column=0)
    assert s["players"][0]["wall"][1][0] == "red" and not s["players"][0]["rooms"][5]["egg"]
    invariants(s)


def test_e_completing_a_row_gives_a_bonus() -> None:
    s = board4()
    put(s, 0, 0, "E1")
    give_wall(s, 0, [(x, 0) for x in range(5)])
    give_cubes(s, 0, 0, ["red", "red"])
    source = reach(s, 0, 2, "yellow")
    s, _ = to_night(s)
    s = choose(s, 0, pay="cubes", cubes=[[0, "red"], [0, "red"]])
    s, events = GAME.apply(s, 0, {"type": "choose", "source": source, "column": 5})
    assert {"type": "rows", "seat": 0, "rows": [0]} in events
    assert pending(s) == {"t": "bonus", "seat": 0}
    assert len(GAME.legal_actions(s, 0)) == 8
    s = choose(s, 0, space="points")
    assert s["players"][0]["points"] == 2 and s["players"][0]["bonus"] == ["points"]
    assert GAME.view(s, None)["players"][0]["score"] >= 2
    invariants(s)


# --- F --------------------------------------------------------------------------------------


def test_f_move_cubes_between_two_rooms() -> None:
    s = board4()
    put(s, 0, 0, "R0", 3)
    put(s, 0, 1, "R1", 3)
    put(s, 0, 2, "R2", 4)
    give_cubes(s, 0, 0, ["blue", "red"])
    give_cubes(s, 0, 1, ["blue", "red", "red"])
    s, _ = to_night(s)
    assert pending(s) == {"t": "move", "seat": 0, "value": 3, "used": []}
    legal = GAME.legal_actions(s, 0)
    # Splits of {blue x2, red x3} with <= 4 cubes a side (10), minus the current one;
    # plus pass.
    assert len(legal) == 9 + 1
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "rooms": [0, 2], "cubes": []},
        "illegal_action",
        "cannot move",
    )
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "rooms": [0, 1], "cubes": ["red"] * 4},
        "illegal_action",
        "do not hold",
    )
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "rooms": [0, 1], "cubes": ["blue", "red"]},
        "illegal_action",
        "changes nothing",
    )
    s = choose(s, 0, rooms=[0, 1], cubes=["red", "red", "red"])
    assert s["players"][0]["rooms"][0]["cubes"] == ["red", "red", "red"]
    assert s["players"][0]["rooms"][1]["cubes"] == ["blue", "blue"]
    assert s["round"] == 2  # no build possible, no other pair: the night ended
    invariants(s)


def build_position(hand: list[str], cubes: str = "green") -> State:
    s = board4()
    put(s, 0, 0, "R2", 5)
    put(s, 0, 1, "R2", 5)
    give_cubes(s, 0, 2, [cubes] * 4)
    for card in hand:
        s["blueprints"]["deck"].remove(card)
    s["players"][0]["hand"] = list(hand)
    return s


def test_f_build_tetris_style() -> None:
    s = build_position(["green-T", "green-O", "red-I"])
    s, _ = to_night(s)
    assert pending(s) == {"t": "build", "seat": 0, "value": 5}
    legal = GAME.legal_actions(s, 0)
    # T: 4 rotations (4, 5, 4, 5 columns), O: 1 rotation x 5 columns, I: 2 rotations (3, 6
    # columns; any blueprint builds with the green cubes).  Each is listed as a drop (no
    # row) and as its resting place on the floor (row 0).  And pass.
    assert len(legal) == 2 * (18 + 5 + 9) + 1
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "room": 2, "blueprint": "blue-I", "rotation": 0, "column": 0},
        "illegal_action",
        "not in your hand",
    )
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "room": 2, "blueprint": "green-O", "rotation": 1, "column": 0},
        "bad_action",
        "rotations 0-0",
    )
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "room": 2, "blueprint": "green-T", "rotation": 0, "column": 4},
        "illegal_action",
        "does not fit",
    )
    assert_refused(
        GAME,
        s,
        0,
        {"type": "choose", "room": 1, "blueprint": "green-T", "rotation": 0, "column": 0},
        "illegal_action",
        "cannot build",
    )
    s, events = GAME.apply(
        s, 0, {"type": "choose", "room": 2, "blueprint": "green-T", "rotation": 2, "column": 1}
    )
    p = s["players"][0]
    # Rotation 2 = upside-down T: a stem at (2,0) under a bar at row 1.
    assert GAME.view(s, None)["players"][0]["wall"][:2] == ["..g...", ".ggg.."]
    assert p["built"] == ["green-T"] and p["hand"] == ["green-O", "red-I"]
    assert p["rooms"][2]["cubes"] == []
    assert events[0]["cells"] == [[1, 1], [2, 0], [2, 1], [3, 1]]
    invariants(s)


def test_f_piece_rests_on_cubes_and_completes_rows() -> None:
    s = build_position(["green-I"])
    give_wall(s, 0, [(0, 0), (1, 0), (0, 1), (1, 1), (5, 0), (4, 0)])
    give_wall(s, 0, [(2, 1)], "blue")
    s, _ = to_night(s)
    # I standing (rotation 1) in column 3 falls to the floor: rows 0 is not complete.
    # I lying (rotation 0) in column 2 rests on the blue cube at (2,1): row 2.
    s, events = GAME.apply(
        s, 0, {"type": "choose", "room": 2, "blueprint": "green-I", "rotation": 0, "column": 2}
    )
    assert events[0]["cells"] == [[2, 2], [3, 2], [4, 2], [5, 2]]
    assert s["night"]["tasks"] == [] and s["round"] == 2  # no row completed
    s2 = build_position(["green-I"])
    give_wall(s2, 0, [(0, 0), (1, 0)])
    s2, _ = to_night(s2)
    s2, events = GAME.apply(
        s2, 0, {"type": "choose", "room": 2, "blueprint": "green-I", "rotation": 0, "column": 2}
    )
    assert {"type": "rows", "seat": 0, "rows": [0]} in events
    assert pending(s2) == {"t": "bonus", "seat": 0}
    dice = len(s2["players"][0]["dice"])
    s2 = choose(s2, 0, space="worker")
    assert len(s2["players"][0]["dice"]) == dice + 1
    assert_refused(GAME, s2, 0, {"type": "choose", "space": "worker"}, "not_your_turn")
    invariants(s2)


def test_f_pass_keeps_the_room() -> None:
    s = build_position(["green-O"])
    s, _ = to_night(s)
    s, _ = GAME.apply(s, 0, {"type": "pass"})
    assert s["players"][0]["rooms"][2]["cubes"] == ["green"] * 4 and s["round"] == 2


def test_bonus_rewards() -> None:
    s = build_position(["green-I"])
    give_wall(s, 0, [(0, 0), (1, 0)])
    reveal(s, 1, "1a", "blue", 2)
    s["players"][0]["tunnels"][0] = ["S-1a"]
    s, _ = to_night(s)
    s = choose(s, 0, room=2, blueprint="green-I", rotation=0, column=2)
    s = choose(s, 0, space="cubes")
    assert pending(s)["t"] == "cube"
    s = choose(s, 0, source="D1/1a", room=0)
    # The second cube must be the same colour: the reached card or blue's main stake.
    assert pending(s) == {"t": "cube", "seat": 0, "scope": 0, "colour": "blue"}
    assert {a["source"] for a in GAME.legal_actions(s, 0) if "source" in a} == {"D1/1a", "D4"}
    s = choose(s, 0, source="D1/1a", room=0)
    assert s["players"][0]["rooms"][0]["cubes"] == ["blue", "blue"]
    invariants(s)
    # Blueprint and egg bonuses ask their own choice; room and soldier are immediate.
    for space, kind in (("blueprint", "blueprint"), ("egg", "egg")):
        t = build_position(["green-I"])
        give_wall(t, 0, [(0, 0), (1, 0)])
        t, _ = to_night(t)
        t = choose(t, 0, room=2, blueprint="green-I", rotation=0, column=2)
        t = choose(t, 0, space=space)
        assert pending(t)["t"] == kind
    t = build_position(["green-I"])
    give_wall(t, 0, [(0, 0), (1, 0)])
    t, _ = to_night(t)
    t = choose(t, 0, room=2, blueprint="green-I", rotation=0, column=2)
    t = choose(t, 0, space="room")
    assert len(t["players"][0]["rooms"]) == 7


# --- G --------------------------------------------------------------------------------------


def test_g_draws_hidden_queen_cards() -> None:
    s = board4()
    put(s, 1, 0, "G1")
    put(s, 2, 0, "G6")
    top = s["queen_deck"][:2]
    s, events = to_night(s)
    assert s["players"][1]["queens"] == [top[0]] and s["players"][2]["queens"] == [top[1]]
    assert [e for e in events if e["type"] == "queen_drawn"] == [
        {"type": "queen_drawn", "seat": 1, "left": 29},
        {"type": "queen_drawn", "seat": 2, "left": 28},
    ]
    assert GAME.view(s, 1)["players"][1]["queens"] == [top[0]]
    assert GAME.view(s, 2)["players"][1]["queens"] is None
    assert GAME.view(s, None)["players"][1]["queen_count"] == 1


def test_resolution_order_a_to_g() -> None:
    s = board4()
    put(s, 0, 0, "G1")
    put(s, 0, 1, "E1")
    put(s, 0, 2, "C1")
    put(s, 0, 3, "A1")
    put(s, 0, 4, "D1t")
    s["players"][0]["hand"] = []
    s, _ = to_night(s)
    kinds = []
    while s["phase"] == "night":
        task = pending(s)
        assert task is not None
        kinds.append(task["t"])
        s = GAME.apply(s, 0, GAME.bot_action(s, 0))[0]
    # The tunnel die on D1 only digs (it does not count for D1's majority).
    assert kinds[:3] == ["blueprint", "egg", "tunnel"][: len(kinds[:3])]
    assert kinds[0] == "blueprint" and kinds.index("egg") < kinds.index("tunnel")
