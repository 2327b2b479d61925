"""TableActor: the one writer of one table (docs/design.md "Tables, persistence and scale").

Theory of operation: every command for a table (join, add_bot, act, legal, a bot's
move, a passed deadline) is put on the actor's bounded queue and handled by its single
task, one at a time, so game code never sees concurrency.  What a command does is
decided by the pure table core (:func:`tablehub.server.tables.core.handle`); the actor
only executes the :class:`~tablehub.server.tables.core.Decision`:

1. commit each new version to the store with the expected version -- only then is it
   acknowledged (a refused commit means another process owns the table now);
2. hand each committed version, with its events and the game's status, to the
   ``on_commit`` hook (the hub's, which feeds the :class:`TableFeed`);
3. resolve the command's future with the decision's reply or error -- right after the
   hook, so the reply and the patch come from the same decision;
4. (re)arm the turn deadline and queue moves for bot seats that must act -- a bot's
   move is thought off the loop by the :class:`~tablehub.server.tables.thinking.Thinker`
   and queued when it is ready, with the version it was thought at.

A command's result is delivered through an ``asyncio.Future``: exactly one result per
command (value or :class:`TableError`), which is how every ``act`` gets exactly one
reply even when many seats act at once.

Entry points: :meth:`TableActor.submit` for any command, and :meth:`TableActor.legal`
for a seat's legal actions (the session's ``legal`` request, answered here by the
table's owner at its current version, in order with the acts queued before it).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from tablehub.server.games.base import Event
from tablehub.server.tables.core import (
    Act,
    AddBot,
    BotMove,
    Command,
    DeadlinePassed,
    Decision,
    Effects,
    GameStatus,
    Join,
    Legal,
    Table,
    command_from_plain,
    command_to_plain,
    effects,
    game_of,
    handle,
)
from tablehub.server.tables.errors import TableError, unavailable
from tablehub.server.tables.journal import Journal, StoreUnavailable, VersionConflict
from tablehub.server.tables.record import LogEntry, TableRecord
from tablehub.server.tables.thinking import Thinker

__all__ = [
    "Act",
    "AddBot",
    "Command",
    "CommitHook",
    "Join",
    "Legal",
    "TableActor",
    "command_from_plain",
    "command_to_plain",
]

log = logging.getLogger("tablehub.table")

QUEUE_LIMIT = 4096
YIELD_EVERY = 64
"""Queued commands handled back to back before the actor lets the loop run others."""
CID_MEMORY = 1024
RETRY_BUSY_MS = 500
"""The ``retry_ms`` of ``overloaded`` when a table's queue is full."""
RETRY_MOVING_MS = 200
"""... and when the table is changing hands (a lease moved): the next owner is quick."""

CommitHook = Callable[[TableRecord, LogEntry, list[Event], GameStatus], None]
"""Called with each committed version, its log entry, events and game status."""

Queued = tuple[Command, "asyncio.Future[Any]"]


