"""``redis://``: tables in Redis, shared by any number of hub processes.

Theory of operation (docs/design.md "Tables, persistence and scale"):

Keys of one table share the hash tag ``{T}`` (Redis Cluster friendly)::

    th:{T}:meta   msgpack record without the game state (seats, status, deadline…)
    th:{T}:ver    the committed version (int)
    th:{T}:epoch  the ownership epoch (fencing token, int)
    th:{T}:lease  "<process>:<epoch>" with a TTL: who runs the table now
    th:{T}:lease:unheard  that lease's value, set by a process whose forwarded
                  commands went unanswered: its owner gives the table up (leases.py)
    th:{T}:log    list of msgpack log entries; entry v sits at index v-1
    th:{T}:snap   msgpack {"version", "state"}: the latest full state
    th:{T}:snaps  the last KEPT_SNAPSHOTS of those (history for catch-up patches)
    th:{T}:in     pub/sub channel: commands forwarded to the owner (its only subscriber)
    th:{T}:ch     pub/sub channel: every commit ({"meta", "entry"})
    th:{T}:pres   hash process -> msgpack presence of that process's sockets
    th:{T}:keys   hash seat -> msgpack act keys of that seat and their answers

plus the global ``th:tables`` (zset by update time), ``th:deadlines`` (zset by due
time), per-process ``th:reply:<process>`` channels for forwarded replies, and
``th:ckey:<game>:<digest>`` -> table for ``create_table`` keys (as long as the table
lives: deleted with it, or expiring with a finished game's keys -- beside the finishing
commit, not in its script, as it lies in another slot).

A commit is one Lua script on the ``{T}`` keys: it checks the expected version and
the caller's epoch, stores meta and log entry (and a state snapshot every
``SNAPSHOT_EVERY`` versions and at the end), bumps the version, sets the expiry of a
finished game's keys (``store/retention.py``) and publishes the commit -- all or
nothing.  The current state is the snapshot plus the log after it.
Commits from many tables are sent together: all commits requested during one loop
iteration go out in one write on a connection of their own, the commit link
(``redis_link.py``), whose replies settle them inside the loop's read callback (group
commit).  Everything else goes through redis-py.

Ownership, forwarding, fan-out and presence are the bus's (``redis_bus.py``); this
module keeps records, logs and the listing, and creates the bus beside itself.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
import secrets
import time
from collections.abc import Coroutine
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

from tablehub.server import metrics
from tablehub.server.store import retention
from tablehub.server.store.base import Store
from tablehub.server.store.redis_bus import REPLICA_WAIT_MS, RedisBus
from tablehub.server.store.redis_keys import (
    index_key,
    index_keys,
    key,
    pack,
    quiet_driver_faults,
    split_durability,
    store_error,
    translated,
    unpack,
)
from tablehub.server.store.redis_link import CommitLink, RedisCommand, Replies
from tablehub.server.tables.idempotency import ActKeys
from tablehub.server.tables.journal import StoreError, StoreUnavailable, VersionConflict
from tablehub.server.tables.record import LogEntry, TableRecord, record_at, replay_from

SNAPSHOT_EVERY = 32
KEPT_SNAPSHOTS = 4
"""Recent snapshots kept per table: a client that reconnects anywhere within the last
~SNAPSHOT_EVERY * (KEPT_SNAPSHOTS - 1) versions gets one catch-up patch, not a snapshot."""
_COMMIT = f"""
local ver = tonumber(redis.call('GET', KEYS[2]) or '-1')
if ver ~= tonumber(ARGV[1]) then return 'version:' .. ver end
local epoch = tonumber(redis.call('GET', KEYS[3]) or '0')
if epoch ~= tonumber(ARGV[2]) then return 'epoch:' .. epoch end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('RPUSH', KEYS[4], ARGV[4])
redis.call('SET', KEYS[2], ver + 1)
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[5], ARGV[5])
  redis.call('LPUSH', KEYS[7], ARGV[5])
  redis.call('LTRIM', KEYS[7], 0, {KEPT_SNAPSHOTS - 1})
