"""Train the 9-tower evaluation: self-play, then a small network (issue 15).

Run: ``.venv/bin/python -m tablehub.loadtest.train_bot [--games N] [--bootstrap] [...]``
(needs numpy: ``.venv/bin/pip install -e '.[train]'``; the bot itself does not).

The strong bot plays ``--games`` solo games on seeded random decks (seeds from
``FIRST_SEED``, apart from the benchmark's).  At each placement it looks ahead from its
best few candidates (``search.lookahead``); each of those layouts is recorded
(``evaluation.inputs``) with the points the search expects to score after it -- the
best over the next card, averaged over the cards still to come, one card deeper than
the evaluation sees -- and the layout it played also with the points it went on to
score to the end of the game.  So the evaluation learns on the layouts the search
compares, not only on those it plays.  A network with one hidden layer of ``--hidden``
rectified units beside a linear term (``evaluation.network``) is fitted to those points
by gradient descent (Adam, mean squared error, a little weight decay), keeping the
epoch that did best on every fifth game, held out; the weights are written to
``server/games/nmbr9/weights.py``.  The evaluation is then "points held + points this
bot can expect from here", so every round of training improves the bot that produced
the data (policy iteration).  ``--bootstrap`` plays with the hand-set evaluation instead
of the committed weights: the first round.

``--ensemble K`` fits K networks from different starting weights (``--fit-seed`` and
the next ones) and writes their mean as one network of K times ``--hidden`` units.
``--workers N`` plays the games in N processes (the same samples: each game is seeded);
``--save-samples`` keeps them and ``--samples`` fits to kept ones instead of playing.
``--rank W`` adds to the loss W times the error of each candidate's value less the mean
of its move's candidates (how well the network tells them apart; tried in issue 31 and
left at 0, docs/games/nmbr9.md).  Beside the fit, it prints how well the network tells
apart the candidates of one move (held out).

Prints the fit (R^2 and the mean absolute error, in points, on the held-out games).
The committed weights (issue 31): ``train_bot --games 2000 --first-seed 80000
--workers 2 --fit-seed 102 --ensemble 2``, about 6 minutes of self-play on two cores
and 5 of fitting.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tablehub.server.games.nmbr9 import GAME, search, weights
from tablehub.server.games.nmbr9.engine import current_card, remaining_counts
from tablehub.server.games.nmbr9.evaluation import (
    INPUT_NAMES,
    Evaluate,
    hand_value,
    inputs,
    learned_value,
)
from tablehub.server.games.nmbr9.surface import Surface

FIRST_SEED = 50_000
EPOCHS = 300
BATCH = 256
LEARNING_RATE = 3e-3
WEIGHT_DECAY = 1e-4
PAUSE_CHECK_S = 10.0
"""With ``--pause-while``: how often a paused run looks again."""

Sample = tuple[list[float], float]


def play(seed: int, evaluate: Evaluate) -> list[Sample]:
    """One solo game.  After each placement but the first and the last, one sample per
    candidate the search looked ahead from: the inputs of the layout it leaves, and the
    points the search expects to score after it (the best over the next card, averaged
    over the cards still to come: a one-card-deeper estimate, for the layouts the
    search compares); and for the placement played, the points scored after it to the
    end of the game."""
    state = GAME.setup({}, 1, seed)
    samples: list[Sample] = []
    chosen: list[tuple[list[float], int]] = []
    while not state["finished"]:
        player = state["players"][0]
        tiles, score = player["tiles"], player["score"]
        digit = current_card(state)
        remaining = remaining_counts(state)
        if tiles and any(remaining):
            surface = Surface.of(tiles)
            looked = search.lookahead(surface, digit, score, remaining, evaluate)
            for value, _, p in looked:
                after = surface.with_tile(digit, p)
                samples.append((inputs(after, remaining), value - score - digit * p[0]))
            placement = search.best(looked)
            chosen.append(
                (
                    inputs(surface.with_tile(digit, placement), remaining),
                    score + digit * placement[0],
                )
            )
        else:
            placement = search.choose(tiles, digit, score, remaining, evaluate)
        _, rot, x, y = placement
        state, _ = GAME.apply(state, 0, {"type": "place", "x": x, "y": y, "rot": rot})
    final = state["players"][0]["score"]
    return samples + [(f, float(final - points)) for f, points in chosen]


Network = tuple[list[list[float]], list[float], list[float], float]
"""(hidden rows ``[bias, *weights]``, output weights of the hidden units, linear
weights of the inputs, output bias), on raw inputs: ``evaluation.network``'s layout."""


def wait_while(path: Path | None) -> None:
    """Return once ``path`` (if any) does not exist."""
    while path is not None and path.exists():
        time.sleep(PAUSE_CHECK_S)


