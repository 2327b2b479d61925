"""Mergeable measurements: latency histograms, counters and a per-second timeline.

Each worker process fills one :class:`RunStats`; the parent merges the plain-data forms
(``to_dict`` / ``merge_dicts``) of all workers.  Latencies go into log-scale buckets
2 % wide (like HDR histograms), so percentiles are exact to 2 % whatever the sample
count, the maximum is exact, and merging is adding counts.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

_GROWTH = 1.02
_LOG_GROWTH = math.log(_GROWTH)
_FLOOR = 1e-6  # 1 µs: everything below lands in bucket 0


class Histogram:
    """Log-bucketed latency histogram (seconds in, seconds out)."""

    __slots__ = ("buckets", "count", "max", "total")

    def __init__(self) -> None:
        self.buckets: dict[int, int] = {}
        self.count = 0
        self.total = 0.0
        self.max = 0.0

    def add(self, seconds: float) -> None:
        index = int(math.log(seconds / _FLOOR) / _LOG_GROWTH) + 1 if seconds > _FLOOR else 0
        self.buckets[index] = self.buckets.get(index, 0) + 1
        self.count += 1
        self.total += seconds
        if seconds > self.max:
            self.max = seconds

    def merge(self, other: Histogram) -> None:
        for index, n in other.buckets.items():
            self.buckets[index] = self.buckets.get(index, 0) + n
        self.count += other.count
        self.total += other.total
        self.max = max(self.max, other.max)

    def percentile(self, q: float) -> float | None:
        """The upper edge of the bucket holding the q-th percentile (0 < q <= 100)."""
        if not self.count:
            return None
        rank = math.ceil(self.count * q / 100)
        seen = 0
        for index in sorted(self.buckets):
            seen += self.buckets[index]
            if seen >= rank:
                return min(self.max, _FLOOR * _GROWTH**index)
        return self.max

    def summary(self) -> dict[str, float | int | None]:
        """count, mean, p50, p95, p99, max in milliseconds."""

        def ms(value: float | None) -> float | None:
            return None if value is None else round(value * 1000, 3)

        return {
            "count": self.count,
            "mean_ms": ms(self.total / self.count) if self.count else None,
            "p50_ms": ms(self.percentile(50)),
            "p95_ms": ms(self.percentile(95)),
            "p99_ms": ms(self.percentile(99)),
            "max_ms": ms(self.max) if self.count else None,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "buckets": {str(k): v for k, v in self.buckets.items()},
            "count": self.count,
            "total": self.total,
            "max": self.max,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Histogram:
        out = cls()
        out.buckets = {int(k): int(v) for k, v in data["buckets"].items()}
        out.count, out.total, out.max = int(data["count"]), float(data["total"]), data["max"]
        return out


@dataclass
class Second:
    """What happened during one second of the run (by arrival time)."""

    counts: Counter[str] = field(default_factory=Counter)
    act_reply: Histogram = field(default_factory=Histogram)
    act_patch: Histogram = field(default_factory=Histogram)


HISTOGRAMS = (
    "act_reply",
    "act_patch",
    "act_reply_steady",
    "act_patch_steady",
    "loop_lag",
    "ping",
    "bot_round",
)


class RunStats:
    """Everything one worker measures.  ``t0`` is the shared monotonic start time."""

    def __init__(self, t0: float, steady_from: float, steady_to: float) -> None:
        self.t0 = t0
        self.steady_from = steady_from
        self.steady_to = steady_to
        self.counts: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.close_codes: Counter[str] = Counter()
        self.histograms = {name: Histogram() for name in HISTOGRAMS}
        self.timeline: dict[int, Second] = {}
        self.gauges: dict[str, int] = {"connections": 0, "connections_peak": 0}
        self.extra: dict[str, Any] = {}

    def second(self, now: float) -> Second:
        index = int(now - self.t0)
        sec = self.timeline.get(index)
        if sec is None:
            sec = self.timeline[index] = Second()
        return sec

    def count(self, name: str, now: float, n: int = 1) -> None:
        self.counts[name] += n
        self.second(now).counts[name] += n

    def steady(self, now: float) -> bool:
        return self.steady_from <= now - self.t0 < self.steady_to

    def latency(self, name: str, sent: float, now: float) -> None:
        """A latency sample (``act_reply`` or ``act_patch``) for an act sent at ``sent``."""
        seconds = now - sent
        self.histograms[name].add(seconds)
        if self.steady(sent):
            self.histograms[f"{name}_steady"].add(seconds)
        sec = self.second(now)
        (sec.act_reply if name == "act_reply" else sec.act_patch).add(seconds)

    def connection_opened(self, now: float) -> None:
        self.count("connections_opened", now)
        self.gauges["connections"] += 1
        self.gauges["connections_peak"] = max(
            self.gauges["connections_peak"], self.gauges["connections"]
        )

    def connection_closed(self) -> None:
        self.gauges["connections"] -= 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "errors": dict(self.errors),
            "close_codes": dict(self.close_codes),
            "histograms": {k: h.to_dict() for k, h in self.histograms.items()},
            "timeline": {
                str(i): {
                    "counts": dict(s.counts),
                    "act_reply": s.act_reply.to_dict(),
                    "act_patch": s.act_patch.to_dict(),
                }
                for i, s in sorted(self.timeline.items())
            },
            "gauges": dict(self.gauges),
            "extra": self.extra,
        }


@dataclass
class Merged:
    """The union of every worker's :class:`RunStats` (see ``merge_dicts``)."""

    counts: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    close_codes: Counter[str] = field(default_factory=Counter)
    histograms: dict[str, Histogram] = field(
        default_factory=lambda: {name: Histogram() for name in HISTOGRAMS}
    )
    timeline: dict[int, Second] = field(default_factory=dict)
    gauges: Counter[str] = field(default_factory=Counter)
    extras: list[dict[str, Any]] = field(default_factory=list)


def merge_dicts(parts: list[dict[str, Any]]) -> Merged:
    out = Merged()
    for part in parts:
        out.counts.update(part["counts"])
        out.errors.update(part["errors"])
        out.close_codes.update(part["close_codes"])
        for name, data in part["histograms"].items():
            out.histograms[name].merge(Histogram.from_dict(data))
        for index, sec in part["timeline"].items():
            merged = out.timeline.setdefault(int(index), Second())
            merged.counts.update(sec["counts"])
            merged.act_reply.merge(Histogram.from_dict(sec["act_reply"]))
            merged.act_patch.merge(Histogram.from_dict(sec["act_patch"]))
        out.gauges.update(part["gauges"])
        out.extras.append(part["extra"])
    return out
