"""The feed's fan-out rules, without sockets: what each subscriber is handed."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from tablehub.protocol import Frames
from tablehub.server.games.base import Event
from tablehub.server.tables.feed import TableFeed
from tablehub.server.tables.record import LogEntry, TableRecord
from tests.server.store.test_contract import new_record


class Collector:
    def __init__(self, sub_id: int) -> None:
        self.id = sub_id
        self.got: list[tuple[str, dict[str, Any]]] = []

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None:
        if kind in ("snapshot", "patch"):
            self.got.append((kind, frames.msg))


def watched(record: TableRecord) -> tuple[TableFeed, Collector]:
    """A feed of ``record`` with one spectator."""
    feed = TableFeed(record)
    watcher = Collector(1)
    feed.subscribe(watcher, None)
    return feed, watcher


def first_move(feed: TableFeed) -> tuple[TableRecord, LogEntry, list[Event]]:
    """The commit of seat 0's bot move at the feed's table (not yet handed to it)."""
    record, game = feed.record, feed.game
    state, events = game.apply(record.state, 0, game.fast_bot_move(record.state, 0))
    return dataclasses.replace(record, state=state, version=1), {"v": 1, "k": "act"}, events


async def test_a_subscriber_joining_while_commits_are_pending_starts_from_a_snapshot() -> None:
    feed, first = watched(new_record("feedtest"))
    feed.on_commit(*first_move(feed))
    second = Collector(2)  # joins before the pending commit was fanned out
    feed.subscribe(second, None)
    await asyncio.sleep(0)  # the loop runs the scheduled flush (nothing left to send)

    assert [(k, m.get("from"), m.get("to", m.get("version"))) for k, m in first.got] == [
        ("snapshot", None, 0),
        ("patch", 0, 1),
    ]
    assert [(k, m["version"]) for k, m in second.got] == [("snapshot", 1)]
    assert all(m.get("from") != -1 for _, m in first.got + second.got)


async def test_the_feed_takes_the_game_status_handed_over_with_a_commit() -> None:
    """The owner computed the status once per commit; the feed uses it as it is (here
    marked, to tell it from one the feed would compute itself)."""
    feed, watcher = watched(new_record("feedstatus"))
    record, entry, events = first_move(feed)
    handed = feed.game.status(record.state) | {"phase": "marked by the committer"}
    feed.on_commit(record, entry, events, handed)
    feed.flush()

    kind, patch = watcher.got[-1]
    assert kind == "patch"
    assert {"op": "replace", "path": "/phase", "value": "marked by the committer"} in patch["ops"]


class Counting:
    """A subscriber that counts what it is handed and says when it saw a version."""

    def __init__(self, sub_id: int, wanted: int = 0, spectators: int | None = None) -> None:
        self.id = sub_id
        self.kinds: list[str] = []
        self.version = -1
        self.reached = asyncio.Event()
        self.wanted = wanted
        self.spectators = spectators

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None:
        self.kinds.append(kind)
        if kind in ("snapshot", "patch"):
            self.version = version
            if version >= self.wanted:
                self.reached.set()
        crowd = self.spectators
        if kind == "presence" and crowd is not None and frames.msg["spectators"] >= crowd:
            self.reached.set()


def bot_moves(feed: TableFeed, count: int) -> list[tuple[TableRecord, LogEntry, list[Event]]]:
    """``count`` successive bot placements at the feed's 1-seat table, as commits."""
    record, game, commits = feed.record, feed.game, []
    for version in range(1, count + 1):
        state, events = game.apply(record.state, 0, game.fast_bot_move(record.state, 0))
        record = dataclasses.replace(record, state=state, version=version)
        commits.append((record, {"v": version, "k": "act"}, events))
    return commits


async def test_a_table_with_many_watchers_gets_bursts_as_fewer_patches() -> None:
    feed = TableFeed(new_record("crowd", seats=1))
    moves = bot_moves(feed, 5)
    crowd = [Counting(i, wanted=len(moves)) for i in range(1, 1001)]
    for sub in crowd:
        feed.subscribe(sub, None)
    for commit in moves:  # five commits, each in its own loop iteration
        feed.on_commit(*commit)
        await asyncio.sleep(0)
    await asyncio.wait_for(crowd[-1].reached.wait(), 10)

    patches = [sub.kinds.count("patch") for sub in crowd]
    assert all(sub.version == 5 for sub in crowd)
    assert max(patches) < len(moves), "a burst on a crowded table is coalesced"


async def test_a_small_table_gets_every_commit_at_once() -> None:
    feed = TableFeed(new_record("few", seats=1))
    watcher = Counting(1)
    feed.subscribe(watcher, None)
    moves = bot_moves(feed, 3)
    for number, commit in enumerate(moves, start=1):
        feed.on_commit(*commit)
        await asyncio.sleep(0)  # one loop iteration: the flush is due in it
        assert watcher.version == number
    assert watcher.kinds.count("patch") == 3


async def test_arrivals_at_a_crowded_table_share_presence_pushes() -> None:
    feed = TableFeed(new_record("arrivals", seats=1))
    crowd = [Counting(i, wanted=1, spectators=1000) for i in range(1, 1001)]
    for sub in crowd:
        feed.subscribe(sub, None)
    await asyncio.wait_for(crowd[0].reached.wait(), 10)  # the presence with all of them
    assert max(sub.kinds.count("presence") for sub in crowd) <= 2
