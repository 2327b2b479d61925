"""One load-generator process: runs its share of the clients and reports back.

Protocol with the parent over a ``multiprocessing`` pipe: the worker sends
``("ready", index)``, receives the shared start time ``t0`` (``time.perf_counter``,
which is CLOCK_MONOTONIC and so the same clock in every process), sends
``("progress", index, {...})`` once a second and finally ``("result", index, stats)``
(or ``("failed", index, traceback)``).

Timeline (seconds after t0): clients connect during ``[0, ramp)`` at their planned
offsets; acting goes on until ``ramp + duration`` (``stopping``); then the worker
waits up to ``drain`` seconds for every act still in flight to get its reply, counts
the ones that did not (``acts_unanswered``) and closes its connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import resource
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

from tablehub.loadtest.bots import policy_for
from tablehub.loadtest.client import RequestFailed, SimClient, connect_client
from tablehub.loadtest.config import RunConfig
from tablehub.loadtest.context import Pacer, WorkerContext, codec_named
from tablehub.loadtest.mirror import Verifier
from tablehub.loadtest.players import TableGroup, TableSpec
from tablehub.loadtest.scenarios import PLAYER_ACTS_AT, WorkerPlan
from tablehub.loadtest.stats import RunStats

LAG_PROBE = 0.05
PING_EVERY = 0.1


def raise_open_files() -> int:
    """Raise the soft open-file limit to the hard limit; returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else 1 << 20
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft


def worker_entry(config: RunConfig, plan: WorkerPlan, conn: Connection) -> None:
    """Process entry point (``multiprocessing`` target)."""
    raise_open_files()
    # Reference counting frees what the clients make (views, frames, callbacks); a
    # cyclic-GC pass over thousands of mirrored views stalls the loop for ~100 ms,
    # which would be measured as hub latency.  So the collector is off during a run.
    gc.disable()
    try:
        conn.send(("ready", plan.index))
        t0 = float(conn.recv())
        try:
            import uvloop

            result = uvloop.run(run_worker(config, plan, t0, conn))
        except ImportError:  # pragma: no cover - uvloop ships with uvicorn[standard]
            result = asyncio.run(run_worker(config, plan, t0, conn))
        conn.send(("result", plan.index, result))
    except BaseException:
        conn.send(("failed", plan.index, traceback.format_exc()))
    finally:
        conn.close()


