"""Bench: the cost of one ``legal`` call in every game, and 9-tower on a fixed layout.

Run: ``.venv/bin/python -m tablehub.loadtest.bench_legal [--calls N] [--games N]``

First, per game, bot playouts with fixed seeds: at every position each seat that must
act asks ``legal`` (the full list) and walks the staged form (protocol/README.md
"Staged legal") from ``{}`` along one path of choices to a complete action, each step
one call; the figures are CPU time per call (``process_time``: a machine shared with
other work does not inflate them; a garbage collection does) -- median, p99, max --
with the largest answer.  The target is p99 <= 2 ms per call: the full list for the
small games, the staged form for Termite Towers (its full list printed for comparison).

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

from tablehub.server.games import get_game
from tablehub.server.games.base import Action, Game, State
from tablehub.server.games.nmbr9 import GAME
from tablehub.server.games.nmbr9.bot import easy_action
from tablehub.server.games.nmbr9.rules import legal_placements
from tablehub.server.games.rng import Rng

SEED = 3
TILES = 15


def build_layout(seed: int = SEED, tiles: int = TILES) -> State:
    """A solo state after ``tiles`` placements of the easy bot."""
    state = GAME.setup({"tournament": False}, 1, seed)
    for _ in range(tiles):
        state, _ = GAME.apply(state, 0, easy_action(state, 0))
    return state


PLAYOUTS: tuple[tuple[str, int, dict[str, object]], ...] = (
    ("brix", 2, {}),
    ("brix", 2, {"bricks": 8, "move_limit": 60}),  # into the move phase
    ("nmbr9", 2, {}),
    ("completto", 3, {}),
    ("termite", 2, {}),
    ("termite", 4, {}),
)


def staged_walk(game: Game, state: State, seat: int, rng: Rng, into: list[float]) -> int:
    """One path of staged calls from ``{}`` to a complete action; the largest answer."""
    partial: Action = {}
    largest = 0
    while True:
        start = time.process_time()
        step = game.legal_step(state, seat, partial)
        into.append(time.process_time() - start)
        choices = step["choices"]
        largest = max(largest, len(choices))
        if not choices:
            return largest
        choice = rng.choice(choices)
        partial = {**partial, str(step["field"]): choice["value"]}
        if not choice["more"]:
            return largest


def bench_games(games: int) -> None:
    for game_id, seats, options in PLAYOUTS:
        game = get_game(game_id)
        assert game is not None
        full: list[float] = []
        staged: list[float] = []
        sizes = [0, 0]
        for seed in range(games):
            rng = Rng.from_seed(seed)
            state = game.setup(options, seats, seed)
            while not (status := game.status(state))["finished"]:
                for seat in status["to_act"]:
                    start = time.process_time()
                    listed = game.legal_actions(state, seat)
                    full.append(time.process_time() - start)
                    sizes[0] = max(sizes[0], len(listed))
                    sizes[1] = max(sizes[1], staged_walk(game, state, seat, rng, staged))
                seat = status["to_act"][0]
                state, _ = game.apply(state, seat, game.bot_move(state, seat, game.fast_bot_level))
        for form, samples, size in (("full", full, sizes[0]), ("staged", staged, sizes[1])):
            p99 = statistics.quantiles(samples, n=100, method="inclusive")[98]
            median = statistics.median(samples)
            print(
                f"{game_id} {seats}p {options or ''} legal {form:<6} median {median * 1e3:6.3f}"
                f" ms  p99 {p99 * 1e3:7.3f} ms  max {max(samples) * 1e3:7.3f} ms"
                f"  ({len(samples)} calls, largest answer {size})"
            )


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
    parser.add_argument("--games", type=int, default=3, help="playouts per game")
    args = parser.parse_args()

    bench_games(args.games)

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
