"""The terminal's termite choices say what a player decides by (issue 30, points 4 and 5),
against real views: the cube's colour and where it comes from, what a trade payment
gets, what a helper die does, a die in a room by its number and value (never a bare
number that reads like a count), and one numbering from 1 for dice, rooms and the wall,
in what is shown and in what is typed."""

from __future__ import annotations

import re
from typing import Any

from tablehub.clients.cli.renderers import termite as renderer
from tablehub.clients.cli.rows import wrap
from tablehub.server.games.termite import GAME
from tests.server.games.termite.test_helpers import (
    act,
    hold,
    put,
    reveal,
    seat_zero_starts,
    to_night,
)

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _board() -> tuple[dict[str, Any], dict[str, Any]]:
    """Seat 0 to act: die 1 unplaced showing 4, die 2 alone in room 4 showing 3, a
    face-up red card of 2 cubes at D1's first row, left."""
    s = seat_zero_starts(2)
    hold(s, 0, 0, 4)
    put(s, 0, 1, "R3", value=3)
    reveal(s, 1, "1a", "red", 2)
    return s, GAME.view(s, 0)


def _labels(action: dict[str, Any], board: dict[str, Any]) -> list[str]:
    return [label for _, label in renderer.choice_steps(action, board, 0)]


def test_a_cube_choice_names_its_colour_and_place() -> None:
    _, board = _board()
    steps = renderer.choice_steps({"type": "choose", "source": "D5", "room": 0}, board, 0)
    assert steps == [(None, "take a purple cube from main stake D5"), ("1", "into room 1")]
    card = _labels({"type": "choose", "source": "D1/1a", "room": 2}, board)
    assert card[0] == "take a red cube from D1's stake card (first row, left)"
    wall = _labels({"type": "choose", "source": "D1/1a", "column": 0}, board)
    assert wall[:2] == [
        "take a red cube from D1's stake card (first row, left)",
        "into wall column 1",
    ]


def test_a_payment_says_what_it_gets_in_good_grammar() -> None:
    _, board = _board()
    gets = "for 1 cube of any colour straight into your wall"
    egg = _labels({"type": "choose", "pay": "egg", "room": 3}, board)
    assert egg == [f"pay an egg {gets}", f"pay the egg in room 4 {gets}"]
    queen = _labels({"type": "choose", "pay": "queen", "card": "swarm"}, board)
    assert queen[0] == f"pay a queen card {gets}"
    cubes = _labels({"type": "choose", "pay": "cubes", "cubes": [[0, "red"], [2, "blue"]]}, board)
    assert cubes[1] == f"pay a red cube from room 1 and a blue cube from room 3 {gets}"
    assert not any("a egg" in label for label in egg + queen + cubes)
    assert renderer._prompt({"kind": "trade", "prompt": "x"}).endswith(f"{gets} (or pass)")


def test_the_helper_die_is_explained() -> None:
    s, board = _board()
    partial = {"type": "place_die", "die": 0, "slot": "A2"}
    _, words = renderer.stage_option("helper", 2, partial, board, 0)
    value = s["players"][0]["dice"][2]["value"]
    assert words == f"with die 3: worker showing {value} as helper (it sits out this round)"
    assert "sits out this round" in renderer.INPUT_HELP


def test_a_die_in_a_room_is_shown_by_number_and_value() -> None:
    _, board = _board()
    text = ANSI.sub("", renderer.render_compact(board, 0))
    assert "R4[empty; die 2 shows 3]" in text
    assert "dice 1" not in text and "R0[" not in text, "rooms and dice from 1"
    _, alone = renderer.stage_option("slot", "R0", {"type": "place_die", "die": 0}, board, 0)
    assert alone.startswith("room 1: alone a die does nothing; 2 of one value build or move")
    _, joins = renderer.stage_option("slot", "R3", {"type": "place_die", "die": 0}, board, 0)
    assert joins.startswith("room 4: joins die 2 shows 3")


def test_the_last_die_alone_in_a_room_is_named_before_it_is_placed() -> None:
    s, _ = _board()
    for index in range(2, len(s["players"][0]["dice"])):
        s["players"][0]["dice"][index]["at"] = "X"
    board = GAME.view(s, 0)
    _, words = renderer.stage_option("slot", "R0", {"type": "place_die", "die": 0}, board, 0)
    assert "-- does nothing tonight: a die alone in a room does nothing" in words


def test_one_numbering_from_one() -> None:
    s, board = _board()
    _, first = renderer.stage_option("die", 0, {"type": "place_die"}, board, 0)
    assert first.startswith("die 1: worker showing 4")
    assert renderer.stage_option("room", 0, {"type": "play_queen"}, board, 0) == ("1", "room 1")
    assert "      123456" in ANSI.sub("", renderer.render(board, 0))
    assert renderer.describe_action({"type": "place_die", "die": 0, "slot": "R2"}) == (
        "place die 1 in room 3"
    )
    assert renderer.parse_action("1 R3", board, 0) == {
        "type": "place_die",
        "die": 0,
        "slot": "R2",
    }
    put(s, 0, 0, "R2", value=4)
    news = renderer.describe_news(board, GAME.view(s, 0), [])
    assert news == [(0, "put die 1 (worker 4) on room 3")]


