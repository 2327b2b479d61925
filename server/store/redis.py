"""``redis://``: tables in Redis, shared by any number of hub processes.

Theory of operation (docs/design.md "Tables, persistence and scale"):

Keys of one table share the hash tag ``{T}`` (Redis Cluster friendly)::

    th:{T}:meta   msgpack record without the game state (seats, status, deadline…)
    th:{T}:ver    the committed version (int)
    th:{T}:epoch  the ownership epoch (fencing token, int)
    th:{T}:lease  "<process>:<epoch>" with a TTL: who runs the table now
    th:{T}:log    list of msgpack log entries; entry v sits at index v-1
    th:{T}:snap   msgpack {"version", "state"}: the latest full state
    th:{T}:snaps  the last KEPT_SNAPSHOTS of those (history for catch-up patches)
    th:{T}:in     stream: commands forwarded to the owner by other processes
    th:{T}:ch     pub/sub channel: every commit ({"meta", "entry"})
    th:{T}:pres   hash process -> msgpack presence of that process's sockets
    th:{T}:keys   hash seat -> msgpack act keys of that seat and their answers

plus the global ``th:tables`` (zset by update time), ``th:deadlines`` (zset by due
time), per-process ``th:reply:<process>`` channels for forwarded replies, and
``th:ckey:<game>:<digest>`` -> table for ``create_table`` keys (as long as the table
lives).

A commit is one Lua script on the ``{T}`` keys: it checks the expected version and
the caller's epoch, stores meta and log entry (and a state snapshot every
``SNAPSHOT_EVERY`` versions and at the end), bumps the version and publishes the
commit -- all or nothing.  The current state is the snapshot plus the log after it.
Commits from many tables are sent together: all commits requested during one loop
iteration go out in one pipeline (group commit).

Ownership: ``acquire`` takes a free lease and increments the epoch; the owner renews
its leases from a thread of its own (``leases.py``: a busy event loop cannot starve
renewal); a commit with a stale epoch is refused, so a paused or partitioned old
owner can never write over its successor.  When the owner dies its leases expire and
the next process that needs the table (a command, or the deadline sweeper) takes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import secrets
import time
from collections.abc import Callable
from typing import Any

import msgpack
import redis.asyncio as aioredis

from tablehub.server import metrics
from tablehub.server.store.base import RemoteCommit, Store, StoreError, VersionConflict
from tablehub.server.store.leases import LeaseKeeper
from tablehub.server.tables.idempotency import ActKeys
from tablehub.server.tables.record import LogEntry, TableRecord, record_at, replay_from

log = logging.getLogger("tablehub.redis")

SNAPSHOT_EVERY = 32
KEPT_SNAPSHOTS = 4
"""Recent snapshots kept per table: a client that reconnects anywhere within the last
~SNAPSHOT_EVERY * (KEPT_SNAPSHOTS - 1) versions gets one catch-up patch, not a snapshot."""
LEASE_MS = int(os.environ.get("TABLEHUB_LEASE_MS", "3000"))
FORWARD_TIMEOUT_S = max(0.2, min(1.0, LEASE_MS / 2000))
"""Per attempt; the hub retries (same command id) and takes over a dead owner's table,
so failover after a crash takes about max(lease, this)."""

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
redis.call('PUBLISH', KEYS[6], ARGV[6])
return 'ok'
"""

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if redis.call('EXISTS', KEYS[3]) == 0 then return -2 end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. epoch, 'PX', ARGV[2])
return epoch
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_FORGET_KEY = _RELEASE
"""Delete a ``th:ckey:…`` only while it still names the table being deleted."""


def _k(table: str, name: str) -> str:
    return f"th:{{{table}}}:{name}"


def _ckey(game: str, digest: str) -> str:
    return f"th:ckey:{game}:{digest}"


def _pack(value: Any) -> bytes:
    out: bytes = msgpack.packb(value, use_bin_type=True)
    return out


def _unpack(blob: bytes) -> Any:
    return msgpack.unpackb(blob, raw=False, strict_map_key=False)


