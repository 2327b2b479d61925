"""Collection on the hub's terms: automatic collection off while it serves, young
collections on a timer, survivors frozen; every pause and the heap's size exported."""

from __future__ import annotations

import asyncio
import gc

from prometheus_client import REGISTRY

from tablehub.server.ops.gc_tuning import Collector, tracked_objects


async def test_the_collector_runs_young_collections_on_its_timer_and_freezes_survivors() -> None:
    def young_pauses() -> float:
        count = REGISTRY.get_sample_value("tablehub_gc_pause_seconds_count", {"generation": "0"})
        return count or 0.0

    collector = Collector(young_s=0.001, freeze_s=0.002)
    collector.start()
    try:
        assert not gc.isenabled()
        frozen = gc.get_freeze_count()
        before = young_pauses()
        survivors = [[i] for i in range(1000)]  # tracked, alive: to be frozen
        for _ in range(100):
            await asyncio.sleep(0.001)
            if young_pauses() >= before + 2 and gc.get_freeze_count() >= frozen + 1000:
                break
        assert young_pauses() >= before + 2
        assert gc.get_freeze_count() >= frozen + len(survivors)
        longest = REGISTRY.get_sample_value("tablehub_gc_pause_max_seconds", {"generation": "0"})
        work = REGISTRY.get_sample_value("tablehub_gc_pause_cpu_max_seconds", {"generation": "0"})
        assert longest is not None and longest > 0
        assert work is not None and work > 0
    finally:
        collector.stop()
        gc.unfreeze()
    assert gc.isenabled() and not collector.running


def test_tracked_objects_count_frozen_ones_and_are_a_metric() -> None:
    gc.freeze()
    try:
        count = tracked_objects()
        assert count >= gc.get_freeze_count() > 0
        assert REGISTRY.get_sample_value("tablehub_gc_tracked_objects") == count
    finally:
        gc.unfreeze()
