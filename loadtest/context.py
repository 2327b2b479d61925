"""WorkerContext: what every simulated client of one worker process shares.

One per worker: the hub URL and codec, the stats being filled, the memoising
verifier, the RNG, the pacer that turns the target action rate into think times, and
the ``stopping`` flag (set at the end of the measured window: no new acts after it).
"""

from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tablehub.loadtest.mirror import Verifier
from tablehub.loadtest.stats import RunStats
from tablehub.protocol import SUBPROTOCOLS, Codec


class Pacer:
    """Think times that keep the act rate near the target, per seated player.

    Players act when the game lets them (a 9-tower seat waits for the round's other
    seats), so the think time that gives a rate depends on the game.  The pacer starts
    from one act per ``players / rate`` seconds per seated player and corrects a
    multiplier once a second from the rate achieved over the last few seconds, against
    the target for the players seated at the time.  The multiplier stays within
    [``MIN_SCALE``, ``MAX_SCALE``]: a hub that cannot keep up shows as an achieved rate
    below the target, not as a generator that stops thinking and floods it.
    ``rate`` None = fixed think times around ``think`` seconds.
    """

    MIN_SCALE = 0.25
    MAX_SCALE = 4.0

    def __init__(self, think: float, rate: float | None, players: int, min_think: float = 0.0):
        self.per_player = rate / max(players, 1) if rate else None
        self.base = think if self.per_player is None else 1 / self.per_player
        self.scale = 1.0
        self.min_think = min_think
        self.seated = 0
        self._window: deque[tuple[float, int, int]] = deque(maxlen=5)

    def think(self, rng: random.Random) -> float:
        """A think time: uniform in [0.5, 1.5] x the current mean."""
        return max(self.min_think, self.base * self.scale * (0.5 + rng.random()))

    def observe(self, now: float, acts_total: int) -> None:
        """Called once a second with the worker's cumulative acts sent."""
        self._window.append((now, acts_total, self.seated))
        if self.per_player is None or len(self._window) < 3:
            return
        (t_old, n_old, _), (t_new, n_new, _) = self._window[0], self._window[-1]
        seated = sum(s for _, _, s in self._window) / len(self._window)
        target = self.per_player * seated
        achieved = (n_new - n_old) / max(t_new - t_old, 1e-3)
        if achieved <= 0 or target <= 0:
            return
        step = min(1.1, max(0.9, achieved / target))
        self.scale = min(self.MAX_SCALE, max(self.MIN_SCALE, self.scale * step))


class DecodeCache:
    """Decode each large frame once per worker.

    The hub encodes a push once per audience and sends the same bytes to every socket,
    so the clients of one worker receive identical large frames (snapshots, presence
    of a big table): they share one decoded message (read-only, like the views).
    Frames under ``min_size`` are decoded every time (cheaper than hashing them).
    """

    def __init__(self, codec: Codec, min_size: int = 1024, budget: int = 64 * 2**20) -> None:
        self.codec = codec
        self.min_size = min_size
        self.budget = budget
        self.held = 0
        self.hits = 0
        self._decoded: dict[bytes | str, Any] = {}

    def decode(self, frame: bytes | str) -> Any:
        if len(frame) < self.min_size:
            return self.codec.decode(frame)
        found = self._decoded.get(frame)
        if found is not None:
            self.hits += 1
            return found
        msg = self.codec.decode(frame)
        if self.held + len(frame) > self.budget:
            for key in list(self._decoded)[: len(self._decoded) // 2 + 1]:
                del self._decoded[key]
                self.held -= len(key)
        self._decoded[frame] = msg
        self.held += len(frame)
        return msg


@dataclass
class WorkerContext:
    url: str
    codec: Codec
    stats: RunStats
    verifier: Verifier
    pacer: Pacer
    rng: random.Random
    connect_timeout: float = 30.0
    stopping: bool = False
    started: float = field(default_factory=time.perf_counter)
    frames: DecodeCache | None = None

    def __post_init__(self) -> None:
        if self.frames is None:
            self.frames = DecodeCache(self.codec)

    def decode(self, frame: bytes | str) -> Any:
        assert self.frames is not None
        return self.frames.decode(frame)


def codec_named(name: str) -> Codec:
    return SUBPROTOCOLS[name]
