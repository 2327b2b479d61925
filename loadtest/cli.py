"""``tablehub loadtest``: simulated players against a hub, with a report.

Examples::

    tablehub loadtest --spawn memory --players 400 --duration 20 --out /tmp/lt
    tablehub loadtest --spawn memory --players 5000 --rate 1000 --workers 2 --out /tmp/lt
    tablehub loadtest --spawn memory --scenario idle --clients 5000 --out /tmp/idle
    tablehub loadtest --spawn memory --scenario tournament --players 1000 --out /tmp/t
    tablehub loadtest --spawn memory --scenario bots --players 100 --duration 60 --out /tmp/b
    tablehub loadtest --spawn memory --baseline --sweep 500,1000,2000 --out /tmp/cmp
    tablehub loadtest --spawn redis-cluster --hubs 2 --players 400 --duration 20 --out /tmp/rc
    tablehub loadtest --url ws://host:8000/ws --hub-pids 1234 --out /tmp/ext
    tablehub loadtest --merge /tmp/lt /tmp/idle /tmp/t --out /tmp/all   # one report

Exit status: 0 when every correctness check passed, 1 when one failed, 2 when the
run could not be set up.  Also runnable as ``python -m loadtest``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tablehub.clients.cli.connection import CAFILE_ENV
from tablehub.loadtest.config import SCENARIOS, RunConfig, default_mix, parse_mix
from tablehub.loadtest.targets import (
    SPAWN_KINDS,
    SpawnError,
    Target,
    external,
    spawn,
    spawn_baseline,
)
from tablehub.loadtest.worker import raise_open_files


def add_loadtest_command(sub: Any) -> None:
    """Add the ``loadtest`` subcommand to ``tablehub``'s argparse subparsers."""
    parser = sub.add_parser(
        "loadtest",
        help="simulated players against a hub; writes a report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.set_defaults(run=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_argument_group("target")
    where.add_argument(
        "--url", help="a running hub's WebSocket URL (ws://host:port/ws, or wss:// over TLS)"
    )
    where.add_argument(
        "--cafile",
        default=os.environ.get(CAFILE_ENV),
        help="for a wss:// URL: also trust the certificates in this PEM file "
        f"(env {CAFILE_ENV}); --spawn redis trusts its own throwaway certificate",
    )
    where.add_argument(
        "--hub-pids", default="", help="with --url: comma-separated hub pids to sample (/proc)"
    )
    where.add_argument(
        "--spawn",
        choices=SPAWN_KINDS,
        help="start the hub for the run: memory = one process; redis = redis + --hubs "
        "hubs behind nginx (tablehub cluster's topology); redis-cluster = the same on a "
        "local Redis Cluster (3 masters + 3 replicas)",
    )
    where.add_argument(
        "--hubs", type=int, default=2, help="--spawn redis(-cluster): hub processes behind nginx"
    )
    where.add_argument(
        "--durability",
        choices=("memory", "replica"),
        default="memory",
        help="--spawn redis(-cluster): the hubs' --durability (replica: acknowledge a move "
        "once a Redis replica has it)",
    )
    where.add_argument("--server-log", type=Path, help="write spawned servers' output here")

    what = parser.add_argument_group("scenario")
    what.add_argument("--scenario", choices=SCENARIOS, default="tables")
    what.add_argument("--players", type=int, default=200, help="seated players (default 200)")
    what.add_argument("--clients", type=int, default=1000, help="idle scenario: connections")
    what.add_argument("--game", default="nmbr9", help="tables scenario: game id")
    what.add_argument("--seats", type=int, default=4, help="tables scenario: seats per table")
    what.add_argument("--spectators", type=int, default=1, help="spectators per table")
    what.add_argument(
        "--mix", default=default_mix(), help="mixed scenario: game=seats+spectators,…"
    )
    what.add_argument("--json", action="store_true", help="use tablehub.v1.json, not msgpack")
    what.add_argument("--bots", type=int, default=3, help="bots scenario: bot seats per table")
    what.add_argument("--bot-level", default="strong", help="bots scenario: the bots' level")
    what.add_argument(
        "--pace",
        type=float,
        default=10.0,
        help="bots scenario: turn deadline, s (the player acts at 95 %% of it)",
    )

    pace = parser.add_argument_group("pacing")
    pace.add_argument("--rate", type=float, help="target acts/s over all players")
    pace.add_argument("--think", type=float, default=2.0, help="mean think time, s (no --rate)")
    pace.add_argument("--min-think", type=float, default=0.0, help="shortest think time, s")
    pace.add_argument("--ramp", type=float, default=5.0, help="seconds to open all connections")
    pace.add_argument("--duration", type=float, default=20.0, help="measured seconds after ramp")
    pace.add_argument("--drain", type=float, default=15.0, help="max wait for last replies, s")
    pace.add_argument("--workers", type=int, default=1, help="generator processes")
    pace.add_argument("--legal-share", type=float, default=0.05, help="9-tower: share of legal")
    pace.add_argument("--max-acts-per-game", type=int, default=400)
    pace.add_argument("--seed", type=int, default=1)
    pace.add_argument(
        "--no-memo", action="store_true", help="every client patches and hashes on its own"
    )
    pace.add_argument(
        "--no-rooms",
        action="store_true",
        help="connect without ?room=: a balancer spreads each table's players over the hubs",
    )

    compare = parser.add_argument_group("comparison and report")
    compare.add_argument(
        "--baseline", action="store_true", help="also measure the bare websockets fan-out server"
    )
    compare.add_argument("--sweep", default="", help="comma-separated target rates to sweep")
    compare.add_argument("--p99-bound-ms", type=float, default=50.0, help="sweep latency bound")
    compare.add_argument("--repeat", type=int, default=1, help="runs per point (medians)")
    compare.add_argument("--out", type=Path, help="report folder (default ./loadtest-<time>)")
    compare.add_argument("--quiet", action="store_true", help="no progress lines")
    compare.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="DIR",
        help="run nothing: one report from the runs of these report folders",
    )


