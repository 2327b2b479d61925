"""How late the event loop runs, measured from a thread: the hub's overload signal.

Theory of operation: a hub past its limit does not fail, it queues -- frames wait in
socket buffers, in the loop's ready queue and in table queues, and act->patch latency
grows to seconds.  The one place all of that shows is the event loop's *lag*: how late
it runs a callback posted to it.  :class:`LoopWatch` posts a probe from a daemon
thread every :data:`PROBE_S` (once the previous one ran) and keeps a smoothed lag
(an exponentially weighted mean over the probes, :data:`SMOOTHING`), so a single GC
pause does not count as overload but a loop that stays late does.  A probe still
pending counts as if it ran now: a loop stalled for a long time is late while it is
stalled, not only afterwards.

Two decisions are read from it (design.md "Overload"):

* :meth:`refusing_moves` -- past :data:`ACT_LATE_S` of smoothed lag, ``act`` and
  ``legal`` are refused with ``overloaded`` and a ``retry_ms`` that grows with the lag
  (:func:`retry_ms_for`), so clients back off instead of queueing more work.  Below it
  nothing is refused: a hub below saturation runs its loop a few ms late at most.
* :attr:`refusing_tables` -- a loop that was ``tables_after_s`` late (a single probe, not smoothed)
  in the last :data:`LATE_WINDOW_S` refuses *new tables*, before a multi-process hub's
  lag grows into lost leases (``tables_after_s`` is a quarter lease there).

The thread needs the GIL for a moment per probe, never a turn of the event loop.  The
lag is exported as the ``tablehub_loop_lag_seconds`` histogram.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

from tablehub.server import metrics

log = logging.getLogger("tablehub.loop")

PROBE_S = 0.05
"""How often the thread looks at the loop (a new probe once the previous one ran)."""
SMOOTHING = 0.2
"""Weight of each probe in the smoothed lag: a 300 ms GC pause adds 60 ms to it."""
ACT_LATE_S = 0.1
"""Smoothed lag past which acts and legal are refused.  A hub below saturation stays
far under it (the act->patch p99 target is 40 ms); a saturated one is well over it."""
TABLES_LATE_S = 0.75
"""Lag (one probe) past which new tables are refused, on a hub without leases."""
LATE_WINDOW_S = 5.0
"""New tables stay refused until the loop has been on time for this long."""
RETRY_MIN_MS = 250
RETRY_MAX_MS = 5000


def retry_ms_for(lag_s: float) -> int:
    """The ``retry_ms`` of an act refused at this smoothed lag: four times the lag,
    between :data:`RETRY_MIN_MS` and :data:`RETRY_MAX_MS` (clients add jitter)."""
    return max(RETRY_MIN_MS, min(RETRY_MAX_MS, round(lag_s * 4000)))


class LoopWatch:
    def __init__(self, tables_after_s: float = TABLES_LATE_S, acts_after_s: float = ACT_LATE_S):
        self.tables_after_s = tables_after_s
        self.acts_after_s = acts_after_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._probe_sent = 0.0
        self._probe_ran = 0.0
        self._smoothed = 0.0  # over the probes that ran
        self._lag_s = 0.0  # the smoothed lag, counting a pending probe as if it ran now
        self._late_until = 0.0
        self._refusing_logged = float("-inf")  # when refusing moves was last logged

    # -- the loop's side ------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._probe_sent = self._probe_ran = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="tablehub-loopwatch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    @property
    def lag_s(self) -> float:
        """The smoothed lag, in seconds."""
        return self._lag_s

    def refusing_moves(self) -> int | None:
        """The ``retry_ms`` to refuse an ``act`` or ``legal`` with now, or None to run it."""
        lag = self._lag_s
        if lag <= self.acts_after_s:
            return None
        return retry_ms_for(lag)

    @property
    def refusing_tables(self) -> str | None:
        """Why this process should take no new tables now, or None."""
        if time.monotonic() < self._late_until:
            return "the event loop is running late"
        return None

    # -- the thread -----------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.wait(PROBE_S):
            if not self._check():
                return

    def _check(self) -> bool:
        """One look at the loop (the thread's step): post a probe when the last one ran,
        observing how late it ran; while one is pending, the time since it was posted is
        the lag so far.  False once the loop is closed."""
        now = time.monotonic()
        if self._probe_ran >= self._probe_sent:
            lag = self._probe_ran - self._probe_sent
            metrics.LOOP_LAG.observe(lag)
            self._smoothed += SMOOTHING * (lag - self._smoothed)
            self._lag_s = self._smoothed
            self._probe_sent = now
            assert self._loop is not None
            try:
                self._loop.call_soon_threadsafe(self._probe)
            except RuntimeError:  # the loop is closed: the process is stopping
                return False
        else:
            lag = now - self._probe_sent  # still not run: at least this late
            self._lag_s = max(self._smoothed, self._smoothed + SMOOTHING * (lag - self._smoothed))
        if lag > self.tables_after_s:
            if now >= self._late_until:
                log.warning("event loop %.0f ms late: refusing new tables", lag * 1000)
            self._late_until = now + LATE_WINDOW_S
        if self._lag_s > self.acts_after_s and now >= self._refusing_logged + LATE_WINDOW_S:
            self._refusing_logged = now
            log.warning(
                "event loop %.0f ms late on average: refusing moves until it catches up",
                self._lag_s * 1000,
            )
        return True

    def _probe(self) -> None:
        self._probe_ran = time.monotonic()
