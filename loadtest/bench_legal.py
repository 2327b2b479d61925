"""Bench: the cost of ``legal`` in every game against the cost of a move, and 9-tower on
a fixed layout.

Run: ``.venv/bin/python -m tablehub.loadtest.bench_legal [--calls N] [--games N]
[--min-calls N]``

First, per game, bot playouts with fixed seeds: at every position each seat that must
act asks ``legal`` in the form its clients use -- the layered grid form
(protocol/README.md "Layered grid legal": what both clients ask for), which 9-tower and
the wall duel answer with their bit masks in hexadecimal, stacked in layers, and the
number row with its compact form ("Compact legal": groups of flat value lists); for
Termite Towers the staged form ("Staged legal") walked from ``{}`` along one path of
choices to a complete action, each step one call -- and the move that seat's bot plays
there is applied once (``Game.apply``, the state left as it was).  The figures are CPU
time per call (``process_time``: a machine shared with other work does not inflate them;
a garbage collection does), median and p99, over at least ``--games`` playouts and as many more as
give ``--min-calls`` calls (a p99 of a few dozen calls would be their maximum); for a
game with phases (the wall duel's placing and move phases), each phase's figures too:

* ``legal``: the game's answer as the hub gives it (``Game.legal_in_form``: in the form
  asked, or the next cheaper one the game has; ``plain`` is the full list) or its staged
  step (``legal_step``);
* ``served``: that answer and its ``ok`` frame as the hub writes it the first time
  (msgpack, ``tables/legal_cache.ok_frame``); ``again``: the frame for a second ask at
  the same version (the kept reply);
* ``apply``: one move in the same positions.

Collection as the hub does it (server/ops/gc_tuning.py): automatic collection off, the
young generation collected after each seat's calls, outside the timed ones -- with it on, a
collection that the bots' moves between the calls made due lands in whichever call
allocates next (in the hub none does: ``Collector`` collects on a timer); the young
collections' own CPU is printed after the games.

The targets (issue 33): served median <= apply median, served p99 <= 3x the apply
median; the full list is printed beside the layered ask (and 9-tower's grid and compact
forms) and the staged form (Termite Towers).

The layout is reached by a deterministic sequence of legal placements: a solo game
with a fixed seed where the easy bot places the first 15 cards (the layout has tiles on
levels 0, 1 and 2).  Then ``legal_actions`` for the 16th card is timed over many
calls; also ``bot_action`` on the same layout, and ``view``/``status``/``apply`` on a
1000-seat tournament table where every seat has that layout.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tablehub.protocol.codec import SUBPROTOCOLS
from tablehub.protocol.legal import COMPACT, GRID, LAYERED, PLAIN, count
from tablehub.server.games import get_game
from tablehub.server.games.base import Action, Game, State
from tablehub.server.games.nmbr9 import GAME
from tablehub.server.games.nmbr9.bot import easy_action
from tablehub.server.games.nmbr9.rules import legal_placements
from tablehub.server.games.rng import Rng
from tablehub.server.tables.legal_cache import LegalReply, ok_frame

SEED = 3
TILES = 15


def build_layout(seed: int = SEED, tiles: int = TILES) -> State:
    """A solo state after ``tiles`` placements of the easy bot."""
    state = GAME.setup({"tournament": False}, 1, seed)
    for _ in range(tiles):
        state, _ = GAME.apply(state, 0, easy_action(state, 0))
    return state


PLAYOUTS: tuple[tuple[str, int, dict[str, object], str], ...] = (
    ("brix", 2, {}, LAYERED),
    ("brix", 2, {}, PLAIN),
    ("brix", 2, {"bricks": 8, "move_limit": 60}, LAYERED),  # into the move phase
    ("brix", 2, {"bricks": 8, "move_limit": 60}, COMPACT),
    ("brix", 2, {"bricks": 8, "move_limit": 60}, PLAIN),
    ("nmbr9", 2, {}, LAYERED),
    ("nmbr9", 2, {}, GRID),
    ("nmbr9", 2, {}, COMPACT),
    ("nmbr9", 2, {}, PLAIN),
    ("completto", 3, {}, LAYERED),
    ("completto", 3, {}, PLAIN),
    ("termite", 2, {}, "staged"),
    ("termite", 2, {}, PLAIN),
    ("termite", 4, {}, "staged"),
)
"""Each game, seat count and options, with the form of ``legal`` its clients use."""

CODEC = SUBPROTOCOLS["tablehub.v1.msgpack"]


class Samples:
    """CPU seconds per call of one kind."""

    def __init__(self) -> None:
        self.legal: list[float] = []
        self.served: list[float] = []
        self.again: list[float] = []
        self.apply: list[float] = []
        self.largest = 0

    @staticmethod
    def joined(parts: Iterable[Samples]) -> Samples:
        """All the calls of ``parts`` as one set."""
        out = Samples()
        for part in parts:
            out.legal += part.legal
            out.served += part.served
            out.again += part.again
            out.apply += part.apply
            out.largest = max(out.largest, part.largest)
        return out

    def ask(self, answer: Callable[[], dict[str, Any]], version: int) -> dict[str, Any]:
        """One ``legal`` call, then its frame: the first time, and a second ask."""
        start = time.process_time()
        fields = answer()
        done = time.process_time()
        reply = LegalReply({**fields, "version": version})
        ok_frame(reply, CODEC, 1)
        end = time.process_time()
        ok_frame(reply, CODEC, 2)
        self.again.append(time.process_time() - end)
        self.legal.append(done - start)
        self.served.append(end - start)
        return fields


ANSWERS = {
    form: functools.partial(Game.legal_in_form, form=form)
    for form in (LAYERED, GRID, COMPACT, PLAIN)
}
"""Each form's answer as the hub gives it (``Game.legal_in_form``: the next cheaper form
for a game without the one asked)."""


def _staged(game: Game, state: State, seat: int, chosen: Action) -> dict[str, Any]:
    return dict(game.legal_step(state, seat, chosen))


def staged_walk(game: Game, state: State, seat: int, rng: Rng, samples: Samples) -> None:
    """One path of staged calls from ``{}`` to a complete action."""
    chosen: Action = {}
    while True:
        step = samples.ask(functools.partial(_staged, game, state, seat, chosen), 0)
        choices = step["choices"]
        samples.largest = max(samples.largest, len(choices))
        if not choices:
            return
        choice = rng.choice(choices)
        chosen = {**chosen, str(step["field"]): choice["value"]}
        if not choice["more"]:
            return


@contextlib.contextmanager
def hub_collection() -> Iterator[list[float]]:
    """Collection as a serving hub's ``Collector`` does it: one full collection and a
    freeze, automatic collection off; yields the list the young collections' CPU times
    go to (:func:`collect_young`)."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield []
    finally:
        gc.enable()
        gc.unfreeze()


