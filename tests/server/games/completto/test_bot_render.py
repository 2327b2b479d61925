"""The number-row bot's choices (docs/games/completto.md) and the CLI renderer."""

from __future__ import annotations

from typing import Any

import pytest

from tablehub.clients.cli.renderers import completto as renderer
from tablehub.clients.cli.renderers import renderer_for
from tablehub.server.games.completto import GAME
from tablehub.server.games.completto.position import position

N = None
OTHER: list[Any] = [N] * 10 + [55] + [N] * 11


def row_with(entries: dict[int, int]) -> list[Any]:
    row: list[Any] = [N] * 22
    for pos, number in entries.items():
        row[pos] = number
    return row


# --------------------------------------------------------------------------- bot


def test_bot_prefers_the_bonus_slot() -> None:
    state = position([row_with({2: 21, 8: 33}), OTHER], hand=32)
    assert GAME.bot_action(state, 0) == {"type": "place", "pos": 7, "reading": 32}


def test_bot_places_proportionally_in_the_gap() -> None:
    # 10 at 0, 50 at 10: nine slots for 39 numbers; 30 belongs about half way.
    state = position([row_with({0: 10, 10: 50, 21: 99}), OTHER], hand=30)
    action = GAME.bot_action(state, 0)
    assert action["type"] == "place" and 4 <= action["pos"] <= 6


def test_bot_picks_the_better_reading() -> None:
    # 89 fits as 68 beside 67 (bonus) or as 89 in a wide gap.
    state = position([row_with({3: 30, 5: 67, 7: 81, 21: 100}), OTHER], hand=89)
    assert GAME.bot_action(state, 0) == {"type": "place", "pos": 6, "reading": 68}


def test_bot_discards_only_when_nothing_fits() -> None:
    state = position([row_with({0: 10, 1: 20, 21: 99}), OTHER], hand=15)
    assert GAME.bot_action(state, 0) == {"type": "discard"}


def test_bot_takes_a_face_up_tile_that_gives_a_bonus() -> None:
    state = position([row_with({2: 21, 8: 33, 21: 99}), OTHER], pool_up=[32, 70])
    assert GAME.bot_action(state, 0) == {"type": "take", "source": "faceup", "number": 32}


def test_bot_draws_when_no_face_up_tile_is_useful() -> None:
    # 22 has no slot between 21 and 25, 26 only one beside 25 (a bonus) -- once 26 is
    # gone, nothing face up is worth taking.
    state = position([row_with({2: 21, 3: 25, 8: 33, 21: 99}), OTHER], pool_up=[22, 26])
    assert GAME.bot_action(state, 0) == {"type": "take", "source": "faceup", "number": 26}
    state = {**state, "pool_up": [22]}
    assert GAME.bot_action(state, 0) == {"type": "take", "source": "pool"}


def test_bot_moves_a_tile_out_of_an_overfull_gap() -> None:
    # 14 _ _ _ 17: three slots but only 15 and 16 can go there.
    state = position([row_with({0: 14, 4: 17, 21: 99}), OTHER])
    action = GAME.bot_action(state, 0)
    assert action["type"] == "move" and 1 <= action["from"] <= 3 and action["to"] >= 4
    after, _ = GAME.apply(state, 0, action)
    shown = [c["n"] for c in after["rows"][0]]
    assert shown[:4] == [14, N, N, 17]


def test_bot_opens_a_slot_for_a_face_up_tile_when_the_pool_is_empty() -> None:
    state = position([row_with({0: 14, 1: 40, 21: 99}), OTHER], pool_up=[20])
    state = {**state, "pool": []}
    action = GAME.bot_action(state, 0)
    assert action == {"type": "move", "from": 2, "to": 1}
    after, _ = GAME.apply(state, 0, action)
    after = {**after, "current": 0}  # seat 0's next turn
    assert GAME.bot_action(after, 0) == {"type": "take", "source": "faceup", "number": 20}


def test_bot_setup_insertion_is_proportional() -> None:
    state = GAME.setup({"rounds": 1}, 2, 9)
    state = {**state, "setup_tiles": [[50, 10, 90, 30, 70], state["setup_tiles"][1]]}
    action = GAME.bot_action(state, 0)
    assert action["type"] == "insert" and 7 <= action["pos"] <= 10


# --------------------------------------------------------------------------- renderer


def sample_board() -> dict[str, Any]:
    state = position([row_with({2: 21, 8: 33}), OTHER], hand=89, pool_up=[22])
    return GAME.view(state, 0)


