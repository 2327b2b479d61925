"""Everything the server sends about a table fits protocol/v1, field for field (issue 26,
"the schemas describe what the server sends").

Tables are driven through the server's own table core and feed, without sockets: the
pure ``handle`` (joins, bots, acts, resigns, ``legal`` with and without ``partial``,
passed deadlines and their fallback moves, refusals) and a real ``TableFeed`` with one
subscriber per audience -- every seat and the spectators -- so the replies, and the
snapshots, patches (applied, as a client does), events and presence pushes each
audience gets, are what a hub would send.  :class:`WireCheck` holds each to its schema
and fails on any field the schema does not name (tests/protocol/strict_schema.py).

Covered: every game at every seat count it allows (termite solo to 4, completto 2-4 with
stalled rounds, 9-tower 1-4 and a 200-seat tournament table), with and without turn
deadlines, to the finished table and past it; plus hypothesis drawing the game, seats,
options, deal and the players' habits.  The session's own replies (hello, list_games,
list_tables...) and lobby pushes are not driven here: WireCheck can check them, but no
real-socket test feeds it yet.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehub.protocol import Frames
from tablehub.protocol.codec import V1_DIR, index
from tablehub.server.games import get_game
from tablehub.server.games.base import Game
from tablehub.server.tables.core import (
    Act,
    AddBot,
    BotMove,
    Command,
    DeadlinePassed,
    Join,
    Legal,
    Table,
    handle,
)
from tablehub.server.tables.feed import TableFeed
from tablehub.server.tables.record import Seat, TableRecord, TableStatus
from tests.protocol.wire_check import Audience, WireCheck

GAMES = sorted(index()["games"])
NOW = 1_700_000_000_000
TOURNAMENT_SEATS = 200
"""A 9-tower tournament table allows 1,000 seats; 200 keep this test to seconds (the
views are the same for every seat: a few audiences stand for all)."""


def bare_actions(game_id: str) -> list[dict[str, Any]]:
    """The game's action types that need no field besides ``type`` (resign, pass...)."""
    doc = json.loads((V1_DIR / index()["games"][game_id]["action"]).read_text())
    return [
        {"type": name} for name, variant in doc["$defs"].items() if variant["required"] == ["type"]
    ]


@dataclass
class Habits:
    """How the players of one playout behave."""

    seed: int
    bots: float = 0.5
    """Share of seats (after the first) taken by server bots."""
    deadlines: float = 0.0
    """With a share above 0 the table has turn_seconds, and at that share of the steps
    the deadline passes (the seats still to act get the fallback move)."""
    fast_bots: bool = False
    """Bots of the game's fastest level only (else any level, by id or number)."""
    prefer: str | None = None
    """An action type the people pick whenever it is legal (completto ``move``: stalls)."""
    resign_after: int = 10**9
    """Steps before people may resign (at 1 % a step); default never."""
    audiences: list[int | None] | None = None
    """Seats that watch (None: spectators); default every seat and the spectators."""


@dataclass
class Run:
    game: Game
    check: WireCheck
    table: Table
    feed: TableFeed
    habits: Habits
    rng: random.Random
    ids: int = 0
    people: dict[int, str] = field(default_factory=dict)
    """Seat -> token of the seats people hold."""
    watchers: list[Audience] = field(default_factory=list)
    now: int = NOW

    def run(self, command: Command, request: str | None) -> dict[str, Any] | None:
        """Handle ``command`` as the table's actor does; check the reply as the session
        sends it (``request``: the request type; None for the table's own commands)."""
        self.now += 1000
        decision = handle(self.table, command, self.now)
        self.ids += 1
        if request is not None and decision.error is not None:
            err = decision.error
            msg: dict[str, Any] = {"t": "error", "id": self.ids, "code": err.code}
            msg["message"] = err.message
            if err.retry_ms is not None:
                msg["retry_ms"] = err.retry_ms
            self.check.reply(request, msg, self.game.id)
        elif request is not None and decision.reply is not None:
            self.check.reply(request, {"t": "ok", "id": self.ids, **decision.reply}, self.game.id)
        for commit in decision.commits:
            self.feed.on_commit(commit.record, commit.entry, commit.events, commit.status)
            self.table = commit.table
        if decision.commits:
            self.feed.flush()
        return decision.reply

    def watch(self, seat: int | None) -> None:
        wanted = self.habits.audiences
        if wanted is None or seat in wanted:
            watcher = Watcher(self.check, Audience(self.feed.table, self.game.id, seat))
            watcher.id = len(self.watchers) + 1
            self.watchers.append(watcher.audience)
            self.feed.subscribe(watcher, seat)


class Watcher:
    """A feed subscriber that hands every push to the check, as its audience's client."""

    def __init__(self, check: WireCheck, audience: Audience) -> None:
        self.id = 0
        self.check = check
        self.audience = audience

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None:
        self.check.push(frames.msg, self.audience)


