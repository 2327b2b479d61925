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
    state, events = game.apply(record.state, 0, game.bot_action(record.state, 0))
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
