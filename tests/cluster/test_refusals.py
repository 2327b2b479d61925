"""An operator's bad day, audited (issues 34 and 35): hubs on Redis while the store
dies under them -- a single redis-server killed with ``kill -9`` and restarted from its
AOF, or a Redis Cluster master killed and failed over -- with two-seat 9-tower games
whose players sit on different hubs.  Every answer each client got is checked against
every table's stored log (protocol/README.md "Errors"):

* ``ok``: the act is in the log at the version the answer gave;
* a refusal (``overloaded`` and every other code but ``unavailable``): not done, and
  never done later -- a tile in the log must come from an act answered ``ok`` or
  ``unavailable``;
* ``unavailable``: either (the client looks at the table and decides again); so is a
  request whose connection the hub closed (1012, sending players elsewhere): the
  player reconnects, resumes its seat and looks again;
* ``internal_error``: never (the store failing is an expected event, not a bug);

and every game finishes: no table stays wedged between hubs after the store is back.

Half the tables' players send keyless acts (after a refusal they ask ``legal`` again
and choose anew), half keep the act's key and resend it unchanged.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tablehub.clients.cli.connection import Connection, new_key
from tablehub.loadtest.topology import LocalCluster, RedisClusterNodes
from tablehub.server.config import with_durability
from tests.cluster.test_cluster import read_log
from tests.cluster.test_outage import RestartableRedis

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

LEASE_MS = 1000
HUBS = int(os.environ.get("TABLEHUB_AUDIT_HUBS", "2"))
TABLES = int(os.environ.get("TABLEHUB_AUDIT_TABLES", "4"))
OUTAGES = int(os.environ.get("TABLEHUB_AUDIT_OUTAGES", "3"))
"""The scale of the bad day (the issue's own: 3 hubs, 20 tables, 8 outages; CI runs a
smaller one, the same code)."""
TILES = 20
"""Tiles each 9-tower seat places in a finished game."""
GAME_BUDGET_S = 180.0
"""A game takes seconds even with the outages; one not finished by then is wedged."""
STUCK_AFTER = 60
"""Retryable refusals in a row to one seat after which the table counts as stuck."""
RETRYABLE = ("overloaded", "unavailable", "rate_limited")
"""Refusals a client sends again after a pause (``rate_limited``: the connection went
over its rate -- a ``legal`` asked again and again while a table's old owner still
answers it in the moments before it notices its lease is gone)."""
BACKOFF_S = 0.2
"""The protocol's "short backoff" where a refusal gives no ``retry_ms``."""


@dataclass
class Attempt:
    """One ``act`` a seat sent and the answer it got."""

    seat: int
    legal_version: int
    """The version ``legal`` offered the action at: the act is for the seat's next tile
    after the ones it had placed by then."""
    action: dict[str, Any]
    code: str
    """``ok`` or the error's code."""
    version: int | None
    """The version an ``ok`` answer gave."""


