"""The actor executing the core's decisions against a real (memory) store, without
sockets or a hub: commits reach the hook with their status before the reply, legal is
answered in queue order, bots and deadlines are driven by the decisions' effects."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest

from tablehub.server.games.base import Event, Status
from tablehub.server.store.memory import MemoryStore
from tablehub.server.tables.actor import TableActor
from tablehub.server.tables.core import Act, AddBot, Join, Legal, handle
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.journal import StoreUnavailable, VersionConflict
from tablehub.server.tables.record import LogEntry, TableRecord
from tests.server.tables.test_core import NOW, committed, seated, waiting


class Hook:
    """The ``on_commit`` hook: every commit it was handed; wakes ``wait_for``."""

    def __init__(self) -> None:
        self.commits: list[tuple[TableRecord, LogEntry, list[Event], Status]] = []
        self._changed = asyncio.Event()

    def __call__(
        self, record: TableRecord, entry: LogEntry, events: list[Event], status: Status
    ) -> None:
        self.commits.append((record, entry, events, status))
        self._changed.set()

    async def wait_for(self, count: int) -> None:
        while len(self.commits) < count:
            self._changed.clear()
            await self._changed.wait()


@pytest.fixture
async def start() -> AsyncIterator[Any]:
    """``await start(record, hook)``: a running actor over a fresh memory store."""
    actors: list[TableActor] = []

    async def run(record: TableRecord, hook: Hook) -> TableActor:
        store = MemoryStore()
        await store.create(record)
        actor = TableActor(record, store, hook, lambda: NOW)
        actor.start()
        actors.append(actor)
        return actor

    yield run
    for actor in actors:
        actor.stop()


async def test_the_reply_comes_after_the_commit_reached_the_feed_with_its_status(
    start: Any,
) -> None:
    hook = Hook()
    actor: TableActor = await start(seated("brix").record, hook)
    game, version = actor.game, actor.record.version
    seat = game.status(actor.record.state)["to_act"][0]
    action = game.legal_actions(actor.record.state, seat)[0]

    result = await actor.submit(Act(seat, action))

    assert result == {"version": version + 1}
    ((record, entry, _, status),) = hook.commits
    assert record is actor.record and record.version == version + 1
    assert status == game.status(record.state)
    assert entry["action"] == action
    assert (await cast(MemoryStore, actor.store).log(record.table)) == [entry]


async def test_legal_is_answered_by_the_actor_after_the_acts_queued_before_it(
    start: Any,
) -> None:
    actor: TableActor = await start(seated("brix").record, Hook())
    game, version = actor.game, actor.record.version
    before = actor.record.state
    seat = game.status(before)["to_act"][0]
    acted = actor.submit(Act(seat, game.legal_actions(before, seat)[0]))
    legal = await actor.legal(1 - seat)

    assert (await acted) == {"version": version + 1}
    after = actor.record.state
    assert legal == {"actions": game.legal_actions(after, 1 - seat), "version": version + 1}
    assert legal["actions"] != game.legal_actions(before, 1 - seat), "the act came first"
    with pytest.raises(TableError) as refused:
        await actor.submit(Legal(2))
    assert refused.value.code == "bad_message"


async def test_a_table_committed_elsewhere_is_given_up(start: Any) -> None:
    record = waiting().record
    actor: TableActor = await start(record, Hook())
    await actor.store.commit(dataclasses.replace(record, version=1), {"v": 1, "k": "seat"}, 0)

    with pytest.raises(TableError) as moved:
        await actor.submit(Join("ann", None, None))

    assert moved.value.code == "overloaded" and moved.value.retry_ms
    assert actor.lost and actor.record.version == 0


async def test_bots_move_when_their_turn_comes(start: Any) -> None:
    table = committed(handle(waiting("brix"), Join("ann", None, None, "a"), NOW))
    table = committed(handle(table, AddBot(None, "easy"), NOW))
    hook = Hook()
    actor: TableActor = await start(table.record, hook)
    game = actor.game
    people_first = table.status["to_act"] == [0]
    if people_first:
        await actor.submit(Act(0, game.legal_actions(actor.record.state, 0)[0]))
    await hook.wait_for(2 if people_first else 1)

    assert [(e["seat"], e["by"]) for _, e, _, _ in hook.commits if e["by"] == "bot"] == [(1, "bot")]
    assert game.status(actor.record.state)["to_act"] == [0]


async def test_a_passed_deadline_plays_for_every_seat_still_to_act(start: Any) -> None:
    table = seated("nmbr9", 3, turn_ms=1000)
    turn = table.record.deadline_turn
    hook = Hook()
    actor: TableActor = await start(dataclasses.replace(table.record, deadline=NOW - 1), hook)

    await hook.wait_for(3)

    assert [(e["seat"], e["by"]) for _, e, _, _ in hook.commits] == [
        (0, "deadline"),
        (1, "deadline"),
        (2, "deadline"),
    ]
    assert actor.record.deadline_turn != turn and actor.record.deadline == NOW + 1000


class HeldStore:
    """A memory store whose commits wait until the test lets them through: shows what
    the actor queued before it awaited anything.  ``refuse`` makes the commit at that
    position (0-based, in queue order) come back refused, as a lost lease would."""

    def __init__(self, store: MemoryStore, refuse: int | None = None) -> None:
        self.store = store
        self.refuse = refuse
        self.held: list[tuple[TableRecord, LogEntry, int, asyncio.Future[None]]] = []
        self.queued = asyncio.Event()

    def commit(
        self, record: TableRecord, entry: LogEntry, expected_version: int, epoch: int = 0
    ) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.held.append((record, entry, expected_version, future))
        self.queued.set()
        return future

    async def wait_for(self, count: int) -> None:
        while len(self.held) < count:
            self.queued.clear()
            await self.queued.wait()

    async def release(self) -> None:
        for index, (record, entry, expected, future) in enumerate(self.held):
            if index == self.refuse:
                expected = -1  # not the table's version: refused, nothing stored
            try:
                await self.store.commit(record, entry, expected)
            except VersionConflict as err:
                future.set_exception(err)
            else:
                future.set_result(None)


async def four_seats_placing_one_card(refuse: int | None = None) -> Any:
    """A 9-tower table of four people, each of whom sent a placement of the same card
    before the actor looked: (actor, hook, held store, the four acts' futures)."""
    record = seated("nmbr9", 4).record
    memory = MemoryStore()
    await memory.create(record)
    held, hook = HeldStore(memory, refuse), Hook()
    actor = TableActor(record, cast(Any, held), hook, lambda: NOW)
    game = actor.game
    acts = [actor.submit(Act(s, game.legal_actions(record.state, s)[0])) for s in range(4)]
    return actor, hook, held, acts


async def test_commands_queued_together_have_their_commits_sent_together() -> None:
    actor, hook, held, acts = await four_seats_placing_one_card()
    version = actor.record.version
    actor.start()
    try:
        await held.wait_for(4)

        assert [expected for _, _, expected, _ in held.held] == [version + i for i in range(4)]
        assert not any(act.done() for act in acts), "nobody is answered before the store"
        assert hook.commits == []
        await held.release()
        replies = await asyncio.gather(*acts)
    finally:
        actor.stop()

    assert replies == [{"version": version + i} for i in range(1, 5)]
    assert [record.version for record, *_ in hook.commits] == [version + i for i in range(1, 5)]
    assert actor.record == hook.commits[-1][0]
    stored = await held.store.load(actor.record.table)
    assert stored is not None and stored.version == version + 4


async def test_a_refused_commit_refuses_the_commands_queued_after_it() -> None:
    actor, hook, held, acts = await four_seats_placing_one_card(refuse=1)
    version = actor.record.version
    actor.start()
    await held.wait_for(4)
    await held.release()
    outcomes = await asyncio.gather(*acts, return_exceptions=True)
    assert not actor.running  # the table is lost: the actor stopped

    assert outcomes[0] == {"version": version + 1}
    for refused in outcomes[1:]:
        assert isinstance(refused, TableError) and refused.code == "overloaded"
        assert refused.retry_ms
    assert actor.lost and actor.record.version == version + 1
    assert [record.version for record, *_ in hook.commits] == [version + 1]
    stored = await held.store.load(actor.record.table)
    assert stored is not None and stored.version == version + 1


async def test_a_table_stopped_while_its_commits_are_out_says_it_does_not_know() -> None:
    """A refusal means the move was not made: commands whose commits were already sent
    when the table stopped here get ``unavailable`` (may or may not be stored), and
    commands not yet decided get ``overloaded`` (not run, never will be)."""
    actor, _, held, acts = await four_seats_placing_one_card()
    actor.start()
    await held.wait_for(4)
    later = actor.submit(Legal(0))  # queued behind the batch: never decided
    actor.stop()
    outcomes = await asyncio.gather(*acts, later, return_exceptions=True)
    assert [o.code for o in outcomes if isinstance(o, TableError)] == [
        "unavailable",
        "unavailable",
        "unavailable",
        "unavailable",
        "overloaded",
    ]
    await held.release()  # the store keeps what was sent: hence "may or may not"
    stored = await held.store.load(actor.record.table)
    assert stored is not None and stored.version == actor.record.version + 4


async def test_commits_failing_after_the_table_stopped_are_not_left_unread() -> None:
    """The store failing the commits of a stopped table (Redis went away) is not an
    error nobody looked at ("Future exception was never retrieved" in the log)."""
    actor, _, held, acts = await four_seats_placing_one_card()
    actor.start()
    await held.wait_for(4)
    actor.stop()
    await asyncio.gather(*acts, return_exceptions=True)
    unread: list[str] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _, context: unread.append(context["message"]))
    try:
        for *_, future in held.held:
            future.set_exception(StoreUnavailable("redis is unreachable"))
        held.held.clear()
        await asyncio.sleep(0)  # one loop turn: the futures' done callbacks run
        gc.collect()
    finally:
        loop.set_exception_handler(None)
    assert unread == []
