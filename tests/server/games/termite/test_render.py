"""The Termite Towers CLI renderer (clients/cli/renderers/termite.py) against real views."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tablehub.clients.cli.choices import Choices
from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.renderers import renderer_for
from tablehub.clients.cli.renderers import termite as renderer
from tablehub.clients.cli.screen import compose
from tablehub.server.games.termite import GAME
from tests.server.games.conformance import playout
from tests.server.games.termite.test_helpers import NO_RESIGN, fresh

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def plain(board: dict[str, Any], seat: int | None) -> str:
    return ANSI.sub("", renderer.render(board, seat))


def test_renderer_is_registered() -> None:
    assert renderer_for("termite") is renderer


def test_render_start_of_game() -> None:
    s = fresh(3, seed=2)
    text = plain(GAME.view(s, 0), 0)
    assert "Termite Towers: round 1, day" in text
    assert "Seat 1 (you" in text and "hand: -" in text  # seats numbered from 1
    assert "D1 rx6" in text and "1a:?" in text
    assert "Nw" in text  # the neutral dice of a 3-player game
    assert "To place a die:" in text
    assert "      123456" in text  # the wall's column ruler, counted from 1
    assert text.count("|......|") == 3 * 7


def test_render_every_audience_through_a_game() -> None:
    p = playout(NO_RESIGN, 2, 5, max_steps=3000, bot_share=1.0)
    for state in [*p.states[::25], p.states[-1]]:
        for audience in (None, 0, 1):
            board = GAME.view(state, audience)
            text = plain(board, audience)
            assert "Termite Towers" in text
            for seat, player in enumerate(state["players"]):
                if seat != audience and player["hand"]:
                    assert f"hand: {len(player['hand'])} card(s)" in text
    final = plain(GAME.view(p.states[-1], None), None)
    assert "Game over" in final and "Winner(s)" in final


def test_pending_choice_is_shown() -> None:
    s = fresh(2, seed=3)
    while s["phase"] != "night" or s["night"]["pending"] is None:
        seat = GAME.status(s)["to_act"][0]
        s, _ = GAME.apply(s, seat, GAME.bot_action(s, seat))
    seat = s["night"]["pending"]["seat"]
    assert "Waiting for you:" in plain(GAME.view(s, seat), seat)
    assert f"Waiting for seat {seat + 1}:" in plain(GAME.view(s, None), None)


def test_describe_every_listed_action() -> None:
    p = playout(NO_RESIGN, 3, 7, max_steps=3000)
    for state in p.states[:-1:7]:
        seat = GAME.status(state)["to_act"][0]
        for action in GAME.legal_actions(state, seat)[::13]:
            text = renderer.describe_action(action)
            assert text and not text.startswith("{"), action


@pytest.mark.parametrize(
    ("text", "phase", "kind", "action"),
    [
        # Dice, rooms, wall columns and rows are typed as players count them, from 1.
        ("3 a4", "day", None, {"type": "place_die", "die": 2, "slot": "A4"}),
        ("place 1 D3t", "day", None, {"type": "place_die", "die": 0, "slot": "D3t"}),
        ("3 E6 h6", "day", None, {"type": "place_die", "die": 2, "slot": "E6", "helper": 5}),
        (
            "3 R2 h6 v4",
            "day",
            None,
            {"type": "place_die", "die": 2, "slot": "R1", "helper": 5, "value": 4},
        ),
        (
            "queen royal_jelly 2 6",
            "day",
            None,
            {"type": "play_queen", "card": "royal_jelly", "die": 1, "value": 6},
        ),
        ("queen swarm 4 1", "day", None, {"type": "play_queen", "card": "swarm", "dice": [0, 3]}),
        (
            "queen mandibles D4 2",
            "day",
            None,
            {"type": "play_queen", "card": "mandibles", "stake": 4, "room": 1},
        ),
        (
            "queen architect red-t",
            "day",
            None,
            {"type": "play_queen", "card": "architect", "blueprint": "red-T"},
        ),
        ("red-t", "night", "blueprint", {"type": "choose", "blueprint": "red-T"}),
        ("deck", "night", "blueprint", {"type": "choose", "blueprint": "deck"}),
        ("4", "night", "egg", {"type": "choose", "room": 3}),
        ("R4", "night", "egg", {"type": "choose", "room": 3}),
        ("room 4", "night", "egg", {"type": "choose", "room": 3}),
        ("s-1a", "night", "tunnel", {"type": "choose", "edge": "S-1a"}),
        ("d3/1a 3", "night", "cube", {"type": "choose", "source": "D3/1a", "room": 2}),
        ("D1 5", "night", "trade_take", {"type": "choose", "source": "D1", "column": 4}),
        (
            "D1 5 2",
            "night",
            "trade_take",
            {"type": "choose", "source": "D1", "column": 4, "row": 1},
        ),
        (
            "cubes 3:blue 1:red",
            "night",
            "trade",
            {"type": "choose", "pay": "cubes", "cubes": [[0, "red"], [2, "blue"]]},
        ),
        ("egg 6", "night", "trade", {"type": "choose", "pay": "egg", "room": 5}),
        (
            "cubes 3:b 1:R",
            "night",
            "trade",
            {"type": "choose", "pay": "cubes", "cubes": [[0, "red"], [2, "blue"]]},
        ),
        (
            "2 4 p w",
            "night",
            "move",
            {"type": "choose", "rooms": [1, 3], "cubes": ["purple", "white"]},
        ),
        (
            "2 4 red red",
            "night",
            "move",
            {"type": "choose", "rooms": [1, 3], "cubes": ["red", "red"]},
        ),
        (
            "3 green-t 1 4",
            "night",
            "build",
            {"type": "choose", "room": 2, "blueprint": "green-T", "rotation": 1, "column": 3},
        ),
        ("points", "night", "bonus", {"type": "choose", "space": "points"}),
        ("pass", "night", "build", {"type": "pass"}),
        ("resign", "day", None, {"type": "resign"}),
        ('{"type": "pass"}', "night", "move", {"type": "pass"}),
    ],
)
def test_parse_action(text: str, phase: str, kind: str | None, action: dict[str, Any]) -> None:
    board = {"phase": phase, "pending": {"kind": kind, "seat": 0} if kind else None}
    assert renderer.parse_action(text, board, 0) == action


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "type a move"),
        ("A4", "DIE SLOT"),
        ("2 R1 v4", "helper"),
        ("queen swarm x", "whole"),
        ("0 A4", "counted from 1"),
        ("1 R0", "counted from 1"),
    ],
)
def test_parse_errors(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        renderer.parse_action(text, {"phase": "day", "pending": None}, 0)


def test_parse_night_error() -> None:
    with pytest.raises(ValueError, match="as a cube choice"):
        renderer.parse_action("D3", {"phase": "night", "pending": {"kind": "cube"}}, 0)


def bots_until(done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """A 2-seat game (seed 3) played by the bots until ``done(state)``."""
    s = fresh(2, seed=3)
    while not done(s):
        seat = GAME.status(s)["to_act"][0]
        s, _ = GAME.apply(s, seat, GAME.bot_action(s, seat))
    return s


def choices_for(state: dict[str, Any], seat: int) -> Choices:
    board = GAME.view(state, seat)
    text = GameText("termite")
    return Choices(GAME.legal_actions(state, seat), lambda a: text.steps(a, board, seat))


def reach(choices: Choices, action: dict[str, Any]) -> list[int]:
    """Pick ``action`` by following its labels; the sizes of the lists on the way."""
    path = [label for _, label in choices._paths[choices.legal.index(action)]]
    sizes = []
    while True:
        options = choices.options()
        sizes.append(len(options))
        label = path[len(choices.path)]
        picked = choices.pick(next(o.key for o in options if o.label == label))
        if picked is not None:
            assert picked == action
            choices.path.clear()
            return sizes


def test_a_turn_is_a_few_short_choices_never_thousands() -> None:
    p = playout(NO_RESIGN, 3, 7, max_steps=3000, bot_share=1.0)
    kinds = set()
    for state in p.states[:-1]:
        kinds.add((state["night"]["pending"] or {"t": "day"})["t"])
    for state in p.states[::17]:
        status = GAME.status(state)
        if status["finished"]:
            continue
        seat = status["to_act"][0]
        choices = choices_for(state, seat)
        for action in choices.legal[:: max(1, len(choices.legal) // 12)]:
            sizes = reach(choices, action)
            assert len(sizes) <= 5 and max(sizes) <= 40, (action, sizes)
    assert len(choices_for(fresh(3, seed=7), 0).legal) > 2000, "a day turn without grouping"
    assert {"day", "blueprint", "egg", "cube"} <= kinds


def test_rooms_are_chosen_by_their_own_number() -> None:
    s = bots_until(lambda s: (s["night"]["pending"] or {}).get("t") == "egg")
    seat = s["night"]["pending"]["seat"]
    choices = choices_for(s, seat)
    options = choices.options()
    rooms = [a["room"] for a in choices.legal if "room" in a]
    # Room 1 is the action's room 0: players count from 1, as the browser does.
    assert [o.key for o in options if o.label.startswith("room")] == [str(r + 1) for r in rooms]
    room = rooms[-1]
    assert choices.pick(str(room + 1)) == {"type": "choose", "room": room}


def test_the_compact_screen_leads_with_the_choice_and_your_board() -> None:
    s = bots_until(lambda s: s["phase"] == "night" and s["night"]["pending"] is not None)
    seat = s["night"]["pending"]["seat"]
    lines = ANSI.sub("", renderer.render_compact(GAME.view(s, seat), seat)).splitlines()
    assert lines[0].startswith("Round 1, night — Waiting for you: ")
    assert "=<" not in lines[0], "the choice in words, not the action syntax"
    assert lines[1].startswith(" 7 |") and "you: score" in lines[1]  # rows from 1
    dice = next(i for i, line in enumerate(lines) if line.startswith("your dice"))
    assert lines[dice + 1] == renderer.KEY and "worker" in renderer.KEY, "the key under the dice"
    assert len(lines) <= 20


def test_the_final_ranking_uses_the_tie_breaks() -> None:
    def player(rows: int, cubes: int, dice: int) -> dict[str, Any]:
        return {"rows": rows, "wall": ["r" * cubes + "." * (6 - cubes)], "dice": [{}] * dice}

    view = {
        "table": "t",
        "game": "termite",
        "status": "finished",
        "seats": [{"name": n, "bot": False} for n in ("ann", "bo", "cy")],
        "to_act": [],
        "result": {"scores": [12, 12, 15], "winners": [2], "reason": "the queen deck is empty"},
        "board": {"players": [player(1, 2, 8), player(2, 0, 8), player(0, 0, 8)]},
    }
    text = compose(view, {}, seat=None, text=GameText("termite", use_renderer=True)).text
    assert "final ranking: 1. cy 15  2. bo 12  3. ann 12" in text


def test_a_slot_that_will_do_nothing_says_so_in_the_choice() -> None:
    """The view's ``idle`` reason is shown beside the slot before the die is committed."""
    s = fresh(2, seed=3)
    seat = GAME.status(s)["to_act"][0]
    view = GAME.view(s, seat)
    assert view["idle"]["E2"] == "no face-up stake card has a cube to trade for"
    _, words = renderer.stage_option("slot", "E2", {"type": "place_die", "die": 0}, view, seat)
    assert words.endswith("-- does nothing tonight: no face-up stake card has a cube to trade for")
    _, words = renderer.stage_option("slot", "A2", {"type": "place_die", "die": 0}, view, seat)
    assert "nothing" not in words
