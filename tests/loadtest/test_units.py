"""The load generator's pure parts: patching, hashing, verification, histograms, bots.

No sockets: these are the pieces whose mistakes would silently corrupt the
measurements (a wrong patch applier or hash would report mismatches that are not
there, or miss real ones).
"""

from __future__ import annotations

import copy
import os
import random
import subprocess
import sys
import time
from typing import Any

import jsonpatch
import prometheus_client
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest

from tablehub.loadtest import hubmetrics
from tablehub.loadtest.bots import row_placement
from tablehub.loadtest.mirror import Mirror, Verifier
from tablehub.loadtest.procstat import children
from tablehub.loadtest.report import cpu_per_act, summarise
from tablehub.loadtest.stats import Histogram, RunStats, merge_dicts
from tablehub.loadtest.svgplot import Series, line_chart, stack
from tablehub.loadtest.targets import spawn_memory
from tablehub.protocol import SUBPROTOCOLS
from tablehub.protocol.patching import PatchError, apply_patch
from tablehub.protocol.viewhash import view_hash
from tablehub.server.games import get_game
from tablehub.server.games.nmbr9.shapes import ROTATIONS
from tablehub.server.tables.viewdiff import diff

JSONValue = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(old=JSONValue, new=JSONValue)
def test_patch_of_a_diff_gives_the_new_view_and_leaves_the_old_one(old: Any, new: Any) -> None:
    before = copy.deepcopy(old)
    ops = diff(old, new)
    assert apply_patch(old, ops) == new
    assert old == before  # never mutated: mirrors share views


def test_patching_matches_jsonpatch_on_every_operation() -> None:
    doc = {"a": [1, 2, 3], "b": {"c": "x", "d/e": 1, "f~g": 2}, "h": None}
    ops: list[dict[str, Any]] = [
        {"op": "add", "path": "/a/1", "value": 9},
        {"op": "remove", "path": "/a/0"},
        {"op": "replace", "path": "/b/d~1e", "value": [1]},
        {"op": "move", "from": "/b/f~0g", "path": "/moved"},
        {"op": "copy", "from": "/a", "path": "/b/copy"},
        {"op": "test", "path": "/h", "value": None},
        {"op": "add", "path": "/a/-", "value": {"k": 1}},
        {"op": "add", "path": "/a/3/k2", "value": 2},
    ]
    assert apply_patch(doc, ops) == jsonpatch.apply_patch(doc, ops)
    assert doc["a"] == [1, 2, 3]


@pytest.mark.parametrize(
    "ops",
    [
        [{"op": "remove", "path": "/missing"}],
        [{"op": "replace", "path": "/a/7", "value": 1}],
        [{"op": "test", "path": "/a/0", "value": 2}],
        [{"op": "add", "path": "/a/x", "value": 1}],
        [{"op": "add", "path": "a", "value": 1}],
    ],
)
def test_bad_patches_are_refused(ops: list[dict[str, Any]]) -> None:
    with pytest.raises(PatchError):
        apply_patch({"a": [1]}, ops)


def _patch_frame(
    base: dict[str, Any], new: dict[str, Any], version: int, good: bool = True
) -> tuple[bytes, dict[str, Any]]:
    msg = {
        "t": "patch",
        "table": "t1",
        "from": version,
        "to": version + 1,
        "ops": diff(base, new),
        "hash": view_hash(new) if good else "0" * 16,
    }
    codec = SUBPROTOCOLS["tablehub.v1.msgpack"]
    frame = codec.encode(msg)
    assert isinstance(frame, bytes)
    return frame, codec.decode(frame)


@pytest.mark.parametrize("memo", [True, False])
def test_verifier_applies_checks_and_reports_gaps_and_mismatches(memo: bool) -> None:
    verifier = Verifier(memo=memo)
    v0 = {"n": 0, "tiles": []}
    v1 = {"n": 1, "tiles": [1]}
    v2 = {"n": 2, "tiles": [1, 2]}
    snap = {"t": "snapshot", "table": "t1", "version": 5, "view": v0, "hash": view_hash(v0)}
    codec = SUBPROTOCOLS["tablehub.v1.msgpack"]
    mirrors = [Mirror(), Mirror()]
    for mirror in mirrors:
        assert verifier.snapshot(mirror, codec.encode(snap), snap)
    frame, msg = _patch_frame(v0, v1, 5)
    for mirror in mirrors:
        assert verifier.patch(mirror, frame, msg) == "ok"
        assert mirror.view == v1 and mirror.version == 6
    assert verifier.patch(mirrors[0], frame, msg) == "stale"
    gap_frame, gap = _patch_frame(v1, v2, 7)
    assert verifier.patch(mirrors[0], gap_frame, gap) == "gap"
    bad_frame, bad = _patch_frame(v1, v2, 6, good=False)
    assert verifier.patch(mirrors[1], bad_frame, bad) == "mismatch"
    assert mirrors[1].version == 6 and mirrors[1].mismatches == 1
    wrong = dict(snap, hash="f" * 16)
    assert not verifier.snapshot(Mirror(), codec.encode(wrong), wrong)
    if memo:
        assert verifier.reused >= 1


