"""Run one load test: prepare the target, start the workers, sample, collect.

Theory of operation: the parent process never simulates clients.  It asks the hub
which games it offers (and creates the tournament table), splits the clients into
per-worker plans, starts the workers (``multiprocessing``, spawn), hands them one
shared start time, then samples ``/proc`` of the target's processes and of the
workers twice a second and prints progress until every worker has reported its
result.  :class:`RawRun` is everything measured, for ``loadtest.analysis``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from typing import Any

from tablehub.loadtest import hubmetrics
from tablehub.loadtest.config import RunConfig
from tablehub.loadtest.procstat import ProcSampler
from tablehub.loadtest.scenarios import WorkerPlan, plan
from tablehub.loadtest.targets import Target
from tablehub.loadtest.worker import worker_entry

READY_TIMEOUT = 120.0
SAMPLE_EVERY = 0.5


@dataclass
class RawRun:
    config: RunConfig
    target: Target
    t0: float
    plans: list[WorkerPlan]
    results: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    progress: list[dict[str, Any]] = field(default_factory=list)
    sampler: ProcSampler = field(default_factory=ProcSampler)
    available: list[str] | None = None
    notes: list[str] = field(default_factory=list)
    ended: float = 0.0
    hub_metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per hub: leases lost and longest GC pauses, from its ``/metrics`` at the end."""
    heap: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per hub: objects the collector tracks before the clients connect and once they
    are all connected (:func:`hubmetrics.tracked_per_connection`)."""


async def _prepare(config: RunConfig) -> tuple[list[str], str]:
    """The hub's game ids, and the tournament table when the scenario needs one."""
    from tablehub.clients.cli.connection import Connection, ServerError

    conn = await Connection.connect(config.url, "loadtest", open_timeout=30)
    try:
        games: list[str] = []
        try:
            reply = await asyncio.wait_for(conn.request("list_games"), 10)
            games = [g["id"] for g in reply.get("games", [])]
        except (ServerError, TimeoutError, ConnectionError):
            games = []
        table = ""
        if config.scenario == "tournament":
            table = await conn.create_table("nmbr9", config.players, tournament=True)
        return games, table
    finally:
        await conn.close()


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def execute(config: RunConfig, target: Target, quiet: bool = False) -> RawRun:
    """Run ``config`` against ``target`` and return what was measured."""
    config = config.with_url(target.url)
    notes: list[str] = []
    available: list[str] | None = None
    if target.kind != "baseline":
        games, table = asyncio.run(_prepare(config))
        available = games
        if config.scenario == "tournament":
            config = replace(config, tournament_table=table)
        if config.scenario == "mixed":
            wanted = [e.game for e in config.mix]
            missing = [g for g in wanted if g not in games]
            if not games:
                notes.append("list_games failed on the hub; the mix was used as given")
                available = None
            elif missing:
                notes.append(f"games not offered by the hub, left out: {', '.join(missing)}")
    plans = plan(config, set(available) if available else None)
    raw = RawRun(config, target, 0.0, plans, available=available, notes=notes)
    for server in target.processes:
        raw.sampler.watch(server.label, server.pid, server.role)

    before = hubmetrics.read(target.processes)
    ctx = multiprocessing.get_context("spawn")
    pipes: list[Connection] = []
    procs = []
    for worker_plan in plans:
        parent_end, child_end = ctx.Pipe()
        proc = ctx.Process(
            target=worker_entry,
            args=(config, worker_plan, child_end),
            name=f"loadtest-worker-{worker_plan.index}",
            daemon=True,
        )
        proc.start()
        child_end.close()
        pipes.append(parent_end)
        procs.append(proc)
        raw.sampler.watch(f"worker {worker_plan.index}", proc.pid or 0, "worker")
    try:
        _await_ready(pipes)
        raw.sampler.sample()
        raw.t0 = time.perf_counter() + 0.5
        for pipe in pipes:
            pipe.send(raw.t0)
        # every client is connected and seated once the ramp is over: the heap then,
        # halfway through the steady window
        heap_at = raw.t0 + config.ramp + config.duration / 2 - time.perf_counter()
        heap = threading.Timer(max(0.0, heap_at), _read_heap, (raw, before))
        heap.start()
        _collect(raw, pipes, quiet)
        heap.cancel()
        raw.hub_metrics = hubmetrics.read(target.processes)
    finally:
        for proc in procs:
            proc.join(10)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)
        raw.ended = time.perf_counter()
    return raw


def _read_heap(raw: RawRun, before: dict[str, dict[str, Any]]) -> None:
    raw.heap = hubmetrics.tracked_per_connection(before, hubmetrics.read(raw.target.processes))


def _await_ready(pipes: list[Connection]) -> None:
    waiting = set(range(len(pipes)))
    deadline = time.monotonic() + READY_TIMEOUT
    while waiting:
        ready = wait([pipes[i] for i in waiting], timeout=max(0.0, deadline - time.monotonic()))
        if not ready:
            raise RuntimeError("load-test workers did not start")
        for pipe in ready:
            assert isinstance(pipe, Connection)
            message = pipe.recv()
            if message[0] != "ready":
                raise RuntimeError(f"worker failed to start: {message}")
            waiting.discard(message[1])


def _collect(raw: RawRun, pipes: list[Connection], quiet: bool) -> None:
    latest: dict[int, dict[str, Any]] = {}
    open_pipes = {i: pipe for i, pipe in enumerate(pipes)}
    next_sample = time.perf_counter()
    next_print = raw.t0 + 2
    limit = raw.t0 + raw.config.stop_at + raw.config.drain + 120
    while open_pipes:
        now = time.perf_counter()
        if now >= next_sample:
            raw.sampler.sample()
            next_sample = now + SAMPLE_EVERY
        if now > limit:
            raw.failures.append("workers did not report within the time limit")
            break
        for pipe in wait(list(open_pipes.values()), timeout=0.1):
            assert isinstance(pipe, Connection)
            index = next(i for i, p in open_pipes.items() if p is pipe)
            try:
                message = pipe.recv()
            except EOFError:
                raw.failures.append(f"worker {index} exited without a result")
                del open_pipes[index]
                continue
            kind = message[0]
            if kind == "progress":
                latest[index] = message[2]
                raw.progress.append({"t": now - raw.t0, "worker": index, **message[2]})
            elif kind == "result":
                raw.results.append(message[2])
                del open_pipes[index]
            elif kind == "failed":
                raw.failures.append(f"worker {index} failed:\n{message[2]}")
                del open_pipes[index]
        if not quiet and now >= next_print and latest:
            next_print = now + 2
            _print_progress(raw, latest, now)
    raw.sampler.sample()


def _print_progress(raw: RawRun, latest: dict[int, dict[str, Any]], now: float) -> None:
    conns = sum(p["connections"] for p in latest.values())
    acts = sum(p["acts_sent"] for p in latest.values())
    patches = sum(p["patches"] for p in latest.values())
    bad = sum(p["mismatches"] for p in latest.values())
    hub = [s for s in raw.sampler.series if s.role in ("hub", "baseline") and s.samples]
    cpu = ", ".join(f"{s.samples[-1]['cpu_pct']:.0f}%" for s in hub) or "-"
    rss = ", ".join(f"{s.samples[-1]['rss_kib'] / 1024:.0f} MiB" for s in hub) or "-"
    _log(
        f"[{now - raw.t0:6.1f}s] connections {conns:6d}  acts {acts:8d}  patches {patches:9d}"
        f"  mismatches {bad}  server cpu {cpu}  rss {rss}"
    )
