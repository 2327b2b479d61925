"""What one audience's fan-out step costs: the view, its diff and its hash.

For each game, a bot playout's states are turned into views one version after the
other, as the feed does on every flush, two ways side by side in one run:

* ``stdlib``: ``diff(old, new)`` and the hash over the standard library's canonical JSON
  (``json.dumps(sort_keys=True, ...)``, the protocol's definition, C encoder);
* ``hub``: what the feed does now: ``diff_shared`` (the new view shares unchanged
  sub-trees with the old one) and ``view_hash`` (orjson's canonical JSON, the same
  bytes).

Prints the median CPU microseconds per step over ``--repeat`` interleaved passes, and the
ratio.  The two must give the same hash at every step (checked as it runs).

    python -m tablehub.loadtest.bench_feed [--seats 4] [--repeat 7]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from typing import Any

from tablehub.protocol.viewhash import view_hash
from tablehub.server.games import all_games
from tablehub.server.games.base import Game, State
from tablehub.server.tables.viewdiff import diff, diff_shared


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


def stdlib_hash(view: Any) -> str:
    text = json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def stdlib_pass(views: list[Any]) -> tuple[float, list[str]]:
    hashes = []
    started = time.process_time()
    old = views[0]
    for new in views[1:]:
        diff(old, new)
        hashes.append(stdlib_hash(new))
        old = new
    return time.process_time() - started, hashes


def hub_pass(views: list[Any]) -> tuple[float, list[str]]:
    """What the feed does on every flush."""
    hashes = []
    old = views[0]
    started = time.process_time()
    for new in views[1:]:
        _, old = diff_shared(old, new)
        hashes.append(view_hash(old))
    return time.process_time() - started, hashes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--tournament", type=int, default=200, help="seats of a 9-tower table")
    args = parser.parse_args()
    print(f"{'game':14} {'steps':>5} {'stdlib µs':>10} {'hub µs':>10} {'ratio':>6}")
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
        stdlib, hub = [], []
        for _ in range(args.repeat):
            took, expected = stdlib_pass(views)
            stdlib.append(took)
            took, got = hub_pass(views)
            hub.append(took)
            assert got == expected, f"{name}: the hub's hash differs"
        steps = len(views) - 1
        s_us = statistics.median(stdlib) / steps * 1e6
        h_us = statistics.median(hub) / steps * 1e6
        print(f"{name:14} {steps:5} {s_us:10.1f} {h_us:10.1f} {s_us / h_us:6.2f}")


if __name__ == "__main__":
    main()
