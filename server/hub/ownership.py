"""Who runs each table: its actor runs in the process holding its lease, and every
command goes to that actor -- here, or forwarded to the owning process (taking the
table over when its owner does not answer)."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tablehub.server import metrics
from tablehub.server.hub.admission import admit
from tablehub.server.hub.live import LiveTable
from tablehub.server.hub.tasks import TaskRunner
from tablehub.server.ops.faults import store_unreachable
from tablehub.server.ops.loopwatch import LoopWatch
from tablehub.server.store.base import Store
from tablehub.server.store.bus import Bus
from tablehub.server.tables.actor import TableActor
from tablehub.server.tables.core import Act, Command, command_from_plain, command_to_plain
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.journal import StoreUnavailable
from tablehub.server.tables.record import TableRecord
from tablehub.server.tables.thinking import Thinker

log = logging.getLogger("tablehub.hub")

FORWARD_BUDGET_S = 10.0
UNHEARD_AFTER_S = 4.0
"""Forwarded attempts unanswered this long while the owner keeps its lease: it is alive
but deaf (its inbox subscription lost in a failover), so it is asked to give the table
up (``Bus.unheard``) and the forwarding loop takes it over; well under the budget."""
REMEMBERED_CIDS = 256
"""Log entries read when taking a table over, so a retried command is not applied twice."""


@dataclass(eq=False)
class Ownership:
    store: Store
    bus: Bus
    served: Mapping[str, LiveTable]
    """The tables this process serves, by id (the directory's)."""
    tasks: TaskRunner
    clock_ms: Callable[[], int]
    loop_watch: LoopWatch
    thinker: Thinker
    _cids: Iterator[int] = field(default_factory=lambda: itertools.count(1), init=False)

    def run(self, live: LiveTable, record: TableRecord, epoch: int = 0) -> None:
        """Run the table here: start its actor (this process holds the lease)."""
        actor = TableActor(record, self.store, live.committed, self.clock_ms, epoch, self.thinker)
        live.run(actor, self._actor_stopped)

    def _actor_stopped(self, actor: TableActor) -> None:
        table_id = actor.record.table
        self.bus.stop_serving(table_id)  # whoever owns the table next answers its inbox
        if actor.lost and self.bus.multi_process:
            self.tasks.spawn(lambda: self._give_up(table_id, actor.epoch))

    async def _give_up(self, table_id: str, epoch: int) -> None:
        """After a commit the store may or may not have kept (Redis unreachable), or a
        lost lease: release the lease if it is still ours, so whoever runs the table
        next -- this process or another -- reloads it from the store first.  With the
        store out of reach the lease is no longer renewed and lapses by itself."""
        try:
            await self.bus.release(table_id, epoch)
        except StoreUnavailable as err:
            store_unreachable("giving a table's lease back", err)

    def lost_lease(self, table_id: str) -> None:
        live = self.served.get(table_id)
        if live is not None:
            live.stop()

    async def try_own(self, live: LiveTable) -> bool:
        """Take the table over if nobody owns it (its owner died, or it was idle).

        A lease taken is never left without a running actor serving the table's inbox:
        the store failing halfway gives it back (a lease kept alive by the renewal
        thread with nothing behind it would wedge the table for every process)."""
        table_id = live.feed.table
        epoch = await self.bus.acquire(table_id)
        if epoch is None:
            return False
        try:
            record = await self.store.load(table_id)
            done = await self.store.log_tail(table_id, REMEMBERED_CIDS) if record else []
        except BaseException:
            await self._give_up(table_id, epoch)
            raise
        if record is None:  # deleted meanwhile
            await self._give_up(table_id, epoch)
            return False
        live.lose()  # an older epoch's actor, if any: its lease lapsed unnoticed
        live.reload(record)
        self.run(live, record, epoch)
        actor = live.actor
        assert actor is not None
        actor.remember_cids(done)
        try:
            await self.bus.serve_inbox(table_id, lambda data: self._serve_forwarded(live, data))
        except BaseException:
            live.lose()  # nobody could reach it: let whoever comes next run it
            raise
        return True

    async def submit(self, live: LiveTable, command: Command) -> Any:
        """Run a command on the table's actor, here or (forwarded) at its owner."""
        if live.actor is None and self.bus.multi_process and not live.owner_trusted():
            await self.try_own(live)
        if live.actor is not None:
            return await live.actor.submit(command)
        return await self._forward(live, command)

    async def _forward(self, live: LiveTable, command: Command) -> Any:
        """Forward to the owner; if it does not answer, take the table over and retry.

        The command id makes a retry safe: an owner that did apply it answers with
        the version it produced instead of applying it again."""
        if isinstance(command, Act) and command.cid is None:
            command.cid = f"{self.bus.process_id}:{next(self._cids)}"
        plain = command_to_plain(command)
        metrics.FORWARDED.inc()
        loop = asyncio.get_running_loop()
        started = loop.time()
        marked = False
        while True:
            try:
                reply = await self.bus.forward(live.feed.table, plain)
            except TimeoutError:
                waited = loop.time() - started
                if not marked and waited > UNHEARD_AFTER_S:
                    marked = await self._mark_unheard(live.feed.table)
                if waited > FORWARD_BUDGET_S:  # it may still run there: say so
                    raise TableError(
                        "unavailable",
                        "the table's server did not answer in time: your request may or "
                        "may not have been done; look at the table, or send it again with "
                        "the same key",
                        1000,
                    ) from None
                if live.actor is None:
                    await self.try_own(live)
                actor = live.actor  # (one taken over may have stopped again meanwhile)
                if actor is not None:
                    return await actor.submit(command_from_plain(plain))
                continue
            if "error" in reply:
                error = reply["error"]
                raise TableError(error["code"], error["message"], error.get("retry_ms"))
            live.heard_from_owner(self.bus.lease_ms)
            return reply["ok"]

    async def _mark_unheard(self, table_id: str) -> bool:
        """Ask a deaf owner to give the table up; whether that was asked."""
        try:
            marked = await self.bus.unheard(table_id)
        except StoreUnavailable as err:
            store_unreachable("asking a silent owner to give its table up", err)
            return False
        if marked:
            log.warning(
                "table %s: its owner answered nothing for %.0f s; asked it to give the table up",
                table_id,
                UNHEARD_AFTER_S,
            )
        return marked

    async def _serve_forwarded(
        self, live: LiveTable, data: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The answer to a command forwarded here; None when the table's actor stopped
        meanwhile: another process may own it already and answer (an answer from here
        would race with it), or nobody does and the sender takes the table over."""
        actor = live.actor
        if actor is None:
            return None
        try:
            command = command_from_plain(data)
            admit((self.loop_watch,), command)  # the owner runs late too: refused, not queued
            result = await actor.submit(command)
        except TableError as err:
            return {"error": {"code": err.code, "message": err.message, "retry_ms": err.retry_ms}}
        return {"ok": result}
