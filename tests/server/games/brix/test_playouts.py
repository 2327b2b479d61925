"""Property tests over wall-duel playouts, and the bot's behaviour (docs/games/brix.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.server.games.base import State, final_result
from tablehub.server.games.brix import GAME
from tablehub.server.games.brix.wall import DIRS, Wall
from tests.server.games.brix.test_rules import DOUBLE, Spec, make, place
from tests.server.games.conformance import check_playout, playout

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

MODES = ("symbols", "colors", "symbols_vs_colors")


def no_hidden_fields(state: State, view: dict[str, Any], seat: int | None) -> None:
    assert "salt" not in view


def check_invariants(states: list[State]) -> None:
    """Every position before the end is a solid wall no wider than 8, with ids in order."""
    for state in states:
        wall = Wall.from_bricks(state["bricks"])
        assert [b["id"] for b in state["bricks"]] == list(range(len(state["bricks"])))
        assert len(state["bricks"]) + state["supply"] == state["bricks_total"]
        if wall.occ:
            lo, hi = wall.columns() or (0, 0)
            assert hi - lo + 1 <= 8
        if state["result"] is None or state["result"]["reason"] != "collapse":
            assert wall.unsupported() == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("bricks", "share", "seed"),
    [(36, 1.0, 1), (36, 0.5, 2), (36, 0.0, 3), (6, 1.0, 4), (6, 0.5, 5), (8, 0.0, 6)],
)
def test_playouts_keep_the_contract(mode: str, bricks: int, share: float, seed: int) -> None:
    options = {"mode": mode, "bricks": bricks, "move_limit": 30}
    p = playout(GAME, 2, seed, options, max_steps=200, bot_share=share)
    final = GAME.status(p.states[-1])
    assert final["finished"], "move_limit must end every game"
    assert final_result(final)["reason"] in {
        "four_in_line",
        "both_lines",
        "opponent_line",
        "collapse",
        "move_limit",
    }
    check_playout(p, no_hidden_fields)
    check_invariants(p.states)
    turns = [GAME.status(s)["turn"] for s in p.states]
    assert turns == list(range(len(p.states)))


def test_small_supplies_reach_the_move_phase() -> None:
    phases: set[str] = set()
    for seed in range(6):
        p = playout(GAME, 2, seed, {"bricks": 4, "move_limit": 12}, bot_share=0.5)
        phases.update(GAME.status(s)["phase"] for s in p.states)
        moves = [a for _, a in p.log if a["type"] == "move"]
        assert all(a["brick"] < 4 for a in moves)
    assert phases == {"place", "move", "finished"}


def test_every_listed_action_is_accepted() -> None:
    for seed, bricks in ((11, 36), (12, 5)):
        p = playout(GAME, 2, seed, {"bricks": bricks, "move_limit": 20}, max_steps=12)
        for state in p.states:
            status = GAME.status(state)
            if status["finished"]:
                continue
            seat = status["to_act"][0]
            for action in GAME.legal_actions(state, seat):
                after, _ = GAME.apply(state, seat, action)
                assert GAME.status(after)["turn"] == status["turn"] + 1


def test_positions_are_every_place_a_brick_may_go() -> None:
    """The listed positions (tried from the ground's and the wall's tops, without words
    for the ones refused) are exactly the places ``placement_error`` accepts in a window
    around the wall (rows from the ground up: the action schema refuses lower ones), on
    the walls of placements and on each wall with one brick out."""
    for seed, bricks in ((21, 36), (22, 6)):
        p = playout(GAME, 2, seed, {"bricks": bricks, "move_limit": 20}, bot_share=0.5)
        for state in p.states:
            wall = Wall.from_bricks(state["bricks"])
            for one in [wall, *(wall.without(b["id"]) for b in state["bricks"])]:
                everywhere = [
                    (x, y, d)
                    for y in range(12)
                    for x in range(-12, 20)
                    for d in DIRS
                    if one.placement_error(x, y, d) is None
                ]
                assert one.positions() == everywhere


# -- the bot --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_bot_is_legal_deterministic_and_careful(mode: str) -> None:
    for seed, bricks in ((21, 36), (22, 6), (23, 10)):
        p = playout(GAME, 2, seed, {"mode": mode, "bricks": bricks, "move_limit": 24})
        for state in p.states:
            status = GAME.status(state)
            if status["finished"]:
                continue
            seat = status["to_act"][0]
            action = GAME.bot_action(state, seat)
            assert action == GAME.bot_action(state, seat)
            legal = GAME.legal_actions(state, seat)
            assert action in legal
            after, _ = GAME.apply(state, seat, action)
            result = GAME.status(after)["result"]
            if result is not None and result["reason"] in ("opponent_line", "collapse"):
                # Only when every legal action loses at once.
                for other in legal:
                    res = GAME.status(GAME.apply(state, seat, other)[0])["result"]
                    assert res is not None and seat not in res["winners"]


def test_bot_takes_an_immediate_win() -> None:
    state = make(DOUBLE, to_act=0)
    after, _ = GAME.apply(state, 0, GAME.bot_action(state, 0))
    assert final_result(GAME.status(after))["winners"] == [0]
    state = make(DOUBLE, to_act=1)
    after, _ = GAME.apply(state, 1, GAME.bot_action(state, 1))
    assert final_result(GAME.status(after))["winners"] == [1]


def test_bot_blocks_a_threat() -> None:
    # Column 0 shows X X X at rows 0..2: seat 1 must cover (0,3) with an O.
    #  2  O X O
    #  1  X X O
    #  0  O X X O      (columns -1..2)
    specs: list[Spec] = [
        (-1, 0, "h", 0, "ox"),
        (1, 0, "h", 0, "xo"),
        (0, 1, "h", 0, "xo"),
        (-1, 1, "v", 0, "xo"),
        (0, 2, "h", 0, "xo"),
    ]
    state = make(specs, to_act=1)
    threat = dict(state, to_act=0)
    assert any(wins(threat, 0, a) for a in GAME.legal_actions(threat, 0))
    after, _ = GAME.apply(state, 1, GAME.bot_action(state, 1))
    assert GAME.view(after, None)["cells"]["0,3"]["mark"] == "O"
    assert not any(wins(after, 0, a) for a in GAME.legal_actions(after, 0))


def wins(state: State, seat: int, action: dict[str, Any]) -> bool:
    result = GAME.status(GAME.apply(state, seat, action)[0])["result"]
    return result is not None and seat in result["winners"]


def test_bot_forces_a_collapse_when_the_opponent_has_no_free_brick() -> None:
    # A single column: after seat 0 moves the top brick onto the top again, seat 1 may
    # not take it and every other brick carries another one.
    state = make(
        [(0, 0, "v", 0, "xo"), (0, 2, "v", 0, "ox"), (0, 4, "v", 1, "xo"), (1, 0, "v", 1, "ox")],
        bricks=4,
        locked=1,
    )
    action = GAME.bot_action(state, 0)
    assert (action["brick"], action["x"], action["y"]) == (3, 0, 6)
    after, _ = GAME.apply(state, 0, action)
    assert not GAME.status(after)["finished"]
    legal = GAME.legal_actions(after, 1)
    assert legal
    outcomes = {final_result(GAME.status(GAME.apply(after, 1, a)[0]))["reason"] for a in legal}
    assert outcomes == {"collapse"}


def test_first_move_is_a_placement() -> None:
    state = GAME.setup(GAME.validate_options({}), 2, 5)
    action = GAME.bot_action(state, 0)
    assert action["type"] == "place" and action["y"] == 0
    assert action == place(action["x"], 0, action["dir"], action["orange"], action["face"])