def new_run(
    check: WireCheck, game_id: str, seats: int, options: dict[str, Any], habits: Habits
) -> Run:
    game = get_game(game_id)
    assert game is not None
    resolved = game.validate_options(options)
    record = TableRecord(
        table=f"t{habits.seed}",
        game=game_id,
        options=resolved,
        turn_ms=5000 if habits.deadlines else None,
        seed=habits.seed,
        seats=[Seat() for _ in range(seats)],
        state=game.setup(resolved, seats, habits.seed),
        created_ms=NOW,
        updated_ms=NOW,
    )
    return Run(game, check, Table.of(record), TableFeed(record), habits, random.Random(habits.seed))


def seat_everyone(run: Run, seats: int) -> None:
    run.watch(None)
    levels: list[str | int | None] = [None, *(b.id for b in run.game.bots), 1]
    if run.habits.fast_bots:
        levels = [run.game.fast_bot_level or run.game.bots[0].id]
    for seat in range(seats):
        if seat and run.rng.random() < run.habits.bots:
            reply = run.run(AddBot(None, run.rng.choice(levels)), "add_bot")
        else:
            reply = run.run(Join(f"p{seat}", None, None), "join")
            assert reply is not None
            run.people[reply["seat"]] = reply["token"]
        run.watch(seat)
    # a join to a full table, a wrong token, a seat taken back with its token
    run.run(Join("late", None, None), "join")
    run.run(Join("thief", 0, "not-the-token"), "join")
    run.run(Join("p0", 0, run.people[0]), "join")
    run.run(AddBot(0, None), "add_bot")


def person_action(run: Run, seat: int) -> dict[str, Any]:
    """What a person at ``seat`` sends: the bot's move, a random legal one, the
    preferred type, or a field-less action other than resign that may be refused."""
    state, rng = run.table.record.state, run.rng
    roll = rng.random()
    if run.habits.prefer is not None or roll < 0.5:
        legal = run.game.legal_actions(state, seat)
        preferred = [a for a in legal if a["type"] == run.habits.prefer]
        if preferred:
            return rng.choice(preferred)
        others = [a for a in bare_actions(run.game.id) if a["type"] != "resign"]
        if roll < 0.1 and others:
            return rng.choice(others)
        if roll < 0.5 and legal:
            return rng.choice(legal)
    return run.game.fast_bot_move(state, seat)


def ask_legal(run: Run) -> None:
    """``legal`` from a random seat: the full list, or staged from ``{}`` or from the
    first field of a legal action."""
    seat = run.rng.randrange(len(run.table.record.seats))
    roll = run.rng.random()
    if roll < 0.4:
        run.run(Legal(seat), "legal")
        return
    partial: dict[str, Any] = {}
    legal = run.game.legal_actions(run.table.record.state, seat)
    if roll < 0.7 and legal:
        partial = {"type": run.rng.choice(legal)["type"]}
    run.run(Legal(seat, partial), "legal")


def play(run: Run, max_steps: int = 4000) -> None:
    rng, record = run.rng, run.table.record
    for step in range(max_steps):
        record = run.table.record
        if record.status is not TableStatus.PLAYING:
            break
        to_act = run.table.status["to_act"]
        roll = rng.random()
        if roll < run.habits.deadlines and record.deadline_turn is not None:
            run.run(DeadlinePassed(record.deadline_turn), None)
        elif roll < run.habits.deadlines + 0.05:
            ask_legal(run)
        elif roll < run.habits.deadlines + 0.06 and step > run.habits.resign_after:
            seat = rng.randrange(len(record.seats))
            if seat in run.people:
                run.run(Act(seat, {"type": "resign"}), "act")
        elif to_act:
            seat = rng.choice(to_act)
            if seat in run.people:
                run.run(Act(seat, person_action(run, seat)), "act")
            else:
                run.run(BotMove(seat), None)
    # past the end: acts are refused, legal lists nothing
    if run.table.record.status is TableStatus.FINISHED:
        run.run(Act(0, {"type": "resign"}), "act")
        run.run(Legal(0), "legal")
        run.run(Legal(0, {}), "legal")


def playout(
    check: WireCheck, game_id: str, seats: int, options: dict[str, Any], habits: Habits
) -> Run:
    async def go() -> Run:
        run = new_run(check, game_id, seats, options, habits)
        seat_everyone(run, seats)
        play(run)
        return run

    return asyncio.run(go())


def assert_clean(check: WireCheck) -> None:
    """No departures; else each kind of departure once (versions and indices blurred),
    with how often it was seen."""
    kinds = Counter(re.sub(r"\bv\d+|\[\d+\]|seat \d+", "*", p) for p in check.problems)
    shown = "\n".join(f"{n} x {kind}" for kind, n in sorted(kinds.items())[:40])
    assert not check.problems, f"{len(check.problems)} departures from protocol/v1:\n{shown}"


