"""Property tests for the number row (docs/games/completto.md): bot-vs-bot and random playouts
through the shared conformance checks, and a strong hidden-information check: views,
legal actions, status and events do not depend on where the hidden numbers lie."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from tablehub.server.games.base import State, final_result
from tablehub.server.games.completto import GAME
from tests.server.games.conformance import Playout, check_playout, playout

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

REVEALED = ("tile", "readings", "fits")


def permute_hidden(state: State, seed: int) -> State:
    """``state`` with its face-down numbers (row cells, pool, setup tiles not yet turned
    up) dealt out again in another order; every public fact is unchanged."""
    new = {
        **state,
        "rows": [[dict(cell) for cell in row] for row in state["rows"]],
        "setup_tiles": [list(rest) for rest in state["setup_tiles"]],
        "pool": list(state["pool"]),
    }
    slots: list[tuple[Any, ...]] = []
    for s, row in enumerate(new["rows"]):
        slots += [("row", s, i) for i, cell in enumerate(row) if cell["n"] is None]
    for s, rest in enumerate(new["setup_tiles"]):
        slots += [("setup", s, j) for j in range(1, len(rest))]
    slots += [("pool", i) for i in range(len(new["pool"]))]

    def read(slot: tuple[Any, ...]) -> int:
        if slot[0] == "row":
            return int(new["rows"][slot[1]][slot[2]]["tile"])
        if slot[0] == "setup":
            return int(new["setup_tiles"][slot[1]][slot[2]])
        return int(new["pool"][slot[1]])

    tiles = [read(slot) for slot in slots]
    if len(tiles) < 2:
        return new
    shuffled = random.Random(seed).sample(tiles, len(tiles))
    if shuffled == tiles:
        shuffled = tiles[1:] + tiles[:1]
    for slot, tile in zip(slots, shuffled, strict=True):
        if slot[0] == "row":
            new["rows"][slot[1]][slot[2]] = {"tile": tile, "n": None}
        elif slot[0] == "setup":
            new["setup_tiles"][slot[1]][slot[2]] = tile
        else:
            new["pool"][slot[1]] = tile
    assert new != state
    return new


def assert_all_tiles_once(state: State) -> None:
    tiles = [c["tile"] for row in state["rows"] for c in row]
    tiles += [t for rest in state["setup_tiles"] for t in rest]
    tiles += state["pool"] + state["pool_up"]
    if state["hand"] is not None:
        tiles.append(state["hand"]["tile"])
    assert sorted(tiles) == list(range(1, 101))


def leak_check(state: State, view: dict[str, Any], audience: int | None) -> None:
    """Face-down tiles are null in every row; nothing in the view changes when the
    hidden numbers are permuted."""
    assert view["you"] == audience
    for s, row in enumerate(state["rows"]):
        shown = view["players"][s]["row"]
        assert shown == [cell["n"] for cell in row]
        assert view["players"][s]["face_down"] == sum(1 for c in row if c["n"] is None)
        rest = state["setup_tiles"][s]
        expected = rest[0] if rest else None
        setup_tile = view["players"][s]["setup_tile"]
        assert (setup_tile["tile"] if setup_tile else None) == expected
    assert view["pool"]["face_down"] == len(state["pool"])
    assert set(view["pool"]) == {"face_down", "face_up"}
    assert [t["tile"] for t in view["pool"]["face_up"]] == state["pool_up"]
    for seed in (1, 2):
        assert GAME.view(permute_hidden(state, seed), audience) == view


def without_revealed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events with the number of a just-revealed tile blanked out."""
    out = []
    for event in events:
        if event["type"] == "take":
            event = {k: v for k, v in event.items() if k not in REVEALED}
        elif event["type"] == "reveal":
            event = {**event, "tile": None}
        out.append(event)
    return out