def test_a_stake_slot_names_its_colour() -> None:
    _, board = _board()
    colour = board["stakes"][0]["colour"]
    partial = {"type": "place_die", "die": 0}
    _, collect = renderer.stage_option("slot", "D1c", partial, board, 0)
    assert collect.startswith(f"slot D1c: collect cubes at the {colour} stake ("), collect
    _, dig = renderer.stage_option("slot", "D1t", partial, board, 0)
    assert dig.startswith(f"slot D1t: dig a tunnel at the {colour} stake ("), dig


def test_a_helper_for_a_die_that_already_shows_the_slot_is_said_to_be_needless() -> None:
    s, board = _board()
    value = s["players"][0]["dice"][2]["value"]
    as_rolled = {"type": "place_die", "die": 0, "slot": "A4"}  # die 1 shows 4
    _, words = renderer.stage_option("helper", 2, as_rolled, board, 0)
    assert words == (
        f"with die 3: worker showing {value} as helper "
        "(it sits out this round; not needed: die 1 already shows 4)"
    )
    room = {"type": "place_die", "die": 0, "slot": "R0"}  # a room's value is chosen
    assert renderer.stage_option("helper", 2, room, board, 0)[1].endswith("this round)")


def test_a_die_and_its_place_stay_on_one_row() -> None:
    _, board = _board()
    line = next(
        row for row in renderer.render_compact(board, 0).splitlines() if row.startswith("your dice")
    )
    assert "2:w3\u00a0R4" in line, line
    for width in range(20, 81):
        assert any("2:w3\u00a0R4" in row for row in wrap(line, width)), width


def test_a_long_hand_beside_the_wall_leaves_the_wall_whole() -> None:
    s, _ = _board()
    cards = ["green-L", "white-S", "red-I", "blue-I", "purple-I", "blue-L", "blue-T", "white-J"]
    s["players"][0]["hand"] = cards
    s["players"][0]["queens"] = ["mandibles", "architect", "swarm", "nursery"]
    rows = ANSI.sub("", renderer.render_compact(GAME.view(s, 0), 0)).splitlines()
    walls = [i for i, row in enumerate(rows) if re.match(r" \d \|", row)]
    assert len(walls) == 7 and walls == list(range(walls[0], walls[0] + 7)), rows
    assert all(len(row) <= 80 for row in rows[walls[0] : walls[-1] + 2]), rows
    said = " ".join(row[12:].strip() for row in rows[walls[0] : walls[-1] + 3])
    assert ", ".join(cards) in said and "queen cards: mandibles, architect, swarm" in said


def _news(before: dict[str, Any], after: dict[str, Any], events: list[Any]) -> list[str]:
    board0, board1 = GAME.view(before, 0), GAME.view(after, 0)
    return [phrase for _, phrase in renderer.describe_news(board0, board1, events)]


def test_cubes_won_but_not_taken_are_said_so() -> None:
    """A majority at an emptied main stake with no tunnel to a stake card, and one whose
    winner has no room with space: the news says the cubes were not taken, and why."""
    s = seat_zero_starts(2)
    put(s, 0, 0, "D3c")
    put(s, 1, 0, "D1c")
    s["players"][1]["rooms"] = [{"egg": False, "cubes": ["blue"] * 4} for _ in range(6)]
    s["players"][0]["rooms"][0]["cubes"] = ["green"] * 4
    s["players"][0]["rooms"][1]["cubes"] = ["green"] * 2
    s["stakes"][2]["cubes"] = 0
    after, events = to_night(s)
    words = _news(s, after, events)
    assert (
        "did not get 2 cubes won at stake D3: none were left there or on a stake card "
        "their tunnels reach"
    ) in words
    assert "did not get 2 cubes won at stake D1: no room of theirs had space" in words


def test_a_blueprint_from_the_deck_is_not_said_to_be_none_left() -> None:
    """The deck's top blueprint is taken face down (the event names no card): the news
    says where it came from, not that none were left."""
    s = seat_zero_starts(2)
    put(s, 0, 0, "A2")
    night, _ = to_night(s)
    after, events = act(night, 0, {"type": "choose", "blueprint": "deck"})
    assert {"type": "blueprint", "seat": 0, "card": None} in events
    words = _news(night, after, events)
    assert "took the top blueprint of the deck" in words
    assert not any("none left" in w for w in words)
    lost = {"type": "bonus", "seat": 0, "space": "blueprint", "lost": True}
    assert renderer._event_phrase(lost) == (
        "chose the bonus a blueprint, but there was none left to give"
    )
