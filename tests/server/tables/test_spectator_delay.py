"""Spectator delay (issue 29): a table's spectators see it ``spectator_delay`` behind its
players; players are never delayed.

A real ``TableFeed`` on a real event loop, the table played by bots through the table
core with the moves paced a few milliseconds apart: every push a spectator gets is
checked against the loop time each version was committed at -- a spectator never holds
a version committed less than the delay before -- and its patches and events are
applied as a client does, ending on the final view."""

from __future__ import annotations

import asyncio
from typing import Any

import jsonpatch
import pytest

from tablehub.protocol import Frames
from tablehub.protocol.viewhash import view_hash
from tablehub.server.games import get_game
from tablehub.server.tables.core import AddBot, BotMove, Join, Table, handle
from tablehub.server.tables.feed import TableFeed, table_view
from tablehub.server.tables.record import Seat, TableRecord, TableStatus

DELAY_S = 0.15
NOW = 1_700_000_000_000


class Watcher:
    def __init__(self, ident: int, committed: dict[int, float], delayed: bool) -> None:
        self.id = ident
        self.committed = committed
        self.delayed = delayed
        self.view: Any = None
        self.version = -1
        self.events: list[dict[str, Any]] = []
        self.versions_seen: list[int] = []
        self.moved = asyncio.Event()

    def deliver(self, table: str, version: int, frames: Frames, kind: str) -> None:
        msg = frames.msg
        now = asyncio.get_running_loop().time()
        if kind == "snapshot":
            self.view, self.version = msg["view"], msg["version"]
        elif kind == "patch":
            assert msg["from"] == self.version
            self.view = jsonpatch.apply_patch(self.view, msg["ops"])
            self.version = msg["to"]
            assert view_hash(self.view) == msg["hash"]
        elif kind == "event":
            assert msg["version"] <= self.version
            self.events += msg["events"]
            return
        else:
            return
        self.versions_seen.append(self.version)
        if self.delayed and self.version > 0:
            committed = self.committed[self.version]
            assert now >= committed + DELAY_S, (
                f"version {self.version} shown {now - committed:.3f} s after its commit"
            )
        self.moved.set()


@pytest.mark.parametrize("game_id", ["brix", "nmbr9", "completto"])
async def test_spectators_see_the_table_late_and_players_at_once(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    options = game.validate_options({})
    record = TableRecord(
        table="delayed",
        game=game_id,
        options=options,
        turn_ms=None,
        seed=4,
        seats=[Seat() for _ in range(2)],
        state=game.setup(options, 2, 4),
        spectator_delay_ms=int(DELAY_S * 1000),
    )
    loop = asyncio.get_running_loop()
    committed: dict[int, float] = {0: loop.time()}
    feed = TableFeed(record)
    spectator = Watcher(1, committed, delayed=True)
    player = Watcher(2, committed, delayed=False)
    feed.subscribe(spectator, None)
    feed.subscribe(player, 0)
    table = Table.of(record)
    all_events: list[dict[str, Any]] = []
    late = Watcher(3, committed, delayed=True)
    commands: list[Any] = [Join("ann", 0, None), AddBot(1, None)]
    while table.record.status is not TableStatus.FINISHED:
        command = commands.pop(0) if commands else BotMove(table.status["to_act"][0], None)
        for commit in handle(table, command, NOW).commits:
            committed[commit.record.version] = loop.time()
            feed.on_commit(commit.record, commit.entry, commit.events, commit.status)
            all_events += commit.events
            table = commit.table
        feed.flush()
        if table.record.version == 6:  # a spectator arriving mid-game, and a catch-up
            feed.subscribe(late, None)
            assert late.version < 6
            caught = feed.catch_up(None, late.version).msg
            assert caught["t"] == "patch" and caught["to"] == late.version and not caught["ops"]
            caught = feed.catch_up(None, 5).msg
            assert caught["t"] == "snapshot" and caught["version"] == late.version
        # players are never held back: the player's view is the table's at once
        assert player.version == table.record.version
        assert player.view == table_view(game, table.record, 0)
        await asyncio.sleep(0.01)  # pacing: moves a few milliseconds apart
    final = table.record.version
    for watcher in (spectator, late):
        async with asyncio.timeout(30):
            while watcher.version < final:
                watcher.moved.clear()
                await watcher.moved.wait()
        assert watcher.view == table_view(game, table.record, None)
    assert spectator.events == all_events
    assert spectator.versions_seen[0] == 0