def config_from_args(args: argparse.Namespace) -> RunConfig:
    return RunConfig(
        scenario=args.scenario,
        players=args.players,
        clients=args.clients,
        game=args.game,
        seats=args.seats,
        spectators=args.spectators,
        mix=tuple(parse_mix(args.mix)),
        rate=args.rate,
        think=args.think,
        min_think=args.min_think,
        ramp=args.ramp,
        duration=args.duration,
        drain=args.drain,
        workers=args.workers,
        subprotocol="tablehub.v1.json" if args.json else "tablehub.v1.msgpack",
        legal_share=args.legal_share,
        max_acts_per_game=args.max_acts_per_game,
        memo=not args.no_memo,
        rooms=not args.no_rooms,
        seed=args.seed,
        bots=args.bots,
        bot_level=args.bot_level,
        pace=args.pace,
    )


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _hub_target(args: argparse.Namespace) -> Target:
    if args.url:
        pids = [int(p) for p in args.hub_pids.split(",") if p.strip()]
        return external(args.url, pids)
    return spawn(args.spawn, args.server_log, args.hubs, args.durability)


def _one(config: RunConfig, target: Target, label: str, repeat: int, quiet: bool) -> dict[str, Any]:
    from tablehub.loadtest.analysis import analyse
    from tablehub.loadtest.runner import execute

    _log(f"== {label} #{repeat}: {config.scenario} against {target.kind} {target.url}")
    try:
        raw = execute(config, target, quiet=quiet)
    finally:
        target.stop()
    result = analyse(raw)
    result["label"], result["repeat"] = label, repeat
    c, f = result["correctness"], result["figures"]
    for failure in c["failures"]:
        _log(f"   {failure}")
    _log(
        f"   correctness {'ok' if c['passed'] else 'FAILED'}; acts/s {f['acts_per_s']}, "
        f"messages/s {f['frames_per_s']}, act→patch p99 {f['act_patch']['p99_ms']} ms"
    )
    return result