_MAP3 = b"\x83"  # msgpack: a map of 3 entries
_META, _ENTRY, _PROCESS = (_pack(key) for key in ("meta", "entry", "process"))


def _commit_message(meta: bytes, entry: bytes, process: bytes) -> bytes:
    """``{"meta": …, "entry": …, "process": …}`` in msgpack, from parts already packed
    for the commit itself (each is encoded once)."""
    return b"".join((_MAP3, _META, meta, _ENTRY, entry, _PROCESS, process))


class RedisStore(Store):
    multi_process = True

    def __init__(self, url: str) -> None:
        self.url = url
        self.process_id = f"{os.uname().nodename}-{os.getpid()}-{secrets.token_hex(3)}"
        self._packed_process_id = _pack(self.process_id)
        # redis-py's annotations mix bytes/str/Awaitable unions; replies are bytes here.
        # A blocking pool: under load a command waits for a free connection instead of
        # failing with MaxConnectionsError (seen at 1,000 players / 400 acts/s).
        pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=64, timeout=10)
        self.redis: Any = aioredis.Redis(connection_pool=pool)
        self._commit_script = self.redis.register_script(_COMMIT)
        self._acquire_script = self.redis.register_script(_ACQUIRE)
        self._release_script = self.redis.register_script(_RELEASE)
        self._forget_key_script = self.redis.register_script(_FORGET_KEY)
        self._batch: list[tuple[list[Any], list[Any], list[Any], asyncio.Future[str]]] = []
        self._flush_scheduled = False
        self._leases = LeaseKeeper(
            url, self.process_id, LEASE_MS, lambda t: _k(t, "lease"), self._lease_lost
        )
        self._watchers: dict[str, Callable[[RemoteCommit], None]] = {}
        self._inbox_handlers: dict[str, Callable[[dict[str, Any]], Any]] = {}
        self._inbox_ids: dict[str, str] = {}
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reply_ids = itertools.count(1)
        self._presence_listeners: dict[str, Callable[[], None]] = {}
        self._pubsub: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self.lost_lease: Callable[[str], None] = lambda table: None

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        await self.redis.ping()
        self._leases.start(asyncio.get_running_loop())
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(f"th:reply:{self.process_id}")
        self._tasks = [
            asyncio.create_task(self._listen(), name="redis-pubsub"),
            asyncio.create_task(self._read_inboxes(), name="redis-inbox"),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._leases.stop()
        for table, epoch in self._leases.held().items():
            with contextlib.suppress(Exception):
                await self.release(table, epoch)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        await self.redis.aclose(close_connection_pool=True)

    # -- persistence --------------------------------------------------------------------

    async def create(self, record: TableRecord) -> None:
        t = record.table
        created = await self.redis.set(_k(t, "ver"), record.version, nx=True)
        if not created:
            raise StoreError(f"table {t} exists")
        snapshot = _pack({"version": record.version, "state": record.state})
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(_k(t, "meta"), _pack(record.meta()))
            pipe.set(_k(t, "snap"), snapshot)
            pipe.lpush(_k(t, "snaps"), snapshot)
            pipe.set(_k(t, "epoch"), 0)
            pipe.zadd("th:tables", {t: record.updated_ms})
            await pipe.execute()

    async def load(self, table: str) -> TableRecord | None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.get(_k(table, "meta"))
            pipe.get(_k(table, "snap"))
            pipe.get(_k(table, "ver"))
            pipe.hgetall(_k(table, "keys"))
            meta_blob, snap_blob, ver, act_keys = await pipe.execute()
        if meta_blob is None or snap_blob is None:
            return None
        meta, snap = _unpack(meta_blob), _unpack(snap_blob)
        version = int(ver)
        entries = []
        if snap["version"] < version:
            blobs = await self.redis.lrange(_k(table, "log"), snap["version"], version - 1)
            entries = [_unpack(b) for b in blobs]
        record = TableRecord.from_plain({**meta, "state": snap["state"]})
        if record.version != version:  # meta of a later commit than the snapshot
            raise StoreError(f"table {table}: meta at {record.version}, version {version}")
        record.state = replay_from(record, snap["state"], entries)
        record.act_keys = ActKeys.decoded(act_keys)
        return record

    async def commit(
        self, record: TableRecord, entry: LogEntry, expected_version: int, epoch: int = 0
    ) -> None:
        t = record.table
        meta, packed_entry = _pack(record.meta()), _pack(entry)
        snapshot = b""
        if record.version % SNAPSHOT_EVERY == 0 or str(record.status) == "finished":
            snapshot = _pack({"version": record.version, "state": record.state})
        names = ("meta", "ver", "epoch", "log", "snap", "ch", "snaps", "keys")
        keys = [_k(t, n) for n in names]
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
        ]
        index_ops: list[Any] = [("zadd", "th:tables", {t: record.updated_ms})]
        if record.deadline is not None:
            index_ops.append(("zadd", "th:deadlines", {t: record.deadline}))
        else:
            index_ops.append(("zrem", "th:deadlines", t))
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._batch.append((keys, args, index_ops, future))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush_soon)
        started = time.perf_counter()
        result = await future
        metrics.COMMIT_LATENCY.observe(time.perf_counter() - started)
        if result != "ok":
            raise VersionConflict(f"table {t}: commit refused ({result})")

    def _flush_soon(self) -> None:
        self._flush_scheduled = False
        batch, self._batch = self._batch, []
        task = asyncio.get_running_loop().create_task(self._flush(batch))
        task.add_done_callback(lambda _: None)

    async def _flush(
        self, batch: list[tuple[list[Any], list[Any], list[Any], asyncio.Future[str]]]
    ) -> None:
        """Group commit: every commit of this loop iteration in one pipeline."""
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for keys, args, _, _ in batch:
                    await self._commit_script(keys=keys, args=args, client=pipe)
                for _, _, ops, _ in batch:
                    for op, *op_args in ops:
                        getattr(pipe, op)(*op_args)
                results = await pipe.execute(raise_on_error=False)
        except Exception as err:
            for *_, future in batch:
                if not future.done():
                    future.set_exception(StoreError(f"redis commit failed: {err}"))
            return
        for (*_, future), result in zip(batch, results, strict=False):
            if future.done():
                continue
            if isinstance(result, Exception):
                future.set_exception(StoreError(f"redis commit failed: {result}"))
            else:
                future.set_result(result.decode() if isinstance(result, bytes) else str(result))

    async def log(self, table: str) -> list[LogEntry]:
        return [_unpack(b) for b in await self.redis.lrange(_k(table, "log"), 0, -1)]

    async def record_at(self, current: TableRecord, version: int) -> TableRecord | None:
        snaps = [_unpack(b) for b in await self.redis.lrange(_k(current.table, "snaps"), 0, -1)]
        base = next((s for s in snaps if s["version"] <= version), None)
        if base is None:
            return None
        first = max(0, base["version"] - 1)  # the entry at the base version too: its status
        blobs = await self.redis.lrange(_k(current.table, "log"), first, current.version - 1)
        log = [_unpack(b) for b in blobs]
        return record_at(current, version, base["state"], base["version"], log)

    async def log_tail(self, table: str, count: int) -> list[LogEntry]:
        return [_unpack(b) for b in await self.redis.lrange(_k(table, "log"), -count, -1)]

    async def tables(self) -> list[TableRecord]:
        ids = [i.decode() for i in await self.redis.zrevrange("th:tables", 0, 499)]
        if not ids:
            return []
        metas = await self.redis.mget([_k(t, "meta") for t in ids])
        out = []
        for blob in metas:
            if blob is not None:
                meta = _unpack(blob)
                out.append(TableRecord.from_plain({**meta, "state": {}}))
        return out

    async def delete(self, table: str) -> None:
        meta = await self.redis.get(_k(table, "meta"))
        names = ("meta", "ver", "epoch", "lease", "log", "snap", "snaps", "in", "pres", "keys")
        await self.redis.delete(*[_k(table, n) for n in names])
        meta = _unpack(meta) if meta is not None else {}
        if meta.get("create_key") is not None:
            name = _ckey(meta["game"], meta["create_key"])
            await self._forget_key_script(keys=[name], args=[table])
        await self.redis.zrem("th:tables", table)
        await self.redis.zrem("th:deadlines", table)

    async def keyed_table(self, game: str, digest: str) -> str | None:
        table = await self.redis.get(_ckey(game, digest))
        if table is None or not await self.redis.exists(_k(table.decode(), "ver")):
            return None  # never made, or a table deleted halfway (its key outlived it)
        return str(table.decode())

    async def claim_key(self, game: str, digest: str, table: str) -> str:
        name = _ckey(game, digest)
        if await self.redis.set(name, table, nx=True):
            return table
        holder = await self.keyed_table(game, digest)
        if holder is not None:
            return holder
        await self.redis.set(name, table)  # the key outlived its table: it is ours now
        return table

    # -- ownership ----------------------------------------------------------------------

    async def acquire(self, table: str) -> int | None:
        """Take the table's lease if nobody holds it; the new epoch, or None."""
        epoch = int(
            await self._acquire_script(
                keys=[_k(table, "lease"), _k(table, "epoch"), _k(table, "ver")],
                args=[self.process_id, LEASE_MS],
            )
        )
        if epoch < 0:
            return None
        self._leases.hold(table, epoch)
        return epoch

    async def release(self, table: str, epoch: int) -> None:
        self._leases.drop(table)
        self._inbox_handlers.pop(table, None)
        self._inbox_ids.pop(table, None)
        await self._release_script(keys=[_k(table, "lease")], args=[f"{self.process_id}:{epoch}"])

    def _lease_lost(self, table: str, epoch: int) -> None:
        """Called on the loop by the lease thread: the table's lease is gone."""
        self._inbox_handlers.pop(table, None)
        self.lost_lease(table)

    @property
    def shedding(self) -> str | None:
        return self._leases.shedding

    async def due_deadlines(self, now_ms: int) -> list[str]:
        ids = await self.redis.zrangebyscore("th:deadlines", "-inf", now_ms, start=0, num=50)
        return [i.decode() for i in ids]

    # -- fan-out across processes ---------------------------------------------------------

    async def watch(self, table: str, on_commit: Callable[[RemoteCommit], None]) -> None:
        self._watchers[table] = on_commit
        assert self._pubsub is not None
        await self._pubsub.subscribe(_k(table, "ch"))

    async def unwatch(self, table: str) -> None:
        self._watchers.pop(table, None)
        self._presence_listeners.pop(table, None)
        if self._pubsub is not None:
            await self._pubsub.unsubscribe(_k(table, "ch"), _k(table, "pres"))

    async def latest_versions(self, tables: list[str]) -> dict[str, int]:
        if not tables:
            return {}
        values = await self.redis.mget([_k(t, "ver") for t in tables])
        return {t: int(v) for t, v in zip(tables, values, strict=True) if v is not None}

    async def _listen(self) -> None:
        assert self._pubsub is not None
        while True:
            try:
                if not self._pubsub.subscribed:
                    await asyncio.sleep(0.05)
                    continue
                message = await self._pubsub.get_message(timeout=1.0)
            except Exception as err:
                log.warning("pub/sub failed, retrying: %s", err)
                await asyncio.sleep(0.2)
                continue
            if message is None:
                continue
            channel = message["channel"].decode()
            try:
                self._on_message(channel, message["data"])
            except Exception:
                log.exception("bad pub/sub message on %s", channel)

    def _on_message(self, channel: str, data: bytes) -> None:
        if channel.startswith("th:reply:"):
            reply = _unpack(data)
            future = self._replies.pop(reply["rid"], None)
            if future is not None and not future.done():
                future.set_result(reply)
            return
        table = channel[channel.index("{") + 1 : channel.index("}")]
        if channel.endswith(":pres"):
            listener = self._presence_listeners.get(table)
            if listener is not None:
                listener()
            return
        watcher = self._watchers.get(table)
        if watcher is not None:
            payload = _unpack(data)
            if payload["process"] != self.process_id:  # our own commits are fanned out already
                watcher(RemoteCommit(payload["meta"], payload["entry"]))

    # -- forwarding commands to the owner -------------------------------------------------

    async def forward(self, table: str, command: dict[str, Any]) -> dict[str, Any]:
        """Send a command to the table's owner; its reply ({"ok": …} or {"error": …})."""
        rid = next(self._reply_ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[rid] = future
        try:
            await self.redis.xadd(
                _k(table, "in"),
                {"cmd": _pack(command), "reply": self.process_id, "rid": rid},
                maxlen=1000,
                approximate=True,
            )
            return await asyncio.wait_for(future, FORWARD_TIMEOUT_S)
        finally:
            self._replies.pop(rid, None)

    async def serve_inbox(self, table: str, handler: Callable[[dict[str, Any]], Any]) -> None:
        """Handle commands forwarded to ``table`` (from now on) with ``handler``."""
        last = await self.redis.xrevrange(_k(table, "in"), count=1)
        self._inbox_ids[table] = last[0][0].decode() if last else "0-0"
        self._inbox_handlers[table] = handler

    async def _read_inboxes(self) -> None:
        reader: Any = aioredis.Redis.from_url(self.url)
        try:
            while True:
                streams = {_k(t, "in"): self._inbox_ids[t] for t in self._inbox_handlers}
                if not streams:
                    await asyncio.sleep(0.05)
                    continue
                try:
                    batches = await reader.xread(streams, block=100, count=100)
                except Exception as err:
                    log.warning("inbox read failed: %s", err)
                    await asyncio.sleep(0.2)
                    continue
                for stream, items in batches:
                    name = stream.decode()
                    table = name[name.index("{") + 1 : name.index("}")]
                    for item_id, fields in items:
                        self._inbox_ids[table] = item_id.decode()
                        handler = self._inbox_handlers.get(table)
                        if handler is not None:
                            asyncio.get_running_loop().create_task(
                                self._serve_one(table, handler, fields)
                            )
        finally:
            await reader.aclose()

    async def _serve_one(
        self, table: str, handler: Callable[[dict[str, Any]], Any], fields: dict[bytes, bytes]
    ) -> None:
        try:
            reply = {"rid": int(fields[b"rid"])}
            reply.update(await handler(_unpack(fields[b"cmd"])))
            await self.redis.publish(f"th:reply:{fields[b'reply'].decode()}", _pack(reply))
        except Exception:  # the sender retries (same command id) or times out
            log.exception("forwarded command for table %s failed", table)

    # -- presence across processes --------------------------------------------------------

    async def set_presence(self, table: str, presence: dict[str, Any]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(_k(table, "pres"), self.process_id, _pack(presence))
            pipe.pexpire(_k(table, "pres"), 24 * 3600 * 1000)
            pipe.publish(_k(table, "pres"), b"")
            pipe.set(f"th:proc:{self.process_id}", 1, px=LEASE_MS * 2)
            await pipe.execute()

    async def presence(self, table: str) -> list[dict[str, Any]]:
        """Presence of every live process (those whose heartbeat key exists)."""
        entries = await self.redis.hgetall(_k(table, "pres"))
        if not entries:
            return []
        procs = [p.decode() for p in entries]
        alive = await self.redis.mget([f"th:proc:{p}" for p in procs])
        return [
            _unpack(entries[p.encode()])
            for p, ok in zip(procs, alive, strict=True)
            if ok is not None or p == self.process_id
        ]

    async def listen_presence(self, table: str, listener: Callable[[], None]) -> None:
        self._presence_listeners[table] = listener
        assert self._pubsub is not None
        await self._pubsub.subscribe(_k(table, "pres"))
