"""``redis+cluster://host:port,host:port,…``: the Redis store and bus on Redis Cluster
(``rediss+cluster://`` over TLS; credentials and TLS options: redis_url.py).

Theory of operation (docs/design.md "Past one Redis"):

* Every key of a table carries the hash tag ``{T}``, so each Lua script (commit,
  acquire, release, lease renewal) touches one slot.  The commit is sent with
  ``EVAL``: a replica promoted by a failover starts with an empty script cache.
* Nothing crosses slots.  The table listing and the deadline index are split into
  ``INDEX_SHARDS`` sorted sets ``th:{ixN}:tables`` / ``th:{ixN}:deadlines`` (a table
  goes to shard ``slot(T) % INDEX_SHARDS``); the lobby and the deadline sweeper read
  every shard and merge.  Reads that used ``MGET`` across tables (versions, presence
  heartbeats) are split by slot.
* Fan-out is sharded pub/sub (``SPUBLISH``/``SSUBSCRIBE``): a table's commits and
  presence go to ``th:{T}:ch`` / ``th:{T}:pres`` on the shard that holds the table,
  never broadcast to the whole cluster.  Forwarded commands reach the owner on
  ``th:{T}:in`` and replies come back on ``th:reply:{process}``, both sharded
  channels (a stream read across several tables' keys would cross slots); a command
  lost in a failover is retried by its sender with the same command id.
* Group commit per master: the commits of one loop iteration are grouped by the master
  serving their slot and sent as one pipeline per master, on a connection of its own
  (:class:`NodePipelines`).  With ``replica`` durability each pipeline ends with
  ``WAIT 1`` on that same connection, so an ``ok`` goes out only once a replica has
  every commit of the pipeline; a commit no replica confirmed in time is answered
  ``unavailable``.  Index updates follow in a separate cluster pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.maint_notifications import MaintNotificationsConfig

from tablehub.server import metrics
from tablehub.server.ops.cancelling import stopping
from tablehub.server.ops.faults import store_unreachable
from tablehub.server.store.redis import (
    _COMMIT,
    SOCKET_TIMEOUT_S,
    PendingCommit,
    RedisStore,
    settle_commits,
)
from tablehub.server.store.redis_bus import (
    _ACQUIRE,
    LEASE_MS,
    REPLICA_WAIT_MS,
    RedisBus,
)
from tablehub.server.store.redis_keys import (
    key,
    store_error,
    translated,
)
from tablehub.server.store.redis_url import cluster_options, startup_nodes
from tablehub.server.tables.journal import StoreUnavailable

log = logging.getLogger("tablehub.redis")

INDEX_SHARDS = 16
"""Sorted sets per index: enough to spread the lobby's and the sweeper's reads over
the masters; each read merges all of them."""
NODE_CONNECTIONS = 512
"""Connections per node: redis-py's cluster pool fails past it instead of waiting
(seen at 400 acts/s over two hubs with 64)."""
_COMMIT_SHARDED = _COMMIT.replace("redis.call('PUBLISH'", "redis.call('SPUBLISH'")


class NodePipelines:
    """Pipelines sent to the master that serves a key, each on one connection, so a
    trailing ``WAIT`` covers exactly the writes before it."""

    def __init__(
        self, cluster: Any, wait_for_replica: bool, options: dict[str, Any] | None = None
    ) -> None:
        self.cluster = cluster
        self.wait_for_replica = wait_for_replica
        self.options = options or {}
        """Credentials and TLS of the store URL (redis_url.cluster_options)."""
        self._clients: dict[str, Any] = {}
        self._refreshing: asyncio.Task[None] | None = None

    def node_of(self, name: str) -> Any:
        return self.cluster.get_node_from_key(name)

    def _client(self, node: Any) -> Any:
        client = self._clients.get(node.name)
        if client is None:
            client = aioredis.Redis(
                host=node.host,
                port=node.port,
                socket_timeout=SOCKET_TIMEOUT_S,
                socket_connect_timeout=SOCKET_TIMEOUT_S / 2,
                max_connections=64,
                **self.options,
            )
            self._clients[node.name] = client
        return client

    async def run(self, node: Any, queue: Callable[[Any], None]) -> tuple[list[Any], bool]:
        """Queue commands (``queue(pipeline)``) for ``node`` and send them: their
        replies, and whether a replica confirmed them (always true without ``WAIT``).
        An unreachable or moved node refreshes the slot map and raises."""
        try:
            async with self._client(node).pipeline(transaction=False) as pipe:
                queue(pipe)
                if self.wait_for_replica:
                    pipe.execute_command("WAIT", 1, REPLICA_WAIT_MS)
                replies = await pipe.execute(raise_on_error=False)
        except Exception:
            self.refresh()
            raise
        if any(isinstance(r, redis.exceptions.MovedError) for r in replies):
            self.refresh()
        if not self.wait_for_replica:
            return replies, True
        waited = replies.pop()
        return replies, isinstance(waited, int) and waited >= 1

    def refresh(self) -> None:
        """Reload the slot map in the background (once at a time)."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.get_running_loop().create_task(self._refresh())

    async def _refresh(self) -> None:
        try:
            await self.cluster.nodes_manager.initialize()
        except Exception as err:  # the next failing pipeline tries again
            _failed("the slot map refresh", err)

    async def close(self) -> None:
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._refreshing
        for client in self._clients.values():
            await client.aclose()


