"""The hub: tables by id, their actors and feeds, and the lobby.

The hub knows no rule: it reaches games through the registry only.  It owns every
table task (one ``asyncio.TaskGroup``), so shutting the hub down cancels and awaits
them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tablehub.protocol import Frames
from tablehub.protocol.codec import index
from tablehub.server import metrics
from tablehub.server.games import all_games, get_game
from tablehub.server.games.base import BadOptions, Event
from tablehub.server.store.base import RemoteCommit, Store
from tablehub.server.tables.actor import (
    Act,
    Command,
    TableActor,
    command_from_plain,
    command_to_plain,
)
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.feed import TableFeed
from tablehub.server.tables.idempotency import key_digest
from tablehub.server.tables.record import LogEntry, Seat, TableRecord, TableStatus

log = logging.getLogger("tablehub.hub")

HUB_OPTIONS = ("turn_seconds", "seed")
SHED_RETRY_MS = 2000
LOBBY_LIMIT = 200
FORWARD_BUDGET_S = 10.0
SWEEP_S = 0.25
JANITOR_S = 30.0
UNLOAD_IDLE_MS = 10 * 60 * 1000
"""A table nobody watches is unloaded from this process after this long without a commit
(at once when finished); it stays in the store and loads again on the next request."""
FORGET_UNUSED_MS = index()["limits"]["unused_table_forget_seconds"] * 1000
"""A table nobody ever sat at is deleted after this long (protocol/README.md "Limits"):
tables created and left empty must not pile up (a create_table flood)."""
MAX_UNUSED_TABLES: int = index()["limits"]["max_unused_tables_per_process"]
"""Tables created by this process that nobody has sat at yet, at most (~15 KB each):
beyond, create_table is refused with ``overloaded`` until some are used or forgotten."""
UNUSED_RETRY_MS = 30_000
"""``retry_ms`` of that refusal: the janitor forgets old unused tables every 30 s."""
CLOSE_IDLE_MS = 60 * 60 * 1000
"""An unfinished table is closed (``table_closed`` to its watchers and the lobby, then
deleted from the store) after this long without a commit while no human player is
connected to it: an abandoned table must not sit in the lobby as "playing" forever."""
CLOSE_REASON = "nobody played for an hour and no player was at the table"
FORGET_FINISHED_MS = 60 * 60 * 1000
"""The memory store forgets finished tables after this idle time, so one long-running
process does not grow without bound (Redis keeps them)."""


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


class LobbySubscriber(Protocol):
    id: int

    def deliver_lobby(self, frames: Frames) -> None: ...

    def deliver_closed(self, table: str, frames: Frames) -> None: ...


@dataclass
class LiveTable:
    """A table this process serves: always a feed; an actor when this process owns it."""

    feed: TableFeed
    actor: TableActor | None = None
    task: asyncio.Task[None] | None = None

    @property
    def record(self) -> TableRecord:
        return self.actor.record if self.actor is not None else self.feed.record


class Hub:
    def __init__(self, store: Store, clock_ms: Callable[[], int] = wall_clock_ms) -> None:
        self.store = store
        self.clock_ms = clock_ms
        self.live: dict[str, LiveTable] = {}
        self._loading: dict[str, asyncio.Future[LiveTable]] = {}
        self._lobby: dict[int, LobbySubscriber] = {}
        self._lobby_dirty = False
        self._group: asyncio.TaskGroup | None = None
        self._group_cm: contextlib.AbstractAsyncContextManager[asyncio.TaskGroup] | None = None
        self._cids = itertools.count(1)
        self._sweeper: asyncio.Task[None] | None = None
        self._janitor: asyncio.Task[None] | None = None
        self._unused: set[str] = set()
        """Tables created here that nobody had sat at when last checked (see MAX_UNUSED_TABLES)."""
        store.lost_lease = self._lost_lease

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        await self.store.start()
        self._group_cm = asyncio.TaskGroup()
        self._group = await self._group_cm.__aenter__()
        if self.store.multi_process:
            self._sweeper = self._group.create_task(self._sweep(), name="hub-sweeper")
        self._janitor = self._group.create_task(self._janitor_loop(), name="hub-janitor")

    async def stop(self) -> None:
        for table in self.live.values():
            if table.task is not None:
                table.task.cancel()
        for task in (self._sweeper, self._janitor):
            if task is not None:
                task.cancel()
        if self._group_cm is not None:
            await self._group_cm.__aexit__(None, None, None)
            self._group_cm = self._group = None
        self.live.clear()
        await self.store.close()

    # -- games and tables ---------------------------------------------------------------

    @staticmethod
    def games() -> list[dict[str, Any]]:
        return [game.describe() for game in all_games()]

    async def create_table(
        self,
        game_id: str,
        seats: int,
        options: dict[str, Any] | None,
        name: str = "",
        key: str | None = None,
    ) -> str:
        """A new table's id; with an idempotency ``key``, the table that key made
        already if there is one (protocol README "Idempotent requests and retries")."""
        digest = None if key is None else key_digest(key)
        if digest is not None:  # [idempotency] a retry: the table it made is the answer
            made = await self.store.keyed_table(game_id, digest)
            if made is not None:
                return made
        shedding = self.store.shedding
        if shedding is not None:  # running late: take no new tables before leases suffer
            metrics.SHED.inc()
            raise TableError(
                "overloaded", f"this server is busy ({shedding}); try again shortly", SHED_RETRY_MS
            )
        game = get_game(game_id)
        if game is None:
            raise TableError("unknown_game", f"no game {game_id!r}")
        if len(self._unused) >= MAX_UNUSED_TABLES:
            await self._recount_unused()
            if len(self._unused) >= MAX_UNUSED_TABLES:
                raise TableError(
                    "overloaded",
                    "this server has too many tables nobody has sat at: join one, or retry later",
                    UNUSED_RETRY_MS,
                )
        game_options = dict(options or {})
        hub_options = {key: game_options.pop(key) for key in HUB_OPTIONS if key in game_options}
        try:
            resolved = game.resolve_options(game_options)
        except BadOptions as err:
            raise TableError("bad_options", err.message) from None
        limit = game.seat_limit(resolved)
        if not game.min_players <= seats <= limit:
            raise TableError(
                "bad_options", f"{game.name} takes {game.min_players}–{limit} seats, not {seats}"
            )
        turn_ms = _turn_ms(hub_options.get("turn_seconds"))
        seed = hub_options.get("seed")
        if seed is None:
            seed = secrets.randbits(62)
        elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**62:
            raise TableError("bad_options", "option seed must be an integer in [0, 2**62)")
        try:
            state = game.setup(resolved, seats, seed)
        except BadOptions as err:
            raise TableError("bad_options", err.message) from None
        now = self.clock_ms()
        record = TableRecord(
            table=secrets.token_hex(5),
            game=game_id,
            options=resolved,
            turn_ms=turn_ms,
            seed=seed,
            seats=[Seat() for _ in range(seats)],
            state=state,
            name=name,
            created_ms=now,
            updated_ms=now,
            create_key=digest,
        )
        await self.store.create(record)
        if digest is not None:  # [idempotency] a racing retry may have made it first
            made = await self.store.claim_key(game_id, digest, record.table)
            if made != record.table:
                await self.store.delete(record.table)
                return made
        self._unused.add(record.table)
        self._lobby_changed()
        return record.table

    async def table(self, table_id: str) -> LiveTable:
        """The table as this process serves it (loaded from the store on first use)."""
        live = self.live.get(table_id)
        if live is not None:
            return live
        pending = self._loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[LiveTable] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = future
        try:
            live = await self._load(table_id)
            future.set_result(live)
            return live
        except BaseException as err:
            future.set_exception(err)
            future.exception()  # retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._loading[table_id]

    async def _load(self, table_id: str) -> LiveTable:
        store = self.store
        if store.multi_process:
            # Watch before loading so no commit falls between the two.
            await store.watch(table_id, lambda commit: self._on_remote_commit(table_id, commit))
            await store.listen_presence(table_id, lambda: self._remote_presence(table_id))
        record = await store.load(table_id)
        if record is None:
            if store.multi_process:
                await store.unwatch(table_id)
            raise TableError("unknown_table", f"no table {table_id!r}")
        live = LiveTable(TableFeed(record, on_presence=self._local_presence))
        self.live[table_id] = live
        if not store.multi_process:
            self._own(live, record, 0)
        return live

    def _own(self, live: LiveTable, record: TableRecord, epoch: int) -> None:
        """Run the table here: start its actor (this process holds the lease)."""
        assert self._group is not None, "hub not started"
        feed = live.feed

        def on_commit(rec: TableRecord, entry: LogEntry, events: list[Event]) -> None:
            feed.on_commit(rec, entry, events)
            if entry.get("k") == "seat" or rec.status is not TableStatus.PLAYING:
                self._lobby_changed()

        actor = TableActor(record, self.store, on_commit, self.clock_ms, epoch)
        live.actor = actor
        live.task = self._group.create_task(_logged(actor.run), name=f"table-{record.table}")
        live.task.add_done_callback(lambda _: self._actor_stopped(record.table, actor))

    def _actor_stopped(self, table_id: str, actor: TableActor) -> None:
        live = self.live.get(table_id)
        if live is not None and live.actor is actor:
            live.actor = None
            live.task = None

    async def _try_own(self, live: LiveTable) -> bool:
        """Take the table over if nobody owns it (its owner died, or it was idle)."""
        table_id = live.feed.table
        epoch = await self.store.acquire(table_id)
        if epoch is None:
            return False
        if live.actor is not None:  # won by a concurrent caller meanwhile
            return True
        record = await self.store.load(table_id)
        if record is None:
            await self.store.release(table_id, epoch)
            return False
        live.feed.reload(record)
        self._own(live, record, epoch)
        assert live.actor is not None
        live.actor.remember_cids(await self.store.log_tail(table_id, 256))
        await self.store.serve_inbox(table_id, lambda data: self._serve_forwarded(live, data))
        return True

    async def submit(self, table_id: str, command: Command) -> Any:
        """Run a command on the table's actor, here or (forwarded) at its owner."""
        live = await self.table(table_id)
        if live.actor is None and self.store.multi_process:
            await self._try_own(live)
        if live.actor is not None:
            return await live.actor.submit(command)
        return await self._forward(live, command)

    async def _forward(self, live: LiveTable, command: Command) -> Any:
        """Forward to the owner; if it does not answer, take the table over and retry.

        The command id makes a retry safe: an owner that did apply it answers with
        the version it produced instead of applying it again."""
        if isinstance(command, Act) and command.cid is None:
            command.cid = f"{self.store.process_id}:{next(self._cids)}"
        plain = command_to_plain(command)
        deadline = asyncio.get_running_loop().time() + FORWARD_BUDGET_S
        while True:
            try:
                reply = await self.store.forward(live.feed.table, plain)
            except TimeoutError:
                if asyncio.get_running_loop().time() > deadline:
                    raise TableError(
                        "overloaded", "the table's server did not answer; try again", 1000
                    ) from None
                if live.actor is not None or await self._try_own(live):
                    assert live.actor is not None
                    return await live.actor.submit(command_from_plain(plain))
                continue
            if "error" in reply:
                error = reply["error"]
                raise TableError(error["code"], error["message"], error.get("retry_ms"))
            return reply["ok"]

    async def _serve_forwarded(self, live: LiveTable, data: dict[str, Any]) -> dict[str, Any]:
        actor = live.actor
        if actor is None:
            return {
                "error": {"code": "overloaded", "message": "table moved; retry", "retry_ms": 200}
            }
        try:
            result = await actor.submit(command_from_plain(data))
        except TableError as err:
            return {"error": {"code": err.code, "message": err.message, "retry_ms": err.retry_ms}}
        return {"ok": result}

    async def catch_up(self, table_id: str, seat: int | None, version: int) -> Frames:
        """What a client at ``version`` needs: one patch to now, or a snapshot.

        Versions still in this process's ring are diffed at once; older ones (e.g. a
        client that reconnects to a process that did not serve the table before) are
        rebuilt from the store's recent history when it keeps one (Redis)."""
        live = await self.table(table_id)
        feed = live.feed
        old = None
        if 0 <= version < feed.record.version and feed.recent(version) is None:
            old = await self.store.record_at(feed.record, version)
        return feed.catch_up(seat, version, old)

    # -- other processes' commits, presence, deadlines ---------------------------------------

    def _on_remote_commit(self, table_id: str, commit: RemoteCommit) -> None:
        live = self.live.get(table_id)
        if live is None:
            return
        version = commit.entry["v"]
        if version <= live.feed.record.version:
            return  # our own commit's echo, or old news
        if live.actor is not None:
            log.warning("table %s was committed by another process: dropping our actor", table_id)
            live.actor.lost = True
            if live.task is not None:
                live.task.cancel()
            live.actor = None
        if version == live.feed.record.version + 1:
            live.feed.apply_remote(commit.meta, commit.entry)
        else:
            self._spawn(lambda: self._reload(table_id))
        if commit.entry.get("k") == "seat" or commit.meta["status"] != "playing":
            self._lobby_changed()

    async def _reload(self, table_id: str) -> None:
        live = self.live.get(table_id)
        record = await self.store.load(table_id)
        if live is not None and record is not None and live.actor is None:
            live.feed.reload(record)

    def _local_presence(self, feed: TableFeed) -> None:
        self._lobby_changed()
        if self.store.multi_process:
            presence = {**feed.local_presence(), "process": self.store.process_id}
            self._spawn(lambda: self.store.set_presence(feed.table, presence))

    def _remote_presence(self, table_id: str) -> None:
        live = self.live.get(table_id)
        if live is not None:
            self._spawn(lambda: self._merge_presence(live))

    async def _merge_presence(self, live: LiveTable) -> None:
        everyone = await self.store.presence(live.feed.table)
        me = self.store.process_id
        live.feed.set_remote_presence([p for p in everyone if p.get("process") != me])

    def _lost_lease(self, table_id: str) -> None:
        live = self.live.get(table_id)
        if live is not None and live.task is not None:
            live.task.cancel()

    async def _sweep(self) -> None:
        """Multi-process upkeep: fire deadlines of tables nobody runs; notice missed
        pub/sub messages (at-most-once) by comparing versions."""
        ticks = 0
        while True:
            await asyncio.sleep(SWEEP_S)
            ticks += 1
            try:
                for table_id in await self.store.due_deadlines(self.clock_ms()):
                    live = await self.table(table_id)
                    if live.actor is None:
                        await self._try_own(live)
                if ticks % 4 == 0:
                    watched = [t for t, live in self.live.items() if live.actor is None]
                    latest = await self.store.latest_versions(watched)
                    for table_id, version in latest.items():
                        live = self.live[table_id]
                        if version > live.feed.record.version:
                            await self._reload(table_id)
            except Exception:
                log.exception("sweep failed")

    async def _janitor_loop(self) -> None:
        while True:
            await asyncio.sleep(JANITOR_S)
            try:
                await self.tidy(self.clock_ms())
                await self.forget_unused(self.clock_ms())
            except Exception:
                log.exception("janitor failed")

    async def tidy(self, now_ms: int) -> list[str]:
        """Close abandoned tables, unload tables nobody watches (and, in memory, forget
        old finished ones); the ids unloaded (closed ones included)."""
        unloaded = await self._close_abandoned(now_ms)
        for table_id, live in list(self.live.items()):
            record = live.record
            idle = now_ms - record.updated_ms
            busy = live.actor is not None and not live.actor.queue.empty()
            if live.feed.subscriber_count or busy or record.deadline is not None:
                continue
            if record.status is TableStatus.FINISHED or idle >= UNLOAD_IDLE_MS:
                await self._unload(table_id, live)
                unloaded.append(table_id)
        if not self.store.multi_process:
            for record in await self.store.tables():
                idle = now_ms - record.updated_ms
                finished = record.status is TableStatus.FINISHED
                if record.table not in self.live and finished and idle >= FORGET_FINISHED_MS:
                    await self.store.delete(record.table)
        if unloaded:
            self._lobby_changed()
        return unloaded

    async def _recount_unused(self) -> None:
        """Keep in ``_unused`` only the tables still stored with every seat free."""
        empty = {r.table for r in await self.store.tables() if not any(s.taken for s in r.seats)}
        self._unused &= empty

    async def forget_unused(self, now_ms: int) -> list[str]:
        """Delete tables nobody has sat at for ``FORGET_UNUSED_MS``, unless someone
        watches them; the ids deleted."""
        forgotten = []
        for record in await self.store.tables():
            if any(seat.taken for seat in record.seats):
                continue
            if now_ms - record.updated_ms < FORGET_UNUSED_MS:
                continue
            live = self.live.get(record.table)
            if live is not None:
                if live.feed.subscriber_count or any(s.taken for s in live.record.seats):
                    continue
                await self._unload(record.table, live)
            await self.store.delete(record.table)
            forgotten.append(record.table)
        self._unused.difference_update(forgotten)
        if forgotten:
            self._lobby_changed()
        return forgotten

    async def _close_abandoned(self, now_ms: int) -> list[str]:
        """Close unfinished tables idle for ``CLOSE_IDLE_MS`` with no human player
        connected; in the Redis topology also the tables served here that another
        process closed (deleted from the store).  The ids closed here."""
        records = await self.store.tables()
        doomed = []
        for stored_record in records:
            live = self.live.get(stored_record.table)
            record = live.record if live is not None else stored_record
            if record.status is TableStatus.FINISHED or now_ms - record.updated_ms < CLOSE_IDLE_MS:
                continue
            if live is not None and any(
                s["connected"] and not s["bot"] for s in live.feed.presence()["seats"]
            ):
                continue
            if self.store.multi_process and any(
                p.get("seats") for p in await self.store.presence(record.table)
            ):
                continue
            await self.store.delete(record.table)
            doomed.append(record.table)
        if self.store.multi_process:
            here = [t for t in self.live if t not in doomed]
            versions = await self.store.latest_versions(here)  # a deleted table has none
            doomed += [t for t in here if t not in versions and t in self.live]
        for table_id in doomed:
            frames = Frames({"t": "table_closed", "table": table_id, "reason": CLOSE_REASON})
            for sub in list(self._lobby.values()):
                sub.deliver_closed(table_id, frames)
            live = self.live.get(table_id)
            if live is not None:
                live.feed.close(frames)
                await self._unload(table_id, live)
            log.info("table %s closed: %s", table_id, CLOSE_REASON)
        if doomed:
            self._lobby_changed()
        return doomed

    async def _unload(self, table_id: str, live: LiveTable) -> None:
        del self.live[table_id]
        if live.task is not None:
            live.task.cancel()
        if self.store.multi_process:
            if live.actor is not None:
                await self.store.release(table_id, live.actor.epoch)
            await self.store.unwatch(table_id)

    def _spawn(self, start: Callable[[], Awaitable[Any]]) -> None:
        """Run a side task in the hub's group; its failure is logged, never fatal (an
        exception escaping into the TaskGroup would cancel every table)."""
        if self._group is not None:
            self._group.create_task(_logged(start))

    async def tables(self, game_id: str | None = None) -> list[dict[str, Any]]:
        records = await self.store.tables()
        records.sort(key=lambda r: r.updated_ms, reverse=True)
        out = []
        for record in records:
            if game_id is not None and record.game != game_id:
                continue
            live = self.live.get(record.table)
            summary = (live.record if live else record).summary()
            if live is not None:
                presence = live.feed.presence()
                summary["seats"] = presence["seats"]
                summary["spectators"] = presence["spectators"]
            else:
                summary["spectators"] = 0
                for seat in summary["seats"]:
                    seat["connected"] = seat["bot"]
            out.append(summary)
            if len(out) >= LOBBY_LIMIT:
                break
        return out

    # -- lobby --------------------------------------------------------------------------

    def subscribe_lobby(self, sub: LobbySubscriber) -> None:
        self._lobby[sub.id] = sub

    def unsubscribe_lobby(self, sub: LobbySubscriber) -> None:
        self._lobby.pop(sub.id, None)

    def presence_changed(self) -> None:
        self._lobby_changed()

    def _lobby_changed(self) -> None:
        """Coalesce changes of one loop iteration into one ``tables`` push."""
        if not self._lobby or self._lobby_dirty:
            return
        self._lobby_dirty = True
        self._spawn(self._push_lobby)

    async def _push_lobby(self) -> None:
        self._lobby_dirty = False
        if not self._lobby:
            return
        frames = Frames({"t": "tables", "tables": await self.tables()})
        for sub in list(self._lobby.values()):
            sub.deliver_lobby(frames)


async def _logged(start: Callable[[], Awaitable[Any]]) -> None:
    """Run ``start()`` (created only once the task runs, so a task cancelled before it
    starts leaves no un-awaited coroutine); log its failure instead of raising it."""
    try:
        await start()
    except Exception:
        log.exception("hub task failed")


def _turn_ms(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TableError("bad_options", "option turn_seconds must be a number of seconds")
    if not 0.05 <= value <= 86400:
        raise TableError("bad_options", "option turn_seconds must be between 0.05 and 86400")
    return int(value * 1000)
