"""TableActor: the one writer of one table (docs/design.md "Tables, persistence and scale").

Theory of operation: every command for a table (join, add_bot, act, legal, a bot's
move, a passed deadline) is put on the actor's bounded queue and handled by its single
task, in order, so game code never sees concurrency.  What a command does is decided by
the pure table core (:func:`tablehub.server.tables.core.handle`); the actor only executes
the :class:`~tablehub.server.tables.core.Decision`.  The commands queued when the actor
looks (up to ``BATCH_LIMIT``) are decided together, each on the table the ones before it
leave, and all their commits are queued in the store at once -- one round trip to Redis
for the lot, where committing them one by one would cost a round trip each (four seats
of a 9-tower table placing the same card would wait for each other's).  Then, command by
command in order:

1. await each new version's commit (queued with the version before it as expected) --
   only then is it acknowledged (a refused commit means another process owns the table
   now: that command and the ones after it in the batch are refused, nothing of theirs
   stored);
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
from collections.abc import Callable, Iterator
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
from tablehub.server.tables.idempotency import ActKeys
from tablehub.server.tables.journal import (
    Journal,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)
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
BATCH_LIMIT = 64
"""Queued commands decided together, their commits sent to the store at once; after a
full batch the actor lets the loop run others before the next."""
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
        batch: list[Queued] = []
        try:
            while True:
                if len(batch) >= BATCH_LIMIT:
                    await asyncio.sleep(0)  # a long queue: let sockets and other tables run
                batch = [await self.queue.get()]
                while len(batch) < BATCH_LIMIT and not self.queue.empty():
                    batch.append(self.queue.get_nowait())
                try:
                    await self._handle(batch)
                except asyncio.CancelledError:  # stopped mid-batch (its lease was lost)
                    for _, future in batch:
                        _resolve(future, exc=_moving())
                    raise
                except Exception as err:  # a server bug: the commands not answered yet fail
                    log.exception("table %s: a batch of commands failed", self.record.table)
                    for _, future in batch:
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

    async def _handle(self, batch: list[Queued]) -> None:
        """Decide every queued command in order, each on the table the ones before it
        leave (:func:`_decide`); queue all their commits at once, so that they reach the
        store together; then settle the commands in order as their commits come back.

        A refused or failed commit ends the batch: the commands after it get the same
        answer (their commits, each expecting the version before it, are refused)."""
        staged = self._decide(batch)
        commits: list[asyncio.Future[None]] = []
        expected = self.record.version
        for step in staged:
            for commit in step.decision.commits:
                commits.append(self.store.commit(commit.record, commit.entry, expected, self.epoch))
                expected = commit.record.version
        pending = iter(commits)
        failure: TableError | None = None
        for step in staged:
            if failure is None:
                failure = await self._settle(step, pending)
            if failure is not None:
                _resolve(step.future, exc=failure)
        for rest in pending:  # after a failure: refused too, nobody else awaits them
            rest.add_done_callback(_retrieved)

    def _decide(self, batch: list[Queued]) -> list[_Step]:
        """Each command's decision on the table as the commands before it leave it."""
        staged: list[_Step] = []
        table = self.table
        now = self.clock_ms()
        staged_cids: dict[str, _Step] = {}
        for command, future in batch:
            if isinstance(command, BotMove):
                self._pending_bots.discard(command.seat)
            cid = command.cid if isinstance(command, Act) else None
            if cid is not None and cid in self._done_cids:
                _resolve(future, {"version": self._done_cids[cid]})
                continue
            if cid is not None and cid in staged_cids:  # the same forwarded act again
                staged.append(_Step(command, future, Decision(), same_as=staged_cids[cid]))
                continue
            try:
                decision = handle(table, command, now)
            except Exception as err:  # a server bug: the table stays as it was
                log.exception("table %s: command %r failed", self.record.table, command)
                _resolve(future, exc=TableError("internal_error", str(err)[:200]))
                continue
            if decision.warning is not None:
                log.error("table %s: %s", self.record.table, decision.warning)
            if decision.commits:
                table = decision.commits[-1].table
            if decision.act_keys is not None:  # a keyed act's settled refusal, remembered
                table = _with_act_keys(table, decision.act_keys)
            step = _Step(command, future, decision)
            staged.append(step)
            if cid is not None:
                staged_cids[cid] = step
        return staged

    async def _settle(
        self, step: _Step, commits: Iterator[asyncio.Future[None]]
    ) -> TableError | None:
        """Await the step's commits (already queued), announce each, then answer its
        command; the answer for it and the commands after it when a commit failed."""
        decision = step.decision
        for commit in decision.commits:
            try:
                await next(commits)
            except VersionConflict:  # another process owns the table now
                self.lost = True
                return _moving()
            except StoreUnavailable:  # stored or not, nobody knows until it is read back
                self.lost = True
                return unavailable()
            except StoreError as err:  # refused, nothing stored: the table stays as it was
                log.error("table %s: commit failed: %s", self.record.table, err)
                return TableError("internal_error", str(err)[:200])
            self.table = commit.table
            try:
                self.on_commit(commit.record, commit.entry, commit.events, commit.status)
            except Exception:  # a server bug in the feed: the commit stands
                log.exception("table %s: announcing a commit failed", self.record.table)
        if decision.effects is not None:
            self._arm(decision.effects)
        command = step.command
        if isinstance(command, Act) and command.cid is not None and decision.reply is not None:
            self.remember_cids([{"cid": command.cid, "v": decision.reply["version"]}])
        if decision.act_keys is not None:
            self.table = _with_act_keys(self.table, decision.act_keys)
        if step.same_as is not None:  # answered as its first copy was
            first = step.same_as.future
            if first.cancelled():
                _resolve(step.future, exc=_moving())
            elif isinstance(error := first.exception(), Exception):
                _resolve(step.future, exc=error)
            else:
                _resolve(step.future, first.result())
        else:
            _resolve(step.future, decision.reply, decision.error)
        return None

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


@dataclasses.dataclass(slots=True)
class _Step:
    """One command of a batch, decided, waiting for its commits."""

    command: Command
    future: asyncio.Future[Any]
    decision: Decision
    same_as: _Step | None = None
    """For a forwarded act queued twice in one batch: its first copy, whose answer it gets."""


def _with_act_keys(table: Table, act_keys: ActKeys) -> Table:
    return Table(dataclasses.replace(table.record, act_keys=act_keys), table.status)


def _retrieved(future: asyncio.Future[None]) -> None:
    """Mark a refused commit's error as seen (its command was answered already)."""
    if not future.cancelled():
        future.exception()


def _moving() -> TableError:
    return TableError("overloaded", "the table is moving; try again", RETRY_MOVING_MS)


def _resolve(future: asyncio.Future[Any], value: Any = None, exc: Exception | None = None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)
