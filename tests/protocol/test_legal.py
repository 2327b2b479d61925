"""Reading a ``legal`` reply in any form (protocol/legal.py, README "Compact legal",
"Grid legal", "Layered grid legal"): expanding, counting and picking one action agree, and the load
generator's random pick draws from exactly the listed actions."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tablehub.loadtest.bots import LegalPolicy
from tablehub.protocol.legal import count, expand, expand_grids, listed_actions, pick

COMPACT: dict[str, Any] = {
    "groups": [
        {"fixed": {"type": "place", "rot": 1}, "fields": ["x", "y"], "values": [0, 2, 1, 2]},
        {"fixed": {"type": "place", "rot": 0}, "fields": ["x", "y"], "values": [5, -3]},
        {"fixed": {"type": "take"}, "fields": ["tile"], "values": [7, 9]},
    ],
    "version": 4,
}
GRID: dict[str, Any] = {
    "grids": [
        {
            "fixed": {"type": "place", "rot": 0},
            "fields": ["x", "y"],
            "origin": [-4, -3],
            "width": 18,
            "bits": "40005",  # the README's example: bits 0, 2 and 18
        },
        {
            "fixed": {"type": "place", "rot": 3},
            "fields": ["x", "y"],
            "origin": [7, 100],
            "width": 3,
            "bits": "1" + "0" * 29 + "8",  # bit 3, then bit 120: 40 rows further
        },
    ],
    "version": 4,
}
EACH = [
    {"orange": 0, "face": "xo"},
    {"orange": 0, "face": "ox"},
    {"orange": 1, "face": "xo"},
    {"orange": 1, "face": "ox"},
]
LAYERED: dict[str, Any] = {
    "grids": [
        {  # the README's example ("Layered grid legal"): bits 10 and 112
            "fixed": {"type": "move", "dir": "h"},
            "fields": ["x", "y"],
            "origin": [-3, 0],
            "width": 16,
            "height": 6,
            "layers": {"field": "brick", "values": [2, 4, 6]},
            "each": EACH,
            "bits": "10000000000000000000000000400",
        },
        {  # layers without each: bit 0 of layer 0, bit 5 of layer 1 (x 1, y 1 there)
            "fixed": {"type": "place"},
            "fields": ["x", "y"],
            "origin": [10, 20],
            "width": 4,
            "height": 2,
            "layers": {"field": "rot", "values": [0, 1]},
            "bits": format(1 | 1 << 8 + 5, "x"),
        },
        {  # each without layers: bit 1
            "fixed": {"type": "place", "dir": "v"},
            "fields": ["x", "y"],
            "origin": [0, 0],
            "width": 5,
            "each": EACH[:2],
            "bits": "2",
        },
    ],
    "version": 9,
}
PLAIN: dict[str, Any] = {"actions": [{"type": "move", "n": 1}, {"type": "move", "n": 2}]}


def test_groups_expand_in_order() -> None:
    assert expand(COMPACT["groups"]) == [
        {"type": "place", "rot": 1, "x": 0, "y": 2},
        {"type": "place", "rot": 1, "x": 1, "y": 2},
        {"type": "place", "rot": 0, "x": 5, "y": -3},
        {"type": "take", "tile": 7},
        {"type": "take", "tile": 9},
    ]


def test_grids_expand_bit_by_bit_in_order() -> None:
    assert expand_grids(GRID["grids"]) == [
        {"type": "place", "rot": 0, "x": -4, "y": -3},
        {"type": "place", "rot": 0, "x": -2, "y": -3},
        {"type": "place", "rot": 0, "x": -4, "y": -2},
        {"type": "place", "rot": 3, "x": 7, "y": 101},
        {"type": "place", "rot": 3, "x": 7, "y": 140},
    ]


def test_layered_grids_expand_bit_by_bit_each_entry_in_order() -> None:
    brick = [
        {"type": "move", "dir": "h", **entry, "x": x, "y": y, "brick": b}
        for x, y, b in ((7, 0, 2), (-3, 1, 4))
        for entry in EACH
    ]
    assert expand_grids(LAYERED["grids"]) == [
        *brick,
        {"type": "place", "x": 10, "y": 20, "rot": 0},
        {"type": "place", "x": 11, "y": 21, "rot": 1},
        {"type": "place", "dir": "v", "orange": 0, "face": "xo", "x": 1, "y": 0},
        {"type": "place", "dir": "v", "orange": 0, "face": "ox", "x": 1, "y": 0},
    ]


def test_a_layered_grid_past_its_layers_or_with_an_empty_each_is_refused_in_words() -> None:
    past = {**LAYERED["grids"][1], "bits": format(1 << 16, "x")}  # two layers of 8 bits
    with pytest.raises(ValueError, match="reach past its 2 layers"):
        expand_grids([past])
    empty = {**LAYERED["grids"][2], "each": []}
    with pytest.raises(ValueError, match="non-empty list"):
        expand_grids([empty])
    with pytest.raises(ValueError, match="non-empty list"):
        count({"grids": [empty]})


def test_a_reply_with_grids_is_read_by_its_grids() -> None:
    assert listed_actions(GRID) == expand_grids(GRID["grids"])
    assert listed_actions({"grids": [], "version": 2}) == []


@pytest.mark.parametrize(
    "reply", [COMPACT, GRID, LAYERED, PLAIN, {"groups": []}, {"grids": []}, {"actions": []}]
)
def test_count_and_pick_agree_with_the_listed_actions(reply: dict[str, Any]) -> None:
    listed = listed_actions(reply)
    assert count(reply) == len(listed)
    assert [pick(reply, i) for i in range(len(listed))] == listed
    with pytest.raises(IndexError):
        pick(reply, len(listed))


def test_the_random_policy_picks_a_listed_action() -> None:
    rng = random.Random(1)
    policy = LegalPolicy()
    listed = listed_actions(COMPACT)
    picked = [policy.pick(COMPACT, {}, 0, rng) for _ in range(200)]
    assert all(action in listed for action in picked)
    assert len({str(action) for action in picked}) == len(listed), "every one, in 200 draws"
    assert policy.pick({"groups": [], "version": 1}, {}, 0, rng) is None