def collect_young(times: list[float]) -> None:
    """The hub's young collection, after a seat's calls (its CPU time kept apart)."""
    start = time.process_time()
    gc.collect(0)
    times.append(time.process_time() - start)


def bench_games(games: int, min_calls: int) -> None:
    with hub_collection() as young:
        _bench_games(games, min_calls, young)
    print(
        f"young collections after each seat's calls: {statistics.mean(young) * 1e3:.3f} ms CPU"
        f" on average, {len(young)} of them"
    )


def _bench_games(games: int, min_calls: int, young: list[float]) -> None:
    print(
        "CPU per call, ms (median / p99); served = legal + its ok frame (msgpack), again ="
        " a second ask at the version; apply = one move in the same positions; at least"
        f" {games} playouts and {min_calls} calls a line; a game with phases: each too"
    )
    for game_id, seats, options, form in PLAYOUTS:
        game = get_game(game_id)
        assert game is not None
        phases: dict[str, Samples] = {}
        seed = 0
        while seed < games or sum(len(s.legal) for s in phases.values()) < min_calls:
            rng = Rng.from_seed(seed)
            state = game.setup(options, seats, seed)
            version = 0
            while not (status := game.status(state))["finished"]:
                samples = phases.setdefault(status["phase"], Samples())
                for seat in status["to_act"]:
                    if form != "staged":
                        answer = functools.partial(ANSWERS[form], game, state, seat)
                        listed = samples.ask(answer, version)
                        samples.largest = max(samples.largest, count(listed))
                    else:
                        staged_walk(game, state, seat, rng, samples)
                    move = game.bot_move(state, seat, game.fast_bot_level)
                    start = time.process_time()
                    game.apply(state, seat, move)
                    samples.apply.append(time.process_time() - start)
                    collect_young(young)
                seat = status["to_act"][0]
                state, _ = game.apply(state, seat, game.bot_move(state, seat, game.fast_bot_level))
                version += 1
            seed += 1
        name = f"{game_id} {seats}p {options or ''} {form}"
        report_game(f"{name} ({seed} playouts)", Samples.joined(phases.values()))
        if len(phases) > 1:
            for phase, samples in phases.items():
                if len(samples.legal) >= MIN_PHASE_CALLS:
                    report_game(f"  phase {phase}", samples)


MIN_PHASE_CALLS = 20
"""A phase with fewer calls than this gets no line of its own (its p99 would be its
maximum)."""


def _ms(samples: list[float]) -> tuple[float, float]:
    """Median and p99 in milliseconds."""
    p99 = statistics.quantiles(samples, n=100, method="inclusive")[98]
    return statistics.median(samples) * 1e3, p99 * 1e3


def report_game(name: str, samples: Samples) -> None:
    legal, served, again, apply = (
        _ms(s) for s in (samples.legal, samples.served, samples.again, samples.apply)
    )
    print(
        f"{name:<58} legal {legal[0]:6.3f} / {legal[1]:6.3f}  served {served[0]:6.3f} /"
        f" {served[1]:6.3f}  again {again[0]:6.3f} / {again[1]:6.3f}  apply {apply[0]:6.3f} /"
        f" {apply[1]:6.3f}  served/apply median {served[0] / apply[0]:4.2f}, p99/apply median"
        f" {served[1] / apply[0]:4.2f}  ({len(samples.legal)} calls, largest answer"
        f" {samples.largest})"
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
    parser.add_argument("--games", type=int, default=3, help="playouts per game, at least")
    parser.add_argument(
        "--min-calls",
        type=int,
        default=300,
        help="more playouts until a game's line has this many calls (its p99 a percentile,"
        " not its maximum)",
    )
    args = parser.parse_args()

    bench_games(args.games, args.min_calls)

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
    report("compact legal (15 tiles)", timings(lambda: GAME.legal_groups(state, 0), args.calls))
    report("grid legal (15 tiles)", timings(lambda: GAME.legal_grids(state, 0), args.calls))
    report("layered legal (15 tiles)", timings(lambda: GAME.legal_layered(state, 0), args.calls))
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
