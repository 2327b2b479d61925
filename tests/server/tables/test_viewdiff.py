"""The hub's RFC 6902 diff, checked with an independent JSON Patch library."""

from __future__ import annotations

from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehub.protocol.viewhash import canonical_json, view_hash
from tablehub.server.tables.viewdiff import diff, diff_shared

# No bools: a bool<->int swap is the documented blind spot (see the last test).
leaves = st.none() | st.integers(-5, 5) | st.sampled_from(["a", "b", "~", "/"])
trees = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["x", "y", "a/b", "m~n", ""]), children, max_size=4)
    ),
    max_leaves=25,
)


@given(old=trees, new=trees)
@settings(max_examples=500, deadline=None)
def test_applying_the_diff_gives_the_new_value(old: Any, new: Any) -> None:
    patched = jsonpatch.apply_patch({"v": old}, diff({"v": old}, {"v": new}))
    assert patched == {"v": new}
    assert [type(x) for x in _leaves(patched)] == [type(x) for x in _leaves({"v": new})]


@given(old=trees, new=trees)
@settings(max_examples=300, deadline=None)
def test_the_shared_view_equals_the_new_one_and_hashes_the_same(old: Any, new: Any) -> None:
    before = {"v": old}
    ops, shared = diff_shared(before, {"v": new})
    assert shared == {"v": new}
    assert canonical_json(shared) == canonical_json({"v": new})
    assert ops == diff({"v": old}, {"v": new})


def test_the_shared_view_keeps_unchanged_subtrees_of_the_old_one() -> None:
    old: dict[str, Any] = {"players": [{"tiles": list(range(50))} for _ in range(3)], "round": 3}
    new: dict[str, Any] = {"players": [{"tiles": list(range(50))} for _ in range(3)], "round": 4}
    new["players"][1] = {"tiles": [*range(50), 7]}
    _, shared = diff_shared(old, new)
    assert shared == new
    assert shared["players"][0] is old["players"][0]
    assert shared["players"][2] is old["players"][2]
    assert shared["players"][1] is not old["players"][1]


def test_unchanged_subtrees_produce_no_ops() -> None:
    old = {"players": [{"tiles": list(range(50))} for _ in range(100)], "round": 3}
    new = {**old, "round": 4}
    assert diff(old, new) == [{"op": "replace", "path": "/round", "value": 4}]


def test_a_bool_int_swap_is_caught_by_the_view_hash() -> None:
    """Python's ``1 == True`` lets the differ miss a bool<->int swap inside an equal
    container; the patch's hash then differs and the client resyncs.  Engines must not
    swap types at one path (the conformance harness checks hashes of patched views)."""
    old, new = {"a": [1]}, {"a": [True]}
    patched = jsonpatch.apply_patch(old, diff(old, new))
    assert view_hash(patched) != view_hash(new)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]