end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[8], ARGV[7], ARGV[8]) end
if ARGV[9] ~= '' then
  redis.call('LTRIM', KEYS[7], 0, 0)
  for i = 9, #KEYS do redis.call('EXPIRE', KEYS[i], ARGV[9]) end
end
redis.call('PUBLISH', KEYS[6], ARGV[6])
return 'ok'
"""

_FORGET_KEY = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
"""Delete a ``th:ckey:…`` only while it still names the table being deleted."""


def _ckey(game: str, digest: str) -> str:
    """``create_table`` key -> table (one key, its own slot on a cluster)."""
    return f"th:ckey:{game}:{digest}"


LISTED = 500
"""Tables the lobby lists (the most recently updated)."""

_MAP3 = b"\x83"  # msgpack: a map of 3 entries
_META, _ENTRY, _PROCESS = (pack(name) for name in ("meta", "entry", "process"))


def _commit_message(meta: bytes, entry: bytes, process: bytes) -> bytes:
    """``{"meta": …, "entry": …, "process": …}`` in msgpack, from parts already packed
    for the commit itself (each is encoded once)."""
    return b"".join((_MAP3, _META, meta, _ENTRY, entry, _PROCESS, process))


SOCKET_TIMEOUT_S = 2.0
"""A Redis reply slower than this counts as Redis being unavailable (never a hang)."""
PROBE_TIMEOUT_S = 1.0


@dataclasses.dataclass(slots=True)
class PendingCommit:
    """One commit of a group: the script's keys and arguments, the index updates beside
    it, the future its table awaits and when it was queued (``perf_counter``)."""

    table: str
    keys: list[Any]
    args: list[Any]
    index_ops: list[RedisCommand]
    future: asyncio.Future[None]
    queued: float


class RedisStore(Store):
    index_shards = 1
    """Sorted sets the table listing and the deadline index are split into."""

    def __init__(self, url: str) -> None:
        self.url = url
        address, self.durability = split_durability(url)
        process_id = f"{os.uname().nodename}-{os.getpid()}-{secrets.token_hex(3)}"
        self._packed_process_id = pack(process_id)
        self.redis: Any = self._connect(address)
        self._probe: Any = self._probe_client(address)
        self._answered_at = float("-inf")
        """When a group commit last came back from Redis (monotonic seconds)."""
        self._link = CommitLink(address, SOCKET_TIMEOUT_S)
        self.bus: RedisBus = self._make_bus(address, process_id)
        self._commit_sha = hashlib.sha1(_COMMIT.encode()).hexdigest()
        self._batch: list[PendingCommit] = []
        self._flush_scheduled = False
        self._connecting: asyncio.Future[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.keep_finished_s = retention.finished_seconds()
        """How long a finished game's keys live (``store/retention.py``)."""

    def _connect(self, address: str) -> Any:
        # redis-py's annotations mix bytes/str/Awaitable unions; replies are bytes here.
        # A blocking pool: under load a command waits for a free connection instead of
        # failing with MaxConnectionsError (seen at 1,000 players / 400 acts/s).
        pool = aioredis.BlockingConnectionPool.from_url(
            address,
            max_connections=64,
            timeout=10,
            socket_timeout=SOCKET_TIMEOUT_S,
            socket_connect_timeout=SOCKET_TIMEOUT_S / 2,
        )
        return aioredis.Redis(connection_pool=pool)

    def _probe_client(self, address: str) -> Any:
        """The reachability probe's client, with a connection of its own: on the shared
        pool a probe would wait behind a busy hub's commits and read as an outage."""
        return aioredis.Redis.from_url(
            address, single_connection_client=True, socket_timeout=PROBE_TIMEOUT_S
        )

    def _make_bus(self, address: str, process_id: str) -> RedisBus:
        return RedisBus(address, self.redis, process_id, self.durability, self._link)

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        quiet_driver_faults()
        await self.redis.ping()
        await self._open_commit_link()
        await self.bus.start()

    async def _open_commit_link(self) -> None:
        await self._link.connect()

    async def close(self) -> None:
        await self.bus.close()
        # Group commits under way end on their own (each is bounded by a timeout);
        # cancelled halfway, a pipeline would leave its connection open.
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._link.close()
        await self._probe.aclose()
        await self.redis.aclose(close_connection_pool=True)

    async def reachable(self, now: bool = False) -> bool:
        """True when commits came back within the last probe timeout (a busy hub's
        best evidence), else whether a ``PING`` on the probe's own connection does.

        ``now``: only the ``PING`` counts.  A peer deciding whether to send its players
        here asks so: with Redis flapping (restarted, then killed again at once) the
        commits of its moment up are still fresh evidence for a second after it went
        down again, and the peer would cut itself off for a store nobody has."""
        if not now and time.monotonic() - self._answered_at < PROBE_TIMEOUT_S:
            return True
        try:
            await asyncio.wait_for(self._probe.ping(), PROBE_TIMEOUT_S)
        except Exception:
            return False
        return True

    # -- persistence --------------------------------------------------------------------

    @translated
    async def create(self, record: TableRecord) -> None:
        t = record.table
        created = await self.redis.set(key(t, "ver"), record.version, nx=True)
        if not created:
            raise StoreError(f"table {t} exists")
        snapshot = pack({"version": record.version, "state": record.state})
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(key(t, "meta"), pack(record.meta()))
            pipe.set(key(t, "snap"), snapshot)
            pipe.lpush(key(t, "snaps"), snapshot)
            pipe.set(key(t, "epoch"), 0)
            await pipe.execute()
        await self.redis.zadd(self._index("tables", t), {t: record.updated_ms})

    @translated
    async def load(self, table: str) -> TableRecord | None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.get(key(table, "meta"))
            pipe.get(key(table, "snap"))
            pipe.get(key(table, "ver"))
            pipe.hgetall(key(table, "keys"))
            meta_blob, snap_blob, ver, act_keys = await pipe.execute()
        if meta_blob is None or snap_blob is None:
            return None
        meta, snap = unpack(meta_blob), unpack(snap_blob)
        version = int(ver)
        entries = []
        if snap["version"] < version:
            blobs = await self.redis.lrange(key(table, "log"), snap["version"], version - 1)
            entries = [unpack(b) for b in blobs]
        record = TableRecord.from_plain({**meta, "state": snap["state"]})
        if record.version != version:  # meta of a later commit than the snapshot
            raise StoreError(f"table {table}: meta at {record.version}, version {version}")
        record.state = replay_from(record, snap["state"], entries)
        record.act_keys = ActKeys.decoded(act_keys)
        return record

    def commit(
        self, record: TableRecord, entry: LogEntry, expected_version: int, epoch: int = 0
    ) -> asyncio.Future[None]:
        t = record.table
        meta, packed_entry = pack(record.meta()), pack(entry)
        snapshot = b""
        if record.version % SNAPSHOT_EVERY == 0 or str(record.status) == "finished":
            snapshot = pack({"version": record.version, "state": record.state})
        names = ("meta", "ver", "epoch", "log", "snap", "ch", "snaps", "keys")
        keys = [key(t, n) for n in names]
        finished = str(record.status) == "finished"
        if finished:  # expire with this commit, in its script (store/retention.py)
            keys += retention.finished_keys(t)
        seat_keys = b""  # an act with a key: that seat's act keys, rewritten
        if "key" in entry:
            seat_keys = record.act_keys.encoded(entry["seat"])
        args = [
            expected_version,
            epoch,
            meta,
            packed_entry,
            snapshot,
            _commit_message(meta, packed_entry, self._packed_process_id),
            entry.get("seat", 0),
            seat_keys,
            self.keep_finished_s if finished else b"",
        ]
        index_ops: list[RedisCommand] = [("ZADD", self._index("tables", t), record.updated_ms, t)]
        if record.deadline is not None:
            index_ops.append(("ZADD", self._index("deadlines", t), record.deadline, t))
        else:
            index_ops.append(("ZREM", self._index("deadlines", t), t))
        if finished:
            listing = self._index("tables", t)
            index_ops += retention.listing_ops(listing, record.updated_ms, self.keep_finished_s)
            if record.create_key is not None:  # its create_table key lives as long as it
                ckey = _ckey(record.game, record.create_key)
                index_ops.append(("EXPIRE", ckey, self.keep_finished_s))
        loop = asyncio.get_running_loop()
        commit = PendingCommit(t, keys, args, index_ops, loop.create_future(), time.perf_counter())
        self._batch.append(commit)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush_soon)
        return commit.future

    def _index(self, kind: str, table: str) -> str:
        return index_key(kind, table, self.index_shards)

    def _flush_soon(self) -> None:
        self._flush_scheduled = False
        batch, self._batch = self._batch, []
        metrics.COMMIT_PHASE.labels("queued").observe(time.perf_counter() - batch[0].queued)
        self._dispatch(batch)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _dispatch(self, batch: list[PendingCommit], retried: bool = False) -> None:
        """Group commit: every commit of this loop iteration in one write on the commit
        link (``redis_link.py``), right now; its replies settle the commits as they
        arrive.  When the link is down it is opened again first (in a task).

        The script goes by its SHA (``EVALSHA``).  A Redis without the script in its
        cache (restarted, or a promoted replica) answers ``NOSCRIPT`` without running
        anything; the script is then loaded and the group sent again -- the index
        updates beside the commits are idempotent."""
        if self._link.ready:
            self._send_group(batch, retried)
        else:
            self._spawn(self._reconnect_then_send(batch, retried))

    def _send_group(self, batch: list[PendingCommit], retried: bool) -> None:
        commands: list[RedisCommand] = [
            ("EVALSHA", self._commit_sha, len(c.keys), *c.keys, *c.args) for c in batch
        ]
        commands.extend(op for commit in batch for op in commit.index_ops)
        if self.durability == "replica":  # on the same connection, after the commits
            commands.append(("WAIT", 1, REPLICA_WAIT_MS))
        sent = time.perf_counter()

        def answered(replies: Replies) -> None:
            self._answered(batch, replies, sent, retried)

        self._link.send(commands, answered)

    def _answered(
        self, batch: list[PendingCommit], replies: Replies, sent: float, retried: bool
    ) -> None:
        if isinstance(replies, BaseException):
            self._answered_at = float("-inf")  # no longer evidence that the store answers
            settle_commits(batch, replies)
            return
        results = replies[: len(batch)]
        if not retried and any(isinstance(r, NoScriptError) for r in results):
            self._spawn(self._load_script_then_send(batch))
            return
        self._answered_at = time.monotonic()
        metrics.COMMIT_PHASE.labels("redis").observe(time.perf_counter() - sent)
        replicated = self.durability != "replica" or _replicated(replies[-1])
        settle_commits(batch, results, replicated)

    async def _reconnect_then_send(self, batch: list[PendingCommit], retried: bool) -> None:
        try:
            if self._connecting is None or self._connecting.done():
                self._connecting = asyncio.ensure_future(self._link.connect())
            await asyncio.shield(self._connecting)  # one reconnect for every group waiting
        except Exception as err:
            self._answered_at = float("-inf")
            settle_commits(batch, err)
            return
        self._send_group(batch, retried)

    async def _load_script_then_send(self, batch: list[PendingCommit]) -> None:
        try:
            await self.redis.script_load(_COMMIT)
        except Exception as err:
            settle_commits(batch, err)
            return
        self._dispatch(batch, retried=True)

    @translated
    async def log(self, table: str) -> list[LogEntry]:
        return [unpack(b) for b in await self.redis.lrange(key(table, "log"), 0, -1)]

    @translated
    async def record_at(self, current: TableRecord, version: int) -> TableRecord | None:
        snaps = [unpack(b) for b in await self.redis.lrange(key(current.table, "snaps"), 0, -1)]
        base = next((s for s in snaps if s["version"] <= version), None)
        if base is None:
            return None
        first = max(0, base["version"] - 1)  # the entry at the base version too: its status
        blobs = await self.redis.lrange(key(current.table, "log"), first, current.version - 1)
        log = [unpack(b) for b in blobs]
        return record_at(current, version, base["state"], base["version"], log)

    @translated
    async def log_tail(self, table: str, count: int) -> list[LogEntry]:
        return [unpack(b) for b in await self.redis.lrange(key(table, "log"), -count, -1)]

    @translated
    async def tables(self) -> list[TableRecord]:
        """The 500 tables updated last (every index shard's, merged)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in index_keys("tables", self.index_shards):
                pipe.zrevrange(name, 0, LISTED - 1, withscores=True)
            shards = await pipe.execute()
        newest = sorted((pair for shard in shards for pair in shard), key=lambda p: -p[1])
        ids = [table.decode() for table, _ in newest[:LISTED]]
        if not ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for t in ids:
                pipe.get(key(t, "meta"))
            metas = await pipe.execute()
        out = []
        for blob in metas:
            if blob is not None:
                meta = unpack(blob)
                out.append(TableRecord.from_plain({**meta, "state": {}}))
        return out

    @translated
    async def delete(self, table: str) -> None:
        meta_blob = await self.redis.get(key(table, "meta"))
        names = ("meta", "ver", "epoch", "lease", "log", "snap", "snaps", "in", "pres", "keys")
        await self.redis.delete(*[key(table, n) for n in names])
        meta = unpack(meta_blob) if meta_blob is not None else {}
        if meta.get("create_key") is not None:
            name = _ckey(meta["game"], meta["create_key"])
            await self.redis.eval(_FORGET_KEY, 1, name, table)
        await self.redis.zrem(self._index("tables", table), table)
        await self.redis.zrem(self._index("deadlines", table), table)

    @translated
    async def keyed_table(self, game: str, digest: str) -> str | None:
        table = await self.redis.get(_ckey(game, digest))
        if table is None or not await self.redis.exists(key(table.decode(), "ver")):
            return None  # never made, or a table deleted halfway (its key outlived it)
        return str(table.decode())

    @translated
    async def claim_key(self, game: str, digest: str, table: str) -> str:
        name = _ckey(game, digest)
        if await self.redis.set(name, table, nx=True):
            return table
        holder = await self.keyed_table(game, digest)
        if holder is not None:
            return holder
        await self.redis.set(name, table)  # the key outlived its table: it is ours now
        return table


def _replicated(wait_reply: Any) -> bool:
    """Whether ``WAIT 1``'s reply says a replica has every write before it."""
    return isinstance(wait_reply, int) and wait_reply >= 1


def settle_commits(batch: list[PendingCommit], results: Any, replicated: bool = True) -> None:
    """Answer the commits of one group commit: each with the script's reply (``ok``, or
    :class:`VersionConflict` for a refusal), or with the group's error (``results``
    an exception) or its own.  A commit Redis stored but no replica confirmed
    (``replicated`` false) is answered :class:`StoreUnavailable`: its fate is unknown
    until the table is reloaded."""
    now = time.perf_counter()
    for index, commit in enumerate(batch):
        future = commit.future
        if future.done():
            continue
        metrics.COMMIT_LATENCY.observe(now - commit.queued)
        result = results if isinstance(results, BaseException) else results[index]
        if isinstance(result, BaseException):
            future.set_exception(store_error(result))
        elif not replicated and result == b"ok":
            future.set_exception(StoreUnavailable("no replica confirmed the commit in time"))
        elif result != b"ok":
            reply = result.decode() if isinstance(result, bytes) else str(result)
            future.set_exception(VersionConflict(f"table {commit.table}: commit refused ({reply})"))
        else:
            future.set_result(None)
