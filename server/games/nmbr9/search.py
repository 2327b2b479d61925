"""The strong 9-tower bot: a one-card look-ahead (two late in the game) over the evaluation.

Theory of operation.  Scoring every legal placement with the full evaluation
(``evaluation``) would cost too much, so the search narrows in three steps:

1. every legal placement gets a cheap key -- how many of its edges touch tiles at least
   as high (a compact fit); the best ``SHORTLIST`` of each level go on (``candidates``
   finds them on bit masks, without listing every placement);
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
   two cards (``_deeper``): for each possible next digit, its ``DEEP_REPLIES`` best
   placements by the evaluation are each scored by the one-card expectation above,
   and the best of them counts.  The pick is the best of these by that deeper value.
   Not when the best leads by more than ``DEEP_MARGIN`` points after step 3 (the
   deeper value all but never turns such a lead), and only as far as the move's
   budget goes: the next digits are taken most likely first, and once the move has
   scored ``MOVE_BUDGET`` layouts, the digits left keep their one-card value.  That
   caps the moves scoring the most layouts (about ten cards to come, many distinct
   digits) at about 1,100 instead of 1,800.

On the last card it simply takes the most points.

The bot sees only what a player sees: the layout, the current card and the counts of
the cards still to come.  It is deterministic: ties go to the earlier candidate of the
shortlist (higher level, better fit, then ``legal_placements`` order).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from tablehub.server.games.nmbr9.candidates import shortlist
from tablehub.server.games.nmbr9.evaluation import Evaluate, learned_value
from tablehub.server.games.nmbr9.rules import Placement, Tile
from tablehub.server.games.nmbr9.surface import Surface

SHORTLIST = 10
"""Placements per level kept after the cheap key."""
LOOKAHEAD = 6
"""Placements scored by the expectation over the next card."""
NEXT_SHORTLIST = 3
"""Placements per level of each possible next card scored by the full evaluation."""
LATE_CARDS = 10
"""At most this many cards still to come (after the one in hand): look two cards ahead."""
DEEP_CANDIDATES = 2
"""Candidates (the best by the one-card expectation) scored by the two-card expectation."""
DEEP_REPLIES = 1
"""Placements of each possible next card followed by the one-card expectation."""
DEEP_MARGIN = 3.0
"""No two-card step when the best candidate leads the next by more than this many
points by the one-card expectation."""
MOVE_BUDGET = 1000
"""Layouts a move may score before its two-card step stops (see :func:`_deeper`)."""


def _draws(remaining: list[int]) -> Iterator[tuple[int, int, list[int]]]:
    """Each digit that may come next, how many of it are left, and the counts still to
    come after it."""
    for digit, count in enumerate(remaining):
        if count:
            rest = list(remaining)
            rest[digit] -= 1
            yield digit, count, rest


Reply = tuple[float, int, Placement, Surface]
"""(value by the evaluation, index in the shortlist, placement, the layout it leaves)."""


def _replies(
    surface: Surface,
    score: int,
    digit: int,
    remaining: list[int],
    evaluate: Evaluate,
    spent: list[int],
) -> list[Reply]:
    """The shortlisted placements of ``digit``, best first by the full evaluation (ties:
    the earlier in the shortlist); ``spent[0]`` counts the layouts scored."""
    out: list[Reply] = []
    short = shortlist(surface, digit, NEXT_SHORTLIST)
    spent[0] += len(short)
    for i, p in enumerate(short):
        after = surface.with_tile(digit, p)
        out.append((evaluate(after, score + digit * p[0], remaining), i, p, after))
    out.sort(key=lambda r: (-r[0], r[1]))
    return out


def _expected_after(
    surface: Surface,
    score: int,
    remaining: list[int],
    evaluate: Evaluate,
    spent: list[int],
    replies: dict[int, list[Reply]] | None = None,
) -> float:
    """The expected best full evaluation after the next card (``remaining``: the counts
    still to come, at least one); ``replies`` keeps each digit's :func:`_replies`."""
    total = 0.0
    for digit, count, rest in _draws(remaining):
        ranked = _replies(surface, score, digit, rest, evaluate, spent)
        if replies is not None:
            replies[digit] = ranked
        total += count * ranked[0][0]
    return total / sum(remaining)


