"""Bench: the bot levels, scores and speed (issue 15).

Run: ``.venv/bin/python -m tablehub.loadtest.bench_bot [--decks N] [--duels N]``

* 9-tower: every level plays the same ``--decks`` seeded decks alone; prints the mean,
  standard deviation, minimum and maximum score and the time per move (mean and
  maximum, wall clock and CPU), then a head-to-head table: on how many of those decks the row level
  scored more than, as much as, or less than the column level (one deck, the same
  cards, so the scores compare directly).
* brix and completto: ``--duels`` two-player games per pair of levels on seeded deals,
  each level taking the first seat in half of them; prints the wins of each side and
  each level's CPU time per move (mean and maximum).

Single process, no parallelism (the machine is shared); 500 decks take some minutes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from itertools import combinations

from tablehub.server.games import get_game
from tablehub.server.games.base import Game, final_result

FIRST_SEED = 1000


def _game(game_id: str) -> Game:
    game = get_game(game_id)
    if game is None:
        raise LookupError(game_id)
    return game


def solo(game: Game, level: str, seed: int) -> tuple[int, list[float], list[float]]:
    """One solo game of ``game`` by ``level`` on seed ``seed``: (score, wall-clock seconds
    per move, CPU seconds per move)."""
    state = game.setup({}, 1, seed)
    wall: list[float] = []
    cpu: list[float] = []
    while not game.status(state)["finished"]:
        start, start_cpu = time.perf_counter(), time.process_time()
        action = game.bot_move(state, 0, level)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        state, _ = game.apply(state, 0, action)
    scores = final_result(game.status(state))["scores"]
    return int(scores[0]), wall, cpu


def duel(
    game: Game, levels: tuple[str, str], seed: int, cpu: dict[str, list[float]] | None = None
) -> list[int]:
    """One two-player game, ``levels[i]`` in seat ``i``: the winning seats; the CPU
    seconds of each move go to ``cpu[level]``."""
    state = game.setup({}, 2, seed)
    while True:
        status = game.status(state)
        if status["finished"]:
            return list(final_result(status)["winners"])
        seat = status["to_act"][0]
        start = time.process_time()
        action = game.bot_move(state, seat, levels[seat])
        if cpu is not None:
            cpu.setdefault(levels[seat], []).append(time.process_time() - start)
        state, _ = game.apply(state, seat, action)


def bench_nmbr9(decks: int) -> None:
    game = _game("nmbr9")
    seeds = range(FIRST_SEED, FIRST_SEED + decks)
    scores: dict[str, list[int]] = {}
    print(f"9-tower, one player, {decks} seeded decks (seeds {seeds[0]}-{seeds[-1]})")
    print("ms/move is wall-clock time (mean, max); cpu ms is the process's CPU time (mean,")
    print("max), which other load on the machine does not inflate.")
    print(
        f"{'level':<8} {'mean':>6} {'sd':>5} {'min':>4} {'max':>4} {'ms/move':>8} {'max ms':>7}"
        f" {'cpu ms':>7} {'max cpu':>8}"
    )
    for level in game.bots:
        wall: list[float] = []
        cpu: list[float] = []
        scores[level.id] = []
        for seed in seeds:
            score, spent, spent_cpu = solo(game, level.id, seed)
            scores[level.id].append(score)
            wall.extend(spent)
            cpu.extend(spent_cpu)
        s = scores[level.id]
        print(
            f"{level.id:<8} {statistics.mean(s):6.1f} {statistics.pstdev(s):5.1f} {min(s):4d} "
            f"{max(s):4d} {statistics.mean(wall) * 1e3:8.1f} {max(wall) * 1e3:7.0f}"
            f" {statistics.mean(cpu) * 1e3:7.1f} {max(cpu) * 1e3:8.0f}",
            flush=True,
        )
    print("head to head on the same decks (row vs column: more / equal / less):")
    for a, b in combinations(scores, 2):
        pairs = list(zip(scores[b], scores[a], strict=True))
        more = sum(1 for x, y in pairs if x > y)
        equal = sum(1 for x, y in pairs if x == y)
        margin = statistics.mean(x - y for x, y in pairs)
        print(
            f"  {b} vs {a}: {more} / {equal} / {len(pairs) - more - equal}"
            f"  (mean margin {margin:+.1f} points)"
        )


def bench_duels(game_id: str, games: int) -> None:
    game = _game(game_id)
    print(f"{game.name}, {games} two-player games per pair (seats alternate)")
    ids = [level.id for level in game.bots]
    cpu: dict[str, list[float]] = {}
    for weak, strong in combinations(ids, 2):
        wins = {weak: 0, strong: 0}
        draws = 0
        for i in range(games):
            seats = (strong, weak) if i % 2 == 0 else (weak, strong)
            winners = duel(game, seats, FIRST_SEED + i // 2, cpu)
            if len(winners) == 1:
                wins[seats[winners[0]]] += 1
            else:
                draws += 1
        share = 100 * wins[strong] / games
        print(
            f"  {strong} vs {weak}: {strong} won {wins[strong]} ({share:.1f} %), "
            f"{weak} won {wins[weak]}, drawn or shared {draws}"
        )
    for level in ids:
        spent = cpu.get(level, [])
        if spent:
            print(
                f"  {level}: {statistics.mean(spent) * 1e3:.2f} ms CPU a move on average, "
                f"{max(spent) * 1e3:.1f} ms at most ({len(spent)} moves)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=500, help="9-tower decks per level")
    parser.add_argument("--duels", type=int, default=200, help="brix/completto games per pair")
    args = parser.parse_args()
    if args.decks > 0:  # --decks 0: the duels only
        bench_nmbr9(args.decks)
    if args.duels > 0:  # --duels 0: the 9-tower table only
        for game_id in ("brix", "completto"):
            bench_duels(game_id, args.duels)


if __name__ == "__main__":
    main()
