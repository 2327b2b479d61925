"""The coordination bus over Redis: ownership, forwarding, fan-out, presence, deadlines.

Keys and channels (the whole layout is in ``redis.py``): ``th:{T}:lease`` and
``th:{T}:epoch`` (ownership with a fencing epoch), ``th:{T}:in`` (the channel of
commands forwarded to the owner, which alone subscribes to it), ``th:{T}:ch`` (every
commit, published by the store's commit script), ``th:{T}:pres`` (presence per
process), ``th:deadlines`` and the per-process ``th:reply:<process>`` channels for
forwarded replies.

Forwarding is pub/sub, not a stream: a command published while no owner listens is
lost, and its sender retries it (same command id) after ``FORWARD_TIMEOUT_S`` or
takes the table over -- what a stream would have given too, since a new owner only
reads commands sent after it took the table.  (A stream read over every owned
table's key, re-sent after each command, cost ~10% of a hub's CPU under load.)

Ownership: ``acquire`` takes a free lease and increments the epoch; the owner renews
its leases from a thread of its own (``leases.py``: a busy event loop cannot starve
renewal); a commit with a stale epoch is refused by the store, so a paused or
partitioned old owner can never write over its successor.  When the owner dies its
leases expire and the next process that needs the table (a command, or the deadline
sweeper) takes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Callable
from typing import Any

import redis

from tablehub.server.ops.cancelling import stopping
from tablehub.server.ops.faults import store_unreachable
from tablehub.server.store.bus import Bus, RemoteCommit
from tablehub.server.store.leases import UNHEARD, LeaseKeeper
from tablehub.server.store.redis_keys import (
    index_keys,
    key,
    pack,
    table_of,
    translated,
    unpack,
)
from tablehub.server.store.redis_link import CommitLink, RedisCommand, Replies
from tablehub.server.tables.journal import StoreUnavailable

log = logging.getLogger("tablehub.redis")

LEASE_MS = int(os.environ.get("TABLEHUB_LEASE_MS", "3000"))
FORWARD_TIMEOUT_S = max(0.2, min(1.0, LEASE_MS / 2000))
"""Per attempt; the hub retries (same command id) and takes over a dead owner's table,
so failover after a crash takes about max(lease, this)."""
REPLICA_WAIT_MS = 1000
"""``replica`` durability: how long a write waits for a replica's confirmation."""
DUE_PER_SWEEP = 50

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if redis.call('EXISTS', KEYS[3]) == 0 then return -2 end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. epoch, 'PX', ARGV[2])
return epoch
"""

_MARK_UNHEARD = """
local lease = redis.call('GET', KEYS[1])
if not lease then return 0 end
redis.call('SET', KEYS[2], lease, 'PX', ARGV[1])
return 1
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisBus(Bus):
    multi_process = True
    lease_ms = LEASE_MS

    index_shards = 1

    def __init__(
        self,
        url: str,
        client: Any,
        process_id: str,
        durability: str,
        link: CommitLink | None = None,
    ) -> None:
        """``client``: the store's ``redis.asyncio.Redis`` (shared; the store closes it);
        ``link``: the store's commit link, which also carries the messages this bus
        sends without waiting for Redis's answer (forwarded commands, their replies,
        presence) while it is open."""
        super().__init__()
        self.url = url
        self.redis = client
        self._link = link
        self.process_id = process_id
        self.durability = durability
        self._acquire_script = self.redis.register_script(_ACQUIRE)
        self._release_script = self.redis.register_script(_RELEASE)
        self._leases = LeaseKeeper(
            url,
            self.process_id,
            LEASE_MS,
            lambda t: key(t, "lease"),
            self._lease_lost,
            self._lease_client,
        )
        self._watchers: dict[str, Callable[[RemoteCommit], None]] = {}
        self._inbox_handlers: dict[str, Callable[[dict[str, Any]], Any]] = {}
        self._reply_channel = f"th:reply:{process_id}"
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reply_ids = itertools.count(1)
        self._presence_listeners: dict[str, Callable[[], None]] = {}
        self._undelivered = 0
        """Messages the commit link failed to deliver since the last one it delivered:
        the first failure of an outage is logged, the rest only counted."""
        self._pubsub: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._leaving: set[asyncio.Task[None]] = set()
        """Unsubscriptions from inboxes under way (:meth:`stop_serving`)."""
        self._closing = False

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        self._leases.start(asyncio.get_running_loop())
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._subscribe(self._reply_channel)
        self._tasks = [asyncio.create_task(self._listen(), name="redis-pubsub")]

    async def close(self) -> None:
        self._closing = True  # no more subscription changes: the listener goes now
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

    # -- ownership ----------------------------------------------------------------------

    def _lease_client(self) -> Any:
        """The lease thread's own synchronous client."""
        return redis.Redis.from_url(self.url, socket_timeout=LEASE_MS / 2000)

    @translated
    async def acquire(self, table: str) -> int | None:
        """Take the table's lease if nobody holds it; the new epoch, or None.

        With ``replica`` durability the new epoch must reach a replica first: a
        failover must never hand the same epoch to a second owner."""
        keys = [key(table, "lease"), key(table, "epoch"), key(table, "ver")]
        args = [self.process_id, LEASE_MS]
        if self.durability == "replica":
            async with self.redis.pipeline(transaction=False) as pipe:
                await self._acquire_script(keys=keys, args=args, client=pipe)
                pipe.execute_command("WAIT", 1, REPLICA_WAIT_MS)
                reply, replicas = await pipe.execute()
            if int(reply) >= 0 and not int(replicas) >= 1:
                raise StoreUnavailable(f"table {table}: no replica confirmed the new epoch")
        else:
            reply = await self._acquire_script(keys=keys, args=args)
        epoch = int(reply)
        if epoch < 0:
            return None
        self._leases.hold(table, epoch)
        return epoch

    @translated
    async def release(self, table: str, epoch: int) -> None:
        if self._leases.drop(table, epoch):  # (not a newer epoch's lease and inbox)
            self.stop_serving(table)  # first: the store may be the one failing
        await self._release_script(keys=[key(table, "lease")], args=[f"{self.process_id}:{epoch}"])

    @translated
    async def unheard(self, table: str) -> bool:
        """Mark the table's present lease unheard: its owner's next renewal gives it up
        (leases.py)."""
        lease = key(table, "lease")
        marked = await self.redis.eval(_MARK_UNHEARD, 2, lease, lease + UNHEARD, LEASE_MS * 2)
        return bool(marked)

    def _lease_lost(self, table: str, epoch: int) -> None:
        """Called on the loop by the lease thread: the table's lease is gone."""
        self.stop_serving(table)
        self.lost_lease(table)

    def stop_serving(self, table: str) -> None:
        """Serve no more commands forwarded to ``table`` (from now on; the channel is
        left in the background)."""
        if self._inbox_handlers.pop(table, None) is not None:
            task = asyncio.get_running_loop().create_task(self._leave_inbox(table))
            self._leaving.add(task)
            task.add_done_callback(self._leaving.discard)

    async def _leave_inbox(self, table: str) -> None:
        with contextlib.suppress(Exception):  # its server may be the one that failed
            await self._unsubscribe(key(table, "in"))

    @property
    def refusing_tables(self) -> str | None:
        return self._leases.refusing_tables

    @translated
    async def due_deadlines(self, now_ms: int) -> list[str]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in index_keys("deadlines", self.index_shards):
                pipe.zrangebyscore(name, "-inf", now_ms, start=0, num=DUE_PER_SWEEP)
            shards = await pipe.execute()
        return [i.decode() for shard in shards for i in shard][:DUE_PER_SWEEP]

    # -- what differs on Redis Cluster (redis_cluster.py) ---------------------------------

    async def _get_many(self, names: list[str]) -> list[Any]:
        """``GET`` of many keys (one ``MGET``; split by slot on a cluster)."""
        return list(await self.redis.mget(names))

    publish_command = "PUBLISH"
    """How a message goes on a table's channel (``SPUBLISH`` on a cluster)."""

    def _sent_on_link(self, commands: list[RedisCommand]) -> bool:
        """Send ``commands`` on the commit link without waiting for their answer, if it
        is open (a failure is only logged: see :meth:`_unanswered`)."""
        if self._link is None or not self._link.ready:
            return False
        self._link.send(commands, self._unanswered)
        return True

    @translated
    async def _publish_now(self, channel: str, data: bytes) -> None:
        if self._closing:  # (a closed pool would open a connection nobody closes)
            return
        if not self._sent_on_link([(self.publish_command, channel, data)]):
            await self.redis.publish(channel, data)

    async def _subscribe(self, *channels: str) -> None:
        """Subscribe this process's listener (``SSUBSCRIBE`` on a cluster)."""
        assert self._pubsub is not None
        await self._pubsub.subscribe(*channels)

    async def _unsubscribe(self, *channels: str) -> None:
        """(Once closing, nothing: a closed listener would reconnect to do it, and leak
        that connection.)"""
        if self._pubsub is not None and not self._closing:
            await self._pubsub.unsubscribe(*channels)

    # -- fan-out across processes ---------------------------------------------------------

    @translated
    async def watch(self, table: str, on_commit: Callable[[RemoteCommit], None]) -> None:
        self._watchers[table] = on_commit
        await self._subscribe(key(table, "ch"))

    @translated
    async def unwatch(self, table: str) -> None:
        self._watchers.pop(table, None)
        self._presence_listeners.pop(table, None)
        await self._unsubscribe(key(table, "ch"), key(table, "pres"))

    @translated
    async def latest_versions(self, tables: list[str]) -> dict[str, int]:
        if not tables:
            return {}
        values = await self._get_many([key(t, "ver") for t in tables])
        return {t: int(v) for t, v in zip(tables, values, strict=True) if v is not None}

    async def _listen(self) -> None:
        assert self._pubsub is not None
        failing = False
        while not stopping():
            try:
                if not self._pubsub.subscribed:
                    await asyncio.sleep(0.05)
                    continue
                message = await self._pubsub.get_message(timeout=1.0)
            except Exception as err:
                store_unreachable("the pub/sub listener", err)
                failing = True
                await asyncio.sleep(0.2)
                continue
            if failing:
                log.info("pub/sub listening again")
                failing = False
            if message is not None:
                self._dispatch(message, self._on_message)

    def _dispatch(self, message: dict[str, Any], handle: Callable[[str, bytes], None]) -> None:
        """Hand one pub/sub message to ``handle``: a bad one is logged, never fatal."""
        channel = message["channel"].decode()
        try:
            handle(channel, message["data"])
        except Exception:
            log.exception("bad pub/sub message on %s", channel)

    def _on_message(self, channel: str, data: bytes) -> None:
        if channel == self._reply_channel:
            reply = unpack(data)
            future = self._replies.pop(reply["rid"], None)
            if future is not None and not future.done():
                future.set_result(reply)
            return
        table = table_of(channel)
        if channel.endswith(":in"):
            handler = self._inbox_handlers.get(table)
            if handler is not None:
                asyncio.get_running_loop().create_task(self._serve(table, handler, unpack(data)))
            return
        if channel.endswith(":pres"):
            listener = self._presence_listeners.get(table)
            if listener is not None:
                listener()
            return
        watcher = self._watchers.get(table)
        if watcher is not None:
            payload = unpack(data)
            if payload["process"] != self.process_id:  # our own commits are fanned out already
                watcher(RemoteCommit(payload["meta"], payload["entry"]))

    # -- forwarding commands to the owner -------------------------------------------------

    @translated
    async def forward(self, table: str, command: dict[str, Any]) -> dict[str, Any]:
        """Send a command to the table's owner; its reply ({"ok": …} or {"error": …})."""
        rid = next(self._reply_ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[rid] = future
        try:
            message = {"cmd": command, "reply": self._reply_channel, "rid": rid}
            await self._publish_now(key(table, "in"), pack(message))
            return await asyncio.wait_for(future, FORWARD_TIMEOUT_S)
        finally:
            self._replies.pop(rid, None)

    @translated
    async def serve_inbox(self, table: str, handler: Callable[[dict[str, Any]], Any]) -> None:
        """Handle commands forwarded to ``table`` (from now on) with ``handler``."""
        self._inbox_handlers[table] = handler
        await self._subscribe(key(table, "in"))

    async def _serve(
        self, table: str, handler: Callable[[dict[str, Any]], Any], message: dict[str, Any]
    ) -> None:
        try:
            answer = await handler(message["cmd"])
            if answer is None:  # not served here after all: the owner, if any, answers
                return
            reply = {"rid": message["rid"], **answer}
            await self._publish_now(message["reply"], pack(reply))
        except StoreUnavailable as err:  # the sender retries (same command id) or times out
            store_unreachable("a forwarded command's answer", err)
        except Exception:
            log.exception("forwarded command for table %s failed", table)

    # -- presence across processes --------------------------------------------------------

    @translated
    async def set_presence(self, table: str, presence: dict[str, Any]) -> None:
        name = key(table, "pres")
        commands: list[RedisCommand] = [
            ("HSET", name, self.process_id, pack(presence)),
            ("PEXPIRE", name, 24 * 3600 * 1000),
            (self.publish_command, name, b""),
            ("SET", f"th:proc:{self.process_id}", 1, "PX", LEASE_MS * 2),
        ]
        if self._sent_on_link(commands):
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for command in commands:
                pipe.execute_command(*command)
            await pipe.execute()

    @translated
    async def presence(self, table: str) -> list[dict[str, Any]]:
        """Presence of every live process (those whose heartbeat key exists)."""
        entries = await self.redis.hgetall(key(table, "pres"))
        if not entries:
            return []
        procs = [p.decode() for p in entries]
        alive = await self._get_many([f"th:proc:{p}" for p in procs])
        return [
            unpack(entries[p.encode()])
            for p, ok in zip(procs, alive, strict=True)
            if ok is not None or p == self.process_id
        ]

    @translated
    async def listen_presence(self, table: str, listener: Callable[[], None]) -> None:
        self._presence_listeners[table] = listener
        await self._subscribe(key(table, "pres"))

    def _unanswered(self, replies: Replies) -> None:
        """Messages sent on the commit link without waiting: a failure is only logged
        (a forwarded command's sender retries it, presence is sent again with the next
        change), once per outage -- a lost connection fails every message under way."""
        if isinstance(replies, BaseException):
            failed: BaseException | None = replies
        else:
            failed = next((r for r in replies if isinstance(r, BaseException)), None)
        if failed is None:
            if self._undelivered:
                log.info("redis: messages delivered again (%d were not)", self._undelivered)
                self._undelivered = 0
            return
        if not self._undelivered:
            log.warning("redis: messages are not being delivered: %s", failed)
        self._undelivered += 1
