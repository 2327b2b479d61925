"""The store interface every backend implements (memory://, redis://).

A *commit* is atomic: it checks that the table is at ``expected_version`` (and, for
multi-process backends, that the caller's ownership epoch is current), then stores
the new record and appends the log entry.  A refused commit raises
:class:`VersionConflict` and changes nothing.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable

from server.tables.record import LogEntry, TableRecord

CommitListener = Callable[[TableRecord, LogEntry, list[dict[str, object]]], Awaitable[None] | None]


class StoreError(Exception):
    pass


class VersionConflict(StoreError):
    """The table is not at the expected version (or the epoch is stale)."""


class Store(abc.ABC):
    url: str

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Connect (if needed)."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""

    @abc.abstractmethod
    async def create(self, record: TableRecord) -> None:
        """Store a new table at its version; StoreError if the id exists."""

    @abc.abstractmethod
    async def load(self, table: str) -> TableRecord | None:
        """The latest record of a table, or None."""

    @abc.abstractmethod
    async def commit(
        self, record: TableRecord, entry: LogEntry, expected_version: int, epoch: int = 0
    ) -> None:
        """Atomically store ``record`` (at ``expected_version + 1``) and append ``entry``."""

    @abc.abstractmethod
    async def log(self, table: str) -> list[LogEntry]:
        """The table's whole action log, oldest first."""

    @abc.abstractmethod
    async def tables(self) -> list[TableRecord]:
        """Every stored table (for the lobby)."""

    @abc.abstractmethod
    async def delete(self, table: str) -> None:
        """Forget a table (expiry)."""
