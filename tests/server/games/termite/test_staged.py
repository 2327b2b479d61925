"""Termite Towers' staged ``legal`` (protocol/README.md "Staged legal", issue 33): the
steps it answers without listing every action -- a day die's value after its helper, a
night build or traded cube a field at a time -- give exactly what ``group_step`` gives
from the full list, for every prefix of a listed action and for fields with odd values
(null, a float, a boolean, a list, out of range) -- matched by type and value as ``act``
checks a field, so a float or a boolean (no termite field takes one) chooses nothing, and
every action the steps call complete is one ``apply`` accepts; and the shortcuts they stand on agree
with the rules ``apply`` checks: where a wall piece fits (``board.spots``, by bits,
against ``drop_cells`` / ``fit_cells``) and which slots take a die (``day.Slots``,
against ``check_slot``)."""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest

from tablehub.server.games.base import Action, IllegalAction, State
from tablehub.server.games.staged import Step, group_step
from tablehub.server.games.termite import GAME, board, build, data, day
from tests.server.games.conformance import playout
from tests.server.games.test_legal_staged import NOTHING, check_odd_walk, odd_typed

ODD: list[Any] = [None, True, False, 1.0, 2.0, -1, 99, "x", "R1", [1], [], {}, "pass", 0]
"""Values a client may put in any field of a partial action."""


def partials(full: list[Action], most: int) -> list[Action]:
    """``{}`` and up to ``most`` prefixes of the listed actions (a list field also cut
    short), chosen at random but every length among them, each also with its last field
    changed to every odd value, and with a field skipped."""
    prefixes: dict[str, list[tuple[str, Any]]] = {}
    for action in full:
        items = list(action.items())
        for size in range(1, len(items) + 1):
            prefixes.setdefault(repr(items[:size]), items[:size])
    rng = random.Random(len(full))
    chosen = list(prefixes.values())
    rng.shuffle(chosen)
    chosen.sort(key=len)  # stable: the shortest first, at random within a length
    by_length = [
        items for i, items in enumerate(chosen) if i == 0 or len(chosen[i - 1]) < len(items)
    ]
    out: list[Action] = [{}]
    for items in by_length + chosen[: max(0, most - len(by_length))]:
        name, value = items[-1]
        prefix = dict(items)
        out.append(prefix)
        if isinstance(value, list):
            out += [{**prefix, name: value[:cut]} for cut in range(len(value))]
            out += [{**prefix, name: [*value[:-1], odd]} for odd in (1.0, True, None)]
        if name != "type":
            out += [{**prefix, name: odd} for odd in ODD]
        if len(items) > 1:
            out.append({**dict(items[:-2]), name: value})
    return out


@functools.cache
def played() -> list[State]:
    """The states of a playout of 1, 2 and 4 seats (made once for this module)."""
    return [s for seats in (1, 2, 4) for s in playout(GAME, seats, seats, {}, bot_share=0.7).states]


def positions(phase: str) -> list[tuple[State, int]]:
    """The positions of :func:`played` where a seat must act in ``phase`` (at night: at
    a build or a traded cube)."""
    out: list[tuple[State, int]] = []
    for state in played():
        status = GAME.status(state)
        if state["phase"] != phase or not status["to_act"]:
            continue
        if phase == "night" and state["night"]["pending"]["t"] not in ("build", "trade_take"):
            continue
        out.append((state, status["to_act"][0]))
    return out


def float_or_bool(value: Any) -> bool:
    """Whether ``value`` is, or holds, a float or a boolean (no termite field takes one:
    ``act`` refuses it, protocol/v1/games/termite/action.json)."""
    if isinstance(value, (float, bool)):
        return True
    if isinstance(value, list):
        return any(map(float_or_bool, value))
    if isinstance(value, dict):
        return any(map(float_or_bool, value.values()))
    return False


def check_steps(state: State, seat: int, asked: list[Action], most: int) -> None:
    """Each partial's answer is ``group_step``'s from the full list; one holding a float or
    a boolean (``die: 2.0``, ``dice: [True]``) is answered with nothing."""
    full = GAME.legal_actions(state, seat)
    for partial in partials(full, most) + asked:
        answer: Step = GAME.legal_step(state, seat, partial)
        assert answer == group_step(full, partial), partial
        if float_or_bool(partial):
            assert answer == NOTHING, partial


@pytest.mark.slow
def test_night_piece_steps_are_the_full_lists_grouped() -> None:
    found = positions("night")
    kinds = {state["night"]["pending"]["t"] for state, _ in found}
    assert kinds == {"build", "trade_take"}
    odd: list[Action] = [
        {"type": "pass"},
        {"type": "pass", "room": 1},
        {"type": "choose", "row": 0},
        {"type": "choose", "extra": 1},
        {"type": "place_die"},
    ]
    for state, seat in found[::3]:
        check_steps(state, seat, odd, 80)


@pytest.mark.slow
def test_day_steps_with_odd_fields_are_the_full_lists_grouped() -> None:
    odd: list[Action] = [
        {"type": "place_die", "die": None},
        {"type": "play_queen", "card": None},
        {"type": "play_queen"},
        {"type": "place_die", "die": 0, "helper": 1},
        {"type": "play_queen", "card": "swarm", "dice": [True]},
        {"type": "play_queen", "card": "swarm", "dice": [0.0, 1]},
    ]
    for state, seat in positions("day")[::25]:
        check_steps(state, seat, odd, 40)