def groups_of(samples: list[Sample]) -> list[int]:
    """Each sample of one game's :func:`play` (in its order) numbered by the move whose
    candidates it compares, from 0; a played layout's sample (scored to the end of the
    game, after them) gets -1.  A move's candidates share the share of the cards to
    come (input 0), which differs from move to move, and the played layouts' samples
    are the last, one a move."""
    moves: dict[float, int] = {}
    for f, _ in samples:
        moves.setdefault(f[0], len(moves))
    looked = len(samples) - len(moves)
    return [moves[f[0]] if i < looked else -1 for i, (f, _) in enumerate(samples)]


def fit(
    train: list[Sample],
    test: list[Sample],
    hidden: int,
    seed: int,
    pause_while: Path | None,
    rank: float = 0.0,
    groups: tuple[list[int], list[int]] | None = None,
) -> Network:
    """The network minimising the squared error on ``train`` (best epoch on ``test``);
    between epochs it waits while ``pause_while`` exists.

    With ``rank`` > 0 and ``groups`` (a group number for each sample of ``train`` and
    of ``test``; -1 for none), the loss adds ``rank`` times the squared error of each
    sample's value less its group's mean (the candidates of one move, compared with
    each other: what the search's choice depends on), the batches made of whole
    groups."""
    try:
        import numpy as np
    except ImportError:
        raise SystemExit("training needs numpy: .venv/bin/pip install -e '.[train]'") from None
    rng = np.random.default_rng(seed)
    x = np.array([f for f, _ in train])
    y = np.array([t for _, t in train])
    xt = np.array([f for f, _ in test])
    yt = np.array([t for _, t in test])
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std[std == 0] = 1.0
    z, zt = (x - mean) / std, (xt - mean) / std
    share, share_t = x[:, 0], xt[:, 0]  # the prediction is share x network
    if groups is None:
        group = np.arange(len(y))
        group_t = np.arange(len(yt))
    else:  # each a number of its own, the samples of no group alone
        group = _numbered(np, groups[0])
        group_t = _numbered(np, groups[1])

    def centred(errors: Any, g: Any) -> Any:
        """The errors less their group's mean."""
        _, inverse = np.unique(g, return_inverse=True)
        sums = np.bincount(inverse, weights=errors)
        return errors - (sums / np.bincount(inverse))[inverse]

    def loss_on(out: Any, target: Any, g: Any) -> float:
        errors = out - target
        value = float(np.mean(errors**2))
        if rank:
            value += rank * float(np.mean(centred(errors, g) ** 2))
        return value

    n_in = x.shape[1]
    params: dict[str, Any] = {
        "w": rng.normal(0, 1 / np.sqrt(n_in), (n_in, hidden)),
        "c": np.zeros(hidden),
        "v": rng.normal(0, 1 / np.sqrt(hidden), hidden),
        "u": np.zeros(n_in),
        "b": np.array(float(np.mean(y / np.maximum(share, 1e-9)))),
    }
    moments = {k: (np.zeros_like(p), np.zeros_like(p)) for k, p in params.items()}

    def predict(p: dict[str, Any], zz: Any, ss: Any) -> tuple[Any, Any]:
        pre = zz @ p["w"] + p["c"]
        act = np.maximum(pre, 0.0)
        return ss * (act @ p["v"] + zz @ p["u"] + p["b"]), pre

    best = (float("inf"), {k: p.copy() for k, p in params.items()})
    step = 0
    for _ in range(EPOCHS):
        wait_while(pause_while)
        if rank:  # whole groups, in a random order
            order = np.argsort(rng.permutation(int(group.max()) + 1)[group], kind="stable")
        else:
            order = rng.permutation(len(y))
        for start in range(0, len(y), BATCH):
            idx = order[start : start + BATCH]
            zz, ss, yy = z[idx], share[idx], y[idx]
            out, pre = predict(params, zz, ss)
            errors = out - yy
            if rank:  # a group cut by the batch's end is centred on its part
                errors = errors + rank * centred(errors, group[idx])
            g_out = 2 * errors / len(idx) * ss  # d loss / d (network before x share)
            act = np.maximum(pre, 0.0)
            g_pre = np.outer(g_out, params["v"]) * (pre > 0)
            grads = {
                "v": act.T @ g_out,
                "u": zz.T @ g_out,
                "b": np.array(g_out.sum()),
                "w": zz.T @ g_pre,
                "c": g_pre.sum(axis=0),
            }
            step += 1
            for k, g in grads.items():
                g = g + WEIGHT_DECAY * params[k] if k in ("w", "v", "u") else g
                m, s2 = moments[k]
                m *= 0.9
                m += 0.1 * g
                s2 *= 0.999
                s2 += 0.001 * g * g
                m_hat = m / (1 - 0.9**step)
                s_hat = s2 / (1 - 0.999**step)
                params[k] -= LEARNING_RATE * m_hat / (np.sqrt(s_hat) + 1e-8)
        loss = loss_on(predict(params, zt, share_t)[0], yt, group_t)
        if loss < best[0]:
            best = (loss, {k: p.copy() for k, p in params.items()})
    p = best[1]
    # Fold the standardisation into the weights: the bot feeds raw inputs.
    w = p["w"] / std[:, None]
    c = p["c"] - (mean / std) @ p["w"]
    u = p["u"] / std
    b = float(p["b"] - (mean / std) @ p["u"])
    rows = [[float(c[j]), *map(float, w[:, j])] for j in range(hidden)]
    return rows, [float(v) for v in p["v"]], [float(v) for v in u], b


