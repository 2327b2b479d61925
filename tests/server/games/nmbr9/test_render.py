"""The 9-tower CLI renderer (clients/cli/renderers/nmbr9.py) against real views."""

from __future__ import annotations

import re

import pytest

from tablehub.clients.cli.renderers import nmbr9 as renderer
from tablehub.clients.cli.renderers import renderer_for
from tablehub.server.games.nmbr9 import GAME

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def played(seats: int, rounds: int, **options: bool) -> dict[str, object]:
    state = GAME.setup(GAME.validate_options(options), seats, 4)
    for _ in range(rounds * seats):
        seat = GAME.status(state)["to_act"][0]
        state, _ = GAME.apply(state, seat, GAME.bot_action(state, seat))
    return state


def test_renderer_is_registered() -> None:
    assert renderer_for("nmbr9") is renderer


def test_render_small_table_shows_every_layout() -> None:
    state = played(2, 6)
    text = ANSI.sub("", renderer.render(GAME.view(state, 0), 0))
    assert "round 7/20" in text and "cards still to come" in text
    assert text.count("6 tiles") == 2
    assert "seat 1: " in text and "(you, thinking)" in text  # seats numbered from 1
    assert "₀" in text  # level-0 squares are visible from above
    remaining = GAME.view(state, None)["remaining"]
    shown = " ".join(f"{d}:{n}" for d, n in enumerate(remaining) if n)
    assert f"cards still to come (digit:count): {shown}" in text


def test_layout_shows_top_digit_and_level() -> None:
    tiles = [
        {"digit": 9, "x": 0, "y": 0, "rot": 1, "level": 0, "cells": [[0, 0], [1, 0]]},
        {"digit": 4, "x": 3, "y": 0, "rot": 1, "level": 0, "cells": [[2, 0], [3, 0]]},
        {"digit": 7, "x": 1, "y": 0, "rot": 0, "level": 1, "cells": [[1, 0], [2, 0]]},
    ]
    lines = renderer.render_layout(tiles, colour=False)
    assert lines[1].split() == ["0", "9₀", "7₁", "7₁", "4₀"]


def test_render_big_table_shows_a_leaderboard() -> None:
    state = played(20, 2, tournament=True)
    board = GAME.view(state, None)
    text = ANSI.sub("", renderer.render(board, 17))
    assert "leaderboard:" in text
    assert "seat 18: " in text  # the viewer, seat 17 in the protocol
    assert ANSI.sub("", renderer.render(board, None)).count("tiles (") == 11


def test_render_finished_game() -> None:
    state = played(1, 20)
    text = ANSI.sub("", renderer.render(GAME.view(state, None), None))
    assert "game over" in text and "Winner(s): seat 1" in text


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("3 -1 2", {"type": "place", "x": 3, "y": -1, "rot": 2}),
        ("place 3 4 1", {"type": "place", "x": 3, "y": 4, "rot": 1}),
        ("(3,4),3", {"type": "place", "x": 3, "y": 4, "rot": 3}),
        ("0 0", {"type": "place", "x": 0, "y": 0, "rot": 0}),
        ("resign", {"type": "resign"}),
    ],
)
def test_parse_action(text: str, action: dict[str, object]) -> None:
    board = GAME.view(played(1, 0), 0)
    assert renderer.parse_action(text, board, 0) == action


@pytest.mark.parametrize("text", ["", "3", "a b c", "1 2 3 4", "1 2 7"])
def test_parse_action_refuses_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError):
        renderer.parse_action(text, GAME.view(played(1, 0), 0), 0)


def test_describe_every_legal_action() -> None:
    state = played(1, 3)
    for action in GAME.legal_actions(state, 0)[:20]:
        line = renderer.describe_action(action)
        assert line.startswith(f"place at ({action['x']},{action['y']})")
    assert renderer.describe_action({"type": "resign"}) == "resign"
