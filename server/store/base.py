"""The persistence interface every backend implements (memory://, redis://).

A store keeps records, logs and the table listing.  A *commit* is atomic: it checks
that the table is at ``expected_version`` (and, for multi-process backends, that the
caller's ownership epoch is current), then stores the new record and appends the log
entry.  A refused commit raises :class:`VersionConflict` and changes nothing.

Coordination between processes is not the store's: each store carries the
:class:`~tablehub.server.store.bus.Bus` of its backend as ``store.bus``.
"""

from __future__ import annotations

import abc
import asyncio

from tablehub.server.store.bus import Bus
from tablehub.server.tables.record import LogEntry, TableRecord


class Store(abc.ABC):
    url: str
    bus: Bus
    one_server = True
    """Whether :meth:`reachable` speaks for the whole store (one server).  On Redis
    Cluster one master failing over is not a partition: no hub leaves its players."""

    async def start(self) -> None:
        """Connect (if needed) and start the bus."""
        await self.bus.start()

    async def close(self) -> None:
        """Close the bus, then release connections."""
        await self.bus.close()

    async def reachable(self, now: bool = False) -> bool:
        """Whether the store answers (``/healthz``, ``/metrics``); ``now``: asked of
        the store itself at this moment, not read from recent answers."""
        return True

    @abc.abstractmethod
    async def create(self, record: TableRecord) -> None:
        """Store a new table at its version; StoreError if the id exists."""

    @abc.abstractmethod
    async def load(self, table: str) -> TableRecord | None:
        """The latest record of a table, or None."""

    @abc.abstractmethod
    def commit(
        self, record: TableRecord, entry: LogEntry, expected_version: int, epoch: int = 0
    ) -> asyncio.Future[None]:
        """Queue the atomic store of ``record`` (at ``expected_version + 1``) with
        ``entry`` appended; the future of its outcome
        (:meth:`tablehub.server.tables.journal.Journal.commit`)."""

    @abc.abstractmethod
    async def log(self, table: str) -> list[LogEntry]:
        """The table's whole action log, oldest first."""

    async def record_at(self, current: TableRecord, version: int) -> TableRecord | None:
        """The table at an earlier ``version`` (for a reconnecting client's catch-up
        patch), or None when this store keeps no history that far back."""
        return None

    async def log_tail(self, table: str, count: int) -> list[LogEntry]:
        """The last ``count`` log entries."""
        return (await self.log(table))[-count:]

    @abc.abstractmethod
    async def tables(self) -> list[TableRecord]:
        """Every stored table (for the lobby)."""

    @abc.abstractmethod
    async def delete(self, table: str) -> None:
        """Forget a table (expiry), and its ``create_key`` if that still names it."""

    @abc.abstractmethod
    async def keyed_table(self, game: str, digest: str) -> str | None:
        """The live table a ``create_table`` with this key digest made for ``game``."""

    @abc.abstractmethod
    async def claim_key(self, game: str, digest: str, table: str) -> str:
        """Let (``game``, ``digest``) name the stored ``table`` unless it names another
        live table already; the table it names now (two racing creates: one wins)."""
