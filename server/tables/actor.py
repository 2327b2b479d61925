"""TableActor: the one writer of one table (docs/design.md "Tables, persistence and scale").

Theory of operation: every command for a table (join, add_bot, act, legal, a bot's
move, a passed deadline) is posted to the actor with the callback that gets its
answer, and handled in order, so game code never sees concurrency.  The actor has no
task: posting a command schedules one *drain* callback for the loop turn (however many
commands arrive meanwhile), and the drain decides the commands queued by then (up to
``BATCH_LIMIT``) with the pure table core (:func:`tablehub.server.tables.core.handle`),
each on the table the ones before it leave, and queues all their commits in the store
at once -- one round trip to Redis for the lot.  Then, command by command in order:

1. each new version's commit is settled -- at once when the store settled it on the
   call (``memory://``), else the actor continues from the commit's done callback (a
   continuation: no task waits); only then is it acknowledged (a refused commit means
   another process owns the table now: that command and the ones after it in the
   batch are refused, nothing of theirs stored);
2. each committed version, with its events and the game's status, goes to the
   ``on_commit`` hook (the hub's, which feeds the :class:`TableFeed`);
3. the command's callback gets the decision's reply or error -- right after the hook,
   so the reply and the patch come from the same decision;
4. the turn deadline is (re)armed and moves are queued for bot seats that must act --
   a bot's move is thought off the loop by the
   :class:`~tablehub.server.tables.thinking.Thinker` and posted when it is ready, with
   the version it was thought at.

Every command gets exactly one answer (value or :class:`TableError`), which is how
every ``act`` gets exactly one reply even when many seats act at once.

A ``legal`` posted while nothing is queued or being settled is answered at once,
without a drain: it commits nothing and would be decided first, at the current version,
anyway (issue 33: a client that asks before every move must not pay a loop turn and a
batch for it).

Entry points: :meth:`TableActor.post` (a command and its answer callback: the
sessions' path, no future), :meth:`TableActor.submit` (the same, as a future, for
code that awaits), :meth:`start` and :meth:`stop`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from tablehub.server.games.base import Event, Status
from tablehub.server.tables.core import (
    Act,
    BotMove,
    Command,
    DeadlinePassed,
    Decision,
    Effects,
    Legal,
    Table,
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
from tablehub.server.tables.legal_cache import LegalCache
from tablehub.server.tables.record import LogEntry, TableRecord
from tablehub.server.tables.thinking import Thinker

log = logging.getLogger("tablehub.table")

QUEUE_LIMIT = 4096
BATCH_LIMIT = 64
"""Queued commands decided together, their commits sent to the store at once; a longer
queue is drained over several loop turns, so sockets and other tables run between."""
CID_MEMORY = 1024
RETRY_BUSY_MS = 500
"""The ``retry_ms`` of ``overloaded`` when a table's queue is full."""
RETRY_MOVING_MS = 200
"""... and when the table is changing hands (a lease moved): the next owner is quick."""

CommitHook = Callable[[TableRecord, LogEntry, list[Event], Status], None]
"""Called with each committed version, its log entry, events and game status."""