def _numbered(np: Any, groups: list[int]) -> Any:
    """Group numbers from 0 as an array, each sample of group -1 in one of its own."""
    out = np.array(groups)
    alone = out < 0
    out[alone] = out.max() + 1 + np.arange(int(alone.sum()))
    return out


def predict(net: Network, f: list[float]) -> float:
    rows, out, linear, bias = net
    total = bias + sum(a * b for a, b in zip(linear, f, strict=True))
    for row, v in zip(rows, out, strict=True):
        h = row[0] + sum(a * b for a, b in zip(row[1:], f, strict=True))
        if h > 0:
            total += v * h
    return f[0] * total


def within_move(net: Network, samples: list[Sample], groups: list[int]) -> tuple[float, float]:
    """How well ``net`` tells apart the candidates of one move (``groups``: see
    :func:`groups_of`): the R^2 and the root mean squared error of the values and the
    targets less their move's means."""
    moves: dict[int, list[tuple[float, float]]] = {}
    for (f, y), g in zip(samples, groups, strict=True):
        if g >= 0:
            moves.setdefault(g, []).append((predict(net, f), y))
    error = spread = 0.0
    count = 0
    for pairs in moves.values():
        mean_p = sum(p for p, _ in pairs) / len(pairs)
        mean_y = sum(y for _, y in pairs) / len(pairs)
        for p, y in pairs:
            error += (p - mean_p - y + mean_y) ** 2
            spread += (y - mean_y) ** 2
        count += len(pairs)
    if not count or not spread:
        return 0.0, 0.0
    return 1 - error / spread, (error / count) ** 0.5


def _floats(values: list[float], indent: str) -> str:
    """``values`` as the lines of a tuple literal, each within the line length."""
    text = ", ".join(f"{value:.6g}" for value in values) + ","
    return "\n".join(textwrap.wrap(text, 96, initial_indent=indent, subsequent_indent=indent))


def write_weights(net: Network, path: Path, note: str) -> None:
    rows, out, linear, bias = net
    hidden = "\n".join(f"    (\n{_floats(row, '        ')}\n    )," for row in rows)
    path.write_text(
        '"""Learned weights of the 9-tower evaluation (``evaluation.network``).\n\n'
        f"Generated by ``python -m tablehub.loadtest.train_bot``; do not edit by hand.\n{note}\n"
        '"""\n\n'
        "# fmt: off\n"  # the tables stay compact, several numbers a line
        f"HIDDEN: tuple[tuple[float, ...], ...] = (\n{hidden}\n)\n"
        '"""One row per hidden unit: its bias, then its weight for each input."""\n'
        f"OUTPUT: tuple[float, ...] = (\n{_floats(out, '    ')}\n)\n"
        '"""The weight of each hidden unit in the output."""\n'
        f"LINEAR: tuple[float, ...] = (\n{_floats(linear, '    ')}\n)\n"
        '"""The weight of each input in the output, beside the hidden units."""\n'
        f"BIAS = {bias:.6g}\n"
        "# fmt: on\n"
    )


def _play_seed(task: tuple[int, bool]) -> list[Sample]:
    """:func:`play` on one seed, by the hand-set evaluation if asked (for a pool)."""
    seed, bootstrap = task
    return play(seed, hand_value if bootstrap else learned_value)