def _frame_sizes(runs: list[dict[str, Any]]) -> tuple[int, int]:
    """Mean patch and event frame sizes the hub sent (for the baseline server)."""
    patch, event = [], []
    for run in runs:
        counts = run["raw_counts"]
        if counts.get("patch"):
            patch.append(counts.get("patch_bytes", 0) / counts["patch"])
        if counts.get("event"):
            event.append(counts.get("event_bytes", 0) / counts["event"])
    return (
        int(statistics.median(patch)) if patch else 300,
        int(statistics.median(event)) if event else 120,
    )


def _command() -> list[str]:
    name = Path(sys.argv[0]).name
    return ["python -m loadtest" if name == "__main__.py" else name, *sys.argv[1:]]


def merge(dirs: list[Path], out: Path | None, bound_ms: float) -> int:
    """One report from the runs stored in several report folders."""
    from tablehub.loadtest.report import build_report, write

    runs: list[dict[str, Any]] = []
    for folder in dirs:
        data = json.loads((folder / "report.json").read_text())
        runs.extend(data["runs"])
    report = build_report(runs, _command(), bound_ms)
    paths = write(report, out or Path(f"loadtest-{time.strftime('%Y%m%d-%H%M%S')}"))
    for row in report["targets"]:
        _log(f"   {row['status']:<20} {row['name']}: {row['measured']}")
    _log(f"report: {paths[1]}")
    return 0 if report["correctness"]["passed"] else 1


def run(args: argparse.Namespace) -> int:
    from tablehub.loadtest.report import build_report, write

    if args.merge:
        return merge(args.merge, args.out, args.p99_bound_ms)
    if not args.url and not args.spawn:
        _log("loadtest: give --url of a running hub or --spawn memory")
        return 2
    if args.cafile:
        os.environ[CAFILE_ENV] = args.cafile  # the workers' connections read it (tls_for)
    raise_open_files()
    base = config_from_args(args)
    sweep = [float(r) for r in args.sweep.split(",") if r.strip()]
    rates: list[float | None] = list(sweep) if sweep else [base.rate]
    baseline = args.baseline and base.scenario in ("tables", "mixed")
    runs: list[dict[str, Any]] = []
    try:
        for rate in rates:
            suffix = f"@{rate:g}" if sweep and rate is not None else ""
            config = dataclasses.replace(base, rate=rate)
            hub_runs = []
            for repeat in range(args.repeat):
                hub_runs.append(_one(config, _hub_target(args), "hub" + suffix, repeat, args.quiet))
            runs += hub_runs
            if baseline:
                patch_bytes, event_bytes = _frame_sizes(hub_runs)
                base_rate = rate
                if base_rate is None:
                    achieved = [r["figures"]["acts_per_s"] for r in hub_runs]
                    base_rate = statistics.median(achieved) or None
                base_config = dataclasses.replace(
                    config,
                    rate=base_rate,
                    game="baseline",
                    mix=tuple(dataclasses.replace(e, game="baseline") for e in config.mix),
                )
                for repeat in range(args.repeat):
                    target = spawn_baseline(patch_bytes, event_bytes, args.server_log)
                    result = _one(base_config, target, "baseline" + suffix, repeat, args.quiet)
                    result["baseline_frame_bytes"] = {"patch": patch_bytes, "event": event_bytes}
                    runs.append(result)
    except SpawnError as err:
        _log(f"loadtest: {err}")
        return 2
    if args.baseline and not baseline:
        _log("loadtest: --baseline applies to the tables and mixed scenarios only")
    out = args.out or Path(f"loadtest-{time.strftime('%Y%m%d-%H%M%S')}")
    report = build_report(runs, _command(), args.p99_bound_ms)
    paths = write(report, out)
    for row in report["targets"]:
        _log(f"   {row['status']:<20} {row['name']}: {row['measured']}")
    _log(f"report: {paths[1]}")
    return 0 if report["correctness"]["passed"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))
