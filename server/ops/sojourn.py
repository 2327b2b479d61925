"""How long players' moves wait at this hub: the overload signal the loop watch misses.

Theory of operation: a hub past its limit may keep its event loop nearly on time while
moves queue elsewhere -- behind other tables' commits in the Redis pipeline, in pub/sub
on their way to a table's owner in another process, in a table's queue.  Then every
move is answered late, seconds at worst, and nothing was refused.  :class:`Sojourn`
watches the answer time of the moves this process admitted (from admission to reply,
wherever the table runs), CoDel-style: the *shortest* answer time over an interval of
:data:`INTERVAL_S`.  A single slow move (a GC pause, a busy table) does not raise the
shortest; a standing queue does, because then every move waits.  While the last
complete interval's shortest was over :data:`TARGET_S`, new moves are refused with
``overloaded`` and a ``retry_ms`` of about that time (design.md "Overload").  An
interval in which no move was answered (all refused) gives no verdict, so admission
opens again and the next interval's moves show whether the queue has drained.
"""

from __future__ import annotations

import time
from collections.abc import Callable

TARGET_S = 0.5
"""A queue every move waits this long in is a standing one (the act->patch p99 target
below saturation is tens of milliseconds; a burst -- a thousand players sitting down
at once -- may hold moves a few hundred)."""
INTERVAL_S = 1.0
RETRY_MIN_MS = 250


def retry_ms_for_wait(shortest_s: float) -> int:
    """The ``retry_ms`` of a move refused while moves wait ``shortest_s``: about the
    time the queue needs to drain, since refusing stops it growing (clients double it
    per retry and add jitter)."""
    return max(RETRY_MIN_MS, round(shortest_s * 1000))


class Sojourn:
    def __init__(
        self,
        target_s: float = TARGET_S,
        interval_s: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.target_s = target_s
        self.interval_s = interval_s
        self.clock = clock
        self._window_end = clock() + interval_s
        self._shortest: float | None = None  # in the current interval
        self._verdict: float | None = None  # the last complete interval's shortest

    def answered(self, took_s: float) -> None:
        """A move admitted here was answered ``took_s`` after admission."""
        self._roll()
        if self._shortest is None or took_s < self._shortest:
            self._shortest = took_s

    def refusing_moves(self) -> int | None:
        """The ``retry_ms`` to refuse a move with now, or None to take it."""
        self._roll()
        verdict = self._verdict
        if verdict is None or verdict <= self.target_s:
            return None
        return retry_ms_for_wait(verdict)

    def _roll(self) -> None:
        now = self.clock()
        if now < self._window_end:
            return
        # the interval just ended gives the verdict; a longer silence gives none
        ended_now = now < self._window_end + self.interval_s
        self._verdict = self._shortest if ended_now else None
        self._shortest = None
        self._window_end = now + self.interval_s