class Worker:
    def __init__(self, config: RunConfig, plan: WorkerPlan, t0: float, conn: Connection | None):
        self.config = config
        self.plan = plan
        self.t0 = t0
        self.conn = conn
        stats = RunStats(t0, config.ramp, config.stop_at)
        if config.scenario == "bots":  # every player acts at the same point of each round
            pacer = Pacer(0.0, None, plan.players, PLAYER_ACTS_AT * config.pace)
        else:
            pacer = Pacer(config.think, _share(config, plan), plan.players, config.min_think)
        self.ctx = WorkerContext(
            url=config.url,
            codec=codec_named(config.subprotocol),
            stats=stats,
            verifier=Verifier(memo=config.memo),
            pacer=pacer,
            rng=random.Random(config.seed * 1000 + plan.index),
            connect_timeout=config.connect_timeout,
        )
        self.clients: list[SimClient] = []
        self.groups: list[TableGroup] = []

    async def _at(self, offset: float) -> None:
        delay = self.t0 + offset - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)

    async def _connect(self, name: str, room: str | None = None) -> SimClient | None:
        client = await connect_client(self.ctx, name, room)
        if client is not None:
            self.clients.append(client)
        return client

    # -- scenario parts ---------------------------------------------------------------

    async def _table(self, number: int, offset: float, spec: TableSpec) -> None:
        await self._at(offset)
        name = f"w{self.plan.index}t{number}"
        room = name if self.config.rooms else None
        seats = await asyncio.gather(
            *(self._connect(f"{name}s{i}", room) for i in range(spec.players))
        )
        watchers = await asyncio.gather(
            *(self._connect(f"{name}v{i}", room) for i in range(spec.spectators))
        )
        if any(c is None for c in seats) or self.ctx.stopping:
            return  # a seat could not connect: this table does not play (counted)
        group = TableGroup(
            self.ctx,
            spec,
            policy_for(spec.game, self.config.legal_share),
            name,
            self.config.max_acts_per_game,
        )
        group.attach(
            [(i, c) for i, c in enumerate(seats) if c is not None],
            [c for c in watchers if c is not None],
        )
        self.groups.append(group)
        await group.play()

    async def _idle(self, offset: float, number: int) -> None:
        await self._at(offset)
        await self._connect(f"w{self.plan.index}i{number}")

    async def _tournament(self) -> None:
        config, plan = self.config, self.plan
        spec = TableSpec("nmbr9", config.players, 0, {"tournament": True})
        clients = await asyncio.gather(
            *(
                self._tournament_client(offset, seat)
                for seat, offset in zip(plan.tournament_seats, plan.tournament_offsets, strict=True)
            )
        )
        seated = [(seat, c) for seat, c in zip(plan.tournament_seats, clients, strict=True) if c]
        group = TableGroup(
            self.ctx,
            spec,
            policy_for("nmbr9", config.legal_share),
            f"w{plan.index}",
            max_acts_per_game=10**6,
            stall_seconds=config.duration,  # a big table may go quiet for long: no stall
        )
        group.attach(seated, [], log_rounds=True)
        self.groups.append(group)
        outcome = await group.play_one(config.tournament_table)
        self.ctx.stats.count(f"games_{outcome}", time.perf_counter())
        self.ctx.stats.extra["rounds"] = {
            "acts": [a for p in group.seats if p.round_log for a in p.round_log.acts],
            "seen": [p.round_log.seen for p in group.seats if p.round_log],
        }

    async def _tournament_client(self, offset: float, seat: int) -> SimClient | None:
        await self._at(offset)
        return await self._connect(f"seat{seat}")

    # -- run ----------------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        config, plan = self.config, self.plan
        parts: list[asyncio.Task[None]] = []
        for number, (offset, spec) in enumerate(plan.tables):
            parts.append(asyncio.create_task(self._table(number, offset, spec)))
        for number, offset in enumerate(plan.idle):
            parts.append(asyncio.create_task(self._idle(offset, number)))
        if plan.tournament_seats:
            parts.append(asyncio.create_task(self._tournament()))
        ticker = asyncio.create_task(self._tick())
        lag = asyncio.create_task(self._watch_lag())
        probe = asyncio.create_task(self._ping_probe()) if plan.index == 0 else None
        stop_at = self.t0 + config.stop_at
        if config.scenario == "tournament":
            # The tournament ends with its game (or at stop_at, whichever is first).
            done = asyncio.gather(*parts)
            with_deadline = max(0.0, stop_at - time.perf_counter())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(done), with_deadline)
        else:
            await self._at(config.stop_at)
        self.ctx.stopping = True
        self.ctx.stats.extra["stopped_at"] = time.perf_counter() - self.t0
        for group in self.groups:
            for player in group.seats:
                player.cancel()
        await asyncio.wait(parts, timeout=5)
        for task in parts:
            task.cancel()
        await self._drain()
        ticker.cancel()
        lag.cancel()
        if probe is not None:
            probe.cancel()
        self._send_progress()
        await asyncio.gather(*(c.close() for c in self.clients))
        stats = self.ctx.stats
        stats.extra["verifier"] = {
            "computed": self.ctx.verifier.computed,
            "reused": self.ctx.verifier.reused,
            "decoded_reused": self.ctx.frames.hits if self.ctx.frames else 0,
        }
        stats.extra["mismatch_samples"] = self.ctx.verifier.mismatch_samples
        usage = resource.getrusage(resource.RUSAGE_SELF)
        stats.extra["cpu_seconds"] = usage.ru_utime + usage.ru_stime
        stats.extra["players"] = plan.players
        return stats.to_dict()

    async def _drain(self) -> None:
        deadline = time.perf_counter() + self.config.drain
        while time.perf_counter() < deadline:
            if not any(c.pending_acts() for c in self.clients):
                break
            await asyncio.sleep(0.05)
        unanswered = sum(c.pending_acts() for c in self.clients)
        if unanswered:
            self.ctx.stats.count("acts_unanswered", time.perf_counter(), unanswered)
        # Let in-flight patches land so act→patch samples of the last acts are taken.
        await asyncio.sleep(0.5)

    async def _watch_lag(self) -> None:
        """Event-loop lag of this worker: a busy generator delays every measurement."""
        histogram = self.ctx.stats.histograms["loop_lag"]
        while True:
            expected = time.perf_counter() + LAG_PROBE
            await asyncio.sleep(LAG_PROBE)
            histogram.add(max(0.0, time.perf_counter() - expected))

    async def _ping_probe(self) -> None:
        """One extra connection pinging every PING_EVERY s: the hub's responsiveness.

        ``ping`` is answered by the session itself (no table), so its round trip is the
        time the hub takes to get to a frame: a busy or stalled event loop shows here.
        """
        client = await self._connect("ping-probe")
        if client is None:
            return
        histogram = self.ctx.stats.histograms["ping"]
        while not self.ctx.stopping:
            await asyncio.sleep(PING_EVERY)
            sent = time.perf_counter()
            try:
                await asyncio.wait_for(client.call("ping"), 30)
            except (TimeoutError, RequestFailed):
                self.ctx.stats.count("ping_failures", time.perf_counter())
                continue
            if self.ctx.stats.steady(sent):
                histogram.add(time.perf_counter() - sent)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            now = time.perf_counter()
            self.ctx.pacer.observe(now, self.ctx.stats.counts["acts_sent"])
            self._send_progress()

    def _send_progress(self) -> None:
        if self.conn is None:
            return
        stats = self.ctx.stats
        self.conn.send(
            (
                "progress",
                self.plan.index,
                {
                    "connections": stats.gauges["connections"],
                    "acts_sent": stats.counts["acts_sent"],
                    "patches": stats.counts["patch"],
                    "mismatches": stats.counts["hash_mismatches"],
                    "think_scale": round(self.ctx.pacer.scale, 3),
                },
            )
        )


def _share(config: RunConfig, plan: WorkerPlan) -> float | None:
    """This worker's part of the target act rate (by its share of the players)."""
    if config.rate is None:
        return None
    total = max(config.players, 1)
    return config.rate * plan.players / total


async def run_worker(
    config: RunConfig, plan: WorkerPlan, t0: float, conn: Connection | None
) -> dict[str, Any]:
    return await Worker(config, plan, t0, conn).run()