def test_histogram_percentiles_are_within_two_percent_and_merge() -> None:
    rng = random.Random(3)
    samples = [rng.expovariate(1 / 0.01) for _ in range(20000)]
    a, b = Histogram(), Histogram()
    for i, s in enumerate(samples):
        (a if i % 2 else b).add(s)
    a.merge(Histogram.from_dict(b.to_dict()))
    ordered = sorted(samples)
    for q in (50, 95, 99):
        exact = ordered[int(len(ordered) * q / 100) - 1]
        got = a.percentile(q)
        assert got is not None and abs(got - exact) / exact < 0.03
    assert a.max == max(samples) and a.count == len(samples)


def test_run_stats_merge_across_workers() -> None:
    parts = []
    for worker in range(2):
        stats = RunStats(t0=100.0, steady_from=1.0, steady_to=5.0)
        stats.count("acts_sent", 102.5, 3)
        stats.latency("act_patch", 102.0, 102.01)
        stats.latency("act_patch", 100.5, 100.6)  # sent during the ramp: not steady
        stats.errors["illegal_action"] += worker
        parts.append(stats.to_dict())
    merged = merge_dicts(parts)
    assert merged.counts["acts_sent"] == 6
    assert merged.timeline[2].counts["acts_sent"] == 6
    assert merged.histograms["act_patch"].count == 4
    assert merged.histograms["act_patch_steady"].count == 2
    assert merged.errors["illegal_action"] == 1


def test_row_heuristic_is_always_legal_for_a_whole_game() -> None:
    game = get_game("nmbr9")
    assert game is not None
    rng = random.Random(5)
    for seed in range(5):
        state = game.setup({"tournament": False}, 2, seed)
        while not game.status(state)["finished"]:
            for seat in game.status(state)["to_act"]:
                view = game.view(state, seat)
                tiles = view["players"][seat]["tiles"]
                action = row_placement(ROTATIONS[view["card"]], tiles, rng)
                state, _ = game.apply(state, seat, action)  # raises if illegal


def test_svg_chart_is_a_document_with_every_series() -> None:
    panel = line_chart(
        "latency",
        [Series("p50", [(0, 1.0), (1, None), (2, 3.0)]), Series("p99", [(0, 5.0), (2, 9.0)])],
        "s",
        "ms",
    )
    svg = stack([panel])
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "p50" in svg and "p99" in svg and "<polyline" in svg


def test_a_patch_from_version_minus_one_applies_to_a_fresh_mirror() -> None:
    # A hub may send a subscriber with no snapshot yet a patch that adds the whole view
    # to nothing (from -1); the reference client starts from {} at -1 as well.
    view = {"table": "t1", "status": "waiting", "board": {"n": 1}}
    frame, msg = _patch_frame({}, view, -1)
    mirror = Mirror()
    assert Verifier().patch(mirror, frame, msg) == "ok"
    assert mirror.view == view and mirror.version == 0


def test_cpu_per_act_counts_every_serving_process_and_pairs_hub_with_baseline() -> None:
    def run(label: str, kind: str, acts: float, processes: list[tuple[str, int]]) -> Any:
        return {
            "label": label,
            "scenario": "nmbr9",
            "target": {"kind": kind},
            "figures": {
                "acts_per_s": acts,
                "processes": [{"role": r, "cpu_pct_avg": c} for r, c in processes],
            },
        }

    hub_processes = [("hub", 60), ("hub", 40), ("redis", 20), ("balancer", 5), ("worker", 90)]
    summary = {
        "hub@500 · nmbr9 · redis": summarise([run("hub@500", "redis", 500, hub_processes)]),
        "baseline@500 · nmbr9 · baseline": summarise(
            [run("baseline@500", "baseline", 500, [("baseline", 25), ("worker", 80)])]
        ),
        "hub@900 · nmbr9 · redis": summarise([run("hub@900", "redis", 900, [("hub", 90)])]),
    }
    # 125 % of a core = 1,250 ms of CPU a second over 500 acts; the generator is not counted
    assert summary["hub@500 · nmbr9 · redis"]["server_cpu_ms_per_act"] == 2.5
    assert cpu_per_act(summary) == [
        {"load": "hub@500", "hub_ms": 2.5, "baseline_ms": 0.5, "ratio": 5.0}
    ]


def test_children_finds_a_spawned_child() -> None:
    reader = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    child = subprocess.Popen(reader, stdin=subprocess.PIPE)
    try:
        assert child.pid in children(os.getpid())
    finally:
        child.communicate(b"")
    assert children(child.pid) == []


