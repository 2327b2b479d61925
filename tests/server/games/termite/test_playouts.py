"""Termite Towers property tests over random and bot playouts (docs/games/termite.md): the engine
contract (conformance), the state's invariants after every action, hidden information
in views and events, and that every game ends."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablehub.server.games.base import State, final_result
from tablehub.server.games.termite import GAME, data
from tests.server.games.conformance import check_playout, playout
from tests.server.games.termite.test_helpers import NO_RESIGN, fresh, invariants

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it


def scrambled(state: State, audience: int | None) -> State:
    """A copy with everything ``audience`` may not see changed: deck orders, face-down
    stake cards, other seats' hands and queen cards, the RNG."""
    s: State = json.loads(json.dumps(state))
    s["blueprints"]["deck"] = s["blueprints"]["deck"][::-1][1:] + s["blueprints"]["deck"][-1:]
    s["queen_deck"] = ["swarm" if c != "swarm" else "nursery" for c in s["queen_deck"]]
    s["rng"] = s["rng"] ^ 12345
    for stake in s["stakes"]:
        for card in stake["cards"].values():
            if not card["up"]:
                card["colour"] = "white" if card["colour"] != "white" else "red"
                card["cubes"] = 4 - card["cubes"]
    for seat, p in enumerate(s["players"]):
        if seat != audience:
            p["hand"] = list(data.BLUEPRINTS[-len(p["hand"]) :]) if p["hand"] else []
            p["queens"] = ["architect"] * len(p["queens"])
    return s


def leak_check(state: State, view: dict[str, Any], audience: int | None) -> None:
    for seat, p in enumerate(view["players"]):
        if seat == audience:
            assert p["hand"] == state["players"][seat]["hand"]
            assert p["queens"] == state["players"][seat]["queens"]
        else:
            assert p["hand"] is None and p["queens"] is None
        assert p["hand_count"] == len(state["players"][seat]["hand"])
    assert isinstance(view["blueprints"]["deck"], int)
    assert isinstance(view["queen_deck"], int)
    assert "rng" not in json.dumps(view)
    for area, stake in enumerate(state["stakes"]):
        for node, card in stake["cards"].items():
            assert (view["stakes"][area]["cards"][node] is None) == (not card["up"])
    if state["step"] % 5 == 0:
        assert GAME.view(scrambled(state, audience), audience) == view


def check_events(states: list[State], events: list[list[dict[str, Any]]]) -> None:
    """Public events never name a hidden card."""
    for i, step in enumerate(events):
        before, after = states[i], states[i + 1]
        for event in step:
            assert not {"hand", "queens", "deck", "rng"} & set(event)
            if event["type"] == "blueprint" and event["card"] is not None:
                assert event["card"] in before["blueprints"]["face_up"]
            if event["type"] == "queen_drawn":
                assert set(event) == {"type", "seat", "left"}
            if event["type"] == "revealed":
                card = after["stakes"][event["area"] - 1]["cards"][event["card"]]
                assert (
                    card["up"]
                    and not before["stakes"][event["area"] - 1]["cards"][event["card"]]["up"]
                )


@pytest.mark.parametrize(("seats", "seed"), [(1, 11), (2, 12), (3, 13), (4, 14)])
def test_playout_contract(seats: int, seed: int) -> None:
    p = playout(NO_RESIGN, seats, seed, max_steps=3000)
    assert NO_RESIGN.status(p.states[-1])["finished"]
    for state in p.states:
        invariants(state)
    check_events(p.states, p.events)
    check_playout(p, leak_check)


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
@pytest.mark.parametrize("share", [0.0, 1.0])
def test_games_end_with_invariants(seats: int, share: float) -> None:
    """Pure random play and pure bot play both finish, keeping every invariant; the
    bot only proposes legal actions and the turn counter moves on every action."""
    for seed in (21, 22):
        p = playout(NO_RESIGN, seats, seed, max_steps=3000, bot_share=share)
        status = NO_RESIGN.status(p.states[-1])
        assert status["finished"], (seats, seed, len(p.log))
        result = final_result(status)
        assert len(result["scores"]) == seats and result["winners"]
        turns = [NO_RESIGN.status(s)["turn"] for s in p.states]
        assert turns == sorted(set(turns))
        for state in p.states:
            invariants(state)
        check_events(p.states, p.events)


def test_bot_actions_are_listed_as_legal() -> None:
    p = playout(NO_RESIGN, 3, 31, max_steps=3000, bot_share=1.0)
    for state in p.states[:-1]:
        seat = GAME.status(state)["to_act"][0]
        assert GAME.bot_action(state, seat) in GAME.legal_actions(state, seat)


def test_all_listed_actions_apply() -> None:
    """Every listed action of sampled positions is accepted (legal_actions is exact)."""
    p = playout(NO_RESIGN, 2, 41, max_steps=3000)
    for state in p.states[:-1:9]:
        seat = GAME.status(state)["to_act"][0]
        legal = GAME.legal_actions(state, seat)
        for action in legal[:: max(1, len(legal) // 40)]:
            GAME.apply(state, seat, action)


def test_rows_to_end_seven_plays_out() -> None:
    p = playout(NO_RESIGN, 2, 51, options={"rows_to_end": 7}, max_steps=3000, bot_share=1.0)
    assert NO_RESIGN.status(p.states[-1])["finished"]
    assert fresh(2, rows_to_end=7)["options"]["rows_to_end"] == 7
