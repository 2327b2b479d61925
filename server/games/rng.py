"""A small deterministic RNG whose whole state is one int stored in the game state.

SplitMix64 (Steele, Lea & Flood 2014): fast, well-distributed, and trivially
serialisable, which is what replay needs.  Usage inside a pure engine::

    rng = Rng(state["rng"])
    deck = rng.shuffled(deck)
    new_state["rng"] = rng.state      # write it back into the *new* state

The stored int is kept below 2**63 so every msgpack/JSON consumer can hold it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class Rng:
    def __init__(self, state: int) -> None:
        self.state = state & ((1 << 63) - 1)

    @classmethod
    def from_seed(cls, seed: int) -> Rng:
        rng = cls(seed)
        rng.next64()
        return rng

    def next64(self) -> int:
        full = (self.state + _GAMMA) & _MASK64
        self.state = full & ((1 << 63) - 1)
        z = full
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform int in [0, n) (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A Fisher-Yates shuffled copy."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out