Answer = Callable[[Any, TableError | None], None]
"""Gets a command's outcome: ``(result, None)`` or ``(None, error)``, exactly once."""


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
        self.thinker = thinker or Thinker(0)
        self._queue: deque[tuple[Command, Answer]] = deque()
        self._drain_due = False
        self._batch: _Batch | None = None
        """The batch whose commits are being settled (None between batches)."""
        self.running = False
        self._stopped = False
        self.on_stopped: Callable[[TableActor], None] | None = None
        """Called once when the actor stops (its lease lost, a commit's fate unknown,
        or :meth:`stop`)."""
        self._pending_bots: set[int] = set()
        """Bot seats whose move is being thought or queued."""
        self._thinking: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.lost = False
        """Set when a commit was refused for a stale epoch (or its fate is unknown): the
        actor stops and the hub drops it."""
        self._done_cids: dict[str, int] = {}
        """Recent forwarded command ids -> the version they produced (bounded)."""
        self.legal_replies = LegalCache()
        """The ``legal`` replies given at the current version (tables/legal_cache.py)."""

    @property
    def record(self) -> TableRecord:
        """The table's latest committed record."""
        return self.table.record

    @property
    def idle(self) -> bool:
        """No command queued or being settled."""
        return not self._queue and self._batch is None

    def remember_cids(self, entries: list[LogEntry]) -> None:
        """Learn the command ids of recent log entries (after taking a table over)."""
        for entry in entries:
            if entry.get("cid"):
                self._done_cids[entry["cid"]] = entry["v"]
        while len(self._done_cids) > CID_MEMORY:
            del self._done_cids[next(iter(self._done_cids))]

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Take commands; arms the deadline and the bots the table needs now."""
        self.running = True
        self._arm(effects(self.table))
        if self._queue:
            self._schedule()

    def stop(self) -> None:
        """Stop for good: every command not answered yet is refused as moving (the next
        owner, here or elsewhere, takes it), the timer and the bots' thinking end."""
        if self._stopped:
            return
        self._stopped = True
        self.running = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for thinking in self._thinking:
            thinking.cancel()
        batch, self._batch = self._batch, None
        if batch is not None:  # its commits are out: stored or not, nobody knows yet
            for step in batch.steps[batch.step :]:
                step.settle(None, _fate_unknown() if step.decision.commits else _moving())
            for commit in batch.commits:  # nobody awaits them any more
                commit.add_done_callback(_retrieved)
        while self._queue:
            self._queue.popleft()[1](None, _moving())
        if self.on_stopped is not None:
            self.on_stopped(self)

    # -- submitting -------------------------------------------------------------------

    def post(self, command: Command, answer: Answer) -> None:
        """Queue a command (it waits for :meth:`start` if need be); ``answer`` gets its
        reply or :class:`TableError`, once."""
        if self._stopped:
            answer(None, _moving())
            return
        if len(self._queue) >= QUEUE_LIMIT:
            answer(
                None,
                TableError("overloaded", "the table is too busy; try again shortly", RETRY_BUSY_MS),
            )
            return
        if isinstance(command, Legal) and self.running and self._batch is None and not self._queue:
            self._answer_legal(command, answer)  # nothing before it: no drain to wait for
            return
        self._queue.append((command, answer))
        if self.running:
            self._schedule()

    def _answer_legal(self, command: Legal, answer: Answer) -> None:
        """Answer ``legal`` at once: with no command queued or being settled, the
        current version is the one it would be decided at in a drain (it changes
        nothing, so nothing needs committing first)."""
        try:
            decision = self.legal_replies.decide(self.table, command, self.clock_ms())
        except Exception as err:  # a server bug: the table stays as it was
            log.exception("table %s: command %r failed", self.record.table, command)
            answer(None, TableError("internal_error", str(err)[:200]))
            return
        answer(decision.reply, decision.error)

    def submit(self, command: Command) -> asyncio.Future[Any]:
        """:meth:`post`, with the answer as a future (for code that awaits it)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.post(command, FutureAnswer(future))
        return future

    async def legal(self, seat: int) -> dict[str, Any]:
        """``{"actions": [...], "version": v}``: what ``seat`` may do at the current version."""
        result: dict[str, Any] = await self.submit(Legal(seat))
        return result

    # -- draining ---------------------------------------------------------------------

    def _schedule(self) -> None:
        if not self._drain_due and self._batch is None:
            self._drain_due = True
            asyncio.get_running_loop().call_soon(self._drain)

    def _drain(self) -> None:
        """Decide the queued commands (up to ``BATCH_LIMIT``) and settle them."""
        self._drain_due = False
        if not self.running or self._batch is not None or not self._queue:
            return
        batch = [self._queue.popleft() for _ in range(min(BATCH_LIMIT, len(self._queue)))]
        staged = self._decide(batch)
        commits: deque[asyncio.Future[None]] = deque()
        expected = self.record.version
        try:
            for step in staged:
                for commit in step.decision.commits:
                    commits.append(
                        self.store.commit(commit.record, commit.entry, expected, self.epoch)
                    )
                    expected = commit.record.version
        except Exception as err:  # a server bug: the commands not answered yet fail
            log.exception("table %s: queueing a batch's commits failed", self.record.table)
            for step in staged:
                step.settle(None, TableError("internal_error", str(err)[:200]))
            self.lost = bool(commits)  # some may be stored: reload before going on
            if self.lost:
                self.stop()
            return
        self._batch = _Batch(staged, commits)
        self._settle()

    def _resume(self, _: asyncio.Future[None]) -> None:
        """A commit the batch waits for came back: go on settling."""
        if self._batch is not None:
            self._settle()

    def _settle(self) -> None:
        """Settle the batch's steps in order as far as their commits have come back;
        waits (a done callback on the next commit) where one has not."""
        batch = self._batch
        assert batch is not None
        try:
            while batch.step < len(batch.steps):
                step = batch.steps[batch.step]
                commits = step.decision.commits
                while batch.failure is None and batch.commit < len(commits):
                    future = batch.commits[0]
                    if not future.done():
                        future.add_done_callback(self._resume)
                        return
                    batch.commits.popleft()
                    batch.failure = self._committed(commits[batch.commit], future)
                    batch.commit += 1
                if batch.failure is None:
                    self._answer(step)
                else:
                    step.settle(None, batch.failure)
                batch.step += 1
                batch.commit = 0
        except Exception as err:  # a server bug: the commands not answered yet fail
            log.exception("table %s: settling a batch failed", self.record.table)
            for step in batch.steps[batch.step :]:
                step.settle(None, TableError("internal_error", str(err)[:200]))
        for rest in batch.commits:  # after a failure: refused too, nobody else awaits them
            rest.add_done_callback(_retrieved)
        self._batch = None
        if self.lost:
            self.stop()
        elif self._queue:
            self._schedule()

    def _decide(self, batch: list[tuple[Command, Answer]]) -> list[_Step]:
        """Each command's decision on the table as the commands before it leave it."""
        staged: list[_Step] = []
        table = self.table
        now = self.clock_ms()
        staged_cids: dict[str, _Step] = {}
        for command, answer in batch:
            if isinstance(command, BotMove):
                self._pending_bots.discard(command.seat)
            cid = command.cid if isinstance(command, Act) else None
            if cid is not None and cid in self._done_cids:
                answer({"version": self._done_cids[cid]}, None)
                continue
            if cid is not None and cid in staged_cids:  # the same forwarded act again
                staged.append(_Step(command, answer, Decision(), same_as=staged_cids[cid]))
                continue
            try:
                if isinstance(command, Legal):  # a second ask at a version: looked up
                    decision = self.legal_replies.decide(table, command, now)
                else:
                    if isinstance(command, Act):
                        self.legal_replies.forget(command.seat)
                    decision = handle(table, command, now)
            except Exception as err:  # a server bug: the table stays as it was
                log.exception("table %s: command %r failed", self.record.table, command)
                answer(None, TableError("internal_error", str(err)[:200]))
                continue
            if decision.warning is not None:
                log.error("table %s: %s", self.record.table, decision.warning)
            if decision.commits:
                table = decision.commits[-1].table
            if decision.act_keys is not None:  # a keyed act's settled refusal, remembered
                table = _with_act_keys(table, decision.act_keys)
            step = _Step(command, answer, decision)
            staged.append(step)
            if cid is not None:
                staged_cids[cid] = step
        return staged

    def _committed(self, commit: Any, future: asyncio.Future[None]) -> TableError | None:
        """A commit came back: announce it, or the refusal for its command and the
        ones after it."""
        error = future.exception()
        if isinstance(error, VersionConflict):  # another process owns the table now
            self.lost = True
            return _moving()
        if isinstance(error, StoreUnavailable):  # stored or not: unknown until read back
            self.lost = True
            return unavailable()
        if isinstance(error, StoreError):  # refused, nothing stored: the table stays
            log.error("table %s: commit failed: %s", self.record.table, error)
            return TableError("internal_error", str(error)[:200])
        if error is not None:  # not the store's word: stored or not, nobody knows
            log.error("table %s: a commit came back with %r", self.record.table, error)
            self.lost = True
            return unavailable()
        self.table = commit.table
        try:
            self.on_commit(commit.record, commit.entry, commit.events, commit.status)
        except Exception:  # a server bug in the feed: the commit stands
            log.exception("table %s: announcing a commit failed", self.record.table)
        return None

    def _answer(self, step: _Step) -> None:
        """Every commit of the step is stored: arm what it asks and answer it."""
        decision = step.decision
        if decision.effects is not None:
            self._arm(decision.effects)
        command = step.command
        if isinstance(command, Act) and command.cid is not None and decision.reply is not None:
            self.remember_cids([{"cid": command.cid, "v": decision.reply["version"]}])
        if decision.act_keys is not None:
            self.table = _with_act_keys(self.table, decision.act_keys)
        if step.same_as is not None:  # answered as its first copy was
            step.settle(*step.same_as.outcome)
        else:
            step.settle(decision.reply, decision.error)

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
                self._post_own(BotMove(seat))
                continue
            thinking = asyncio.get_running_loop().create_task(self._think(seat, level))
            self._thinking.add(thinking)
            thinking.add_done_callback(self._thinking.discard)

    def _deadline_passed(self, turn: int) -> None:
        """Queue the turn's fallback moves -- after the moves of bots still thinking: a
        bot seat plays its own level, however short the turn (a move takes at most a
        few hundred milliseconds)."""
        self._timer = None
        if not self._thinking:
            self._post_own(DeadlinePassed(turn))
            return
        thinking = asyncio.gather(*self._thinking, return_exceptions=True)
        thinking.add_done_callback(lambda _: self._post_own(DeadlinePassed(turn)))

    async def _think(self, seat: int, level: str | None) -> None:
        """Think the bot's move at the current version off the loop, then queue it."""
        record = self.record
        try:
            action = await self.thinker.move(self.game, record.state, seat, level)
        except Exception:  # a bug in the bot: thought again (and logged) on the loop
            log.exception("table %s: bot of seat %d failed to think", record.table, seat)
            self._post_own(BotMove(seat))
            return
        self._post_own(BotMove(seat, action, record.version))

    def _post_own(self, command: Command) -> None:
        """Queue a command of the table's own (a bot move, a deadline) that nobody
        awaits: a refusal (the table moved, its queue is full) is logged, not raised."""
        self.post(command, _OwnAnswer(self.record.table, command))


