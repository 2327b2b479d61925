"""What the spawned hubs say about themselves at the end of a run, from ``/metrics``:
leases they lost (issue 11: none should be, under load), where a commit's time went
(waiting for its group to be sent, the group's round trip to Redis, the whole commit)
their longest garbage collector pause per generation (issue 12), and the objects the
collector tracks with and without the run's connections (issue 25)."""

from __future__ import annotations

import urllib.request
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from tablehub.loadtest.targets import Process

TIMEOUT_S = 5.0


def read(processes: list[Process]) -> dict[str, dict[str, Any]]:
    """Per hub label: ``leases_lost``, ``commit_ms`` (see :func:`parse`) and
    ``gc_pause_max_ms`` ({generation: ms}); a hub whose ``/metrics`` could not be read is
    left out."""
    out: dict[str, dict[str, Any]] = {}
    for proc in processes:
        if proc.http is None:
            continue
        try:
            with urllib.request.urlopen(f"{proc.http}/metrics", timeout=TIMEOUT_S) as resp:
                text = resp.read().decode()
        except OSError:
            continue
        out[proc.label] = parse(text)
    return out


def parse(text: str) -> dict[str, Any]:
    """``commit_ms`` holds the mean milliseconds of a commit (``commit``) and of a group
    commit's phases (``queued``, ``redis``) that the hub measured, and ``commits`` their
    count; it is empty for a hub that committed nothing (the memory store)."""
    leases_lost = 0.0
    tracked = connections = 0.0
    pauses: dict[str, float] = {}
    pauses_cpu: dict[str, float] = {}
    sums: dict[str, float] = {}
    counts: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "tablehub_leases_lost_total":
                leases_lost = sample.value
            elif sample.name == "tablehub_gc_tracked_objects":
                tracked = sample.value
            elif sample.name == "tablehub_connections":
                connections = sample.value
            elif sample.name == "tablehub_gc_pause_max_seconds":
                pauses[sample.labels["generation"]] = round(sample.value * 1000, 1)
            elif sample.name == "tablehub_gc_pause_cpu_max_seconds":
                pauses_cpu[sample.labels["generation"]] = round(sample.value * 1000, 1)
            elif sample.name.startswith(("tablehub_commit_seconds", "tablehub_commit_phase")):
                what = sample.labels.get("phase", "commit")
                if sample.name.endswith("_sum"):
                    sums[what] = sample.value
                elif sample.name.endswith("_count"):
                    counts[what] = sample.value
    commit_ms: dict[str, float] = {}
    if counts.get("commit"):
        commit_ms = {w: round(1000 * sums[w] / n, 1) for w, n in counts.items() if n}
        commit_ms["commits"] = counts["commit"]
    return {
        "leases_lost": int(leases_lost),
        "commit_ms": commit_ms,
        "gc_pause_max_ms": pauses,
        "gc_pause_cpu_max_ms": pauses_cpu,
        "tracked_objects": int(tracked),
        "connections": int(connections),
    }


def tracked_per_connection(
    before: dict[str, dict[str, Any]], connected: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per hub: objects tracked before the clients connected, with them all connected
    (and seated), and the difference per connection."""
    out: dict[str, dict[str, Any]] = {}
    for label, now in connected.items():
        then = before.get(label)
        if then is None or not now["connections"]:
            continue
        grown = now["tracked_objects"] - then["tracked_objects"]
        out[label] = {
            "before": then["tracked_objects"],
            "connected": now["tracked_objects"],
            "connections": now["connections"],
            "per_connection": round(grown / now["connections"], 1),
        }
    return out