def test_hub_metrics_give_lost_leases_the_longest_gc_pauses_and_the_heap() -> None:
    registry = CollectorRegistry()
    lost = Counter("tablehub_leases_lost", "lost", registry=registry)
    pause = Gauge("tablehub_gc_pause_max_seconds", "longest", ["generation"], registry=registry)
    commit = prometheus_client.Histogram("tablehub_commit_seconds", "commit", registry=registry)
    phase = prometheus_client.Histogram(
        "tablehub_commit_phase_seconds", "phase", ["phase"], registry=registry
    )
    tracked = Gauge("tablehub_gc_tracked_objects", "tracked", registry=registry)
    cpu = Gauge("tablehub_gc_pause_cpu_max_seconds", "cpu", ["generation"], registry=registry)
    cpu.labels("0").set(0.0015)
    connections = Gauge("tablehub_connections", "connections", registry=registry)
    lost.inc(3)
    tracked.set(52_000)
    connections.set(1000)
    pause.labels("0").set(0.0123)
    pause.labels("2").set(0.25)
    for seconds in (0.010, 0.030):
        commit.observe(seconds)
    phase.labels("queued").observe(0.004)
    phase.labels("redis").observe(0.002)
    assert hubmetrics.parse(generate_latest(registry).decode()) == {
        "leases_lost": 3,
        "commit_ms": {"commit": 20.0, "queued": 4.0, "redis": 2.0, "commits": 2},
        "gc_pause_max_ms": {"0": 12.3, "2": 250.0},
        "gc_pause_cpu_max_ms": {"0": 1.5},
        "tracked_objects": 52_000,
        "connections": 1000,
    }


def test_tracked_objects_per_connection_are_what_the_connections_added() -> None:
    before = {"hub": {"tracked_objects": 40_000, "connections": 0}}
    connected = {
        "hub": {"tracked_objects": 65_000, "connections": 1000},
        "gone": {"tracked_objects": 9, "connections": 1},
    }
    assert hubmetrics.tracked_per_connection(before, connected) == {
        "hub": {"before": 40_000, "connected": 65_000, "connections": 1000, "per_connection": 25.0}
    }


def test_the_report_reads_a_spawned_hubs_metrics() -> None:
    target = spawn_memory()
    try:
        read = hubmetrics.read(target.processes)
    finally:
        target.stop()
    assert list(read) == ["hub"]
    assert read["hub"]["leases_lost"] == 0
    assert read["hub"]["commit_ms"] == {}  # the memory store commits nothing to Redis
    assert set(read["hub"]["gc_pause_max_ms"]) <= {"0", "1", "2"}


def test_bot_rounds_time_each_round_to_its_last_bot_move_and_count_late_ones() -> None:
    from tablehub.loadtest.config import RunConfig
    from tablehub.loadtest.players import BotRounds
    from tablehub.loadtest.scenarios import plan

    stats = RunStats(t0=0.0, steady_from=1.0, steady_to=100.0)
    rounds = BotRounds(stats, frozenset({1, 2, 3}))
    now_ms = time.time() * 1000

    def view(turn: int, to_act: list[int], deadline: float, status: str = "playing") -> Any:
        return {"status": status, "turn": turn, "to_act": to_act, "deadline": deadline}

    rounds.observe(view(1, [0, 1, 2, 3], now_ms + 60_000), 0.5)  # before the steady window
    rounds.observe(view(1, [0], now_ms + 60_000), 0.9)
    rounds.observe(view(2, [0, 1, 2, 3], now_ms + 60_000), 2.0)
    rounds.observe(view(2, [0, 3], now_ms + 60_000), 2.5)
    rounds.observe(view(2, [0], now_ms + 60_000), 3.0)  # the bots are done: 1 s
    rounds.observe(view(2, [], now_ms + 60_000), 9.0)  # the player acts: nothing new
    rounds.observe(view(3, [0, 1, 2, 3], now_ms - 1), 10.0)  # its deadline has passed
    rounds.observe(view(4, [0, 1, 2, 3], now_ms + 60_000), 14.0)  # round 3 seen done here
    rounds.observe(view(4, [0, 1, 2, 3], now_ms + 60_000, "finished"), 15.0)
    assert stats.counts["bot_rounds"] == 3
    assert stats.counts["bot_rounds_late"] == 1
    done = stats.histograms["bot_round"]
    assert done.count == 3 and abs(done.max - 4.0) < 0.1

    config = RunConfig(scenario="bots", players=5, workers=2, bots=3, pace=7.0)
    plans = plan(config)
    specs = [spec for p in plans for _, spec in p.tables]
    assert len(specs) == 5 and [p.players for p in plans] == [3, 2]
    assert {(s.seats, s.bots, s.players, s.bot_level) for s in specs} == {(4, 3, 1, "strong")}
    assert specs[0].options == {"turn_seconds": 7.0}
