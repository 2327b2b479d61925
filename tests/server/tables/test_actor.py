"""The actor executing the core's decisions against a real (memory) store, without
sockets or a hub: commits reach the hook with their status before the reply, legal is
answered in queue order, bots and deadlines are driven by the decisions' effects."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tablehub.server.games import get_game
from tablehub.server.games.base import Event, Game
from tablehub.server.store.memory import MemoryStore
from tablehub.server.tables.actor import Act, Join, TableActor
from tablehub.server.tables.core import Legal
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.record import LogEntry, Seat, TableRecord, TableStatus

NOW = 5_000_000


class Hook:
    """The ``on_commit`` hook: every commit it was handed; wakes ``wait_for``."""

    def __init__(self) -> None:
        self.commits: list[tuple[TableRecord, LogEntry, list[Event], dict[str, Any]]] = []
        self._changed = asyncio.Event()

    def __call__(
        self, record: TableRecord, entry: LogEntry, events: list[Event], status: dict[str, Any]
    ) -> None:
        self.commits.append((record, entry, events, status))
        self._changed.set()

    async def wait_for(self, count: int) -> None:
        while len(self.commits) < count:
            self._changed.clear()
            await self._changed.wait()


def _game(game_id: str) -> Game:
    game = get_game(game_id)
    assert game is not None
    return game


def record(game_id: str, seats: list[Seat], **fields: Any) -> TableRecord:
    game = _game(game_id)
    options = game.resolve_options({})
    plain: dict[str, Any] = {
        "table": f"actor-{game_id}",
        "game": game_id,
        "options": options,
        "turn_ms": None,
        "seed": 11,
        "seats": seats,
        "state": game.setup(options, len(seats), 11),
        "status": TableStatus.PLAYING,
    }
    return TableRecord(**{**plain, **fields})


@pytest.fixture
async def store() -> AsyncIterator[MemoryStore]:
    yield MemoryStore()


async def running(store: MemoryStore, rec: TableRecord, hook: Hook) -> TableActor:
    await store.create(rec)
    actor = TableActor(rec, store, hook, lambda: NOW)
    task = asyncio.get_running_loop().create_task(actor.run())
    running_tasks.add(task)
    task.add_done_callback(running_tasks.discard)
    return actor


running_tasks: set[asyncio.Task[None]] = set()


@pytest.fixture(autouse=True)
async def stop_actors() -> AsyncIterator[None]:
    yield
    for task in list(running_tasks):
        task.cancel()
    await asyncio.gather(*running_tasks, return_exceptions=True)


PEOPLE = [Seat(name="ann", token_hash="a"), Seat(name="bo", token_hash="b")]


async def test_the_reply_comes_after_the_commit_reached_the_feed_with_its_status(
    store: MemoryStore,
) -> None:
    hook = Hook()
    actor = await running(store, record("brix", PEOPLE), hook)
    game = actor.game
    seat = game.status(actor.record.state)["to_act"][0]
    action = game.legal_actions(actor.record.state, seat)[0]

    result = await actor.submit(Act(seat, action))

    assert result == {"version": 1}
    ((committed, entry, _, status),) = hook.commits
    assert committed is actor.record and committed.version == 1
    assert status == game.status(committed.state)
    assert entry["action"] == action
    assert (await store.log(committed.table)) == [entry]


async def test_legal_is_answered_by_the_actor_after_the_acts_queued_before_it(
    store: MemoryStore,
) -> None:
    actor = await running(store, record("brix", PEOPLE), Hook())
    game = actor.game
    start = actor.record.state
    seat = game.status(start)["to_act"][0]
    acted = actor.submit(Act(seat, game.legal_actions(start, seat)[0]))
    legal = await actor.legal(1 - seat)

    assert (await acted) == {"version": 1}
    assert legal == {"actions": game.legal_actions(actor.record.state, 1 - seat), "version": 1}
    assert legal["actions"] != game.legal_actions(start, 1 - seat), "the act came first"
    with pytest.raises(TableError) as refused:
        await actor.submit(Legal(2))
    assert refused.value.code == "bad_message"


async def test_a_table_committed_elsewhere_is_given_up(store: MemoryStore) -> None:
    rec = record("nmbr9", [Seat(), Seat()], status=TableStatus.WAITING)
    actor = await running(store, rec, Hook())
    await store.commit(dataclasses.replace(rec, version=1), {"v": 1, "k": "seat"}, 0)

    with pytest.raises(TableError) as moved:
        await actor.submit(Join("ann", None, None))

    assert moved.value.code == "overloaded" and moved.value.retry_ms
    assert actor.lost and actor.record.version == 0


async def test_bots_move_when_their_turn_comes(store: MemoryStore) -> None:
    hook = Hook()
    seats = [Seat(name="ann", token_hash="a"), Seat(name="bot 2", bot=True, level="easy")]
    actor = await running(store, record("brix", seats), hook)
    game = actor.game
    people_first = game.status(actor.record.state)["to_act"] == [0]
    if people_first:
        await actor.submit(Act(0, game.legal_actions(actor.record.state, 0)[0]))
    await hook.wait_for(2 if people_first else 1)

    bot_entries = [entry for _, entry, _, _ in hook.commits if entry["by"] == "bot"]
    assert [entry["seat"] for entry in bot_entries] == [1]
    assert game.status(actor.record.state)["to_act"] == [0]


async def test_a_passed_deadline_plays_for_every_seat_still_to_act(store: MemoryStore) -> None:
    hook = Hook()
    game = _game("nmbr9")
    rec = record("nmbr9", [Seat(name=f"p{i}", token_hash=str(i)) for i in range(3)])
    turn = game.status(rec.state)["turn"]
    rec = dataclasses.replace(rec, turn_ms=1000, deadline=NOW - 1, deadline_turn=turn)
    actor = await running(store, rec, hook)

    await hook.wait_for(3)

    assert [(e["seat"], e["by"]) for _, e, _, _ in hook.commits] == [
        (0, "deadline"),
        (1, "deadline"),
        (2, "deadline"),
    ]
    assert actor.record.deadline_turn != turn and actor.record.deadline == NOW + 1000
