"""The second overload signal (ops/sojourn.py): refuse moves while every move of the
last interval waited past the target, never for one slow move, and open again once an
interval answers nothing or answers quickly."""

from __future__ import annotations

from tablehub.server.ops.sojourn import Sojourn, retry_ms_for_wait


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_standing_queue_refuses_moves_and_a_slow_move_does_not() -> None:
    clock = Clock()
    sojourn = Sojourn(target_s=0.25, interval_s=0.5, clock=clock)
    for took in (0.9, 0.02, 1.5):  # one slow move among quick ones
        sojourn.answered(took)
    clock.now += 0.5
    assert sojourn.refusing_moves() is None, "the shortest was 20 ms"

    for took in (0.6, 0.4, 0.8):  # every move waited
        sojourn.answered(took)
    clock.now += 0.5
    assert sojourn.refusing_moves() == retry_ms_for_wait(0.4)
    clock.now += 0.2
    assert sojourn.refusing_moves() == retry_ms_for_wait(0.4), "for the whole next interval"


def test_admission_opens_again_after_an_interval_with_nothing_answered() -> None:
    clock = Clock()
    sojourn = Sojourn(target_s=0.25, interval_s=0.5, clock=clock)
    sojourn.answered(0.7)
    clock.now += 0.5
    assert sojourn.refusing_moves() is not None
    clock.now += 0.5  # everything refused meanwhile: nothing answered
    assert sojourn.refusing_moves() is None
    sojourn.answered(0.05)
    clock.now += 0.5
    assert sojourn.refusing_moves() is None, "the queue drained"


def test_a_long_silence_gives_no_verdict() -> None:
    clock = Clock()
    sojourn = Sojourn(target_s=0.25, interval_s=0.5, clock=clock)
    sojourn.answered(3.0)
    clock.now += 60  # nobody asked for a minute
    assert sojourn.refusing_moves() is None