class RedisClusterStore(RedisStore):
    index_shards = INDEX_SHARDS
    one_server = False

    def _connect(self, address: str) -> Any:
        nodes = [ClusterNode(host, port) for host, port in startup_nodes(address)]
        options = cluster_options(address)
        self.nodes = NodePipelines(
            RedisCluster(
                startup_nodes=nodes,
                max_connections=NODE_CONNECTIONS,
                # Redis Enterprise's notifications: Redis 7 refuses the handshake.
                maint_notifications_config=MaintNotificationsConfig(enabled=False),
                socket_timeout=SOCKET_TIMEOUT_S,
                socket_connect_timeout=SOCKET_TIMEOUT_S / 2,
                **options,
            ),
            self.durability == "replica",
            options,
        )
        return self.nodes.cluster

    def _probe_client(self, address: str) -> Any:
        return self.redis  # the cluster client (one_server is False: no evacuation)

    def _make_bus(self, address: str, process_id: str) -> RedisBus:
        return RedisClusterBus(address, self.redis, process_id, self.durability, self.nodes)

    async def close(self) -> None:
        await self.bus.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)  # as on one Redis
        await self.nodes.close()
        await self.redis.aclose()

    async def _open_commit_link(self) -> None:
        """None: a cluster's group commits go through the masters' pipelines."""

    def _dispatch(self, batch: list[PendingCommit], retried: bool = False) -> None:
        self._spawn(self._commit_group(batch))

    async def _commit_group(self, batch: list[PendingCommit]) -> None:
        """Group commit: one pipeline per master (see the module's docstring)."""
        sent = time.perf_counter()
        groups: dict[str, tuple[Any, list[int]]] = {}
        for index, commit in enumerate(batch):
            try:
                node = self.nodes.node_of(commit.keys[0])
            except Exception as err:
                settle_commits([commit], err)
                continue
            groups.setdefault(node.name, (node, []))[1].append(index)
        await asyncio.gather(
            *(self._flush_node(node, [batch[i] for i in part]) for node, part in groups.values())
        )
        metrics.COMMIT_PHASE.labels("redis").observe(time.perf_counter() - sent)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for commit in batch:
                    for op in commit.index_ops:
                        pipe.execute_command(*op)
                await pipe.execute()
        except Exception as err:  # the listing catches up with the table's next commit
            _failed("the lobby listing update", err)

    async def _flush_node(self, node: Any, part: list[PendingCommit]) -> None:
        def queue(pipe: Any) -> None:
            for commit in part:
                pipe.eval(_COMMIT_SHARDED, len(commit.keys), *commit.keys, *commit.args)

        try:
            replies, replicated = await self.nodes.run(node, queue)
        except Exception as err:
            settle_commits(part, err)
            return
        settle_commits(part, replies, replicated)