Scored = tuple[float, int, Placement]
"""(value, index in the shortlist, placement) of a candidate."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Candidate:
    """A placement looked ahead from: its expected value after the next card, and
    what was found on the way (for the two-card step)."""

    value: float
    index: int
    placement: Placement
    after: Surface
    score: int
    """The points held after it."""
    replies: dict[int, list[Reply]]
    """For each possible next digit, its :func:`_replies` on ``after``."""


def _lookahead(
    surface: Surface,
    digit: int,
    score: int,
    remaining: list[int],
    evaluate: Evaluate,
    spent: list[int],
) -> list[_Candidate]:
    evaluated = []
    short = shortlist(surface, digit, SHORTLIST)
    spent[0] += len(short)
    for i, p in enumerate(short):
        after = surface.with_tile(digit, p)
        points = score + digit * p[0]
        evaluated.append((-evaluate(after, points, remaining), i, p, after, points))
    evaluated.sort(key=lambda c: (c[0], c[1]))
    out: list[_Candidate] = []
    for _, index, p, after, points in evaluated[:LOOKAHEAD]:
        replies: dict[int, list[Reply]] = {}
        value = _expected_after(after, points, remaining, evaluate, spent, replies)
        out.append(_Candidate(value, index, p, after, points, replies))
    return out


def lookahead(
    surface: Surface,
    digit: int,
    score: int,
    remaining: list[int],
    evaluate: Evaluate = learned_value,
) -> list[Scored]:
    """The best ``LOOKAHEAD`` placements of ``digit`` on a non-empty layout by the
    evaluation, each with its expected value after the next card (``remaining``: the
    counts of each digit still to come after this one, at least one)."""
    return [
        (c.value, c.index, c.placement)
        for c in _lookahead(surface, digit, score, remaining, evaluate, [0])
    ]


def _deeper(
    top: list[_Candidate], remaining: list[int], evaluate: Evaluate, spent: list[int]
) -> list[float]:
    """The expected values of candidates after the next two cards (``remaining``: the
    counts still to come after them, at least two): for each possible next digit, the
    best one-card expectation over its ``DEEP_REPLIES`` best placements by
    ``evaluate``.

    The next digits are taken most likely first (ties: the lower digit), for every
    candidate alike, until the move has scored ``MOVE_BUDGET`` layouts (``spent[0]``);
    a digit not reached keeps its one-card value (its best placement's evaluation), so
    the candidates are compared on the same digits."""
    n = sum(remaining)
    values = [c.value for c in top]
    for next_digit, count, rest in sorted(_draws(remaining), key=lambda d: (-d[1], d[0])):
        if not any(rest):  # the next card is the last: its best evaluation is exact
            continue
        if spent[0] >= MOVE_BUDGET:
            break
        for i, c in enumerate(top):
            ranked = c.replies[next_digit]
            best_reply = max(
                _expected_after(after, c.score + next_digit * p[0], rest, evaluate, spent)
                for _, _, p, after in ranked[:DEEP_REPLIES]
            )
            values[i] += count * (best_reply - ranked[0][0]) / n
    return values


TIE = 9
"""Decimals a candidate's value is compared to: values equal but for the rounding of
their sums (often the case two cards from the end, where the two-card value is the
exact expected score) are a tie, which goes to the earlier candidate."""


def best(scored: list[Scored]) -> Placement:
    """The candidate of highest value (ties: the earlier in the shortlist)."""
    return min(scored, key=lambda c: (-round(c[0], TIE), c[1]))[2]


def choose(
    tiles: list[Tile],
    digit: int,
    score: int,
    remaining: list[int],
    evaluate: Evaluate = learned_value,
) -> Placement:
    """The strong bot's placement of ``digit`` on ``tiles`` (``remaining``: the counts of
    each digit still to come after this one)."""
    surface = Surface.of(tiles)
    if not tiles or not any(remaining):
        short = shortlist(surface, digit, SHORTLIST)
        if not tiles:
            return short[0]  # the first tile: any placement is as good
        return max(short, key=lambda p: digit * p[0])  # the last card: the most points
    spent = [0]
    candidates = _lookahead(surface, digit, score, remaining, evaluate, spent)
    if not 2 <= sum(remaining) <= LATE_CARDS:
        return best([(c.value, c.index, c.placement) for c in candidates])
    top = sorted(candidates, key=lambda c: (-c.value, c.index))[:DEEP_CANDIDATES]
    if len(top) < 2 or top[0].value - top[1].value > DEEP_MARGIN:
        return top[0].placement
    deeper = _deeper(top, remaining, evaluate, spent)
    return best([(v, c.index, c.placement) for v, c in zip(deeper, top, strict=True)])


def choose_by_evaluation(
    tiles: list[Tile],
    digit: int,
    score: int,
    remaining: list[int],
    evaluate: Evaluate = learned_value,
) -> Placement:
    """The medium bot's placement: the shortlisted placement whose layout the
    evaluation values most, without looking ahead (ties: the earlier in the
    shortlist)."""
    surface = Surface.of(tiles)
    short = shortlist(surface, digit, SHORTLIST)
    if not tiles:
        return short[0]
    values = [evaluate(surface.with_tile(digit, p), score + digit * p[0], remaining) for p in short]
    return short[max(range(len(short)), key=lambda i: (values[i], -i))]