class TableActor:
    def __init__(
        self,
        record: TableRecord,
        store: Journal,
        on_commit: CommitHook,
        clock_ms: Callable[[], int],
        epoch: int = 0,
        thinker: Thinker | None = None,
    ) -> None:
        self.game = game_of(record)
        self.table = Table.of(record)
        self.store = store
        self.on_commit = on_commit
        self.clock_ms = clock_ms
        self.epoch = epoch
        self.queue: asyncio.Queue[Queued] = asyncio.Queue(QUEUE_LIMIT)
        self.thinker = thinker or Thinker(0)
        self._pending_bots: set[int] = set()
        """Bot seats whose move is being thought or queued."""
        self._thinking: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.lost = False
        """Set when a commit was refused for a stale epoch: the hub drops this actor."""
        self._done_cids: dict[str, int] = {}
        """Recent forwarded command ids -> the version they produced (bounded)."""

    @property
    def record(self) -> TableRecord:
        """The table's latest committed record."""
        return self.table.record

    def remember_cids(self, entries: list[LogEntry]) -> None:
        """Learn the command ids of recent log entries (after taking a table over)."""
        for entry in entries:
            if entry.get("cid"):
                self._done_cids[entry["cid"]] = entry["v"]
        while len(self._done_cids) > CID_MEMORY:
            del self._done_cids[next(iter(self._done_cids))]

    # -- submitting -------------------------------------------------------------------

    def submit(self, command: Command) -> asyncio.Future[Any]:
        """Queue a command; its future gets the reply or a :class:`TableError`."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        try:
            self.queue.put_nowait((command, future))
        except asyncio.QueueFull:
            future.set_exception(
                TableError("overloaded", "the table is too busy; try again shortly", RETRY_BUSY_MS)
            )
        return future

    async def legal(self, seat: int) -> dict[str, Any]:
        """``{"actions": [...], "version": v}``: what ``seat`` may do at the current version."""
        result: dict[str, Any] = await self.submit(Legal(seat))
        return result

    # -- the actor task ---------------------------------------------------------------

    async def run(self) -> None:
        """Handle commands until cancelled; arms bots and the deadline first."""
        self._arm(effects(self.table))
        handled = 0
        try:
            while True:
                handled += 1
                if handled >= YIELD_EVERY:
                    handled = 0
                    await asyncio.sleep(0)  # a long queue: let sockets and other tables run
                command, future = await self.queue.get()
                try:
                    await self._handle(command, future)
                except asyncio.CancelledError:  # stopped mid-command (its lease was lost)
                    _resolve(future, exc=_moving())
                    raise
                except Exception as err:  # a server bug: the table stays as it was
                    log.exception("table %s: command %r failed", self.record.table, command)
                    _resolve(future, exc=TableError("internal_error", str(err)[:200]))
                if self.lost:
                    return
        finally:
            if self._timer is not None:
                self._timer.cancel()
            for thinking in self._thinking:
                thinking.cancel()
            while not self.queue.empty():
                _resolve(self.queue.get_nowait()[1], exc=_moving())

    async def _handle(self, command: Command, future: asyncio.Future[Any]) -> None:
        if isinstance(command, BotMove):
            self._pending_bots.discard(command.seat)
        if isinstance(command, Act) and command.cid in self._done_cids:
            _resolve(future, {"version": self._done_cids[command.cid]})
            return
        decision = handle(self.table, command, self.clock_ms())
        if decision.warning is not None:
            log.error("table %s: %s", self.record.table, decision.warning)
        try:
            executed = await self._execute(decision)
        except StoreUnavailable:
            # Stored or not, nobody knows until the table is read back: stop here too.
            self.lost = True
            _resolve(future, exc=unavailable())
            return
        if not executed:
            _resolve(
                future,
                exc=TableError(
                    "overloaded", "the table moved to another server; try again", RETRY_MOVING_MS
                ),
            )
            return
        if isinstance(command, Act) and command.cid is not None and decision.reply is not None:
            self.remember_cids([{"cid": command.cid, "v": decision.reply["version"]}])
        if decision.act_keys is not None:  # a keyed act's settled refusal, remembered
            record = dataclasses.replace(self.record, act_keys=decision.act_keys)
            self.table = Table(record, self.table.status)
        _resolve(future, decision.reply, decision.error)

    async def _execute(self, decision: Decision) -> bool:
        """Store and announce the decision's commits, then apply its effects; False when
        a commit was refused for a stale epoch (the table is lost)."""
        for commit in decision.commits:
            try:
                await self.store.commit(
                    commit.record, commit.entry, self.record.version, self.epoch
                )
            except VersionConflict:
                self.lost = True
                return False
            self.table = commit.table
            self.on_commit(commit.record, commit.entry, commit.events, commit.status)
        if decision.effects is not None:
            self._arm(decision.effects)
        return True

    def _arm(self, wanted: Effects) -> None:
        """Arm the turn deadline (or none) and queue moves for bots not yet queued."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if wanted.deadline is not None:
            turn, at = wanted.deadline
            delay = max(0.0, (at - self.clock_ms()) / 1000)
            self._timer = asyncio.get_running_loop().call_later(delay, self._deadline_passed, turn)
        for seat in wanted.bots:
            if seat in self._pending_bots:
                continue
            self._pending_bots.add(seat)
            level = self.record.seats[seat].level
            if not self.thinker.off_loop(self.game, level):
                self._submit_own(BotMove(seat))
                continue
            thinking = asyncio.get_running_loop().create_task(self._think(seat, level))
            self._thinking.add(thinking)
            thinking.add_done_callback(self._thinking.discard)

    def _deadline_passed(self, turn: int) -> None:
        """Queue the turn's fallback moves -- after the moves of bots still thinking: a
        bot seat plays its own level, however short the turn (a move takes at most a
        few hundred milliseconds)."""
        if not self._thinking:
            self._submit_own(DeadlinePassed(turn))
            return
        thinking = asyncio.gather(*self._thinking, return_exceptions=True)
        thinking.add_done_callback(lambda _: self._submit_own(DeadlinePassed(turn)))

    async def _think(self, seat: int, level: str | None) -> None:
        """Think the bot's move at the current version off the loop, then queue it."""
        record = self.record
        try:
            action = await self.thinker.move(self.game, record.state, seat, level)
        except Exception:  # a bug in the bot: thought again (and logged) on the loop
            log.exception("table %s: bot of seat %d failed to think", record.table, seat)
            self._submit_own(BotMove(seat))
            return
        self._submit_own(BotMove(seat, action, record.version))

    def _submit_own(self, command: Command) -> None:
        """Queue a command of the table's own (a bot move, a deadline) that nobody
        awaits: a refusal (the table moved, its queue is full) is logged, not raised."""
        table = self.record.table

        def refused(done: asyncio.Future[Any]) -> None:
            if not done.cancelled() and done.exception() is not None:
                log.warning("table %s: %r not done: %s", table, command, done.exception())

        self.submit(command).add_done_callback(refused)


def _moving() -> TableError:
    return TableError("overloaded", "the table is moving; try again", RETRY_MOVING_MS)


def _resolve(future: asyncio.Future[Any], value: Any = None, exc: Exception | None = None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)
