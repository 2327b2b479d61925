"""The store interface every backend implements (memory://, redis://).

A *commit* is atomic: it checks that the table is at ``expected_version`` (and, for
multi-process backends, that the caller's ownership epoch is current), then stores
the new record and appends the log entry.  A refused commit raises
:class:`VersionConflict` and changes nothing.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablehub.server.tables.record import LogEntry, TableRecord


@dataclass(frozen=True)
class RemoteCommit:
    """A commit made by another process: the record without its state, and the entry."""

    meta: dict[str, Any]
    entry: LogEntry


class StoreError(Exception):
    pass


class VersionConflict(StoreError):
    """The table is not at the expected version (or the epoch is stale)."""


class Store(abc.ABC):
    """Persistence, plus the coordination a multi-process backend needs.

    The coordination methods have single-process defaults: this process owns every
    table (epoch 0), nothing is forwarded and no commit arrives from elsewhere.
    """

    url: str
    multi_process = False
    process_id = "local"
    lost_lease: Callable[[str], None]

    async def start(self) -> None:
        """Connect (if needed)."""

    async def close(self) -> None:
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

    # -- coordination (single-process defaults) -------------------------------------------

    @property
    def shedding(self) -> str | None:
        """Why this process should refuse new work now (it is running late), or None."""
        return None

    async def acquire(self, table: str) -> int | None:
        """Take ownership of a table; its fencing epoch, or None if another owns it."""
        return 0

    async def release(self, table: str, epoch: int) -> None:
        """Give ownership up (shutdown, table finished)."""

    async def due_deadlines(self, now_ms: int) -> list[str]:
        """Tables whose turn deadline has passed (multi-process only)."""
        return []

    async def watch(self, table: str, on_commit: Callable[[RemoteCommit], None]) -> None:
        """Call ``on_commit`` for commits of ``table`` made by other processes."""

    async def unwatch(self, table: str) -> None:
        """Stop watching."""

    async def latest_versions(self, tables: list[str]) -> dict[str, int]:
        """Committed versions (to notice missed pub/sub messages)."""
        return {}

    async def forward(self, table: str, command: dict[str, Any]) -> dict[str, Any]:
        raise StoreError("a single-process store never forwards")

    async def serve_inbox(self, table: str, handler: Callable[[dict[str, Any]], Any]) -> None:
        """Accept commands forwarded by other processes for a table this process owns."""

    async def set_presence(self, table: str, presence: dict[str, Any]) -> None:
        """Publish this process's presence for a table."""

    async def presence(self, table: str) -> list[dict[str, Any]]:
        """Presence published by every live process (multi-process only)."""
        return []

    async def listen_presence(self, table: str, listener: Callable[[], None]) -> None:
        """Call ``listener`` when another process's presence for ``table`` changes."""
