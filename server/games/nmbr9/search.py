"""The strong 9-tower bot: a one-card look-ahead (two late in the game) over the evaluation.

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
   command also learns from these expectations);
4. late in the game (at most ``LATE_CARDS`` cards still to come after this one, at
   least two), where a tile badly placed can no longer be made good, the best
   ``DEEP_CANDIDATES`` of those are scored once more by the expectation over the next
   two cards (``two_cards``): for each possible next digit, its ``DEEP_REPLIES`` best
   placements by the evaluation are each scored by the one-card expectation above,
   and the best of them counts.  The pick is the best of these by that deeper value.

On the last card it simply takes the most points.

The bot sees only what a player sees: the layout, the current card and the counts of
the cards still to come.  It is deterministic: ties go to the earlier candidate of the
shortlist (higher level, better fit, then ``legal_placements`` order).
"""

from __future__ import annotations

from collections.abc import Iterator

from tablehub.server.games.nmbr9.evaluation import BORDER, Evaluate, Surface, W, learned_value
from tablehub.server.games.nmbr9.rules import Placement, Tile, legal_placements, make_tile

SHORTLIST = 6
"""Placements per level kept after the cheap key."""
LOOKAHEAD = 8
"""Placements scored by the expectation over the next card."""
NEXT_SHORTLIST = 3
"""Placements per level of each possible next card scored by the full evaluation."""
LATE_CARDS = 8
"""At most this many cards still to come (after the one in hand): look two cards ahead."""
DEEP_CANDIDATES = 2
"""Candidates (the best by the one-card expectation) scored by the two-card expectation."""
DEEP_REPLIES = 2
"""Placements of each possible next card followed by the one-card expectation."""


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


def _draws(remaining: list[int]) -> Iterator[tuple[int, int, list[int]]]:
    """Each digit that may come next, how many of it are left, and the counts still to
    come after it."""
    for digit, count in enumerate(remaining):
        if count:
            rest = list(remaining)
            rest[digit] -= 1
            yield digit, count, rest


def _expected_after(
    tiles: list[Tile],
    surface: Surface,
    score: int,
    remaining: list[int],
    evaluate: Evaluate,
) -> float:
    """The expected best full evaluation after the next card (``remaining``: the counts
    still to come, at least one)."""
    total = 0.0
    for digit, count, rest in _draws(remaining):
        total += count * _best_after(tiles, surface, score, digit, rest, evaluate)
    return total / sum(remaining)


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
    out: list[Scored] = []
    for _, index, p in scored[:LOOKAHEAD]:
        level, rot, x, y = p
        after_tiles = [*tiles, make_tile(digit, x, y, rot, level)]
        after = surface.with_tile(digit, p)
        gained = score + digit * level
        out.append((_expected_after(after_tiles, after, gained, remaining, evaluate), index, p))
    return out


def two_cards(
    tiles: list[Tile],
    digit: int,
    placement: Placement,
    score: int,
    remaining: list[int],
    evaluate: Evaluate = learned_value,
) -> float:
    """The expected value of ``placement`` of ``digit`` after the next two cards
    (``remaining``: the counts still to come after this one, at least two): for each
    possible next digit, the best one-card expectation over its ``DEEP_REPLIES`` best
    placements by ``evaluate``."""
    level, rot, x, y = placement
    tiles = [*tiles, make_tile(digit, x, y, rot, level)]
    surface = Surface.of(tiles)
    score += digit * level
    expected = 0.0
    for next_digit, count, rest in _draws(remaining):
        options = shortlist(
            surface, next_digit, legal_placements(tiles, next_digit), NEXT_SHORTLIST
        )
        ranked = sorted(
            (
                (-evaluate(surface.with_tile(next_digit, p), score + next_digit * p[0], rest), i, p)
                for i, p in enumerate(options)
            ),
        )
        if not any(rest):  # the next card is the last: its best evaluation is exact
            expected += count * -ranked[0][0]
            continue
        best_reply = max(
            _expected_after(
                [*tiles, make_tile(next_digit, p[2], p[3], p[1], p[0])],
                surface.with_tile(next_digit, p),
                score + next_digit * p[0],
                rest,
                evaluate,
            )
            for _, _, p in ranked[:DEEP_REPLIES]
        )
        expected += count * best_reply
    return expected / sum(remaining)


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
    scored = lookahead(tiles, digit, score, remaining, evaluate)
    if not 2 <= sum(remaining) <= LATE_CARDS:
        return best(scored)
    top = sorted(scored, key=lambda c: (-c[0], c[1]))[:DEEP_CANDIDATES]
    return best([(two_cards(tiles, digit, p, score, remaining, evaluate), i, p) for _, i, p in top])
