"""Bot policies: what a simulated seat plays, chosen by game id.

A policy first tries ``local(view, seat, rng)``: a cheap choice made from the table
view alone (no request).  When that returns None the seat asks the hub for its
``legal`` actions, in the compact form (protocol/README.md "Compact legal"), and the
policy's ``pick`` chooses one from the reply -- ``legal`` costs the hub a rules
computation, so policies use it sparingly.

* ``nmbr9``: the local heuristic always finds a legal level-0 placement: the tile goes
  just right of the layout's rightmost column, shifted vertically so that one of its
  leftmost squares touches a square of that column (same-level contact, nothing under
  it).  A small share of turns (``legal_share``) uses a random legal action instead,
  so stacked layouts appear too.
* ``baseline``: the bare fan-out server's dummy game (any action is fine).
* any other game: a random action from ``legal``.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from tablehub.protocol import legal

Action = dict[str, Any]


class Policy(Protocol):
    def local(self, view: dict[str, Any], seat: int, rng: random.Random) -> Action | None: ...

    def pick(
        self, listed: dict[str, Any], view: dict[str, Any], seat: int, rng: random.Random
    ) -> Action | None: ...


class LegalPolicy:
    """Any game: a uniformly random legal action (None when there is none), drawn from
    the ``legal`` reply without expanding a compact one."""

    def local(self, view: dict[str, Any], seat: int, rng: random.Random) -> Action | None:
        return None

    def pick(
        self, listed: dict[str, Any], view: dict[str, Any], seat: int, rng: random.Random
    ) -> Action | None:
        size = legal.count(listed)
        return legal.pick(listed, rng.randrange(size)) if size else None


class BaselinePolicy(LegalPolicy):
    """The bare fan-out server accepts any action; never asks for ``legal``."""

    def local(self, view: dict[str, Any], seat: int, rng: random.Random) -> Action | None:
        return {"type": "move", "n": rng.randrange(1000)}


class Nmbr9Policy(LegalPolicy):
    """9-tower: the local row heuristic (module docstring) plus some legal picks."""

    def __init__(self, legal_share: float = 0.05) -> None:
        from tablehub.server.games.nmbr9.shapes import ROTATIONS  # pure data: the ten tile shapes

        self.rotations = ROTATIONS
        self.legal_share = legal_share

    def local(self, view: dict[str, Any], seat: int, rng: random.Random) -> Action | None:
        board = view.get("board") or {}
        players = board.get("players") or []
        if seat >= len(players):
            return None
        tiles = players[seat]["tiles"]
        if tiles and rng.random() < self.legal_share:
            return None
        return row_placement(self.rotations[board["card"]], tiles, rng)


def row_placement(
    rotations: tuple[tuple[tuple[int, int], ...], ...],
    tiles: list[dict[str, Any]],
    rng: random.Random,
) -> Action:
    """A level-0 placement right of the layout that touches its rightmost column."""
    rot = rng.randrange(4)
    if not tiles:
        return {"type": "place", "x": 0, "y": 0, "rot": rot}
    ground = [cell for tile in tiles if tile["level"] == 0 for cell in tile["cells"]]
    right = max(x for x, _ in ground)
    column = [y for x, y in ground if x == right]
    left_edge = [dy for dx, dy in rotations[rot] if dx == 0]
    y = rng.choice(column) - rng.choice(left_edge)
    return {"type": "place", "x": right + 1, "y": y, "rot": rot}


def policy_for(game: str, legal_share: float = 0.05) -> Policy:
    if game == "nmbr9":
        return Nmbr9Policy(legal_share)
    if game == "baseline":
        return BaselinePolicy()
    return LegalPolicy()
