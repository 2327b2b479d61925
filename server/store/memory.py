"""``memory://``: the embedded store for one process (with the single-process bus).

Records are kept as the objects themselves (states are never mutated in place, so
no copy is needed); the log is a list per table, and the record a table was created
with is kept as the base of its history.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import OrderedDict

import msgpack

from tablehub.server.store import retention
from tablehub.server.store.base import Store
from tablehub.server.store.bus import Bus
from tablehub.server.tables.journal import StoreError, VersionConflict
from tablehub.server.tables.record import LogEntry, TableRecord, TableStatus, record_at

HISTORY_VERSIONS = 256
"""How far back a reconnecting client still gets one catch-up patch (else a snapshot)."""


class MemoryStore(Store):
    url = "memory://"

    def __init__(self, keep_finished: int | None = None) -> None:
        self.bus = Bus()
        self.keep_finished = retention.finished_games() if keep_finished is None else keep_finished
        """Finished games kept for replays (``store/retention.py``), the newest."""
        self._finished: OrderedDict[str, TableRecord] = OrderedDict()
        """The last ``keep_finished`` finished tables, oldest first: their records, logs
        and first records stay after the table itself is forgotten (``delete``)."""
        self._records: dict[str, TableRecord] = {}
        self._created: dict[str, TableRecord] = {}
        self._logs: dict[str, list[bytes]] = {}
        """Each table's log entries, msgpack-packed: bytes are not tracked by the garbage
        collector, and a long-running hub keeps every finished game's log for an hour."""
        self._keys: dict[tuple[str, str], str] = {}  # (game, create key digest) -> table
        self._stored_future: asyncio.Future[None] | None = None

    async def create(self, record: TableRecord) -> None:
        if record.table in self._records:
            raise StoreError(f"table {record.table} exists")
        self._records[record.table] = dataclasses.replace(record)
        self._created[record.table] = dataclasses.replace(record)
        self._logs[record.table] = []

    async def load(self, table: str) -> TableRecord | None:
        record = self._records.get(table) or self._finished.get(table)
        return None if record is None else dataclasses.replace(record)

    def commit(
        self, record: TableRecord, entry: LogEntry, expected_version: int, epoch: int = 0
    ) -> asyncio.Future[None]:
        """Stored at once: the future is settled when it is returned (a stored commit
        gets the one shared future of this loop's stored commits: none is made per act)."""
        current = self._records.get(record.table)
        if current is not None and (
            current.version == expected_version and record.version == expected_version + 1
        ):
            self._records[record.table] = dataclasses.replace(record)
            self._logs[record.table].append(msgpack.packb(entry, use_bin_type=True))
            if record.status is TableStatus.FINISHED:
                self._keep_finished(self._records[record.table])
            return self._stored()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if current is None:
            future.set_exception(StoreError(f"no table {record.table}"))
        else:
            future.set_exception(
                VersionConflict(
                    f"table {record.table} is at {current.version}, not {expected_version}"
                )
            )
        return future

    def _keep_finished(self, record: TableRecord) -> None:
        self._finished[record.table] = record
        self._finished.move_to_end(record.table)
        while len(self._finished) > self.keep_finished:
            old, _ = self._finished.popitem(last=False)
            if old not in self._records:
                self._created.pop(old, None)
                self._logs.pop(old, None)

    def _stored(self) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        stored = self._stored_future
        if stored is None or stored.get_loop() is not loop:
            stored = self._stored_future = loop.create_future()
            stored.set_result(None)
        return stored

    async def record_at(self, current: TableRecord, version: int) -> TableRecord | None:
        """Replayed from the table as created: cheap in process, bounded to recent versions."""
        created = self._created.get(current.table)
        if created is None or current.version - version > HISTORY_VERSIONS:
            return None
        log = await self.log(current.table)
        return record_at(current, version, created.state, created.version, log)

    async def log(self, table: str) -> list[LogEntry]:
        return [msgpack.unpackb(packed, raw=False) for packed in self._logs.get(table, [])]

    async def tables(self) -> list[TableRecord]:
        kept = [r for t, r in self._finished.items() if t not in self._records]
        return [*self._records.values(), *kept]

    async def delete(self, table: str) -> None:
        record = self._records.pop(table, None)
        if table not in self._finished:  # a finished game stays for its replays
            self._created.pop(table, None)
            self._logs.pop(table, None)
        if record is not None and record.create_key is not None:
            name = (record.game, record.create_key)
            if self._keys.get(name) == table:
                del self._keys[name]

    async def keyed_table(self, game: str, digest: str) -> str | None:
        return self._keys.get((game, digest))

    async def claim_key(self, game: str, digest: str, table: str) -> str:
        return self._keys.setdefault((game, digest), table)