def test_a_build_is_asked_a_field_at_a_time() -> None:
    """A seat with two rooms that may build and two blueprints: room, blueprint,
    rotation, column (the piece drops into it), then the rows where it rests there."""
    state, seat = next(
        (s, seat)
        for s, seat in positions("night")
        if s["night"]["pending"]["t"] == "build"
        and len(build.build_rooms(s, seat, s["night"]["pending"]["value"])) > 1
        and len(set(s["players"][seat]["hand"])) > 1
    )
    hand = state["players"][seat]["hand"]
    partial: Action = {}
    for field in ("type", "room", "blueprint", "rotation", "column"):
        step = GAME.legal_step(state, seat, partial)
        assert step["field"] == field and not step["complete"]
        if field == "room":
            assert len(step["choices"]) > 1
        if field == "blueprint":
            assert [c["value"] for c in step["choices"]] == list(dict.fromkeys(hand))
        partial = {**partial, field: step["choices"][0]["value"]}
    assert partial["type"] == "choose"
    columns = GAME.legal_step(state, seat, {k: v for k, v in partial.items() if k != "column"})
    first = columns["choices"][0]
    assert first == {"value": partial["column"], "complete": True, "more": first["more"]}
    rows = GAME.legal_step(state, seat, partial)
    assert rows["complete"]  # it drops into that column
    assert rows["field"] == "row" and rows["choices"]
    full = GAME.legal_actions(state, seat)
    for choice in rows["choices"]:
        assert {**partial, "row": choice["value"]} in full


def walls(count: int) -> list[list[list[str | None]]]:
    """Walls from empty to nearly full, with holes and overhangs."""
    rng = random.Random(33)
    out = []
    for _ in range(count):
        fill = rng.random()
        out.append(
            [
                [("red" if rng.random() < fill * (1 - y / 9) else None) for _ in range(6)]
                for y in range(data.WALL_HEIGHT)
            ]
        )
    return out


def test_wall_spots_are_where_a_piece_drops_and_rests() -> None:
    shapes = [cells for shape in data.SHAPES for cells in board.shape_rotations(shape)]
    for wall in walls(300):
        for cells in [*shapes, list(build.CUBE)]:
            drops = tuple(
                x for x in range(data.WALL_WIDTH) if board.drop_cells(wall, cells, x) is not None
            )
            fits = tuple(
                (x, y)
                for y in range(data.WALL_HEIGHT)
                for x in range(data.WALL_WIDTH)
                if board.fit_cells(wall, cells, x, y) is not None
            )
            assert board.spots(wall, cells) == (drops, fits), (wall, cells)


def test_slots_taking_a_die_are_those_check_slot_accepts() -> None:
    names = [f"{card}{v}" for card in data.SINGLE_SLOT_CARDS for v in range(1, 7)]
    names += [f"D{v}{end}" for v in range(1, 7) for end in "tc"]
    for state, _ in positions("day")[::10]:
        for seat in range(state["seats"]):
            slots = day.Slots(state, seat)
            rooms = [f"R{r}" for r in range(len(state["players"][seat]["rooms"]))]
            for kind in ("worker", "soldier"):
                for value in range(1, 7):
                    accepted = []
                    for slot in names + rooms:
                        try:
                            day.check_slot(state, seat, kind, value, slot)
                        except IllegalAction:
                            continue
                        accepted.append(slot)
                    assert slots(kind, value) == accepted, (seat, kind, value)


def test_a_float_or_boolean_die_or_swarm_die_chooses_nothing() -> None:
    """The review's case (2 seats, seed 2, the first day turn): ``die: 4.0`` with a slot
    the die 4 takes is no action -- ``apply`` refuses it as not an integer, and the
    staged answer is empty, as it is for ``True`` for die 1 and for ``dice: [True]``."""
    p = playout(GAME, 2, 2, {}, bot_share=0.7)
    state = next(s for s in p.states if s["phase"] == "day" and GAME.status(s)["to_act"])
    seat = GAME.status(state)["to_act"][0]
    full = GAME.legal_actions(state, seat)
    placed = [a for a in full if a["type"] == "place_die" and len(a) == 3]
    assert {a["die"] for a in placed} >= {1, 4}
    for action in placed:
        GAME.apply(state, seat, action)
        for odd in odd_typed(action):
            assert GAME.legal_step(state, seat, odd) == NOTHING, odd
            assert GAME.legal_step(state, seat, {"type": "place_die", "die": odd["die"]}) == (
                NOTHING
            )
            with pytest.raises(IllegalAction) as err:
                GAME.apply(state, seat, odd)
            assert err.value.code == "bad_action"
    state["players"][seat]["queens"] = ["swarm"]
    free = board.unplaced(state["players"][seat])
    assert 1 in free
    swarm: Action = {"type": "play_queen", "card": "swarm", "dice": [1]}
    assert GAME.legal_step(state, seat, swarm)["complete"]
    GAME.apply(state, seat, swarm)
    for odd in odd_typed(swarm):
        assert GAME.legal_step(state, seat, odd) == NOTHING, odd
        with pytest.raises(IllegalAction):
            GAME.apply(state, seat, odd)


@pytest.mark.slow
def test_a_walk_with_odd_typed_values_completes_only_what_apply_accepts() -> None:
    """Over day and night positions of the playouts: every action a staged walk calls
    complete is one ``apply`` accepts, and with an integer given as an equal float or
    boolean it is answered with nothing and refused."""
    rng = random.Random(33)
    found = positions("day")[::7] + positions("night")[::2]
    applied = sum(check_odd_walk(GAME, state, seat, rng, 25) for state, seat in found)
    assert applied > 10 * len(found)
