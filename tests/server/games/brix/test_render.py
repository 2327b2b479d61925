"""The CLI renderer of the wall duel reads the view and round-trips typed moves."""

from __future__ import annotations

import re

import pytest

from tablehub.clients.cli.renderers import brix as renderer
from tablehub.clients.cli.renderers import renderer_for
from tablehub.server.games.brix import GAME
from tests.server.games.brix.test_rules import GROUND, TOWER, make, move, place, play
from tests.server.games.conformance import playout

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def plain(text: str) -> str:
    return _ANSI.sub("", text)


def test_renderer_is_registered() -> None:
    assert renderer_for("brix") is renderer


def test_render_empty_wall() -> None:
    state = GAME.setup(GAME.validate_options({}), 2, 1)
    text = plain(renderer.render(GAME.view(state, 0), 0))
    assert "seat 1 (you): four X  <- to move" in text  # seats numbered from 1
    assert "seat 2: four O" in text
    assert "36 of 36 bricks left" in text
    assert text.splitlines()[-5].split() == [str(x) for x in range(8)]


def test_render_wall_rows_bottom_up_with_colours() -> None:
    state = play(make(GROUND, mode="colors"), place(6, 0, "v", 1, "ox"))
    raw = renderer.render(GAME.view(state, None), None)
    assert "\x1b[48;5;208m" in raw and "\x1b[44m" in raw
    rows = [line for line in plain(raw).splitlines() if "|" in line]
    assert rows[-1].startswith("  0 |")
    assert rows[-1].split("|")[1].split()[:3] == [".", "Xo", "0"]  # column -1 is free
    assert "Oo 3" in rows[-2]  # brick 3: orange on top showing O, at (6,1)
    assert "seat 1: four orange" in plain(raw)
    assert "last: seat 1 placed brick 3 to (6,0)+(6,1)" in plain(raw)


def test_render_move_phase_locked_brick_and_result() -> None:
    state = make(TOWER, bricks=5, locked=3)
    text = plain(renderer.render(GAME.view(state, None), 1))
    assert "brick 3* may not be taken this turn" in text
    assert "supply empty (move phase): 0 moves played" in text
    state = play(state, move(0, 4, 0, "h"))
    text = plain(renderer.render(GAME.view(state, None), 1))
    assert "the wall collapsed" in text
    assert "seat 2 wins: the mover's move collapsed the wall" in text


def test_render_whole_playouts() -> None:
    for seed in (1, 2):
        p = playout(GAME, 2, seed, {"bricks": 6, "move_limit": 8, "mode": "symbols_vs_colors"})
        for state in p.states:
            for seat in (None, 0, 1):
                assert renderer.render(GAME.view(state, None), seat)


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("place 3 0 h", place(3, 0, "h", 0, "xo")),
        ("p -2 1 v top ox", place(-2, 1, "v", 1, "ox")),
        ("P 4 2 V OX 1", place(4, 2, "v", 1, "ox")),
        ("move 7 -1 0 h right", move(7, -1, 0, "h", 1, "xo")),
        ("m 0 5 3 v 0 ox", move(0, 5, 3, "v", 0, "ox")),
        ("resign", {"type": "resign"}),
        ("draw", {"type": "offer_draw"}),
        ("accept", {"type": "accept_draw"}),
    ],
)
def test_parse_action(text: str, action: dict[str, object]) -> None:
    assert renderer.parse_action(text, {}, 0) == action


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "type a move"),
        ("fly 1 2", "unknown command"),
        ("place 1 h", "X Y DIR"),
        ("place a 0 h", "X must be a whole number"),
        ("place 1 0 d", "DIR must be h"),
        ("place 1 0 h blue", "neither ORANGE"),
        ("move", "brick id"),
    ],
)
def test_parse_errors(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        renderer.parse_action(text, {}, 0)


def test_describe_round_trips_through_parse() -> None:
    state = play(make(GROUND, bricks=4), place(6, 0, "h"))
    for action in GAME.legal_actions(state, 1)[:40]:
        line = renderer.describe_action(action)
        assert line.startswith(f"move {action['brick']} {action['x']} {action['y']}")
        typed = line.split("  — ")[0]  # a suggestion is typed as it reads
        assert renderer.parse_action(typed, {}, 1) == action
        typed = f"move {action['brick']} {action['x']} {action['y']} {action['dir']}"
        typed += f" {action['orange']} {action['face']}"
        assert renderer.parse_action(typed, {}, 1) == action
    for action in [place(0, 0, "h", 1, "ox"), place(3, 0, "v", 0, "xo")]:
        typed = renderer.describe_action(action).split("  — ")[0]
        assert renderer.parse_action(typed, {}, 0) == action
    assert renderer.describe_action(place(0, 0, "h", 1, "ox")) == (
        "place 0 0 h right ox  — (0,0) blue X, (1,0) orange O"
    )
    assert renderer.describe_action({"type": "offer_draw"}) == "offer a draw"
    assert "place X Y DIR" in renderer.INPUT_HELP
