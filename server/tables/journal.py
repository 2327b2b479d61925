"""What a table needs of persistence: one atomic, fenced commit.

Every store implements it (``tablehub.server.store``); the table layer depends on this
port only, so ``store`` imports ``tables`` and never the other way round.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from tablehub.server.tables.record import LogEntry, TableRecord


class StoreError(Exception):
    """Persistence failed or refused a request."""


class VersionConflict(StoreError):
    """The table is not at the expected version (or the epoch is stale)."""


class StoreUnavailable(StoreError):
    """The store could not be reached (or, with ``replica`` durability, no replica
    confirmed the write in time).  A commit that raised it may or may not be stored:
    the table must be reloaded before its next commit."""


class Journal(Protocol):
    def commit(
        self, record: TableRecord, entry: LogEntry, expected_version: int, epoch: int = 0
    ) -> asyncio.Future[None]:
        """Queue the atomic store of ``record`` (at ``expected_version + 1``) with
        ``entry`` appended, and return the future of its outcome: None once stored,
        :class:`VersionConflict` (nothing changed) when the table is not at
        ``expected_version`` or ``epoch`` is no longer the table's ownership epoch.

        The commit is queued by the call itself, before anything is awaited: commits
        queued one after another are stored in that order and may reach the store
        together, so a table can have several versions in flight, each expecting the
        one before it."""
        ...
