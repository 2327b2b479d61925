"""Dead-move warnings (docs/games/termite.md "A die that will do nothing says so"): the
seat's view names, before the die is placed, the three cases issue 27 lists -- no cube
reachable, nothing to trade, a room that can never build -- and stays quiet where the
night could still make the die useful."""

from __future__ import annotations

from tablehub.server.games.termite import GAME, data
from tests.server.games.termite.test_helpers import hold, put, reveal, seat_zero_starts

NOTHING_TO_PAY = "you have nothing to pay with (2 cubes, an egg, a queen card or a blueprint)"


def test_no_cube_reachable() -> None:
    s = seat_zero_starts(2)
    hold(s, 0, 0, 3)
    s["stakes"][2]["cubes"] = 0
    idle = GAME.view(s, 0)["idle"]
    assert idle["D3c"] == "main stake D3 and the stake cards you reach have no cubes"
    assert "D2c" not in idle
    for room in s["players"][0]["rooms"]:
        room["cubes"] = ["red"] * data.ROOM_CUBES
    assert GAME.view(s, 0)["idle"]["D2c"] == "none of your rooms can take a cube"


def test_nothing_to_trade_with() -> None:
    """A face-up card has a cube, but the seat holds nothing to pay with and no die of
    its own on A, C, E or a collect space could bring a payment before E."""
    s = seat_zero_starts(2)
    hold(s, 0, 0, 3)
    reveal(s, 1, "1a", "red", 2)
    player = s["players"][0]
    player["hand"], player["queens"] = [], []
    assert GAME.view(s, 0)["idle"]["E3"] == NOTHING_TO_PAY
    for slot in ("A2", "C2", "E1", "D2c"):
        t = seat_zero_starts(2)
        hold(t, 0, 0, 3)
        reveal(t, 1, "1a", "red", 2)
        put(t, 0, 1, slot)
        assert "E3" not in GAME.view(t, 0)["idle"], slot
    player["rooms"][0]["cubes"] = ["red", "blue"]
    assert "E3" not in GAME.view(s, 0)["idle"]
    player["rooms"][0]["cubes"] = []
    player["queens"] = ["swarm"]
    assert "E3" not in GAME.view(s, 0)["idle"]


def test_a_room_that_can_never_build() -> None:
    """The last die, alone in a room, does nothing: no second die can join it."""
    s = seat_zero_starts(2)
    hold(s, 0, 0, 4)
    idle = GAME.view(s, 0)["idle"]
    assert idle["R0"].startswith("a die alone in a room does nothing")
    assert idle["R0"].endswith("and this is your last die")
    put(s, 0, 1, "R2", value=4)  # another room holds a 4: the two rooms can move cubes
    assert "R0" not in GAME.view(s, 0)["idle"]
    assert "R2" not in GAME.view(s, 0)["idle"]  # joining it makes two dice: it may build
    s["players"][0]["rooms"][5]["egg"] = True
    assert GAME.view(s, 0)["idle"]["R5"] == (
        "an egg hatches from 2 dice of one value, and this is your last die"
    )
    hold(s, 0, 3, 2)  # two dice left: a second one may still join
    assert "R0" not in GAME.view(s, 0)["idle"] and "R5" not in GAME.view(s, 0)["idle"]


def test_placing_there_stays_legal() -> None:
    s = seat_zero_starts(2)
    hold(s, 0, 0, 4)
    assert "R0" in GAME.view(s, 0)["idle"]
    legal = GAME.legal_actions(s, 0)
    assert {"type": "place_die", "die": 0, "slot": "R0"} in legal
