"""The strong 9-tower bot: a one-card look-ahead over the layout evaluation.

Theory of operation.  Scoring every legal placement with the full evaluation
(``evaluation``) would cost too much, so the search narrows in three steps:

1. every legal placement gets a cheap key -- how many of its edges touch tiles at least
   as high (a compact fit); the best ``SHORTLIST`` of each level go on;
2. those are scored with the evaluation of the layout they leave (``evaluation``; the
   learned one by default);
3. the best ``LOOKAHEAD`` of them are scored again by the expected value after the next
   card, averaged over the cards still to come (the counts are public, the order is
   not): for each possible next digit, the best by the full evaluation of its
   ``NEXT_SHORTLIST`` best-fitting placements per level.

The bot sees only what a player sees: the layout, the current card and the counts of
the cards still to come.  It is deterministic: ties go to the earlier candidate of the
shortlist (higher level, better fit, then ``legal_placements`` order).
"""

from __future__ import annotations

from tablehub.server.games.nmbr9.evaluation import BORDER, Evaluate, Surface, W, learned_value
from tablehub.server.games.nmbr9.rules import Placement, Tile, legal_placements, make_tile

SHORTLIST = 6
"""Placements per level kept after the cheap key."""
LOOKAHEAD = 8
"""Placements scored by the expectation over the next card."""
NEXT_SHORTLIST = 2
"""Placements per level of each possible next card scored by the full evaluation."""


def _fit(surface: Surface, digit: int, placement: Placement) -> int:
    """Edges of the placed tile touching cells at least as high as its top."""
    level, rot, x, y = placement
    origin = x * W + y
    height = surface.height
    return sum(1 for n in BORDER[(digit, rot)] if height.get(origin + n, 0) > level)


def shortlist(
    surface: Surface, digit: int, options: list[Placement], per_level: int
) -> list[Placement]:
    """The best ``per_level`` placements of each level by fit, highest level first
    (ties in ``options`` order)."""
    by_level: dict[int, list[tuple[int, int, Placement]]] = {}
    for index, p in enumerate(options):
        by_level.setdefault(p[0], []).append((-_fit(surface, digit, p), index, p))
    out: list[Placement] = []
    for level in sorted(by_level, reverse=True):
        ranked = sorted(by_level[level])
        out.extend(p for _, _, p in ranked[:per_level])
    return out


def _best_after(
    tiles: list[Tile],
    surface: Surface,
    score: int,
    digit: int,
    remaining: list[int],
    evaluate: Evaluate,
) -> float:
    """The best full evaluation over the shortlisted placements of ``digit``."""
    options = legal_placements(tiles, digit)
    return max(
        evaluate(surface.with_tile(digit, p), score + digit * p[0], remaining)
        for p in shortlist(surface, digit, options, NEXT_SHORTLIST)
    )


def choose(
    tiles: list[Tile],
    digit: int,
    score: int,
    remaining: list[int],
    evaluate: Evaluate = learned_value,
) -> Placement:
    """The strong bot's placement of ``digit`` on ``tiles`` (``remaining``: the counts of
    each digit still to come after this one)."""
    options = legal_placements(tiles, digit)
    if not tiles:
        return options[0]
    surface = Surface.of(tiles)
    short = shortlist(surface, digit, options, SHORTLIST)
    scored = sorted(
        (
            (-evaluate(surface.with_tile(digit, p), score + digit * p[0], remaining), i, p)
            for i, p in enumerate(short)
        ),
    )
    if not any(remaining):
        return scored[0][2]
    total = sum(remaining)
    best: tuple[float, int, Placement] | None = None
    for _, index, p in scored[:LOOKAHEAD]:
        level, rot, x, y = p
        after_tiles = [*tiles, make_tile(digit, x, y, rot, level)]
        after = surface.with_tile(digit, p)
        gained = score + digit * p[0]
        expected = 0.0
        for next_digit, count in enumerate(remaining):
            if not count:
                continue
            rest = list(remaining)
            rest[next_digit] -= 1
            expected += count * _best_after(after_tiles, after, gained, next_digit, rest, evaluate)
        key = (-expected / total, index, p)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[2]
