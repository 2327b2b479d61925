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
   ``NEXT_SHORTLIST`` best-fitting placements per level (``lookahead``; the training
   command also learns from these expectations).  On the last card it simply takes
   the most points.

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
NEXT_SHORTLIST = 3
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


Scored = tuple[float, int, Placement]
"""(value, index in the shortlist, placement) of a candidate."""


def lookahead(
    tiles: list[Tile],
    digit: int,
    score: int,
    remaining: list[int],
    evaluate: Evaluate = learned_value,
) -> list[Scored]:
    """The best ``LOOKAHEAD`` placements of ``digit`` on a non-empty layout by the
    evaluation, each with its expected value after the next card (``remaining``: the
    counts of each digit still to come after this one, at least one)."""
    surface = Surface.of(tiles)
    short = shortlist(surface, digit, legal_placements(tiles, digit), SHORTLIST)
    scored = sorted(
        (
            (-evaluate(surface.with_tile(digit, p), score + digit * p[0], remaining), i, p)
            for i, p in enumerate(short)
        ),
    )
    total = sum(remaining)
    out: list[Scored] = []
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
        out.append((expected / total, index, p))
    return out


def best(scored: list[Scored]) -> Placement:
    """The candidate of highest value (ties: the earlier in the shortlist)."""
    return min(scored, key=lambda c: (-c[0], c[1]))[2]


def choose(
    tiles: list[Tile],
    digit: int,
    score: int,
    remaining: list[int],
    evaluate: Evaluate = learned_value,
) -> Placement:
    """The strong bot's placement of ``digit`` on ``tiles`` (``remaining``: the counts of
    each digit still to come after this one)."""
    if not tiles:
        return legal_placements(tiles, digit)[0]
    if not any(remaining):
        surface = Surface.of(tiles)
        short = shortlist(surface, digit, legal_placements(tiles, digit), SHORTLIST)
        return max(short, key=lambda p: digit * p[0])  # the last card: the most points
    return best(lookahead(tiles, digit, score, remaining, evaluate))