def test_renderer_is_registered() -> None:
    assert renderer_for("completto") is renderer


def test_render_shows_rows_pool_and_hand() -> None:
    text = renderer.render(sample_board(), 0)
    assert "seat 1 (you)" in text and "??" in text  # seats numbered from 1
    assert "21" in text and "33" in text and "55" in text
    assert "face up: 22" in text
    assert "68/89" in text
    spectator = renderer.render(sample_board(), None)
    assert "(you)" not in spectator


def test_render_setup_and_finished_boards() -> None:
    setup_board = GAME.view(GAME.setup({"rounds": 2}, 3, 1), None)
    text = renderer.render(setup_board, None)
    assert "setup" in text and "setup tile to insert" in text and "round 1 of 2" in text
    full = [n for n in range(1, 24) if n != 12]
    full_row: list[Any] = list(full)
    full_row[11] = None
    state = position([OTHER, full_row], current=1, hand=12)
    state, _ = GAME.apply(state, 1, {"type": "place", "pos": 11, "reading": 12})
    text = renderer.render(GAME.view(state, 1), 1)
    assert "Game over" in text and "Round 1: seat 2 won" in text


@pytest.mark.parametrize(
    ("text", "phase", "expected"),
    [
        ("take", "play", {"type": "take", "source": "pool"}),
        ("take 22", "play", {"type": "take", "source": "faceup", "number": 22}),
        ("place 3", "play", {"type": "place", "pos": 2}),
        ("place 11 as 68", "play", {"type": "place", "pos": 10, "reading": 68}),
        ("place 4 37", "setup", {"type": "insert", "pos": 3, "reading": 37}),
        ("move 16 to 12", "play", {"type": "move", "from": 15, "to": 11}),
        ("discard", "play", {"type": "discard"}),
        ("resign", "play", {"type": "resign"}),
    ],
)
def test_parse_action(text: str, phase: str, expected: dict[str, Any]) -> None:
    assert renderer.parse_action(text, {"phase": phase}, 0) == expected


@pytest.mark.parametrize(
    "text", ["", "fly", "move 3", "place x", "take 1 2", "place 0", "move 0 4"]
)
def test_parse_action_refuses_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError, match=r"\w"):
        renderer.parse_action(text, {"phase": "play"}, 0)


def test_describe_every_legal_action() -> None:
    state = position([row_with({2: 21, 8: 33}), OTHER], pool_up=[22])
    for action in GAME.legal_actions(state, 0):
        line = renderer.describe_action(action)
        assert line and "{" not in line
    assert renderer.describe_action({"type": "place", "pos": 6, "reading": 32}) == (
        "place 32 at position 7"
    )
    assert "insert" in renderer.describe_action({"type": "insert", "pos": 1, "reading": 5})
    unread = renderer.describe_action({"type": "insert", "pos": 1})
    assert unread == "insert your setup tile at position 2" and "None" not in unread
    assert renderer.describe_action({"type": "move", "from": 16, "to": 12}) == (
        "move the face-down tile at position 17 to position 13"
    )


def test_news_of_a_move_names_both_positions() -> None:
    """A row's places are "positions" in every line, as on the rules page, counted from 1
    as printed above the row (and as the browser's log and the replay card count them)."""
    move = {"type": "move", "seat": 1, "from": 4, "to": 12}
    assert renderer.describe_news({}, {}, [move]) == [
        (1, "moved a face-down tile from position 5 to position 13")
    ]
    place = {"type": "place", "seat": 0, "pos": 0, "number": 3, "tile": 3, "bonus": False}
    assert renderer.describe_news({}, {}, [place]) == [(0, "placed 3 at position 1")]


def test_the_row_is_numbered_from_1_as_typed() -> None:
    state = position([row_with({2: 21, 8: 33}), OTHER], hand=32)
    text = renderer.render(GAME.view(state, 0), 0)
    numbers = next(line for line in text.splitlines() if line.startswith(renderer.DIM))
    assert numbers.removeprefix(renderer.DIM).removesuffix(renderer.RESET).split() == [
        str(n) for n in range(1, 23)
    ]
    # 32 beside 33 (index 7) is typed as the position printed above it
    assert renderer.parse_action("place 8", GAME.view(state, 0), 0) == {"type": "place", "pos": 7}
    assert "position 8" in renderer.describe_action({"type": "place", "pos": 7, "reading": 32})
    assert renderer.INPUT_HELP
