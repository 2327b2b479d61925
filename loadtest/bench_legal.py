"""Bench: 9-tower ``legal_actions`` on a fixed 15-tile layout (docs/games/nmbr9.md).

Run: ``.venv/bin/python -m tablehub.loadtest.bench_legal [--calls N]``

The layout is reached by a deterministic sequence of legal placements: a solo game
with a fixed seed where the easy bot places the first 15 cards (the layout has tiles on
levels 0, 1 and 2).  Then ``legal_actions`` for the 16th card is timed over many
calls; also ``bot_action`` on the same layout, and ``view``/``status``/``apply`` on a
1000-seat tournament table where every seat has that layout.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from tablehub.server.games.base import State
from tablehub.server.games.nmbr9 import GAME
from tablehub.server.games.nmbr9.bot import easy_action
from tablehub.server.games.nmbr9.rules import legal_placements

SEED = 3
TILES = 15


def build_layout(seed: int = SEED, tiles: int = TILES) -> State:
    """A solo state after ``tiles`` placements of the easy bot."""
    state = GAME.setup({"tournament": False}, 1, seed)
    for _ in range(tiles):
        state, _ = GAME.apply(state, 0, easy_action(state, 0))
    return state


def timings(fn: Callable[[], object], calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def report(name: str, samples: list[float]) -> None:
    deciles = statistics.quantiles(samples, n=10)
    print(
        f"{name:<34} median {statistics.median(samples) * 1e3:7.3f} ms   "
        f"p10 {deciles[0] * 1e3:7.3f} ms   p90 {deciles[-1] * 1e3:7.3f} ms   "
        f"({len(samples)} calls)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()

    state = build_layout()
    tiles = state["players"][0]["tiles"]
    levels = sorted({t["level"] for t in tiles})
    assert len(tiles) == TILES and {0, 1, 2} <= set(levels), levels
    card = state["deck"][state["round"] - 1]
    legal = GAME.legal_actions(state, 0)
    per_level = {lvl: sum(1 for t in tiles if t["level"] == lvl) for lvl in levels}
    print(
        f"layout: {TILES} tiles, tiles per level {per_level}, score {state['players'][0]['score']}"
    )
    print(f"current card: {card}; legal placements: {len(legal)}")
    report("legal_actions (15 tiles)", timings(lambda: GAME.legal_actions(state, 0), args.calls))
    counts = {d: len(legal_placements(tiles, d)) for d in range(10)}
    print(f"legal placements per digit on this layout: {counts}")
    report(
        "legal_placements, each digit 0-9",
        timings(lambda: [legal_placements(tiles, d) for d in range(10)], args.calls // 10),
    )
    report("bot_action (15 tiles)", timings(lambda: GAME.bot_action(state, 0), args.calls // 4))

    seats = 1000
    player = state["players"][0]
    big = {**state, "players": [player] * seats, "active": seats}
    report("view (1000 seats)", timings(lambda: GAME.view(big, None), 200))
    report("status (1000 seats)", timings(lambda: GAME.status(big), 200))
    action = GAME.bot_action(big, 0)
    report("apply (1000 seats)", timings(lambda: GAME.apply(big, 0, action), 200))


if __name__ == "__main__":
    main()
