"""Termite Towers bot (server/games/termite/bot.py): it uses each rule when it pays, in
constructed positions, and every action it returns is listed as legal (both levels).  Its
strength against the previous bot is measured by ``loadtest/bench_termite_bot.py``, not
here."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.server.games.termite import GAME, bot, data
from tests.server.games.conformance import playout
from tests.server.games.termite.test_end import with_queen
from tests.server.games.termite.test_helpers import (
    NO_RESIGN,
    choose,
    hold,
    pending,
    put,
    reveal,
    to_night,
)
from tests.server.games.termite.test_night import board4, give_cubes, give_egg

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

State = dict[str, Any]


def decide(s: State, seat: int = 0) -> dict[str, Any]:
    """The bot's action, checked against the legal list."""
    action = bot.bot_action(s, seat)
    assert action in GAME.legal_actions(s, seat), action
    return action


def test_swarm_rerolls_dice_with_nothing_to_do() -> None:
    s = board4()
    for i in range(3):
        hold(s, 0, i, 2)
    for card in "ACEG":
        put(s, 1, 0 if card == "A" else "ACEG".index(card), f"{card}2")
    s["players"][0]["rooms"] = [{"egg": False, "cubes": ["red"] * 4} for _ in range(6)]
    s["players"][0]["tunnels"] = [list(data.EDGE_NAMES)] * 2 + [[]] * 4  # none left
    with_queen(s, 0, "swarm")
    assert decide(s) == {"type": "play_queen", "card": "swarm", "dice": [0, 1, 2]}


def test_nursery_when_a_pair_waits_for_an_egg() -> None:
    s = board4()
    s["round"] = 1
    hold(s, 0, 0, 3)
    hold(s, 0, 1, 3)
    with_queen(s, 0, "nursery")
    assert decide(s) == {"type": "play_queen", "card": "nursery", "room": 0}
    s, _ = GAME.apply(s, 0, {"type": "play_queen", "card": "nursery", "room": 0})
    assert decide(s)["slot"] == "R0"  # then hatch it


def test_helper_die_completes_a_build_pair() -> None:
    s = board4()
    give_cubes(s, 0, 2, ["green"] * 4)
    s["blueprints"]["deck"].remove("green-T")
    s["players"][0]["hand"] = ["green-T"]
    put(s, 0, 0, "R2", 5)
    hold(s, 0, 1, 1)
    hold(s, 0, 2, 2)
    action = decide(s)
    assert action["slot"] == "R2" and action["value"] == 5 and "helper" in action


def helper_wanted() -> State:
    """Seat 0 holds no blueprint (A pays) and two 6s: A6, C6, E6, G6 are taken, seat 1
    holds D6's majority and seat 0 has no tunnel left to dig, so a 6 does little; a
    helper die would turn one 6 into an A space."""
    s = board4()
    for k, slot in enumerate(["A6", "C6", "E6", "G6", "D6c", "D6c", "D6c"]):
        put(s, 1, k, slot)
    s["players"][0]["tunnels"] = [list(data.EDGE_NAMES)] * 2 + [[]] * 4  # none left
    hold(s, 0, 0, 6)
    hold(s, 0, 1, 6)
    return s


def test_royal_jelly_instead_of_a_helper_whose_die_has_a_use() -> None:
    """Where the bot would give up a die as a helper, royal jelly sets the value instead
    and both dice are placed."""
    s = helper_wanted()
    assert "helper" in decide(s)
    with_queen(s, 0, "royal_jelly")
    jelly = decide(s)
    assert jelly == {"type": "play_queen", "card": "royal_jelly", "die": 1, "value": 1}
    s, _ = GAME.apply(s, 0, jelly)
    assert decide(s) == {"type": "place_die", "die": 1, "slot": "A1"}


def test_a_helper_with_nothing_to_do_keeps_the_royal_jelly() -> None:
    """The same, but a collected cube has no room to go to, so the second 6 is worth
    nothing: the helper costs nothing and the queen card is kept."""
    s = helper_wanted()
    for room in range(6):
        give_cubes(s, 0, room, ["red", "yellow", "green", "blue"])
    with_queen(s, 0, "royal_jelly")
    assert "helper" in decide(s)


def test_f_move_joins_a_colour_split_over_two_rooms() -> None:
    s = board4()
    s["blueprints"]["deck"].remove("blue-O")
    s["players"][0]["hand"] = ["blue-O"]
    give_cubes(s, 0, 0, ["blue", "blue", "red"])
    give_cubes(s, 0, 1, ["blue", "blue"])
    put(s, 0, 0, "R0", 3)
    put(s, 0, 1, "R1", 3)
    s, _ = to_night(s)
    assert pending(s)["t"] == "move"
    action = decide(s)
    assert action["rooms"] == [0, 1] and sorted(action["cubes"]) in (
        ["blue"] * 4,
        ["red"],
    )


def test_day_dice_set_up_the_f_move() -> None:
    s = board4()
    s["blueprints"]["deck"].remove("blue-O")
    s["players"][0]["hand"] = ["blue-O"]
    give_cubes(s, 0, 0, ["blue", "blue"])
    give_cubes(s, 0, 1, ["blue", "blue"])
    s["stakes"][3]["cubes"] = 0  # no blue to win on D4
    put(s, 0, 0, "R0", 4)
    hold(s, 0, 1, 4)
    assert decide(s) == {"type": "place_die", "die": 1, "slot": "R1"}


def test_egg_pays_for_a_trade_late_in_the_game() -> None:
    s = board4()
    s["round"] = 9
    reveal(s, 3, "1a", "green", 3)
    s["players"][0]["tunnels"][2] = ["S-1a"]
    give_egg(s, 0, 4)
    put(s, 0, 0, "E1")
    s, _ = to_night(s)
    assert pending(s)["t"] == "trade"
    assert decide(s) == {"type": "choose", "pay": "egg", "room": 4}
    s = choose(s, 0, pay="egg", room=4)
    assert decide(s)["source"] == "D3/1a"


def test_every_bot_action_is_legal() -> None:
    for seats, seed in ((1, 61), (4, 62)):
        p = playout(NO_RESIGN, seats, seed, max_steps=4000, bot_share=1.0)
        assert NO_RESIGN.status(p.states[-1])["finished"]
        for state in p.states[:-1:5]:
            seat = GAME.status(state)["to_act"][0]
            assert bot.bot_action(state, seat) in GAME.legal_actions(state, seat)
            assert bot.easy_action(state, seat) in GAME.legal_actions(state, seat)


def test_levels_weakest_first() -> None:
    assert [level.id for level in GAME.bots] == ["easy", "strong"]
    assert GAME.default_bot_level == "strong" and GAME.fast_bot_level == "strong"
    s = GAME.setup({"rows_to_end": 5}, 2, 64)
    seat = GAME.status(s)["to_act"][0]
    assert "helper" not in bot.easy_action(s, seat)
