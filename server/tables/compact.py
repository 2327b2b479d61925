"""The compact form of ``legal`` (protocol/README.md "Compact legal"), for the games that
have one.

A game's full legal list can be hundreds of maps that differ in one or two fields (a
9-tower placement: ``x`` and ``y``, per level and rotation).  The compact form sends them
grouped: each group's fields that stay the same (``fixed``) once, the names of the fields
that vary (``fields``), and their values for every action of the group, one after another
in one flat list (``values``).  Expanding every group (``protocol/legal.py``) gives
exactly the plain list's actions, the same set, maybe in another order.  A game missing
from :data:`ENCODERS` answers the compact ask in the plain form (``actions``), which the
protocol allows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablehub.server.games.base import State
from tablehub.server.games.nmbr9.engine import current_card
from tablehub.server.games.nmbr9.rules import legal_groups

Group = dict[str, Any]
"""``{"fixed": {...}, "fields": [name, ...], "values": [v, ...]}``."""


def _nmbr9(state: State, seat: int) -> list[Group]:
    return legal_groups(state["players"][seat]["tiles"], current_card(state))


ENCODERS: dict[str, Callable[[State, int], list[Group]]] = {"nmbr9": _nmbr9}
"""Per game id: the compact legal set of a seat that must act now."""
