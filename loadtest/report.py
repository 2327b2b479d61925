"""The report: ``report.json`` (machines), ``report.md`` (people), ``*.svg`` (plots).

``build_report`` takes the analysed runs (``loadtest.analysis``), groups them by label
(``hub``, ``baseline``, ``hub@<rate>``...), takes medians over repeated runs, compares
the hub with the bare-websockets baseline, and evaluates the issue's targets:

1. hub fan-out >= 60 % of the baseline's delivered messages/s at equal p99 -- with a
   rate sweep: the highest delivered messages/s whose p99 act→patch stays within the
   bound, hub / baseline; without one: the ratio at the same offered load;
2. one hub holds >= 5,000 9-tower players (4 seats + 1 spectator per table) with p99
   act→patch <= 50 ms;
3. <= 30 KiB hub memory per idle connection;
4. a 1,000-seat tournament table: every seat sees the round's end <= 1 s after the
   last placement.

A target a run does not exercise is reported as "not measured".
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tablehub.loadtest.svgplot import Series, line_chart, stack

FANOUT_RATIO = 0.6
PLAYERS_TARGET = 5000
P99_TARGET_MS = 50.0
IDLE_KIB_TARGET = 30.0
TOURNAMENT_SEATS = 1000
ROUND_END_TARGET_MS = 1000.0
SERVER_BUSY_PCT = 80.0
"""A server below this CPU at its capacity point was not what limited it."""

MEDIAN_FIGURES = (
    ("hub_ping", "p99_ms"),
    ("generator_loop_lag", "p99_ms"),
    ("acts_per_s",),
    ("patches_per_s",),
    ("frames_per_s",),
    ("act_reply", "p50_ms"),
    ("act_reply", "p99_ms"),
    ("act_patch", "p50_ms"),
    ("act_patch", "p95_ms"),
    ("act_patch", "p99_ms"),
    ("act_patch", "max_ms"),
    ("connections_held_steady_min",),
    ("connections_peak",),
)


def _get(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _median(values: list[Any]) -> float | None:
    numbers = [v for v in values if isinstance(v, (int, float))]
    return round(statistics.median(numbers), 3) if numbers else None


def _cpu_ms_per_act(figures: dict[str, Any]) -> float | None:
    """CPU milliseconds per act of every serving process of one run (hubs, Redis, the
    balancer's workers -- everything but the load generator's own workers)."""
    acts = figures.get("acts_per_s")
    if not acts:
        return None
    busy_pct = sum(p.get("cpu_pct_avg") or 0 for p in figures["processes"] if p["role"] != "worker")
    return round(float(busy_pct) * 10 / float(acts), 3)  # 100 % = 1,000 ms CPU per second


def cpu_per_act(summary: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Hub vs baseline CPU per act for each hub run that has a baseline twin (same
    offered load, same scenario).  ``summary`` keys are ``label · scenario · target``."""
    baselines = {
        tuple(key.split(" · ")[:2]): row
        for key, row in summary.items()
        if key.startswith("baseline")
    }
    rows = []
    for key, hub in summary.items():
        label, scenario = key.split(" · ")[:2]
        base = baselines.get(("baseline" + label[len("hub") :], scenario))
        if not label.startswith("hub") or base is None:
            continue
        hub_ms, base_ms = hub.get("server_cpu_ms_per_act"), base.get("server_cpu_ms_per_act")
        ratio = round(hub_ms / base_ms, 2) if hub_ms and base_ms else None
        rows.append({"load": label, "hub_ms": hub_ms, "baseline_ms": base_ms, "ratio": ratio})
    return rows


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over repeated runs of one label."""
    out: dict[str, Any] = {"runs": len(runs)}
    for path in MEDIAN_FIGURES:
        out[".".join(path)] = _median([_get(r["figures"], path) for r in runs])
    for role in ("hub", "baseline"):
        # Summed over the role's processes (several hubs behind a balancer), then the
        # median over the runs.
        per_run = [
            [p for p in r["figures"]["processes"] if p["role"] == role and "cpu_pct_avg" in p]
            for r in runs
        ]
        if any(per_run):
            out[f"{role}_cpu_pct_avg"] = _median(
                [sum(p["cpu_pct_avg"] for p in procs) for procs in per_run if procs]
            )
            out[f"{role}_rss_mib_end"] = _median(
                [sum(p.get("rss_mib_end") or 0 for p in procs) for procs in per_run if procs]
            )
    out["server_cpu_ms_per_act"] = _median([_cpu_ms_per_act(r["figures"]) for r in runs])
    worker_cpu = [
        sum(p.get("cpu_pct_avg") or 0 for p in r["figures"]["processes"] if p["role"] == "worker")
        for r in runs
    ]
    out["generator_cpu_pct_avg"] = _median(worker_cpu)
    out["machine_other_cpu_pct"] = _median(
        [(r["figures"].get("machine_cpu") or {}).get("other_pct") for r in runs]
    )
    idle = [_get(r, ("idle", "kib_per_connection")) for r in runs]
    if any(v is not None for v in idle):
        out["idle_kib_per_connection"] = _median(idle)
    worst = [_get(r, ("tournament", "worst_round_end_ms")) for r in runs]
    if any(v is not None for v in worst):
        out["tournament_worst_round_end_ms"] = _median(worst)
        out["tournament_median_round_end_max_ms"] = _median(
            [_get(r, ("tournament", "median_round_end_max_ms")) for r in runs]
        )
        out["tournament_rounds_completed"] = _median(
            [_get(r, ("tournament", "rounds_completed")) for r in runs]
        )
    return out


def _capacity(runs: list[dict[str, Any]], bound_ms: float) -> dict[str, Any] | None:
    """The highest delivered frames/s of a sweep whose p99 act→patch is within bound."""
    ok = [
        r
        for r in runs
        if r["correctness"]["passed"]
        and (_get(r["figures"], ("act_patch", "p99_ms")) or 1e9) <= bound_ms
    ]
    if not ok:
        return None
    best = max(ok, key=lambda r: r["figures"]["frames_per_s"])
    servers = [p for p in best["figures"]["processes"] if p["role"] in ("hub", "baseline")]
    return {
        "frames_per_s": best["figures"]["frames_per_s"],
        "acts_per_s": best["figures"]["acts_per_s"],
        "p99_ms": _get(best["figures"], ("act_patch", "p99_ms")),
        "offered_rate": best["config"]["rate"],
        "server_cpu_pct": round(sum(p.get("cpu_pct_avg") or 0 for p in servers), 1),
        "highest_rate_tried": max(r["config"]["rate"] or 0 for r in runs),
    }


def compare(by_label: dict[str, list[dict[str, Any]]], bound_ms: float) -> dict[str, Any] | None:
    hub_sweep = [r for label, runs in by_label.items() if label.startswith("hub@") for r in runs]
    base_sweep = [
        r for label, runs in by_label.items() if label.startswith("baseline@") for r in runs
    ]
    if hub_sweep and base_sweep:
        hub_cap, base_cap = _capacity(hub_sweep, bound_ms), _capacity(base_sweep, bound_ms)
        ratio = None
        if hub_cap and base_cap and base_cap["frames_per_s"]:
            ratio = round(hub_cap["frames_per_s"] / base_cap["frames_per_s"], 3)
        notes = []
        for name, cap in (("hub", hub_cap), ("baseline", base_cap)):
            if cap and cap["offered_rate"] == cap["highest_rate_tried"]:
                notes.append(
                    f"{name}: the highest rate tried was still within the bound "
                    f"(server CPU {cap['server_cpu_pct']} %): its capacity is at least this; "
                    "sweep higher, or the generator is the limit"
                )
            elif cap and cap["server_cpu_pct"] < SERVER_BUSY_PCT:
                notes.append(
                    f"{name}: the server used {cap['server_cpu_pct']} % CPU at its best point: "
                    "its CPU alone did not push the next rate over the bound (pauses in the "
                    "server -- see ping p99 -- or a busy generator -- see loop lag p99)"
                )
        return {
            "notes": notes,
            "method": "rate sweep: highest delivered messages/s with p99 act→patch "
            f"<= {bound_ms:g} ms",
            "hub": hub_cap,
            "baseline": base_cap,
            "ratio": ratio,
            "equal_p99": True,
        }
    if by_label.get("hub") and by_label.get("baseline"):
        hub, base = summarise(by_label["hub"]), summarise(by_label["baseline"])
        ratio = None
        if base["frames_per_s"]:
            ratio = round((hub["frames_per_s"] or 0) / base["frames_per_s"], 3)
        return {
            "method": "same offered load on both (not a capacity sweep: use --sweep for equal p99)",
            "hub": {"frames_per_s": hub["frames_per_s"], "p99_ms": hub["act_patch.p99_ms"]},
            "baseline": {"frames_per_s": base["frames_per_s"], "p99_ms": base["act_patch.p99_ms"]},
            "ratio": ratio,
            "equal_p99": False,
        }
    return None


def _row(name: str, target: str, measured: str, status: str, detail: str = "") -> dict[str, str]:
    return {
        "name": name,
        "target": target,
        "measured": measured,
        "status": status,
        "detail": detail,
    }


def targets(
    by_label: dict[str, list[dict[str, Any]]], comparison: dict[str, Any] | None
) -> list[dict[str, str]]:
    rows = []
    if comparison and comparison["ratio"] is not None:
        status = "pass" if comparison["ratio"] >= FANOUT_RATIO else "miss"
        if not comparison["equal_p99"]:
            status += " (indicative)"
        rows.append(
            _row(
                "hub fan-out vs bare websockets",
                ">= 60 % of baseline messages/s at equal p99",
                f"{comparison['ratio'] * 100:.0f} %",
                status,
                comparison["method"],
            )
        )
    else:
        rows.append(
            _row(
                "hub fan-out vs bare websockets",
                ">= 60 % of baseline messages/s at equal p99",
                "-",
                "not measured",
                "run with --baseline (and --sweep)",
            )
        )
    # The targets are about one hub process with the memory store.
    hub_runs = [r for r in by_label.get("hub", []) if r["target"]["kind"] in ("memory", "external")]
    tables = [
        r
        for r in hub_runs
        if r["scenario"] == "tables"
        and r["config"]["game"] == "nmbr9"
        and r["config"]["seats"] == 4
        and r["config"]["spectators"] >= 1
    ]
    if tables:
        s = summarise(tables)
        players = tables[0]["config"]["planned_players"]
        held = s["connections_held_steady_min"] or 0
        planned = tables[0]["config"]["planned_connections"]
        p99 = s["act_patch.p99_ms"]
        good = (
            players >= PLAYERS_TARGET
            and held >= planned
            and p99 is not None
            and p99 <= P99_TARGET_MS
            and all(r["correctness"]["passed"] for r in tables)
        )
        rows.append(
            _row(
                "9-tower players on one hub (4+1 per table)",
                f">= {PLAYERS_TARGET} players, p99 act→patch <= {P99_TARGET_MS:g} ms",
                f"{players} players ({held}/{planned} connections held), p99 {p99} ms "
                f"at {s['acts_per_s']} acts/s",
                "pass" if good else "miss",
            )
        )
    else:
        rows.append(
            _row(
                "9-tower players on one hub (4+1 per table)",
                f">= {PLAYERS_TARGET} players, p99 act→patch <= {P99_TARGET_MS:g} ms",
                "-",
                "not measured",
                "--scenario tables --players 5000",
            )
        )
    idle = [r for r in hub_runs if r["scenario"] == "idle" and r.get("idle")]
    if idle:
        kib = summarise(idle)["idle_kib_per_connection"]
        rows.append(
            _row(
                "hub memory per idle connection",
                f"<= {IDLE_KIB_TARGET:g} KiB",
                f"{kib} KiB ({idle[0]['idle']['connections']} connections)",
                "pass" if kib is not None and kib <= IDLE_KIB_TARGET else "miss",
            )
        )
    else:
        rows.append(
            _row(
                "hub memory per idle connection",
                f"<= {IDLE_KIB_TARGET:g} KiB",
                "-",
                "not measured",
                "--scenario idle",
            )
        )
    tour = [r for r in hub_runs if r["scenario"] == "tournament" and r.get("tournament")]
    if tour:
        s = summarise(tour)
        seats = tour[0]["tournament"]["seats"]
        worst = s.get("tournament_worst_round_end_ms")
        done = s.get("tournament_rounds_completed") or 0
        good = (
            seats >= TOURNAMENT_SEATS
            and worst is not None
            and worst <= ROUND_END_TARGET_MS
            and done == 20
            and all(r["correctness"]["passed"] for r in tour)
        )
        rows.append(
            _row(
                "1,000-seat tournament round end",
                f"every seat sees it <= {ROUND_END_TARGET_MS:g} ms after the last placement",
                f"worst round {worst} ms, median round "
                f"{s.get('tournament_median_round_end_max_ms')} ms "
                f"({seats} seats, {done} rounds completed)",
                "pass" if good else "miss",
            )
        )
    else:
        rows.append(
            _row(
                "1,000-seat tournament round end",
                f"<= {ROUND_END_TARGET_MS:g} ms",
                "-",
                "not measured",
                "--scenario tournament --players 1000",
            )
        )
    return rows


def _by_label_and_scenario(runs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        key = f"{run['label']} · {run['scenario']} · {run['target']['kind']}"
        out.setdefault(key, []).append(run)
    return out


def build_report(
    runs: list[dict[str, Any]], argv: list[str], bound_ms: float = P99_TARGET_MS
) -> dict[str, Any]:
    by_label: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        by_label.setdefault(run["label"], []).append(run)
    comparison = compare(by_label, bound_ms)
    failed = [
        f"{r['label']}#{r['repeat']}: {name}"
        for r in runs
        for name, ok in r["correctness"]["checks"].items()
        if not ok
    ]
    return {
        "tool": "tablehub loadtest",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": argv,
        "machine": {
            "cpus": os.cpu_count(),
            "memory_gib": _memory_gib(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
        },
        "correctness": {"passed": not failed, "failed_checks": failed},
        "p99_bound_ms": bound_ms,
        "summary": {key: summarise(rs) for key, rs in _by_label_and_scenario(runs).items()},
        "comparison": comparison,
        "targets": targets(by_label, comparison),
        "runs": runs,
    }


def _memory_gib() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
        return round(kib / 2**20, 1)
    except (OSError, ValueError, IndexError):
        return None


# -- writing ----------------------------------------------------------------------------


def write(report: dict[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "report.json", out / "report.md"]
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    plots = []
    for run in report["runs"]:
        label = run["label"].replace("@", "-")
        name = f"plot-{label}-{run['scenario']}-{run['target']['kind']}-{run['repeat']}.svg"
        (out / name).write_text(plot_run(run))
        plots.append(name)
    if report["comparison"] and report["comparison"]["equal_p99"]:
        bound = report.get("p99_bound_ms", P99_TARGET_MS)
        (out / "plot-sweep.svg").write_text(plot_sweep(report["runs"], bound))
        plots.append("plot-sweep.svg")
    (out / "report.md").write_text(markdown(report, plots))
    return written + [out / p for p in plots]


def plot_run(run: dict[str, Any]) -> str:
    rows = run["timeline"]

    def points(key: str) -> list[tuple[float, float | None]]:
        return [(float(r["t"]), r.get(key)) for r in rows]

    title = f"{run['label']} #{run['repeat']} — {run['scenario']}"
    latency = line_chart(
        f"{title}: latency per second",
        [
            Series("act→patch p50", points("act_patch_p50_ms")),
            Series("act→patch p99", points("act_patch_p99_ms")),
            Series("act→reply p99", points("act_reply_p99_ms"), dashed=True),
        ],
        "seconds since start",
        "ms",
    )
    throughput = line_chart(
        "throughput per second",
        [
            Series("frames delivered", points("frames")),
            Series("patches delivered", points("patches")),
            Series("acts sent", points("acts")),
        ],
        "seconds since start",
        "per second",
    )
    server = line_chart(
        "server process",
        [Series("CPU %", points("server_cpu_pct")), Series("RSS MiB", points("server_rss_mib"))],
        "seconds since start",
        "% / MiB",
    )
    return stack([latency, throughput, server])


def plot_sweep(runs: list[dict[str, Any]], bound_ms: float = P99_TARGET_MS) -> str:
    series = []
    for prefix in ("hub@", "baseline@"):
        pts = sorted(
            (r["figures"]["frames_per_s"], _get(r["figures"], ("act_patch", "p99_ms")))
            for r in runs
            if r["label"].startswith(prefix)
        )
        series.append(Series(prefix.rstrip("@") + " p99", pts))
    xs = [x for s in series for x, _ in s.points]
    if xs:
        bound = [(min(xs), bound_ms), (max(xs), bound_ms)]
        series.append(Series(f"bound {bound_ms:g} ms", list(bound), "#888", dashed=True))
    chart = line_chart(
        "p99 act→patch vs delivered messages/s (rate sweep)",
        series,
        "delivered messages/s",
        "p99 ms",
    )
    return stack([chart])


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 100 else f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def markdown(report: dict[str, Any], plots: list[str]) -> str:
    lines = ["# tablehub load test", ""]
    m = report["machine"]
    lines.append(
        f"{report['created']} · {m['cpus']} CPUs · {m['memory_gib']} GiB · "
        f"Python {m['python']} · `{' '.join(report['command'])}`"
    )
    lines.append("")
    verdict = "PASSED" if report["correctness"]["passed"] else "FAILED"
    lines.append(f"**Correctness: {verdict}**")
    for failed in report["correctness"]["failed_checks"]:
        lines.append(f"- failed: {failed}")
    lines += ["", "## Targets", "", "| target | goal | measured | status |", "|---|---|---|---|"]
    for row in report["targets"]:
        detail = f" — {row['detail']}" if row["detail"] else ""
        lines.append(
            f"| {row['name']} | {row['target']} | {row['measured']}{detail} | **{row['status']}** |"
        )
    comparison = report["comparison"]
    if comparison:
        lines += ["", "## Hub vs bare websockets", "", comparison["method"], ""]
        lines.append("| | messages/s | p99 act→patch ms | acts/s | server CPU % |")
        lines.append("|---|---|---|---|---|")
        for key in ("hub", "baseline"):
            side = comparison[key] or {}
            lines.append(
                f"| {key} | {_fmt(side.get('frames_per_s'))} | {_fmt(side.get('p99_ms'))} | "
                f"{_fmt(side.get('acts_per_s'))} | {_fmt(side.get('server_cpu_pct'))} |"
            )
        lines += ["", *[f"- {note}" for note in comparison.get("notes", [])]]
    per_act = cpu_per_act(report["summary"])
    if per_act:
        lines += ["", "## Server CPU per act, hub vs bare websockets", ""]
        lines += ["| run | hub ms/act | baseline ms/act | hub ÷ baseline |", "|---|---|---|---|"]
        for row in per_act:
            lines.append(
                f"| {row['load']} | {_fmt(row['hub_ms'])} | {_fmt(row['baseline_ms'])} | "
                f"{_fmt(row['ratio'])}{'×' if row['ratio'] else ''} |"
            )
    lines += ["", "## Runs (medians over repeats)", ""]
    header = (
        "| run | n | acts/s | patches/s | messages/s | act→reply p50/p99 ms | "
        "act→patch p50/p95/p99/max ms | connections | server CPU % | server CPU ms/act | "
        "server RSS MiB | "
        "generator CPU % | other load CPU % | server ping p99 ms | generator lag p99 ms |"
    )
    lines += [header, "|" + "---|" * 15]
    for label, s in report["summary"].items():
        role = "baseline" if label.startswith("baseline") else "hub"
        lines.append(
            f"| {label} | {s['runs']} | {_fmt(s['acts_per_s'])} | {_fmt(s['patches_per_s'])} | "
            f"{_fmt(s['frames_per_s'])} | {_fmt(s['act_reply.p50_ms'])} / "
            f"{_fmt(s['act_reply.p99_ms'])} | {_fmt(s['act_patch.p50_ms'])} / "
            f"{_fmt(s['act_patch.p95_ms'])} / {_fmt(s['act_patch.p99_ms'])} / "
            f"{_fmt(s['act_patch.max_ms'])} | {_fmt(s['connections_held_steady_min'])} | "
            f"{_fmt(s.get(f'{role}_cpu_pct_avg'))} | {_fmt(s.get('server_cpu_ms_per_act'))} | "
            f"{_fmt(s.get(f'{role}_rss_mib_end'))} | "
            f"{_fmt(s['generator_cpu_pct_avg'])} | {_fmt(s['machine_other_cpu_pct'])} | "
            f"{_fmt(s['hub_ping.p99_ms'])} | {_fmt(s['generator_loop_lag.p99_ms'])} |"
        )
    lines += ["", "## Each run", ""]
    for run in report["runs"]:
        f, c = run["figures"], run["correctness"]
        cfg = run["config"]
        lines.append(f"### {run['label']} #{run['repeat']} — {run['scenario']}")
        lines.append("")
        lines.append(
            f"- target: {run['target']['kind']} `{run['target']['url']}`; "
            f"{cfg['planned_players']} players, {cfg['planned_connections']} connections planned, "
            f"{cfg['tables']} tables; ramp {cfg['ramp']} s, steady {cfg['duration']} s, "
            f"rate {cfg['rate'] or '-'} acts/s (think {cfg['think']} s), {cfg['workers']} workers"
        )
        lines.append(
            f"- correctness: {'passed' if c['passed'] else 'FAILED'} — acts sent {c['acts_sent']}, "
            f"ok {c['acts_ok']}, error {c['acts_error']}, lost to disconnect "
            f"{c['acts_lost_to_disconnect']}, unanswered {c['acts_unanswered']}, unexpected "
            f"replies {c['replies_unexpected']}, hash mismatches {c['hash_mismatches']}, "
            f"connect failures {c['connect_failures']}"
        )
        lines.append(
            f"- errors by code: {f['errors_by_code'] or 'none'}; disconnects {f['disconnects']} "
            f"(close codes {f['close_codes'] or '-'}), reconnects {f['reconnects']}, requests "
            f"sent again when the hub asked (retry_ms) {f.get('retries', 0)}"
            f"{_by_code(f.get('retries_by_code'))}, batch frames {f.get('batches', 0)}, resyncs "
            f"{f['resyncs']}, snapshots {f['snapshots']}, patches from version -1 "
            f"{f.get('patches_from_empty', 0)}, legal requests {f['legal_requests']}, "
            f"games {f['games']}"
        )
        if len(f.get("by_game", {})) > 1:
            lines.append(f"- by game: {f['by_game']}")
        ping, lag = f["hub_ping"], f["generator_loop_lag"]
        lines.append(
            f"- server ping round trip (steady): p50 {_fmt(ping['p50_ms'])} ms, p99 "
            f"{_fmt(ping['p99_ms'])} ms, max {_fmt(ping['max_ms'])} ms; generator event-loop "
            f"lag p99 {_fmt(lag['p99_ms'])} ms, max {_fmt(lag['max_ms'])} ms"
        )
        machine = f.get("machine_cpu") or {}
        if machine:
            lines.append(
                f"- machine CPU while steady: {machine['busy_pct']} % busy of "
                f"{machine['cpus'] * 100} %; this run {machine['run_pct']} %, other processes "
                f"{machine['other_pct']} %"
                + (
                    " (**the machine was shared: figures are pessimistic**)"
                    if machine["other_pct"] > 15
                    else ""
                )
                + (
                    " (**the CPUs were saturated: server and generator competed**)"
                    if machine["busy_pct"] >= 0.9 * machine["cpus"] * 100
                    else ""
                )
            )
        for proc in f["processes"]:
            lines.append(
                f"- {proc['label']} (pid {proc['pid']}): CPU {_fmt(proc.get('cpu_pct_avg'))} % avg "
                f"(max {_fmt(proc.get('cpu_pct_max'))} %), RSS {_fmt(proc.get('rss_mib_end'))} MiB "
                f"at the end of the steady window, peak {_fmt(proc.get('rss_mib_peak'))} MiB"
            )
        for label, m in run.get("hub_metrics", {}).items():
            pauses = m["gc_pause_max_ms"]
            cpu = m.get("gc_pause_cpu_max_ms", {})
            longest = (
                ", ".join(
                    f"generation {g} {ms} ms"
                    + (f" (at most {cpu[g]} ms of CPU)" if g in cpu else "")
                    for g, ms in sorted(pauses.items())
                )
                or "none"
            )
            commits = m.get("commit_ms") or {}
            commit_text = (
                f"{int(commits['commits'])} commits, mean {commits['commit']} ms each (a group"
                f" waited {commits.get('queued', 0)} ms to be sent, Redis answered it in"
                f" {commits.get('redis', 0)} ms); "
                if commits
                else ""
            )
            lines.append(
                f"- {label} (its /metrics at the end): leases lost {m['leases_lost']}; "
                f"{commit_text}longest garbage-collector pause: {longest}"
            )
        for label, h in run.get("heap", {}).items():
            lines.append(
                f"- {label}: {h['before']:,} objects tracked by the collector before the "
                f"clients connected, {h['connected']:,} with {h['connections']:,} connections = "
                f"**{h['per_connection']} per connection**"
            )
        if run.get("idle"):
            i = run["idle"]
            lines.append(
                f"- idle: hub RSS {i['rss_before_mib']} MiB before, {i['rss_idle_mib']} MiB with "
                f"{i['connections']} idle connections = "
                f"**{i['kib_per_connection']} KiB/connection**"
            )
        if run.get("tournament"):
            t = run["tournament"]
            lines.append(
                f"- tournament: {t['seats']} seats, {t['rounds_completed']} rounds; round end "
                f"seen by every seat: worst {t['worst_round_end_ms']} ms, median round "
                f"{t['median_round_end_max_ms']} ms"
            )
            lines.append("")
            lines.append("  | round | seats | p50 ms | p99 ms | max ms |")
            lines.append("  |---|---|---|---|---|")
            for r in t["rounds"]:
                lines.append(
                    f"  | {r['round']} | {r['seats_seen']} | {_fmt(r['p50_ms'])} | "
                    f"{_fmt(r['p99_ms'])} | {_fmt(r['max_ms'])} |"
                )
        if run.get("bots"):
            b, config = run["bots"], run["config"]
            done = b["bots_done"]
            lines.append(
                f"- bots: {config['tables']} tables of 1 player + {config['bots']} "
                f"{config['bot_level']} bots, turn deadline {config['pace']} s; "
                f"{b['rounds']} rounds started in the steady window "
                f"({b['bot_moves_per_s']} bot moves/s), **{b['late_rounds']} with a bot move "
                f"after the deadline**; round start to its last bot move: "
                f"p50 {_fmt(done['p50_ms'])} ms, p99 {_fmt(done['p99_ms'])} ms, "
                f"max {_fmt(done['max_ms'])} ms"
            )
        for note in run["notes"]:
            lines.append(f"- note: {note}")
        lines.append("")
    if plots:
        lines += ["## Plots", ""]
        lines += [f"![{p}]({p})" for p in plots]
        lines.append("")
    lines += [
        "## How to read this",
        "",
        "- act→reply: an act sent until its `ok`/`error` arrives at the same client.",
        "- act→patch: an act sent until another seat of the table (or a spectator at a "
        "one-seat table) has applied the patch that holds it.",
        "- Latencies cover acts sent in the steady window (after the ramp, before the stop).",
        "- messages/s: every frame the clients received (replies, patches, events, "
        "presence, snapshots); patches/s: `patch` frames only.",
        "- CPU % = 100 for one busy core; the generator shares the machine with the server, "
        "so a generator near its cores' limit caps what can be measured.",
        "",
    ]
    return "\n".join(lines)


def _by_code(counts: dict[str, int] | None) -> str:
    """`` (overloaded 3, unavailable 1)`` -- or nothing when there are none."""
    if not counts:
        return ""
    return " (" + ", ".join(f"{code} {n}" for code, n in counts.items()) + ")"
