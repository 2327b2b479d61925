"""Lease renewal on a thread of its own, and the event loop's lateness.

Theory of operation: a table's owner must renew its lease (a Redis key with a TTL)
well within the lease length, or another process takes the table over.  Renewing from
the event loop means a busy loop -- a burst of commits and fan-out, a long GC pause --
delays renewal, and leases were lost under load for dozens of tables at once.  So the
:class:`LeaseKeeper` renews from a daemon thread with its own synchronous Redis
connection: it needs the GIL for a moment every ``interval`` seconds, never a turn of
the event loop.  A renewal that finds the lease gone is reported to the loop
(``call_soon_threadsafe``), and so is a lease not renewed for a whole lease (Redis out
of reach): it has expired there and another process may run the table, so its actor
here must stop.

How late the loop runs is watched by ``server/ops/loopwatch.py`` (every store has an
event loop; only Redis has leases): past a quarter lease the hub refuses new tables
before the lag grows into lost leases.  Renewal failing (Redis away) is reported
here, as :attr:`LeaseKeeper.refusing_tables`.

An owner can be alive (renewing) yet deaf: its subscription to the table's inbox lost
in a Redis failover, say, so the commands other processes forward to it go unanswered
and nobody may take the table over.  A sender that heard nothing for long enough marks
the lease *unheard* (``<lease key>:unheard`` holds the lease's value: see
``RedisBus.unheard``); the owner's next renewal finds the mark, deletes the lease and
gives the table up, and the sender takes it over.  The mark names one lease value, so
it never touches a later owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable

import redis

from tablehub.server import metrics

log = logging.getLogger("tablehub.leases")

RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[1], KEYS[2])
  return -1
end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
"""
"""Renew one lease: 1 renewed, 0 lost (expired or taken), -1 given up (marked unheard)."""

UNHEARD = ":unheard"
"""Suffix of the key that marks a lease unheard (the same hash tag as the lease)."""


class LeaseKeeper:
    def __init__(
        self,
        url: str,
        process_id: str,
        lease_ms: int,
        key_of: Callable[[str], str],
        on_lost: Callable[[str, int], None],
        connect: Callable[[], redis.Redis | redis.RedisCluster] | None = None,
    ) -> None:
        """``connect``: makes the thread's synchronous client (by default one for
        ``url``; a ``redis.RedisCluster`` on Redis Cluster), again after renewal failed
        for a whole lease (a client can stay stuck on a node that left)."""
        self.process_id = process_id
        self.lease_ms = lease_ms
        self.interval = lease_ms / 4000
        self._key_of = key_of
        self._on_lost = on_lost
        self._connect = connect or (
            lambda: redis.Redis.from_url(url, socket_timeout=lease_ms / 2000)
        )
        self._client = self._connect()
        self._leases: dict[str, int] = {}
        self._since: dict[str, float] = {}
        """When each lease was last known to be held: taken, or last renewed."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.renew_failing = False

    # -- the loop's side ------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread = threading.Thread(target=self._run, name="tablehub-leases", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._client.close()

    def hold(self, table: str, epoch: int) -> None:
        with self._lock:
            self._leases[table] = epoch
            self._since[table] = time.monotonic()

    def drop(self, table: str, epoch: int) -> bool:
        """Stop renewing the table's lease of ``epoch``; whether it was held."""
        with self._lock:
            if self._leases.get(table) != epoch:
                return False
            del self._leases[table]
            del self._since[table]
            return True

    def held(self) -> dict[str, int]:
        with self._lock:
            return dict(self._leases)

    @property
    def refusing_tables(self) -> str | None:
        """Why this process should take no new tables now, or None."""
        return "lease renewal is failing" if self.renew_failing else None

    # -- the thread -----------------------------------------------------------------------

    def _run(self) -> None:
        next_renewal = time.monotonic() + self.interval
        while not self._stop.wait(max(0.0, next_renewal - time.monotonic())):
            next_renewal += self.interval
            leases = self.held()
            if leases:
                self._renew_all(leases)

    def _renew_all(self, leases: dict[str, int]) -> None:
        sent = time.monotonic()
        try:
            pipe = self._client.pipeline(transaction=False)
            for table, epoch in leases.items():  # EVAL: a promoted replica has no script cache
                token = f"{self.process_id}:{epoch}"
                lease = self._key_of(table)
                pipe.execute_command("EVAL", RENEW, 2, lease, lease + UNHEARD, token, self.lease_ms)
            results = pipe.execute()
        except Exception as err:  # Redis away (the cluster client raises non-RedisErrors too)
            if not self.renew_failing:
                log.warning("lease renewal failed: %s", err)
            self.renew_failing = True
            self._let_lapse(leases)
            return
        self.renew_failing = False
        taken: list[str] = []
        unheard: list[str] = []
        for (table, epoch), renewed in zip(leases.items(), results, strict=True):
            if renewed == 1:
                with self._lock:
                    if self._leases.get(table) == epoch:
                        self._since[table] = sent
            elif self._lose(table, epoch):
                (taken if renewed == 0 else unheard).append(table)
        if taken:
            log.warning("lost the leases of %d tables (taken over): %s", len(taken), _some(taken))
        if unheard:
            log.warning(
                "gave %d tables up (another process's requests went unanswered): %s",
                len(unheard),
                _some(unheard),
            )

    def _let_lapse(self, leases: dict[str, int]) -> None:
        """Renewal failed: a lease not renewed for a whole lease has expired in Redis,
        and another process may run its table now.  Its actor here must stop (it would
        go on answering from a stale table), and the client is made anew."""
        deadline = time.monotonic() - self.lease_ms / 1000
        with self._lock:
            lapsed = [(t, e) for t, e in leases.items() if self._since.get(t, deadline) < deadline]
        lost = [table for table, epoch in lapsed if self._lose(table, epoch)]
        if lost:
            log.warning(
                "the leases of %d tables lapsed (they could not be renewed): %s",
                len(lost),
                _some(lost),
            )
        if lapsed:
            with contextlib.suppress(Exception):
                self._client.close()
            self._client = self._connect()

    def _lose(self, table: str, epoch: int) -> bool:
        """Report a lease no longer held to the loop (once); whether it was still held
        (the caller logs why)."""
        with self._lock:
            if self._leases.get(table) != epoch:
                return False  # released meanwhile
            del self._leases[table]
            del self._since[table]
        metrics.LEASES_LOST.inc()
        assert self._loop is not None
        try:
            self._loop.call_soon_threadsafe(self._on_lost, table, epoch)
        except RuntimeError:  # the loop is closed: the process is stopping
            self._stop.set()
        return True


def _some(tables: list[str], shown: int = 5) -> str:
    """A few table ids for a log line, and how many more."""
    more = len(tables) - shown
    return ", ".join(tables[:shown]) + (f" and {more} more" if more > 0 else "")
