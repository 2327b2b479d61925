"""The table core without sockets, stores or an event loop: each command is one call
of ``handle`` on plain records, and its decision is checked field by field."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from tablehub.server.games import get_game
from tablehub.server.games.base import Game
from tablehub.server.tables.core import (
    Act,
    AddBot,
    BotMove,
    DeadlinePassed,
    Decision,
    Effects,
    Join,
    Legal,
    Table,
    command_from_plain,
    command_to_plain,
    handle,
    token_hash,
)
from tablehub.server.tables.record import Seat, TableRecord, TableStatus

NOW = 1_000_000


def _game(game_id: str) -> Game:
    game = get_game(game_id)
    assert game is not None
    return game


def waiting(game_id: str = "nmbr9", seats: int = 2, turn_ms: int | None = None) -> Table:
    game = _game(game_id)
    options = game.validate_options({})
    record = TableRecord(
        table="t1",
        game=game_id,
        options=options,
        turn_ms=turn_ms,
        seed=7,
        seats=[Seat() for _ in range(seats)],
        state=game.setup(options, seats, 7),
    )
    return Table.of(record)


def seated(game_id: str = "nmbr9", seats: int = 2, turn_ms: int | None = None) -> Table:
    """A table whose seats all hold people (``p0``, ``p1``…): playing, version ``seats``."""
    table = waiting(game_id, seats, turn_ms)
    for i in range(seats):
        table = committed(handle(table, Join(f"p{i}", None, None, f"token{i}"), NOW))
    return table


def committed(decision: Decision) -> Table:
    """The table after a decision that must have committed."""
    assert decision.error is None, decision.error
    assert decision.commits
    return decision.commits[-1].table


def test_a_join_takes_the_first_free_seat_with_the_token_drawn_for_it() -> None:
    table = waiting()
    before = copy.deepcopy(table.record)
    decision = handle(table, Join("ann", None, None, "tok-ann"), NOW)

    assert decision.reply == {"seat": 0, "token": "tok-ann"}
    (commit,) = decision.commits
    assert commit.record.seats[0] == Seat(name="ann", token_hash=token_hash("tok-ann"))
    assert commit.record.version == 1 and commit.record.updated_ms == NOW
    assert commit.record.status is TableStatus.WAITING
    assert commit.entry == {
        "v": 1,
        "k": "seat",
        "seat": 0,
        "name": "ann",
        "bot": False,
        "st": "waiting",
        "dl": None,
    }
    assert commit.status is table.status, "taking a seat leaves the game state as it was"
    assert decision.effects == Effects(None, ())
    assert table.record == before, "the table handed in is never changed"


def test_the_last_seat_starts_the_game_and_its_first_deadline() -> None:
    table = waiting(seats=2, turn_ms=5000)
    table = committed(handle(table, Join("ann", None, None, "a"), NOW))
    decision = handle(table, AddBot(None, None), NOW + 10)

    assert decision.reply == {"seat": 1}
    record = committed(decision).record
    assert record.status is TableStatus.PLAYING
    assert record.seats[1] == Seat(name="bot 2", bot=True, level=_game("nmbr9").default_bot_level)
    turn = table.status["turn"]
    assert (record.deadline, record.deadline_turn) == (NOW + 10 + 5000, turn)
    assert decision.commits[0].entry["dl"] == NOW + 10 + 5000
    assert decision.effects == Effects((turn, NOW + 10 + 5000), (1,)), "the bot must move now"


def test_a_token_gives_its_seat_back_without_a_commit_and_a_wrong_one_is_refused() -> None:
    table = seated()
    back = handle(table, Join("ann again", None, "token1", "unused"), NOW)
    assert back == Decision(reply={"seat": 1, "token": "token1"})

    for join in (Join("x", None, "nope", "n"), Join("x", 0, "token1", "n")):
        refused = handle(table, join, NOW)
        assert refused.error is not None and refused.error.code == "unauthorized"
        assert refused.commits == () and refused.reply is None


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (Join("x", 5, None, "n"), "bad_message"),
        (Join("x", 0, None, "n"), "seat_taken"),
        (Join("x", None, None, "n"), "table_full"),
        (AddBot(None, "grandmaster"), "bad_options"),
        (Legal(9), "bad_message"),
    ],
)
def test_seat_requests_that_do_not_fit_are_refused_with_their_code(
    command: Join | AddBot | Legal, code: str
) -> None:
    decision = handle(seated(), command, NOW)
    assert decision.error is not None and decision.error.code == code
    assert decision.error.message and decision.commits == ()


def test_an_act_commits_the_new_state_with_the_game_status_computed_for_it() -> None:
    game = _game("brix")
    table = seated("brix")
    seat = table.status["to_act"][0]
    action = game.legal_actions(table.record.state, seat)[0]
    decision = handle(table, Act(seat, action, cid="p:1"), NOW)

    (commit,) = decision.commits
    state, events = game.apply(table.record.state, seat, action)
    assert commit.record.state == state and commit.events == events
    assert commit.status == game.status(state)
    assert decision.reply == {"version": table.record.version + 1}
    assert commit.entry == {
        "v": table.record.version + 1,
        "k": "act",
        "seat": seat,
        "action": action,
        "by": "player",
        "cid": "p:1",
        "st": "playing",
        "dl": None,
    }
    assert decision.effects == Effects(None, ()), "no deadline, no bots at this table"


def test_acts_the_table_or_the_game_refuses_change_nothing() -> None:
    game = _game("brix")
    playing = seated("brix")
    seat = playing.status["to_act"][0]
    action = game.legal_actions(playing.record.state, seat)[0]
    finished = Table(
        dataclasses.replace(playing.record, status=TableStatus.FINISHED), playing.status
    )
    cases = [
        (waiting("brix"), Act(0, action), "not_started"),
        (finished, Act(seat, action), "finished"),
        (playing, Act(1 - seat, action), "not_your_turn"),
        (playing, Act(seat, {"type": "dance"}), "bad_action"),
    ]
    for table, act, code in cases:
        decision = handle(table, act, NOW)
        assert decision.error is not None and decision.error.code == code, act
        assert decision.commits == () and decision.effects is None


def test_legal_is_answered_from_the_table_as_it_is() -> None:
    game = _game("completto")
    table = seated("completto", 3)
    for seat in range(3):
        decision = handle(table, Legal(seat), NOW)
        assert decision == Decision(
            reply={
                "actions": game.legal_actions(table.record.state, seat),
                "version": table.record.version,
            }
        )


def test_the_deadline_plays_the_fast_level_for_every_seat_still_to_act() -> None:
    game = _game("nmbr9")
    table = seated("nmbr9", 3, turn_ms=1000)
    turn = table.record.deadline_turn
    assert turn is not None
    action = game.legal_actions(table.record.state, 0)[0]
    table = committed(handle(table, Act(0, action), NOW))
    assert table.record.deadline_turn == turn, "the round is still open"

    stale = handle(table, DeadlinePassed(turn - 1), NOW + 1000)
    assert stale == Decision(reply={"applied": 0})

    decision = handle(table, DeadlinePassed(turn), NOW + 1000)
    assert decision.reply == {"applied": 2}
    assert [(c.entry["seat"], c.entry["by"]) for c in decision.commits] == [
        (1, "deadline"),
        (2, "deadline"),
    ]
    state = table.record.state
    for commit in decision.commits:
        seat = commit.entry["seat"]
        assert commit.entry["action"] == game.fast_bot_move(state, seat)
        state = commit.record.state
    after = decision.commits[-1].record
    assert after.deadline_turn is not None and after.deadline_turn != turn
    assert after.deadline == NOW + 1000 + 1000
    assert decision.effects == Effects((after.deadline_turn, NOW + 2000), ())


def test_a_bot_moves_only_when_its_seat_must_act() -> None:
    game = _game("brix")
    table = committed(handle(waiting("brix"), AddBot(None, None), NOW))
    table = committed(handle(table, Join("ann", None, None, "a"), NOW))
    bot = 0
    if bot not in table.status["to_act"]:
        assert handle(table, BotMove(bot), NOW) == Decision(reply={"applied": 0})
        human = table.status["to_act"][0]
        move = game.legal_actions(table.record.state, human)[0]
        table = committed(handle(table, Act(human, move), NOW))
    decision = handle(table, BotMove(bot), NOW)
    (commit,) = decision.commits
    assert decision.reply == {"applied": 1}
    assert commit.entry["by"] == "bot" and commit.entry["seat"] == bot
    level = table.record.seats[bot].level
    assert commit.entry["action"] == game.bot_move(table.record.state, bot, level)


def test_a_move_thought_off_the_loop_is_played_or_thought_again() -> None:
    """A bot's move thought at some version (tables/thinking.py) is played when it is
    still legal; refused after the table moved on, the bot thinks again (the seat is
    in the effects); refused at the version it was thought for, it is logged."""
    game = _game("brix")
    table = committed(handle(waiting("brix"), AddBot(None, None), NOW))
    table = committed(handle(table, Join("ann", None, None, "a"), NOW))
    if 0 not in table.status["to_act"]:
        human = table.status["to_act"][0]
        move = game.legal_actions(table.record.state, human)[0]
        table = committed(handle(table, Act(human, move), NOW))
    version = table.record.version
    thought = game.bot_move(table.record.state, 0, table.record.seats[0].level)
    decision = handle(table, BotMove(0, thought, version), NOW)
    assert decision.reply == {"applied": 1}
    assert decision.commits[0].entry["action"] == thought

    nonsense = {"type": "no such move"}
    again = handle(table, BotMove(0, nonsense, version - 1), NOW)
    assert again.reply == {"applied": 0} and again.warning is None
    assert again.effects is not None and 0 in again.effects.bots
    refused = handle(table, BotMove(0, nonsense, version), NOW)
    assert refused.reply == {"applied": 0} and refused.effects is None
    assert refused.warning is not None and "refused" in refused.warning


def test_the_same_input_always_gives_the_same_decision() -> None:
    table = seated("termite", 2, turn_ms=3000)
    seat = table.status["to_act"][0]
    action = _game("termite").legal_actions(table.record.state, seat)[0]
    assert handle(table, Act(seat, action), NOW) == handle(table, Act(seat, action), NOW)


def test_commands_for_the_owner_survive_the_trip_as_plain_data() -> None:
    for command in (
        Act(1, {"type": "place"}, cid="p:3"),
        AddBot(2, "easy"),
        Legal(1),
    ):
        assert command_from_plain(command_to_plain(command)) == command
    join = command_from_plain(command_to_plain(Join("ann", 1, "tok", "fresh")))
    assert isinstance(join, Join) and (join.name, join.seat, join.token) == ("ann", 1, "tok")