@dataclass
class Player:
    """One seat of one table, playing through a connection to one hub."""

    conn: Connection
    url: str
    table: str
    keyed: bool
    attempts: list[Attempt] = field(default_factory=list)
    answers: Counter[str] = field(default_factory=Counter)
    acked_at: list[float] = field(default_factory=list)
    in_a_row: int = 0
    reconnects: int = 0
    doing: str = "starting"
    """What the player is doing now (said when a game does not finish)."""

    def __str__(self) -> str:
        mirror = self.conn.tables.get(self.table)
        seen = f"v{mirror.version}" if mirror is not None else "nothing"
        return f"table {self.table} via {self.url}: {self.doing}; it has seen {seen}"

    async def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        """One request and its reply; after a retryable refusal, wait its ``retry_ms``
        (the backoff the protocol asks of clients) before returning it.  A connection
        the hub closed (1012: it sends its players elsewhere) is reopened and the seat
        resumed, as a client does; the request it interrupted is answered ``closed``
        (may or may not have been done, like ``unavailable``)."""
        try:
            reply = await self.conn.ask(kind, table=self.table, **fields)
        except (ConnectionError, ConnectionClosed):
            await self.reconnect()
            reply = {"t": "error", "code": "closed", "message": "closed", "retry_ms": 0}
        code = reply["code"] if reply["t"] == "error" else "ok"
        self.answers[code] += 1
        if code in (*RETRYABLE, "closed"):
            self.in_a_row += 1
            assert self.in_a_row < STUCK_AFTER, (
                f"table {self.table} is stuck for seat {self.conn.seats[self.table]}: "
                f"{self.in_a_row} refusals in a row, the last {code}: {reply['message']}"
            )
            await asyncio.sleep(reply.get("retry_ms", BACKOFF_S * 1000) / 1000)
        else:
            self.in_a_row = 0
        return reply

    async def play(self) -> None:
        """Place a tile whenever ``legal`` offers one, until the game is over."""
        while True:
            self.doing = "asking legal"
            legal = await self.ask("legal")
            if legal["t"] == "error":
                assert legal["code"] in (*RETRYABLE, "closed"), legal
                continue
            if legal["actions"]:
                await self.act(legal["version"], legal["actions"][len(legal["actions"]) // 2])
                continue
            self.doing = f"waiting for the table to pass v{legal['version']} (legal: no actions)"
            if await self.moved_on(legal["version"]):
                self.doing = "finished"
                return

    async def moved_on(self, version: int) -> bool:
        """Wait for the table to pass ``version``; whether the game is over."""
        while True:
            try:
                mirror = await self.conn.wait_for(
                    self.table,
                    lambda m: m.version > version or m.view["status"] == "finished",
                    timeout=GAME_BUDGET_S,
                )
            except ConnectionError:
                await self.reconnect()
                continue
            return bool(mirror.view["status"] == "finished")

    async def reconnect(self) -> None:
        """Reopen the connection (the hub refuses handshakes while it is cut off: try
        again after a backoff) and resume the seat by its token."""
        self.reconnects += 1
        while True:
            try:
                self.conn = await self.conn.reconnect(self.url)
                return
            except (OSError, InvalidStatus, ConnectionClosed):
                await asyncio.sleep(0.2)  # the client's backoff, as the protocol asks

    async def act(self, legal_version: int, action: dict[str, Any]) -> None:
        """Send the act; a keyed one is resent unchanged after a retryable refusal, a
        keyless one is decided again from a fresh ``legal`` (the caller's loop)."""
        key = new_key() if self.keyed else None
        self.doing = f"placing a tile offered at v{legal_version}"
        while True:
            fields: dict[str, Any] = {"action": action}
            if key is not None:
                fields["key"] = key
            reply = await self.ask("act", **fields)
            code = reply["code"] if reply["t"] == "error" else "ok"
            seat = self.conn.seats[self.table]
            self.attempts.append(Attempt(seat, legal_version, action, code, reply.get("version")))
            if code == "ok":
                self.acked_at.append(time.monotonic())
            if code == "ok" or key is None or code not in (*RETRYABLE, "closed"):
                return


@dataclass
class Audit:
    """Every answer set against the stored logs."""

    answers: Counter[str] = field(default_factory=Counter)
    acked: int = 0
    reconnects: int = 0
    """Connections a hub closed (sending its players elsewhere) that the players reopened."""
    refused_but_applied: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def table(self, log: list[dict[str, Any]], players: list[Player]) -> None:
        assert [e["v"] for e in log] == list(range(1, len(log) + 1))
        tiles: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
        for entry in log:
            if entry["k"] == "act":
                tiles[entry["seat"]].append(entry)
        for seat, placed in tiles.items():
            if len(placed) != TILES:
                self.wrong.append(f"seat {seat} placed {len(placed)} tiles, not {TILES}")
        by_version = {e["v"]: e for e in log}
        attempts = [a for p in players for a in p.attempts]
        explained = set()  # (seat, tile) stored by an act answered ok, unavailable or closed
        for attempt in attempts:
            self.answers[attempt.code] += 1
            if attempt.code == "ok":
                self.acked += 1
                stored = by_version.get(attempt.version or 0, {})
                if (stored.get("seat"), stored.get("action")) != (attempt.seat, attempt.action):
                    self.wrong.append(f"acknowledged at v{attempt.version}, not stored there")
            tile = _stored_tile(tiles[attempt.seat], attempt)
            if tile is not None and attempt.code in ("ok", "unavailable", "closed"):
                explained.add((attempt.seat, tile["v"]))
        for attempt in attempts:
            tile = _stored_tile(tiles[attempt.seat], attempt)
            if tile is not None and (attempt.seat, tile["v"]) not in explained:
                self.refused_but_applied.append(
                    f"seat {attempt.seat}: {attempt.action} answered {attempt.code}, "
                    f"stored at v{tile['v']}"
                )


def _stored_tile(placed: list[dict[str, Any]], attempt: Attempt) -> dict[str, Any] | None:
    """The log entry of the tile ``attempt`` was for, if it stored the attempt's action."""
    index = sum(1 for entry in placed if entry["v"] <= attempt.legal_version)
    if index < len(placed) and placed[index]["action"] == attempt.action:
        return placed[index]
    return None


async def bad_day(
    cluster: LocalCluster,
    store_url: str,
    outage: Callable[[int], Awaitable[None]],
    outages: int,
) -> tuple[Audit, list[float]]:
    """Play TABLES games with the players of each on different hubs; run ``outage(i)``
    ``outages`` times during play; audit every answer against the logs.  The audit and
    the seconds from each outage's start to the next acknowledged act."""
    players: list[Player] = []
    tables = []
    for t in range(TABLES):
        ann = await Connection.connect(cluster.hub_url(t % HUBS), f"ann{t}")
        bo = await Connection.connect(cluster.hub_url((t + 1) % HUBS), f"bo{t}")
        table = await ann.create_table("nmbr9", 2, seed=100 + t)
        await ann.join(table)
        await bo.join(table)
        keyed = t % 2 == 1
        tables.append(
            (
                table,
                [
                    Player(ann, cluster.hub_url(t % HUBS), table, keyed),
                    Player(bo, cluster.hub_url((t + 1) % HUBS), table, keyed),
                ],
            )
        )
        players += tables[-1][1]
    games = asyncio.gather(*(p.play() for p in players))
    outage_at: list[float] = []
    total = TABLES * 2 * TILES
    try:
        async with asyncio.timeout(GAME_BUDGET_S):
            for i in range(outages):
                while sum(len(p.acked_at) for p in players) < total * (i + 1) // (outages + 2):
                    if games.done():
                        break
                    await asyncio.wait({games}, timeout=0.05)  # pace the outages by progress
                outage_at.append(time.monotonic())
                await outage(i)
            await games
    except TimeoutError:
        waiting = [p for p in players if p.doing != "finished"]
        stored = {p.table: len(await read_log(store_url, p.table)) for p in waiting}
        stuck = "\n".join(f"{p} (the store holds v{stored[p.table]})" for p in waiting)
        raise AssertionError(f"games not finished in {GAME_BUDGET_S:.0f} s:\n{stuck}") from None
    finally:
        games.cancel()
    audit = Audit()
    for table, seated in tables:
        audit.table(await read_log(store_url, table), seated)
    for player in players:
        await player.conn.close()
    audit.reconnects = sum(p.reconnects for p in players)
    acks = sorted(t for p in players for t in p.acked_at)
    gaps = [min((t for t in acks if t > at), default=float("inf")) - at for at in outage_at]
    return audit, gaps


def report(what: str, audit: Audit, gaps: list[float]) -> None:
    print(
        f"\n{what}: {audit.acked} acts acknowledged; answers by code "
        f"{dict(sorted(audit.answers.items()))}; {len(audit.refused_but_applied)} applied "
        f"despite a refusal; {audit.reconnects} reconnections; outage -> next ack "
        f"median {statistics.median(gaps):.2f} s, max {max(gaps):.2f} s"
    )


def check(audit: Audit) -> None:
    assert not audit.wrong, audit.wrong
    assert not audit.refused_but_applied, audit.refused_but_applied
    assert "internal_error" not in audit.answers


async def test_redis_killed_and_restarted_from_its_aof_during_play() -> None:
    redis = RestartableRedis()
    redis.start()
    rng = random.Random(34)
    try:
        with LocalCluster(hubs=HUBS, redis_url=redis.url, lease_ms=LEASE_MS) as cluster:

            async def kill_and_restart(_: int) -> None:
                redis.kill()
                await asyncio.sleep(rng.uniform(0.5, 3.0))  # the outage itself
                await asyncio.to_thread(redis.start)

            audit, gaps = await bad_day(cluster, redis.url, kill_and_restart, OUTAGES)
        report(f"redis-server killed {OUTAGES} times", audit, gaps)
        check(audit)
    finally:
        redis.stop()


async def test_redis_cluster_masters_killed_during_play(
    redis_cluster: RedisClusterNodes,
) -> None:
    nodes = redis_cluster
    rng = random.Random(35)
    url = with_durability(nodes.url, "replica")
    with LocalCluster(hubs=HUBS, redis_url=nodes.url, lease_ms=LEASE_MS, durability="replica") as c:

        async def fail_over(_: int) -> None:
            master = rng.choice(nodes.master_ports())
            nodes.kill(master)
            # The replica takes over first: a master restarted empty before that would
            # hand its empty data set to its replica.
            await asyncio.to_thread(nodes.wait_healthy)
            await asyncio.to_thread(nodes.start_node, master)
            await asyncio.to_thread(nodes.wait_healthy)

        audit, gaps = await bad_day(c, url, fail_over, OUTAGES)
    report(f"{OUTAGES} Redis Cluster masters killed", audit, gaps)
    check(audit)
