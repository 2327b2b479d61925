"""The hub's GC settings export every collector pause and the longest one."""

from __future__ import annotations

import gc

from prometheus_client import REGISTRY

from tablehub.server.ops.gc_tuning import tune_gc


def test_pauses_and_the_longest_pause_are_metrics() -> None:
    thresholds = gc.get_threshold()
    try:
        tune_gc()
        gc.collect(0)
        gc.collect(2)
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
    for generation in ("0", "2"):
        labels = {"generation": generation}
        count = REGISTRY.get_sample_value("tablehub_gc_pause_seconds_count", labels)
        longest = REGISTRY.get_sample_value("tablehub_gc_pause_max_seconds", labels)
        total = REGISTRY.get_sample_value("tablehub_gc_pause_seconds_sum", labels)
        assert count is not None and count >= 1
        assert longest is not None and total is not None
        assert 0 < longest <= total
