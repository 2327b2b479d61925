"""``Hub``: the hub's pieces put together, and the one interface sessions use
(``sessions.hub_api.HubApi``)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from tablehub.protocol import Frames
from tablehub.server import metrics
from tablehub.server.config import redacted
from tablehub.server.games import all_games
from tablehub.server.hub.admission import admit
from tablehub.server.hub.creation import Creation
from tablehub.server.hub.directory import Directory
from tablehub.server.hub.janitor import Janitor
from tablehub.server.hub.live import LiveTable
from tablehub.server.hub.lobby import Lobby, LobbySubscriber
from tablehub.server.hub.mirror import Mirror
from tablehub.server.hub.ownership import Ownership
from tablehub.server.hub.replays import Replays
from tablehub.server.hub.sweeper import Sweeper
from tablehub.server.hub.tasks import TaskRunner
from tablehub.server.ops.loopwatch import TABLES_LATE_S, LoopWatch
from tablehub.server.ops.sojourn import Sojourn
from tablehub.server.store.base import Store
from tablehub.server.tables.actor import Answer, FutureAnswer
from tablehub.server.tables.core import Command
from tablehub.server.tables.errors import TableError, unavailable
from tablehub.server.tables.feed import Audience
from tablehub.server.tables.journal import StoreUnavailable
from tablehub.server.tables.thinking import Thinker, default_workers

log = logging.getLogger("tablehub.hub")


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


class Hub:
    def __init__(
        self,
        store: Store,
        clock_ms: Callable[[], int] = wall_clock_ms,
        bot_workers: int | None = None,
    ) -> None:
        """``bot_workers``: processes thinking bot moves (tables/thinking.py), default
        :func:`default_workers`; 0 thinks them on the event loop."""
        self.store = store
        self.bus = store.bus
        self.clock_ms = clock_ms
        self.tasks = TaskRunner()
        # With leases, new tables are refused a quarter lease late, before leases suffer.
        self.loop_watch = LoopWatch(
            self.bus.lease_ms / 4000 if self.bus.lease_ms else TABLES_LATE_S
        )
        self.sojourn = Sojourn()
        served: dict[str, LiveTable] = {}  # the directory alone adds and removes tables
        self.lobby = Lobby(store, served.get, self.tasks.spawn)
        self.mirror = Mirror(store, self.bus, served.get, self.tasks.spawn, self.lobby.changed)
        self.thinker = Thinker(default_workers() if bot_workers is None else bot_workers)
        self.ownership = Ownership(
            store, self.bus, served, self.tasks, clock_ms, self.loop_watch, self.thinker
        )
        self.directory = Directory(
            store, self.bus, served, self.mirror, self.ownership, self.lobby.changed
        )
        self.janitor = Janitor(store, self.bus, self.directory, self.lobby, clock_ms)
        self.creation = Creation(
            store, self.janitor, clock_ms, self.lobby.changed, self.refusing_tables
        )
        self.sweeper = Sweeper(self.bus, self.directory, self.ownership, self.mirror, clock_ms)
        self.replays = Replays(store, self.directory.get)
        self._loops: list[asyncio.Task[None]] = []
        self.bus.lost_lease = self.ownership.lost_lease

    @property
    def live(self) -> dict[str, LiveTable]:
        """The tables served by this process, by id."""
        return self.directory.live

    @property
    def move_signals(self) -> tuple[LoopWatch, Sojourn]:
        """What refuses moves: the loop running late, or moves waiting in a queue."""
        return (self.loop_watch, self.sojourn)

    def refusing_moves(self) -> bool:
        """Whether this process is refusing moves now (its loop late, or moves queued)."""
        return any(signal.refusing_moves() is not None for signal in self.move_signals)

    def refusing_tables(self) -> str | None:
        """Why new tables are refused now (running late, lease renewal failing), or None."""
        return self.bus.refusing_tables or self.loop_watch.refusing_tables

    @property
    def refusals(self) -> str | None:
        """What this process refuses now and why, in words (``/healthz``), or None."""
        parts = []
        if self.loop_watch.refusing_moves() is not None:
            parts.append(
                f"the event loop is running {self.loop_watch.lag_s * 1000:.0f} ms late on average: "
                "moves are refused until it catches up"
            )
        tables = self.refusing_tables()
        if tables is not None:
            parts.append(f"{tables}: new tables are refused for now")
        return "; ".join(parts) or None

    # -- what operators are told (transport/app.py: /healthz, /metrics, evacuation) ---------

    async def store_reachable(self, now: bool = False) -> bool | None:
        """Whether the store answers (``now``: see ``Store.reachable``); None when it
        is slow to tell while this hub refuses moves (a late answer from a busy hub is
        no outage)."""
        up = await self.store.reachable(now)
        if not up and self.refusing_moves():
            return None
        metrics.STORE_UP.set(int(up))
        return up

    @property
    def lease_s(self) -> float:
        """How long a table's lease outlives its owner (0 in one process)."""
        return self.bus.lease_ms / 1000

    @property
    def may_send_players_elsewhere(self) -> bool:
        """Whether other hubs may have the store when this one does not: hubs sharing
        one Redis (alone, a hub has nowhere to send players; on a Redis Cluster a shard
        failing over is not a partition)."""
        return self.bus.multi_process and self.store.one_server

    @property
    def store_address(self) -> str:
        """The store's URL without its password."""
        return redacted(self.store.url)

    def tables_by_kind(self) -> Counter[tuple[str, str]]:
        """The tables this process serves, by (game, status)."""
        return Counter((live.record.game, str(live.record.status)) for live in self.live.values())

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        self.loop_watch.start(asyncio.get_running_loop())
        await self.store.start()
        await self.tasks.start()
        if self.bus.multi_process:
            self._loops.append(self.tasks.run(self.sweeper.run, name="hub-sweeper"))
        self._loops.append(self.tasks.run(self.janitor.run, name="hub-janitor"))

    async def stop(self) -> None:
        self.directory.stop_actors()
        for task in self._loops:
            task.cancel()
        self._loops.clear()
        await self.tasks.stop()
        self.directory.live.clear()
        await self.store.close()
        self.loop_watch.stop()
        self.thinker.close()

    # -- what sessions use (sessions.hub_api.HubApi) -----------------------------------------

    @property
    def shared(self) -> bool:
        return self.bus.multi_process

    @staticmethod
    def games() -> list[dict[str, Any]]:
        return [game.describe() for game in all_games()]

    async def tables(self, game_id: str | None = None) -> list[dict[str, Any]]:
        return await self.lobby.tables(game_id)

    def subscribe_lobby(self, sub: LobbySubscriber) -> None:
        self.lobby.subscribe(sub)

    def unsubscribe_lobby(self, sub: LobbySubscriber) -> None:
        self.lobby.unsubscribe(sub)

    def presence_changed(self) -> None:
        self.lobby.changed()

    async def create_table(
        self,
        game_id: str,
        seats: int,
        options: dict[str, Any] | None,
        name: str = "",
        key: str | None = None,
    ) -> str:
        return await self.creation.create_table(game_id, seats, options, name, key)

    async def table(self, table_id: str) -> LiveTable:
        return await self.directory.table(table_id)

    def loaded(self, table_id: str) -> LiveTable | None:
        return self.directory.get(table_id)

    def send(self, table_id: str, command: Command, answer: Answer) -> None:
        """Run a command at the table's owner; ``answer`` gets its outcome, once.

        When this process runs the table, the command goes straight to its actor (no
        task, no future: the session's act path); otherwise one task loads the table
        or forwards the command to its owner."""
        try:
            timed = admit(self.move_signals, command)
        except TableError as err:
            answer(None, err)
            return
        if timed:
            answer = _Timed(answer, self.sojourn)
        live = self.directory.get(table_id)
        if live is not None and live.post(command, answer):
            return
        if not self.tasks.started:
            answer(None, TableError("overloaded", "the server is shutting down; retry", 1000))
            return
        self.tasks.spawn(lambda: _answered(self._submit(table_id, command), answer))

    async def _submit(self, table_id: str, command: Command) -> Any:
        """A command for a table not run here (yet): load it, then own or forward."""
        return await self.ownership.submit(await self.directory.table(table_id), command)

    async def submit(self, table_id: str, command: Command) -> Any:
        """:meth:`send`, awaited: the command's result, or its TableError raised."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.send(table_id, command, FutureAnswer(future))
        return await future

    async def unused(self, table_id: str) -> bool:
        """Whether the table still exists and nobody has sat at it."""
        live = self.directory.get(table_id)
        record = live.record if live is not None else await self.store.load(table_id)
        return record is not None and not any(seat.taken for seat in record.seats)

    async def catch_up(self, table_id: str, seat: Audience, version: int) -> Frames:
        """What a client at ``version`` needs: one patch to now, or a snapshot.

        Versions still in this process's ring are diffed at once; older ones (e.g. a
        client that reconnects to a process that did not serve the table before) are
        rebuilt from the store's recent history when it keeps one (Redis)."""
        feed = (await self.directory.table(table_id)).feed
        old = None
        if 0 <= version < feed.record.version and feed.recent(version) is None:
            old = await self.store.record_at(feed.record, version)
        return feed.catch_up(seat, version, old)

    # -- upkeep (the janitor runs both every JANITOR_S; tests call them with their clock) ------

    async def tidy(self, now_ms: int) -> list[str]:
        return await self.janitor.tidy(now_ms)

    async def forget_unused(self, now_ms: int) -> list[str]:
        return await self.janitor.forget_unused(now_ms)


class _Timed:
    """An answer that first tells the sojourn signal how long the move waited."""

    __slots__ = ("answer", "sojourn", "started")

    def __init__(self, answer: Answer, sojourn: Sojourn) -> None:
        self.answer = answer
        self.sojourn = sojourn
        self.started = time.monotonic()

    def __call__(self, value: Any, error: TableError | None) -> None:
        self.sojourn.answered(time.monotonic() - self.started)
        self.answer(value, error)


async def _answered(outcome: Awaitable[Any], answer: Answer) -> None:
    """Await a command's outcome and hand it to ``answer`` as a value or a TableError."""
    try:
        result = await outcome
    except TableError as err:
        answer(None, err)
    except StoreUnavailable:
        answer(None, unavailable())
    except asyncio.CancelledError:  # shutting down while it was under way elsewhere
        answer(
            None,
            TableError(
                "unavailable",
                "the server is shutting down: your request may or may not have been done; "
                "reconnect and look at the table, or send it again with the same key",
                1000,
            ),
        )
        raise
    except Exception:  # a server bug: its traceback is what finds it
        log.exception("a table command failed")
        answer(None, TableError("internal_error", "internal error"))
    else:
        answer(result, None)
