"""What one audience's fan-out step costs: the view, its diff and its hash.

For each game, a bot playout's states are turned into views one version after the
other, as the feed does on every flush, two ways side by side in one run:

* ``plain``: ``diff(old, new)`` and the protocol's ``view_hash`` over the whole view
  (the hub before the incremental hash);
* ``incremental``: what the feed does now: ``diff_shared`` (the new view shares
  unchanged sub-trees with the old one) and ``feed.hash_view`` (the canonical-JSON
  tree of the previous view reused for large views, the C encoder for small ones).

Prints the median CPU microseconds per step over ``--repeat`` interleaved passes, and the
ratio.  The two must give the same hash at every step (checked as it runs).

    python -m tablehub.loadtest.bench_feed [--seats 4] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from tablehub.server.games import all_games
from tablehub.server.games.base import Game, State
from tablehub.server.tables.feed import hash_view
from tablehub.server.tables.viewdiff import diff, diff_shared, view_hash


def bot_states(
    game: Game, seats: int, seed: int = 7, limit: int = 400, options: dict[str, Any] | None = None
) -> list[State]:
    state = game.setup(game.validate_options(options), seats, seed)
    states = [state]
    while len(states) < limit:
        status = game.status(state)
        if status["finished"]:
            break
        seat = status["to_act"][0]
        state, _ = game.apply(state, seat, game.bot_action(state, seat))
        states.append(state)
    return states


def plain_pass(views: list[Any]) -> tuple[float, list[str]]:
    hashes = []
    started = time.process_time()
    old = views[0]
    for new in views[1:]:
        diff(old, new)
        hashes.append(view_hash(new))
        old = new
    return time.process_time() - started, hashes


def incremental_pass(views: list[Any]) -> tuple[float, list[str]]:
    """What the feed does now (``feed.hash_view``: incremental for large views)."""
    hashes = []
    old = views[0]
    _, size, tree = hash_view(old, None, 0, 0)  # the audience's snapshot: not a flush
    started = time.process_time()
    for new in views[1:]:
        ops, old = diff_shared(old, new)
        digest, size, tree = hash_view(old, tree, size, len(ops))
        hashes.append(digest)
    return time.process_time() - started, hashes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--tournament", type=int, default=200, help="seats of a 9-tower table")
    args = parser.parse_args()
    print(f"{'game':14} {'steps':>5} {'plain µs':>10} {'incr. µs':>10} {'ratio':>6}")
    cases: list[tuple[str, list[Any]]] = []
    for game in all_games():
        seats = max(game.min_players, min(args.seats, game.max_players))
        views: list[Any] = []
        for seed in range(1, 40):  # several games, until there are enough steps
            views += [game.view(s, 0) for s in bot_states(game, seats, seed)]
            if len(views) > 300:
                break
        cases.append((game.id, views))
    nmbr9 = next(g for g in all_games() if g.id == "nmbr9")
    big = bot_states(nmbr9, args.tournament, 1, 2 * args.tournament, {"tournament": True})
    cases.append((f"nmbr9 ×{args.tournament}", [nmbr9.view(s, None) for s in big]))
    for name, views in cases:
        plain, incr = [], []
        for _ in range(args.repeat):
            took, expected = plain_pass(views)
            plain.append(took)
            took, got = incremental_pass(views)
            incr.append(took)
            assert got == expected, f"{name}: incremental hash differs"
        steps = len(views) - 1
        p_us = statistics.median(plain) / steps * 1e6
        i_us = statistics.median(incr) / steps * 1e6
        print(f"{name:14} {steps:5} {p_us:10.1f} {i_us:10.1f} {p_us / i_us:6.2f}")


if __name__ == "__main__":
    main()
