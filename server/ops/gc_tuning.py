"""Garbage collection on the hub's terms (docs/design.md "A heap the collector leaves
alone").

CPython's automatic collection cannot be tuned for a server that keeps a large live
heap and churns: in 3.11 generation 0's count goes down on every deallocation of a
tracked object, so a hub that frees about as much as it allocates seldom triggers a
young collection, and when one finally runs its "young" list holds everything created
since the last one (measured at 5,000 players: gen0 pauses of 61 ms, gen1 472 ms).  So
a serving hub (:class:`Collector`):

* turns automatic collection off once started (``gc.disable()``), after one full
  collection and a ``gc.freeze()`` of what start-up left (modules, the app);
* collects generation 0 itself every ``YOUNG_S`` (50 ms): what was allocated since, a
  few thousand objects at most, well under a millisecond;
* freezes the survivors every ``FREEZE_S`` (1 s): they move to the permanent
  generation, which no collection walks again.

Frozen objects are still freed by reference counting, which frees almost everything a
hub makes (table states, frames, requests).  A reference cycle that gets frozen,
though, is never collected: the hub must not make cycles in the steady state, and
``tests/server/test_no_cycles.py`` proves that a connection's whole life, a takeover,
a refused frame and a closed table leave none behind.  Every pause is exported
(``tablehub_gc_pause_seconds``, the longest ``tablehub_gc_pause_max_seconds``, and the
most CPU time one took, ``tablehub_gc_pause_cpu_max_seconds``: on a busy machine a
pause's wall time includes waiting for a CPU, which is not the collector's doing) and so is
the heap's size (``tablehub_gc_tracked_objects``, read at each ``/metrics`` scrape: it
walks the frozen list, a few milliseconds per million objects).
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from tablehub.server import metrics

YOUNG_S = 0.05
FREEZE_S = 1.0

_started = _started_cpu = 0.0
_longest: dict[int, float] = {}
_longest_cpu: dict[int, float] = {}


def _observe(phase: str, info: dict[str, Any]) -> None:
    global _started, _started_cpu
    if phase == "start":
        _started = time.perf_counter()
        _started_cpu = time.thread_time()
        return
    pause = time.perf_counter() - _started
    work = time.thread_time() - _started_cpu
    generation = info["generation"]
    metrics.GC_PAUSE.labels(str(generation)).observe(pause)
    if pause > _longest.get(generation, 0.0):
        _longest[generation] = pause
        metrics.GC_PAUSE_MAX.labels(str(generation)).set(pause)
    if work > _longest_cpu.get(generation, 0.0):
        _longest_cpu[generation] = work
        metrics.GC_PAUSE_CPU_MAX.labels(str(generation)).set(work)


def observe_pauses() -> None:
    """Export every collector pause (any process: hubs, tests, tools)."""
    if _observe not in gc.callbacks:
        gc.callbacks.append(_observe)


def tracked_objects() -> int:
    """Objects the collector tracks now, frozen ones included (O(n): for scrapes)."""
    count = len(gc.get_objects()) + gc.get_freeze_count()
    metrics.GC_TRACKED.set(count)
    return count


class Collector:
    """Young collections on a timer, survivors frozen, automatic collection off."""

    def __init__(self, young_s: float = YOUNG_S, freeze_s: float = FREEZE_S) -> None:
        self.young_s = young_s
        self.freeze_s = freeze_s
        self._young: asyncio.TimerHandle | None = None
        self._freeze: asyncio.TimerHandle | None = None

    @property
    def running(self) -> bool:
        return self._young is not None

    def start(self) -> None:
        """Call on the hub's loop once it is set up, before it serves."""
        observe_pauses()
        gc.collect()
        gc.freeze()
        gc.disable()
        loop = asyncio.get_running_loop()
        self._young = loop.call_later(self.young_s, self._collect_young)
        self._freeze = loop.call_later(self.freeze_s, self._freeze_survivors)

    def stop(self) -> None:
        for handle in (self._young, self._freeze):
            if handle is not None:
                handle.cancel()
        self._young = self._freeze = None
        gc.enable()

    def _collect_young(self) -> None:
        gc.collect(0)
        self._young = asyncio.get_running_loop().call_later(self.young_s, self._collect_young)

    def _freeze_survivors(self) -> None:
        gc.freeze()
        self._freeze = asyncio.get_running_loop().call_later(self.freeze_s, self._freeze_survivors)
