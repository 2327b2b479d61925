"""Issue 30 point 5: the terminal numbers seats from 1, as the browser does ("seat 1"
is the protocol's seat 0), on screen, in its messages and in what a person types;
``--script`` lines keep the protocol's own numbers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.numbering import seat_index, seat_words
from tablehub.clients.cli.renderers import completto, termite
from tablehub.clients.cli.screen import compose, result_lines
from tablehub.clients.cli.tokens import TokenStore
from tablehub.server.games import get_game
from tablehub.server.games.completto import GAME as COMPLETTO
from tablehub.server.games.completto.position import position
from tablehub.server.tables.feed import table_view
from tablehub.server.tables.record import Seat, TableRecord, TableStatus
from tests.clients.cli import ScriptProc, run_cli
from tests.conftest import RunningHub
from tests.server.games.completto.test_bot_render import OTHER

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_the_helper_turns_the_protocols_seat_into_the_players_number_and_back() -> None:
    assert seat_words(0) == "seat 1" and seat_words(9) == "seat 10"
    assert seat_index(1) == 0 and seat_index(10) == 9
    with pytest.raises(ValueError, match="numbered from 1"):
        seat_index(0)


def waiting_table() -> tuple[dict[str, Any], dict[str, Any]]:
    """A three-seat 9-tower table where only ann (the protocol's seat 0) sat down."""
    game = get_game("nmbr9")
    assert game is not None
    record = TableRecord(
        table="t1",
        game="nmbr9",
        options={},
        turn_ms=None,
        seed=1,
        seats=[Seat(name="ann", token_hash="h"), Seat(), Seat()],
        state=game.setup({}, 3, 1),
        status=TableStatus.WAITING,
    )
    presence = {
        "seats": [{"name": "ann", "bot": False, "connected": True}, {}, {}],
        "spectators": 0,
    }
    return table_view(game, record, 0), presence


def test_the_seat_lists_count_from_one() -> None:
    view, presence = waiting_table()
    text = GameText("nmbr9")
    full = compose(view, presence, seat=0, text=text, now_ms=0).text
    assert re.search(r"^ {3}1  ann\b", full, re.M), full
    assert re.search(r"^ {3}2  \(free\)", full, re.M) and re.search(r"^ {3}3  \(free\)", full, re.M)
    compact = compose(view, presence, seat=0, text=text, now_ms=0, compact=True).text
    assert "seat 2 free" in compact and "seat 3 free" in compact, compact
    assert "seat 0" not in compact


def termite_board(moves: int) -> dict[str, Any]:
    """A two-seat Termite Towers board after ``moves`` bot moves, as seat 0 sees it."""
    game = get_game("termite")
    assert game is not None
    state = game.setup(game.validate_options({}), 2, 3)
    for _ in range(moves):
        seat = game.status(state)["to_act"][0]
        state, _ = game.apply(state, seat, game.bot_action(state, seat))
    board: dict[str, Any] = game.view(state, 0)
    return board


def test_termite_die_codes_start_with_the_owners_seat_number_from_one() -> None:
    board = termite_board(2)  # each seat placed a die on the board
    assert "1w3 = seat 1's worker showing 3" in termite.KEY
    text = ANSI.sub("", termite.render(board, 0))
    on_board = [d for row in board["cards"].values() for d in row if d] + [
        d for st in board["stakes"] for d in st["tunnel"] + st["collect"]
    ]
    placed = [d for d in on_board if d["owner"] >= 0]  # (neutral dice show N)
    assert {d["owner"] for d in placed} == {0, 1}, on_board
    for d in placed:
        assert f"{d['owner'] + 1}{d['kind'][0]}{d['value']}" in text, (d, text)
    assert "Seat 1 (you" in text and "Seat 2" in text and "Seat 0" not in text
    assert f"start player seat {board['start'] + 1}," in text
    a, b = board["goals"][0]["seats"]
    assert f"(seats {a + 1}-{b + 1})" in text
    compact = ANSI.sub("", termite.render_compact(board, 0))
    assert "seat 2: score" in compact and termite.KEY in compact


def test_termite_round_news_names_the_start_player_from_one() -> None:
    board = termite_board(0)
    news = termite.describe_news(board, board, [{"type": "round", "round": 2, "start": 0}])
    assert news == [(None, "round 2 begins; seat 1 starts")]


async def test_play_says_seats_from_one(hub: RunningHub, tmp_path: Path) -> None:
    code, out, err = await run_cli(
        tmp_path / "tokens.json",
        *("play", "--url", hub.url, "--name", "ann", "--seats", "2", "--bots", "1"),
        stdin=b"quit\n",
    )
    assert code == 0, err
    assert re.search(r"ann: seat 1 at table \w+ — you created the table", out), out
    assert "a bot took seat 2" in out
    assert "seat 0" not in out


async def test_play_seat_option_counts_from_one(hub: RunningHub, tmp_path: Path) -> None:
    ann = await hub.connect("ann")
    table = await ann.create_table("nmbr9", 3, seed=1)
    await ann.join(table)  # the protocol's seat 0: the screen's seat 1
    tokens = tmp_path / "tokens.json"
    args = ("play", "--url", hub.url, "--table", table, "--name", "bo")

    code, _, err = await run_cli(tokens, *args, "--seat", "1", stdin=b"quit\n")
    assert code == 4 and f"seat 1 at table {table} is taken" in err, err
    code, _, err = await run_cli(tokens, *args, "--seat", "4", stdin=b"quit\n")
    assert code == 4 and f"table {table} has no seat 4 (seats are numbered from 1)" in err, err
    code, _, err = await run_cli(tokens, *args, "--seat", "0", stdin=b"quit\n")
    assert code == 2 and "seats are numbered from 1" in err, err

    code, out, err = await run_cli(tokens, *args, "--seat", "3", stdin=b"quit\n")
    assert code == 0, err
    assert f"bo: seat 3 at table {table} — the seat you asked for with --seat" in out, out
    saved = TokenStore(tokens).get(hub.url, table, "bo")
    assert saved is not None and saved.seat == 2  # the protocol's number, from 0

    # --script: --seat is typed by a person (from 1); its JSON fields are the protocol's
    cy = await ScriptProc.start(
        tokens,
        *("play", "--script", "--url", hub.url, "--table", table, "--name", "cy"),
        *("--seat", "2"),
    )
    joined = await cy.expect("joined")
    assert joined["seat"] == 1
    await cy.kill()
    await ann.close()


async def test_help_says_seats_count_from_one(tmp_path: Path) -> None:
    code, out, _ = await run_cli(tmp_path / "t.json", "play", "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert "take seat N, numbered from 1 as on the screen" in flat
    assert '"seat": 0 is the screen\'s seat 1' in flat
    code, out, _ = await run_cli(tmp_path / "t.json", "replay", "--help")
    assert code == 0 and "watch as seat N (numbered from 1" in " ".join(out.split())


def test_a_result_reason_names_its_seats_as_the_browser_does() -> None:
    """The engines' reasons say "seat N" from 0; like the browser, the terminal shows the
    player's name (or "seat N+1" in a renderer, which knows no names)."""
    full: list[Any] = [n for n in range(1, 24) if n != 12]
    full[11] = None
    state = position([OTHER, full], current=1, hand=12)
    state, _ = COMPLETTO.apply(state, 1, {"type": "place", "pos": 11, "reading": 12})
    board = COMPLETTO.view(state, None)
    assert board["result"]["reason"] == "seat 1 turned all 22 tiles face up"  # the wire's
    text = ANSI.sub("", completto.render(board, None))
    assert "winner(s) seat 2 - seat 2 turned all 22 tiles face up." in text, text
    view = {
        "status": "finished",
        "seats": [{"name": "ann"}, {"name": "bo"}],
        "result": board["result"],
        "board": board,
    }
    lines = result_lines(view, GameText("completto"))
    assert "(bo turned all 22 tiles face up)" in lines, lines