class RedisClusterBus(RedisBus):
    """The bus over sharded pub/sub (see the module's docstring)."""

    index_shards = INDEX_SHARDS

    def __init__(
        self, url: str, client: Any, process_id: str, durability: str, nodes: NodePipelines
    ) -> None:
        super().__init__(url, client, process_id, durability)
        self.nodes = nodes
        self._reply_channel = f"th:reply:{{{process_id}}}"

    def _lease_client(self) -> Any:
        return redis.RedisCluster(
            startup_nodes=[
                redis.cluster.ClusterNode(h, p)  # type: ignore[no-untyped-call]
                for h, p in startup_nodes(self.url)
            ],
            socket_timeout=LEASE_MS / 2000,
            socket_connect_timeout=LEASE_MS / 2000,
            **cluster_options(self.url),
        )

    # -- ownership ----------------------------------------------------------------------

    @translated
    async def acquire(self, table: str) -> int | None:
        """As on one Redis, on the master of the table's slot (with ``replica``
        durability the new epoch must reach a replica: a failover must never hand the
        same epoch to a second owner)."""
        keys = [key(table, "lease"), key(table, "epoch"), key(table, "ver")]

        def queue(pipe: Any) -> None:
            pipe.eval(_ACQUIRE, len(keys), *keys, self.process_id, LEASE_MS)

        (reply,), replicated = await self.nodes.run(self.nodes.node_of(keys[0]), queue)
        if isinstance(reply, Exception):
            raise store_error(reply)
        if int(reply) >= 0 and not replicated:
            raise StoreUnavailable(f"table {table}: no replica confirmed the new epoch")
        epoch = int(reply)
        if epoch < 0:
            return None
        self._leases.hold(table, epoch)
        return epoch

    # -- fan-out ------------------------------------------------------------------------

    async def _get_many(self, names: list[str]) -> list[Any]:
        return list(await self.redis.mget_nonatomic(names))

    publish_command = "SPUBLISH"

    @translated
    async def _publish_now(self, channel: str, data: bytes) -> None:
        if not self._closing:
            await self.redis.spublish(channel, data)

    async def _subscribe(self, *channels: str) -> None:
        await self._pubsub.ssubscribe(*channels)

    async def _unsubscribe(self, *channels: str) -> None:
        if self._pubsub is not None and not self._closing:
            await self._pubsub.sunsubscribe(*channels)

    async def _listen(self) -> None:
        """One reader per node the sharded subscriptions live on (redis-py moves them to
        the new master after a failover; a reader is started for each new node)."""
        readers: dict[int, asyncio.Task[None]] = {}
        try:
            while not stopping():
                current = {id(p): p for p in list(self._pubsub.node_pubsub_mapping.values())}
                for ident, node_pubsub in current.items():
                    if ident not in readers or readers[ident].done():
                        readers[ident] = asyncio.create_task(self._read_node(node_pubsub))
                for ident in [i for i in readers if i not in current]:
                    readers.pop(ident).cancel()
                await asyncio.sleep(0.05)
        finally:
            for task in readers.values():
                task.cancel()

    async def _read_node(self, node_pubsub: Any) -> None:
        failing = False
        while not stopping():
            try:
                message = await node_pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except Exception as err:
                store_unreachable("the sharded pub/sub listener", err)
                failing = True
                self.nodes.refresh()
                await asyncio.sleep(0.2)
                continue
            if failing:
                log.info("sharded pub/sub listening again")
                failing = False
            if message is not None and message["type"] == "smessage":
                self._dispatch(message, self._on_message)


def _failed(what: str, err: BaseException) -> None:
    """A background step that failed: Redis out of reach is said once an outage (its
    callers answer ``unavailable`` meanwhile); anything else as it is."""
    if isinstance(store_error(err), StoreUnavailable):
        store_unreachable(what, err)
    else:
        log.warning("redis cluster: %s failed: %s", what, err)