def seat_counts(game_id: str) -> list[int]:
    game = get_game(game_id)
    assert game is not None
    return list(range(game.min_players, game.max_players + 1))


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "seats"), [(g, n) for g in GAMES for n in seat_counts(g)])
def test_every_game_at_every_seat_count_sends_what_the_schemas_say(
    game_id: str, seats: int
) -> None:
    """Two playouts per game and seat count, both to the end and past it, watched by every
    audience: one played out by its players, one with deadlines (fallback moves) where
    people may resign."""
    check = WireCheck()
    finished = 0
    for habits in (Habits(seats), Habits(seats + 100, deadlines=0.15, resign_after=30)):
        run = playout(check, game_id, seats, {}, habits)
        finished += run.table.record.status is TableStatus.FINISHED
    assert_clean(check)
    assert finished == 2
    assert check.seen["ok:act"] and check.seen["ok:legal"] and check.seen["error:finished"]
    assert check.seen["patch"] and check.seen["event"] and check.seen["presence"]
    assert check.seen["view with a deadline"] and check.seen[f"result:{game_id}"]


@pytest.mark.slow
def test_completto_stalled_rounds_send_what_the_schemas_say() -> None:
    """Players who only move tiles within their rows stall each round: the round ends
    without a winner (events and every view's history say so)."""
    check = WireCheck()
    for seats in (2, 3, 4):
        habits = Habits(seats, bots=0.0, prefer="move")
        run = playout(check, "completto", seats, {"rounds": 2}, habits)
        assert run.table.record.status is TableStatus.FINISHED
    assert check.seen["round_end without a winner"] >= 3
    assert_clean(check)


@pytest.mark.slow
def test_a_large_9_tower_table_sends_what_the_schemas_say() -> None:
    """A 200-seat tournament table played by bots and deadlines; watched by the first,
    a middle and the last seat and the spectators (9-tower's view is the same for all)."""
    check = WireCheck()
    last = TOURNAMENT_SEATS - 1
    habits = Habits(
        7, bots=1.0, deadlines=0.9, fast_bots=True, audiences=[None, 0, last // 2, last]
    )
    run = playout(check, "nmbr9", TOURNAMENT_SEATS, {"tournament": True}, habits)
    assert run.table.record.status is TableStatus.FINISHED
    assert check.seen["result:nmbr9"]
    assert_clean(check)


def options_of(game: Game) -> st.SearchStrategy[dict[str, Any]]:
    """Any options the game accepts, from what ``list_games`` tells clients."""
    choices: dict[str, st.SearchStrategy[Any]] = {}
    for name, spec in game.describe()["options"].items():
        assert isinstance(spec, dict)
        if "choices" in spec:
            choices[name] = st.sampled_from(spec["choices"])
        elif spec["type"] == "boolean":
            choices[name] = st.booleans()
        elif spec["type"] == "integer":
            low = spec.get("minimum", 0)
            choices[name] = st.integers(low, min(spec.get("maximum", low + 8), low + 8))
    return st.fixed_dictionaries({}, optional=choices)


@pytest.mark.slow
@given(data=st.data(), game_id=st.sampled_from(GAMES))
@settings(max_examples=12, deadline=None)
def test_any_table_sends_what_the_schemas_say(data: st.DataObject, game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    options = data.draw(options_of(game), label="options")
    limit = min(game.seat_limit(game.validate_options(options)), 6)
    seats = data.draw(st.integers(game.min_players, limit), label="seats")
    habits = Habits(
        seed=data.draw(st.integers(0, 2**32), label="seed"),
        bots=data.draw(st.sampled_from([0.0, 0.5, 1.0]), label="bots"),
        deadlines=data.draw(st.sampled_from([0.0, 0.15, 0.5]), label="deadlines"),
        prefer=data.draw(st.sampled_from([None, "move"]), label="prefer"),
        resign_after=data.draw(st.integers(0, 200), label="resign_after"),
    )
    check = WireCheck()
    playout(check, game_id, seats, options, habits)
    assert_clean(check)
    assert sum(n for k, n in check.seen.items() if k.startswith("view:")) > 0


def test_the_check_fails_on_a_field_no_schema_names() -> None:
    """The strict check can fail: an unnamed field anywhere, in a view, an event, a
    reply or a push, is reported with its path."""
    check = WireCheck()
    run = playout(check, "nmbr9", 1, {}, Habits(1, audiences=[None]))
    assert_clean(check)
    watcher = Audience("elsewhere", "nmbr9", None)
    snapshot = run.feed.snapshot(None).msg
    view = json.loads(json.dumps(snapshot["view"]))
    view["board"]["players"][0]["secret"] = 1
    view["extra"] = 2
    check.push({**snapshot, "view": view, "note": 3}, watcher)
    event = {"type": "resigned", "seat": 0, "why": 1}
    check.push({"t": "event", "table": "t1", "version": 1, "events": [event]}, watcher)
    check.reply("join", {"t": "ok", "id": 1, "seat": 0, "token": "x" * 10, "level": 1})
    found = "\n".join(check.problems)
    for path in ("$.board.players[0].secret", "$.extra", "$.note", "$.events[0].why", "$.level"):
        assert path in found, found
    assert Counter(p.split(":")[0] for p in check.problems)
