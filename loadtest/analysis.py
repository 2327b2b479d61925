"""From a :class:`~loadtest.runner.RawRun` to figures, correctness checks and targets.

``analyse(raw)`` returns plain data (the report's ``runs[]`` entries):

* ``correctness`` -- the checks that make the command exit non-zero: every act got
  exactly one reply (sent = ok + error + lost-to-disconnect, none unanswered, no
  reply to nothing), zero hash mismatches, no ``internal_error``, every worker
  reported, every client connected, and something was played;
* ``figures`` -- connections held, act rate, act→reply and act→patch latency
  (steady window: acts sent after the ramp and before the stop), patches and frames
  delivered per second, errors by code, reconnects, CPU and memory per process;
* scenario figures: memory per idle connection, tournament round-end latency;
* ``timeline`` -- per second: acts, patches, frames, latency percentiles, server CPU
  and RSS (for the plot).
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import Any

from tablehub.loadtest.runner import RawRun
from tablehub.loadtest.stats import Histogram, Merged, merge_dicts


def analyse(raw: RawRun) -> dict[str, Any]:
    merged = merge_dicts(raw.results)
    config = raw.config
    t0 = raw.t0
    # Acting stops at stop_at, or earlier when a tournament's game is over.
    stopped = [e["stopped_at"] for e in merged.extras if "stopped_at" in e]
    last = min(config.stop_at, max(stopped)) if stopped else config.stop_at
    steady_start, steady_end = t0 + config.ramp, t0 + max(last, config.ramp + 1)
    figures = _figures(raw, merged, steady_start, steady_end)
    out: dict[str, Any] = {
        "scenario": config.scenario,
        "target": {"kind": raw.target.kind, "url": raw.target.url},
        "config": _config_dict(raw),
        "correctness": _correctness(raw, merged),
        "figures": figures,
        "timeline": _timeline(raw, merged),
        "notes": list(raw.notes),
        "raw_counts": dict(merged.counts),
        "hub_metrics": raw.hub_metrics,
        "heap": raw.heap,
    }
    if config.scenario == "idle":
        out["idle"] = _idle(raw, figures, steady_start, steady_end)
    if config.scenario == "tournament":
        out["tournament"] = _tournament(merged)
    if config.scenario == "bots":
        out["bots"] = _bots(merged, config.bots, steady_end - steady_start)
    return out


def _bots(merged: Merged, bots: int, seconds: float) -> dict[str, Any]:
    """Rounds started in the steady window: how many, how many had a bot move after the
    round's deadline, and the time from a round's start to its last bot move."""
    rounds = merged.counts["bot_rounds"]
    return {
        "rounds": rounds,
        "late_rounds": merged.counts["bot_rounds_late"],
        "bot_moves_per_s": round(rounds * bots / seconds, 1) if seconds else None,
        "bots_done": merged.histograms["bot_round"].summary(),
    }


def _config_dict(raw: RawRun) -> dict[str, Any]:
    data = dataclasses.asdict(raw.config)
    data["mix"] = [dataclasses.asdict(e) for e in raw.config.mix]
    data["games_offered"] = raw.available
    data["tables"] = sum(len(p.tables) for p in raw.plans)
    data["planned_connections"] = 1 + sum(  # 1: the ping probe of worker 0
        sum(spec.players + spec.spectators for _, spec in p.tables)
        + len(p.idle)
        + len(p.tournament_seats)
        for p in raw.plans
    )
    data["planned_players"] = sum(p.players for p in raw.plans)
    return data


def _correctness(raw: RawRun, merged: Merged) -> dict[str, Any]:
    c = merged.counts
    sent, ok, err = c["acts_sent"], c["acts_ok"], c["acts_error"]
    lost, unanswered = c["acts_lost"], c["acts_unanswered"]
    checks = {
        "workers_reported": not raw.failures and len(raw.results) == len(raw.plans),
        "every_act_one_reply": sent == ok + err + lost + unanswered
        and unanswered == 0
        and c["replies_unexpected"] == 0,
        "zero_hash_mismatches": c["hash_mismatches"] == 0,
        "no_internal_errors": merged.errors.get("internal_error", 0) == 0
        and not any(k.endswith(":internal_error") for k in merged.errors),
        "all_clients_connected": c["connect_failures"] == 0,
    }
    if raw.config.scenario != "idle":
        checks["acts_were_played"] = ok > 0
    return {
        "passed": all(checks.values()),
        "checks": checks,
        "acts_sent": sent,
        "acts_ok": ok,
        "acts_error": err,
        "acts_lost_to_disconnect": lost,
        "acts_unanswered": unanswered,
        "replies_unexpected": c["replies_unexpected"],
        "hash_mismatches": c["hash_mismatches"],
        "connect_failures": c["connect_failures"],
        "failures": raw.failures,
        "mismatch_samples": [s for e in merged.extras for s in e.get("mismatch_samples", [])],
    }


def _steady_rate(merged: Merged, name: str, first: int, last: int) -> float:
    seconds = max(last - first, 1)
    total = sum(merged.timeline[i].counts[name] for i in range(first, last) if i in merged.timeline)
    return round(total / seconds, 1)


def _figures(raw: RawRun, merged: Merged, start: float, end: float) -> dict[str, Any]:
    config = raw.config
    first, last = int(config.ramp), int(end - raw.t0)
    c = merged.counts
    held = _connections_held(raw, first, last)
    verifier = [e.get("verifier", {}) for e in merged.extras]
    hist = merged.histograms
    figures: dict[str, Any] = {
        "connections_peak": held["peak"],
        "connections_held_steady_min": held["steady_min"],
        "players": sum(e.get("players", 0) for e in merged.extras),
        "acts_per_s": _steady_rate(merged, "acts_sent", first, last),
        "target_acts_per_s": config.rate,
        "patches_per_s": _steady_rate(merged, "patch", first, last),
        "frames_per_s": _steady_rate(merged, "frames_in", first, last),
        "events_per_s": _steady_rate(merged, "event", first, last),
        "act_reply": hist["act_reply_steady"].summary(),
        "act_patch": hist["act_patch_steady"].summary(),
        "act_reply_all": hist["act_reply"].summary(),
        "act_patch_all": hist["act_patch"].summary(),
        "generator_loop_lag": hist["loop_lag"].summary(),
        "hub_ping": hist["ping"].summary(),
        "errors_by_code": dict(sorted(merged.errors.items())),
        "close_codes": dict(merged.close_codes),
        "disconnects": c["disconnects"],
        "reconnects": c["reconnects"],
        "retries": c["retries"],
        "retries_by_code": {
            k.partition(".")[2]: v for k, v in sorted(c.items()) if k.startswith("retries.")
        },
        "batches": c["batches_in"],
        "resyncs": c["resyncs"],
        "gaps": c["gaps"],
        "snapshots": c["snapshot"],
        "patches_from_empty": c["patches_from_empty"],
        "legal_requests": c["legal_sent"],
        "games": {
            k[6:]: v for k, v in sorted(c.items()) if k.startswith("games_") and "." not in k
        },
        "by_game": _by_game(c),
        "verifier_computed": sum(v.get("computed", 0) for v in verifier),
        "verifier_reused": sum(v.get("reused", 0) for v in verifier),
        "processes": [s.window(start, end) for s in raw.sampler.series],
        "machine_cpu": raw.sampler.machine_window(start, end),
        "generator_cpu_seconds": round(sum(e.get("cpu_seconds", 0.0) for e in merged.extras), 1),
    }
    return figures


def _by_game(counts: Any) -> dict[str, dict[str, int]]:
    """Acts answered ok and games started/finished/… per game id."""
    out: dict[str, dict[str, int]] = {}
    for key, value in counts.items():
        name, dot, game = key.partition(".")
        if dot and (name == "acts_ok" or name.startswith("games_")):
            out.setdefault(game, {})[name] = value
    return dict(sorted(out.items()))


def _connections_held(raw: RawRun, first: int, last: int) -> dict[str, int]:
    """Peak of the summed per-worker connection counts, and the minimum while steady."""
    by_tick: dict[int, dict[int, int]] = {}
    for p in raw.progress:
        by_tick.setdefault(int(p["t"]), {})[p["worker"]] = p["connections"]
    latest: dict[int, int] = {}
    totals: dict[int, int] = {}
    for tick in sorted(by_tick):
        latest.update(by_tick[tick])
        totals[tick] = sum(latest.values())
    steady = [v for t, v in totals.items() if first + 1 <= t < last]
    return {
        "peak": max(totals.values(), default=0),
        "steady_min": min(steady, default=0),
    }


def _timeline(raw: RawRun, merged: Merged) -> list[dict[str, Any]]:
    servers = [s for s in raw.sampler.series if s.role in ("hub", "baseline")]
    out = []
    for index in sorted(merged.timeline):
        sec = merged.timeline[index]
        row: dict[str, Any] = {
            "t": index,
            "acts": sec.counts["acts_sent"],
            "patches": sec.counts["patch"],
            "frames": sec.counts["frames_in"],
            "act_patch_p50_ms": _ms(sec.act_patch.percentile(50)),
            "act_patch_p99_ms": _ms(sec.act_patch.percentile(99)),
            "act_reply_p99_ms": _ms(sec.act_reply.percentile(99)),
        }
        cpu, rss = 0.0, 0
        for series in servers:
            inside = [
                s
                for s in series.samples
                if index <= s["t"] - raw.t0 < index + 1 and s["cpu_pct"] >= 0
            ]
            if inside:
                cpu += statistics.mean(s["cpu_pct"] for s in inside)
                rss += int(inside[-1]["rss_kib"])
        row["server_cpu_pct"] = round(cpu, 1)
        row["server_rss_mib"] = round(rss / 1024, 1)
        out.append(row)
    return out


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 3)


def _idle(raw: RawRun, figures: dict[str, Any], start: float, end: float) -> dict[str, Any]:
    """Hub RSS growth per idle connection: (RSS held idle - RSS before) / connections."""
    out: dict[str, Any] = {}
    held = figures["connections_held_steady_min"]
    before = after = 0
    for series in raw.sampler.series:
        if series.role != "hub":
            continue
        rss_before = series.rss_before(raw.t0)
        late = [s["rss_kib"] for s in series.samples if (start + end) / 2 <= s["t"] <= end]
        if rss_before is None or not late:
            continue
        before += rss_before
        after += int(statistics.median(late))
    if before and held:
        out = {
            "rss_before_mib": round(before / 1024, 1),
            "rss_idle_mib": round(after / 1024, 1),
            "connections": held,
            "kib_per_connection": round((after - before) / held, 2),
        }
    return out


def _tournament(merged: Merged) -> dict[str, Any]:
    """Per round: the last placement's send time vs when each seat saw the next turn."""
    acts: list[tuple[int, int, float]] = []
    seen: list[list[tuple[int, str, float]]] = []
    for extra in merged.extras:
        rounds = extra.get("rounds")
        if rounds:
            acts.extend((int(a[0]), int(a[1]), float(a[2])) for a in rounds["acts"])
            seen.extend(
                [(int(s[0]), str(s[1]), float(s[2])) for s in seat] for seat in rounds["seen"]
            )
    per_round = []
    for turn in sorted({a[0] for a in acts}):
        last = max((a for a in acts if a[0] == turn), key=lambda a: a[1])
        hist = Histogram()
        missing = 0
        for seat_seen in seen:
            ended = next(
                (t for (tn, status, t) in seat_seen if tn > turn or status == "finished"), None
            )
            if ended is None:
                missing += 1
            else:
                hist.add(max(0.0, ended - last[2]))
        summary = hist.summary()
        per_round.append(
            {
                "round": turn,
                "seats_seen": hist.count,
                "seats_missing": missing,
                "p50_ms": summary["p50_ms"],
                "p99_ms": summary["p99_ms"],
                "max_ms": summary["max_ms"],
            }
        )
    worst = max((float(r["max_ms"] or 0.0) for r in per_round), default=None)
    complete = [float(r["max_ms"]) for r in per_round if r["max_ms"] is not None]
    return {
        "rounds": per_round,
        "seats": len(seen),
        "rounds_completed": len(complete),
        "worst_round_end_ms": worst,
        "median_round_end_max_ms": statistics.median(complete) if complete else None,
        "seats_missing_any_round_end": sum(r["seats_missing"] for r in per_round),
    }
