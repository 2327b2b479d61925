"""Screens for every game: per-game renderers and the generic fallback never crash.

Views are the hub's real table views (``server.tables.feed.table_view``) of games
played by their own bots, rendered for every seat and for a spectator.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.play import COMMANDS_HELP
from tablehub.clients.cli.renderers import completto
from tablehub.clients.cli.screen import compose, deadline_text, scores
from tablehub.server.games import _MODULES, get_game
from tablehub.server.games.base import Game
from tablehub.server.tables.feed import table_view
from tablehub.server.tables.record import Seat, TableRecord, TableStatus

MAX_STEPS = 2000
NOW = 1_000_000


GAME_IDS = sorted(_MODULES)
"""Every registered game: one whose engine fails to import fails its tests here."""


def presence(record: TableRecord, connected: set[int]) -> dict[str, Any]:
    return {
        "t": "presence",
        "table": record.table,
        "seats": [
            {"name": s.name, "bot": s.bot, "connected": i in connected}
            for i, s in enumerate(record.seats)
        ],
        "spectators": 2,
    }


def screens(game: Game, record: TableRecord, use_renderer: bool) -> list[str]:
    text = GameText(game.id, use_renderer)
    out = []
    for seat in [*range(len(record.seats)), None]:
        view = table_view(game, record, seat)
        screen = compose(
            view,
            presence(record, {0}),
            seat=seat,
            text=text,
            game_name=game.name,
            version=record.version,
            now_ms=NOW,
        )
        assert all(isinstance(line, str) for line in screen.lines)
        out.append(screen.text)
        for action in game.legal_actions(record.state, seat)[:10] if seat is not None else []:
            assert text.describe(action)
    return out


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_renders_from_start_to_finish(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    players = max(game.min_players, 2)
    options = game.validate_options({})
    record = TableRecord(
        table="t0able",
        game=game_id,
        options=options,
        turn_ms=30_000,
        seed=5,
        seats=[Seat(name=f"player{i}", token_hash="h") for i in range(players)],
        state=game.setup(options, players, 5),
        status=TableStatus.PLAYING,
        deadline=NOW + 12_000,
    )
    for step in range(MAX_STEPS):
        status = game.status(record.state)
        if status["finished"]:
            break
        if step % 25 == 0:
            for use_renderer in (True, False):
                for text in screens(game, record, use_renderer):
                    assert "t0able" in text and game.name in text
                    assert "player0" in text and "online" in text and "offline" in text
                    assert "deadline: 12s left" in text
                    assert "+ 2 spectators" in text
        seat = status["to_act"][0]
        state, _ = game.apply(record.state, seat, game.fast_bot_move(record.state, seat))
        record = dataclasses.replace(record, state=state, version=record.version + 1)
    if game.status(record.state)["finished"]:
        record = dataclasses.replace(record, status=TableStatus.FINISHED, deadline=None)
        for use_renderer in (True, False):
            for text in screens(game, record, use_renderer):
                assert "GAME OVER" in text
                assert "deadline" not in text


def test_nmbr9_screen_shows_levels_cards_and_the_leaderboard() -> None:
    game = get_game("nmbr9")
    assert game is not None
    state = game.setup({"tournament": False}, 2, 1)
    for seat in (0, 1):
        state, _ = game.apply(state, seat, game.fast_bot_move(state, seat))
    record = TableRecord(
        table="abc",
        game="nmbr9",
        options={},
        turn_ms=None,
        seed=1,
        seats=[Seat(name="ann", token_hash="h"), Seat(name="bot 2", bot=True)],
        state=state,
        status=TableStatus.PLAYING,
    )
    view = table_view(game, record, 0)
    text = compose(view, presence(record, {0}), seat=0, text=GameText("nmbr9"), now_ms=NOW).text
    assert "round 2/20" in text and "cards still to come" in text
    assert "leaderboard: 1. ann 0  2. bot 2 0" in text
    assert "to act: ann, bot 2" in text
    assert "you, online" in text and "bot" in text
    assert scores(view) == [0, 0]


def test_a_tournament_table_lists_the_leaders_and_you_only() -> None:
    game = get_game("nmbr9")
    assert game is not None
    players = 40
    state = game.setup({"tournament": True}, players, 2)
    for _ in range(3):  # three rounds, every seat by its bot
        for seat in range(players):
            state, _ = game.apply(state, seat, game.fast_bot_move(state, seat))
    record = TableRecord(
        table="big",
        game="nmbr9",
        options={"tournament": True},
        turn_ms=None,
        seed=2,
        seats=[Seat(name=f"p{i}", token_hash="h") for i in range(players)],
        state=state,
        status=TableStatus.PLAYING,
    )
    view = table_view(game, record, 39)
    screen = compose(view, presence(record, {39}), seat=39, text=GameText("nmbr9"), now_ms=NOW).text
    assert "40 seats in all, 1 connected" in screen
    assert "to act: p0, p1, p2" in screen and "and 30 more" in screen
    assert "(30 more)" in screen  # the leaderboard line stops after ten
    assert "40  p39" in screen and "you, online" in screen  # seats numbered from 1
    assert len(screen.splitlines()) < 80


def test_generic_fallback_for_a_game_without_renderer() -> None:
    text = GameText("no_such_game")
    assert text.module is None
    board = {"a_turn": 3, "pieces": list(range(200))}
    view = {
        "table": "t1",
        "game": "no_such_game",
        "status": "playing",
        "seats": [{"name": "a", "bot": False}, {"name": None, "bot": False}],
        "phase": "main",
        "to_act": [0],
        "turn": 3,
        "deadline": None,
        "result": None,
        "board": board,
    }
    screen = compose(view, {}, seat=0, text=text, now_ms=NOW).text
    assert '"a_turn": 3' in screen and "more lines)" in screen
    assert "(free)" in screen
    assert text.parse('{"type": "x", "n": 1}', board, 0) == {"type": "x", "n": 1}
    with pytest.raises(ValueError, match="JSON object"):
        text.parse("1 2", board, 0)
    assert text.describe({"type": "x"}) == '{"type":"x"}'
    assert "JSON object" in text.help


def test_a_failing_renderer_falls_back_to_json() -> None:
    text = GameText("nmbr9")
    rendered = text.render({"unexpected": True}, 0)
    assert "renderer failed" in rendered and '"unexpected": true' in rendered


def test_finished_result_and_deadline_texts() -> None:
    view = {
        "table": "t1",
        "game": "g",
        "status": "finished",
        "seats": [{"name": "a", "bot": False}, {"name": "b", "bot": True}],
        "to_act": [],
        "deadline": None,
        "result": {"scores": [3, 9], "winners": [1], "reason": "all cards were played"},
        "board": {},
    }
    text = compose(view, {}, seat=None, text=GameText("g", use_renderer=False)).text
    assert "GAME OVER — winner: b" in text
    assert "final ranking: 1. b 9  2. a 3" in text
    assert deadline_text(NOW + 61_500, NOW).startswith("deadline: 1:02 left")
    assert deadline_text(NOW - 5, NOW).startswith("deadline: 0s left")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_says_what_each_seat_did_and_has_a_compact_screen(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    text = GameText(game_id)
    players = max(game.min_players, 2)
    options = game.validate_options({})
    state = game.setup(options, players, 3)
    record = TableRecord(
        table="t0able",
        game=game_id,
        options=options,
        turn_ms=None,
        seed=3,
        seats=[Seat(name=f"player{i}", token_hash="h") for i in range(players)],
        state=state,
        status=TableStatus.PLAYING,
    )
    said: dict[int | None, int] = {}
    for step in range(MAX_STEPS):
        status = game.status(record.state)
        if status["finished"]:
            break
        seat = status["to_act"][0]
        old = table_view(game, record, None)["board"]
        state, events = game.apply(record.state, seat, game.fast_bot_move(record.state, seat))
        record = dataclasses.replace(record, state=state, version=record.version + 1)
        for actor, phrase in text.news(old, table_view(game, record, None)["board"], events):
            assert phrase and not re.search(r"None|null|[{}_]", phrase), phrase
            said[actor] = said.get(actor, 0) + 1
        if step % 40 == 0:
            view = table_view(game, record, seat)
            compact = compose(view, {}, seat=seat, text=text, compact=True)
            assert len(compact.lines) < len(compose(view, {}, seat=seat, text=text).lines)
            board = view["board"]
            for action in game.legal_actions(record.state, seat)[:50]:
                assert all(label for _, label in text.steps(action, board, seat))
    assert all(said.get(s) for s in range(players)), f"every seat's moves are told: {said}"
    record = dataclasses.replace(record, status=TableStatus.FINISHED)
    compact = compose(table_view(game, record, 0), {}, seat=0, text=text, compact=True)
    assert compact.lines[1].startswith("GAME OVER"), "the result leads the final screen"


def test_every_help_fits_an_80_column_window() -> None:
    texts = {"commands": COMMANDS_HELP}
    texts.update({game_id: GameText(game_id).help for game_id in GAME_IDS})
    for name, text in texts.items():
        wide = [line for line in text.splitlines() if len(line) >= 80]
        assert not wide, f"{name}: {wide}"


def test_number_row_setup_names_the_seats_still_inserting() -> None:
    game = get_game("completto")
    assert game is not None
    state = game.setup(game.validate_options({}), 2, 3)
    text = completto.render(game.view(state, 1), 1)
    assert "setup: seat 1 and seat 2 (you) still inserting face-up tiles" in text, text
