"""CPU and memory of processes from ``/proc`` (Linux), sampled over a run.

``/proc/<pid>/stat`` fields 14 and 15 are user and system CPU time in clock ticks;
``/proc/<pid>/status`` has ``VmRSS`` (resident now) and ``VmHWM`` (peak resident), in
kB.  A :class:`ProcSampler` turns successive readings into CPU % (100 = one core busy)
and RSS per sample, per labelled process.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class ProcReading:
    cpu_seconds: float
    rss_kib: int
    hwm_kib: int


def read_proc(pid: int) -> ProcReading | None:
    """One reading of ``pid``, or None when it is gone (or /proc is not there)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        with open(f"/proc/{pid}/status") as f:
            status = f.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces; fields after it follow the last ')'.
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):
        return None  # exited, not yet reaped: nothing left to measure
    cpu = (int(fields[11]) + int(fields[12])) / _TICKS
    rss = hwm = 0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
    return ProcReading(cpu, rss, hwm)


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (e.g. nginx's workers under its master), from
    ``/proc/<pid>/task/*/children``; empty when ``pid`` is gone."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out.extend(int(child) for child in f.read().split())
        except OSError:
            continue
    return out


@dataclass
class ProcSeries:
    label: str
    pid: int
    role: str  # "hub" | "baseline" | "worker" | "redis" ...
    samples: list[dict[str, float]] = field(default_factory=list)
    _last: tuple[float, float] | None = None

    def sample(self, t: float) -> None:
        reading = read_proc(self.pid)
        if reading is None:
            return
        cpu_pct = None
        if self._last is not None:
            dt = t - self._last[0]
            if dt > 0:
                cpu_pct = 100 * (reading.cpu_seconds - self._last[1]) / dt
        self._last = (t, reading.cpu_seconds)
        self.samples.append(
            {
                "t": t,
                "cpu_pct": -1.0 if cpu_pct is None else round(cpu_pct, 1),
                "rss_kib": reading.rss_kib,
                "hwm_kib": reading.hwm_kib,
                "cpu_seconds": reading.cpu_seconds,
            }
        )

    def window(self, start: float, end: float) -> dict[str, Any]:
        """CPU % averaged over [start, end) and RSS at its end, peak RSS overall."""
        inside = [s for s in self.samples if start <= s["t"] <= end]
        out: dict[str, Any] = {"label": self.label, "pid": self.pid, "role": self.role}
        if len(inside) >= 2:
            first, last = inside[0], inside[-1]
            out["cpu_pct_avg"] = round(
                100 * (last["cpu_seconds"] - first["cpu_seconds"]) / (last["t"] - first["t"]), 1
            )
            out["cpu_pct_max"] = max(s["cpu_pct"] for s in inside[1:])
            out["rss_mib_end"] = round(last["rss_kib"] / 1024, 1)
        if self.samples:
            out["rss_mib_peak"] = round(max(s["hwm_kib"] for s in self.samples) / 1024, 1)
            out["cpu_seconds_total"] = round(
                self.samples[-1]["cpu_seconds"] - self.samples[0]["cpu_seconds"], 2
            )
        return out

    def rss_before(self, t: float) -> int | None:
        """The last RSS (KiB) sampled at or before ``t``."""
        before = [s for s in self.samples if s["t"] <= t]
        return int(before[-1]["rss_kib"]) if before else None


def read_machine() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest time is already counted in user
    return (total - idle) / _TICKS, total / _TICKS


class ProcSampler:
    """Samples the watched processes and the whole machine (``machine``)."""

    def __init__(self) -> None:
        self.series: list[ProcSeries] = []
        self.machine: list[tuple[float, float, float]] = []  # t, busy s, total s

    def watch(self, label: str, pid: int, role: str) -> None:
        self.series.append(ProcSeries(label, pid, role))

    def sample(self) -> None:
        t = time.perf_counter()
        self._adopt_children()
        for series in self.series:
            series.sample(t)
        machine = read_machine()
        if machine is not None:
            self.machine.append((t, *machine))

    def _adopt_children(self) -> None:
        """Processes a hub started since the last sample (its bot workers) are watched
        too, from now on."""
        known = {series.pid for series in self.series}
        for hub in [series for series in self.series if series.role == "hub"]:
            for child in children(hub.pid):
                if child not in known:
                    known.add(child)
                    self.series.append(ProcSeries(f"{hub.label} child", child, "hub child"))

    def machine_window(self, start: float, end: float) -> dict[str, Any]:
        """Machine CPU over [start, end): busy % (100 = one core) and what our processes
        did not account for (other work on the machine: it competes with the run)."""
        inside = [m for m in self.machine if start <= m[0] <= end]
        if len(inside) < 2:
            return {}
        (t0, busy0, _), (t1, busy1, _) = inside[0], inside[-1]
        busy = 100 * (busy1 - busy0) / (t1 - t0)
        ours = 0.0
        for series in self.series:
            mine = [s for s in series.samples if start <= s["t"] <= end]
            if len(mine) >= 2:
                ours += 100 * (mine[-1]["cpu_seconds"] - mine[0]["cpu_seconds"]) / (t1 - t0)
        return {
            "cpus": os.cpu_count(),
            "busy_pct": round(busy, 1),
            "run_pct": round(ours, 1),
            "other_pct": round(max(0.0, busy - ours), 1),
        }

    def role(self, role: str) -> list[ProcSeries]:
        return [s for s in self.series if s.role == role]