def self_play(
    seeds: range, bootstrap: bool, workers: int, pause_while: Path | None
) -> list[tuple[int, list[Sample]]]:
    """The samples of each seed's game, in seed order, played by ``workers`` processes
    (each game is seeded: the same samples however many)."""
    tasks = [(seed, bootstrap) for seed in seeds]
    out: list[tuple[int, list[Sample]]] = []
    if workers <= 1:
        games: Iterator[list[Sample]] = map(_play_seed, tasks)
        pool = None
    else:
        pool = multiprocessing.Pool(workers)
        games = pool.imap(_play_seed, tasks)
    try:
        for seed, samples in zip(seeds, games, strict=True):
            wait_while(pause_while)
            out.append((seed, samples))
            if len(out) % 50 == 0:
                print(f"{len(out)} games played", flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return out


def save_samples(path: Path, games: list[tuple[int, list[Sample]]]) -> None:
    """The samples as JSON lines, one game a line: ``[seed, [[inputs, target], ...]]``."""
    with path.open("w") as f:
        for seed, samples in games:
            f.write(json.dumps([seed, samples]) + "\n")


def load_samples(path: Path) -> list[tuple[int, list[Sample]]]:
    with path.open() as f:
        return [
            (int(seed), [(list(x), float(y)) for x, y in samples])
            for seed, samples in map(json.loads, f)
        ]


def ensemble(nets: list[Network]) -> Network:
    """The mean of networks as one network: their hidden units side by side, each
    output weight and the linear term divided by their number."""
    k = len(nets)
    rows = [row for net in nets for row in net[0]]
    out = [v / k for net in nets for v in net[1]]
    linear = [sum(col) / k for col in zip(*(net[2] for net in nets), strict=True)]
    return rows, out, linear, sum(net[3] for net in nets) / k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="self-play games")
    parser.add_argument("--hidden", type=int, default=16, help="hidden units")
    parser.add_argument(
        "--bootstrap", action="store_true", help="play with the hand-set evaluation"
    )
    parser.add_argument(
        "--first-seed", type=int, default=FIRST_SEED, help="seed of the first self-play deck"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="processes playing the self-play games"
    )
    parser.add_argument(
        "--save-samples", type=Path, help="write the self-play samples here (JSON lines)"
    )
    parser.add_argument(
        "--samples",
        type=Path,
        action="append",
        default=[],
        help="fit to samples saved by --save-samples instead of playing (repeatable)",
    )
    parser.add_argument(
        "--ensemble",
        type=int,
        default=1,
        help="networks fitted from different starting weights, written as their mean",
    )
    parser.add_argument(
        "--fit-seed",
        type=int,
        help="seed of the first network's starting weights (default: the number of games)",
    )
    parser.add_argument(
        "--rank",
        type=float,
        default=0.0,
        help="weight of the error within each move's candidates in the loss (see fit)",
    )
    parser.add_argument(
        "--pause-while",
        type=Path,
        help="between games, wait while this path exists (a shared machine's quiet lock)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(weights.__file__).resolve(),
        help="weights module to write (default: the package's weights.py)",
    )
    args = parser.parse_args()
    if args.samples:
        games = [game for path in args.samples for game in load_samples(path)]
        source = f"{len(games)} saved self-play games"
    else:
        seeds = range(args.first_seed, args.first_seed + args.games)
        games = self_play(seeds, args.bootstrap, args.workers, args.pause_while)
        policy = "hand-set" if args.bootstrap else "learned"
        source = f"{args.games} self-play games by the {policy} evaluation"
        if args.save_samples:
            save_samples(args.save_samples, games)
    train: list[Sample] = []
    test: list[Sample] = []
    groups: tuple[list[int], list[int]] = ([], [])
    numbered = 0  # the groups of the games before
    for seed, samples in games:
        held = seed % 5 == 4
        (test if held else train).extend(samples)
        moves = groups_of(samples)
        groups[held].extend(g + numbered if g >= 0 else -1 for g in moves)
        numbered += max(moves, default=-1) + 1
    fit_seed = len(games) if args.fit_seed is None else args.fit_seed
    nets = [
        fit(train, test, args.hidden, fit_seed + k, args.pause_while, args.rank, groups)
        for k in range(args.ensemble)
    ]
    net = ensemble(nets)
    errors = [predict(net, f) - y for f, y in test]
    mean_y = sum(y for _, y in test) / len(test)
    spread = sum((y - mean_y) ** 2 for _, y in test) / len(test)
    r2 = 1 - sum(e * e for e in errors) / len(errors) / spread
    mae = sum(abs(e) for e in errors) / len(errors)
    print(f"{source}, {len(train)} samples to fit")
    print(f"held out: {len(test)} samples, R^2 {r2:.3f}, mean absolute error {mae:.1f} points")
    within = within_move(net, test, groups[1])
    print(f"within a move's candidates: R^2 {within[0]:.3f}, error {within[1]:.2f} points")
    print(f"{len(INPUT_NAMES)} inputs, {args.ensemble} x {args.hidden} hidden units")
    note = (
        f"Trained on {source}, {args.ensemble} x {args.hidden} hidden units "
        f"(held-out R^2 {r2:.3f})."
    )
    write_weights(net, args.out, note)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