def check_hidden_independence(p: Playout) -> None:
    """Replaying each action on a state with the hidden numbers permuted gives the same
    status, legal actions and events, and the same views afterwards -- except that a
    face-down draw turns up whichever tile the shuffle put there."""
    for i, (seat, action) in enumerate(p.log):
        state = p.states[i]
        assert_all_tiles_once(state)
        other = permute_hidden(state, i)
        assert GAME.status(other) == GAME.status(state)
        for s in range(p.seats):
            assert GAME.legal_actions(other, s) == GAME.legal_actions(state, s)
        after, events = GAME.apply(other, seat, copy.deepcopy(action))
        if action == {"type": "take", "source": "pool"} or any(
            e["type"] == "reveal" for e in p.events[i]
        ):
            # A draw, or the next setup tile turned up: only the revealed tile differs.
            assert without_revealed(events) == without_revealed(p.events[i])
            continue
        assert events == p.events[i], f"events of {action} depend on hidden numbers"
        for audience in (None, *range(p.seats)):
            assert GAME.view(after, audience) == GAME.view(p.states[i + 1], audience)
    assert_all_tiles_once(p.states[-1])


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize(("seed", "rounds"), [(1, 1), (2, 2)])
def test_mixed_playouts_conform_and_never_leak(seats: int, seed: int, rounds: int) -> None:
    p = playout(GAME, seats, seed * 10 + seats, {"rounds": rounds}, max_steps=1500)
    check_playout(p, leak_check)
    check_hidden_independence(p)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_bot_games_finish_with_legal_deterministic_moves(seats: int) -> None:
    for seed in range(6):
        p = playout(GAME, seats, 100 + seed, {"rounds": 2}, max_steps=3000, bot_share=1.0)
        final = GAME.status(p.states[-1])
        assert final["finished"], f"bot game {seats}/{seed} did not finish"
        result = final_result(final)
        assert len(result["scores"]) == seats and result["winners"]
        assert len(p.states[-1]["penalties"]) == 2
        for state, (seat, action) in zip(p.states, p.log, strict=False):
            assert action in GAME.legal_actions(state, seat)
            assert GAME.fast_bot_move(copy.deepcopy(state), seat) == action


def test_turn_counter_moves_exactly_when_a_new_turn_starts() -> None:
    """``turn`` changes when the seats that must act change, or a bonus turn starts."""
    p = playout(GAME, 3, 5, {"rounds": 1}, max_steps=800)
    for i, events in enumerate(p.events):
        old, new = GAME.status(p.states[i]), GAME.status(p.states[i + 1])
        bonus_started = {"type": "turn", "seat": p.log[i][0], "bonus": True} in events
        changed = old["to_act"] != new["to_act"] or bonus_started
        assert new["turn"] == old["turn"] + (1 if changed else 0), (p.log[i], events)


def test_resignations_mid_game_keep_the_contract() -> None:
    """Seat 2 resigns during setup, seat 0 while holding a drawn tile; the other two
    play on to the end of two rounds, and the resigned seats cannot win."""
    resolved = GAME.validate_options({"rounds": 2})
    p = Playout(GAME, resolved, 4, 77)
    state = GAME.setup(resolved, 4, 77)
    p.states.append(state)
    for _ in range(3000):
        status = GAME.status(state)
        if status["finished"]:
            break
        seat = status["to_act"][0]
        action = GAME.bot_action(state, seat)
        in_setup = seat == 2 and status["phase"] == "setup"
        holding = seat == 0 and state["hand"] is not None and len(p.log) > 60
        if in_setup or holding:
            action = {"type": "resign"}
        state, events = GAME.apply(state, seat, action)
        p.states.append(state)
        p.log.append((seat, action))
        p.events.append(events)
    final = GAME.status(state)
    assert final["finished"]
    assert state["resigned"] == [True, False, True, False]
    assert set(final_result(final)["winners"]) <= {1, 3}
    assert [pen[2] for pen in state["penalties"]] == [22, 22]
    check_playout(p, leak_check)
    check_hidden_independence(p)