@dataclasses.dataclass(slots=True, eq=False)
class _Step:
    """One command of a batch, decided, waiting for its commits."""

    command: Command
    answer: Answer | None
    decision: Decision
    same_as: _Step | None = None
    """For a forwarded act queued twice in one batch: its first copy, whose answer it gets."""
    outcome: tuple[Any, TableError | None] = (None, None)

    def settle(self, value: Any, error: TableError | None) -> None:
        """Answer the command (once)."""
        answer, self.answer = self.answer, None
        if answer is not None:
            self.outcome = (value, error)
            answer(value, error)


@dataclasses.dataclass(slots=True, eq=False)
class _Batch:
    """The commands decided together, and their commits in order."""

    steps: list[_Step]
    commits: deque[asyncio.Future[None]]
    step: int = 0
    """The next step to settle."""
    commit: int = 0
    """Of that step's commits, the next to settle."""
    failure: TableError | None = None
    """The refusal of a failed commit: the steps from it on get it."""


class FutureAnswer:
    """An :data:`Answer` that settles a future (unless it was cancelled meanwhile)."""

    __slots__ = ("future",)

    def __init__(self, future: asyncio.Future[Any]) -> None:
        self.future = future

    def __call__(self, value: Any, error: TableError | None) -> None:
        if self.future.done():
            return
        if error is not None:
            self.future.set_exception(error)
        else:
            self.future.set_result(value)


class _OwnAnswer:
    """The answer to a table's own command: a refusal is logged."""

    __slots__ = ("command", "table")

    def __init__(self, table: str, command: Command) -> None:
        self.table = table
        self.command = command

    def __call__(self, value: Any, error: TableError | None) -> None:
        if error is not None:
            log.warning("table %s: %r not done: %s", self.table, self.command, error)


def _with_act_keys(table: Table, act_keys: ActKeys) -> Table:
    return Table(dataclasses.replace(table.record, act_keys=act_keys), table.status)


def _retrieved(future: asyncio.Future[None]) -> None:
    """Mark a refused commit's error as seen (its command was answered already)."""
    if not future.cancelled():
        future.exception()


def _moving() -> TableError:
    """The command was not run and will not be: resend it (``overloaded``)."""
    return TableError("overloaded", "the table is moving; try again", RETRY_MOVING_MS)


def _fate_unknown() -> TableError:
    """The command's commit was sent but its answer will not come (the table stopped
    here meanwhile): it may or may not have been stored (``unavailable``)."""
    return TableError(
        "unavailable",
        "the table moved while your move was being stored: it may or may not have been "
        "played; look at the table, or send it again with the same key",
        RETRY_MOVING_MS,
    )
