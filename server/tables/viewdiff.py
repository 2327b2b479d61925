"""RFC 6902 diffs of views (the view hash is the protocol's: protocol/viewhash.py).

``diff`` produces RFC 6902 operations turning ``old`` into ``new``.  It walks both
trees and stops at equal sub-trees (a C-level ``==``), so its cost follows the size
of the change, not of the view.  ``diff_shared`` also returns the new view rebuilt to
share every unchanged sub-tree *object* with ``old``: the feed keeps that one, so an
audience's successive views share their unchanged parts in memory.

Lists that only grew or shrank at the end get ``add``/``remove`` at the end; other
list changes recurse per index.  It only emits ``add``, ``remove`` and ``replace``,
which every JSON Patch library applies.

Equality is Python's, so a value that switches between ``1`` and ``true`` at one path
inside an otherwise equal container is not seen as a change: ``diff`` emits nothing
for it and ``diff_shared`` keeps the old value, so what the feed hashes and sends stays
what clients hold.  Engines must keep one type per path (the conformance tests check
patched hashes against fresh views).
"""

from __future__ import annotations

from typing import Any

Op = dict[str, Any]


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def diff(old: Any, new: Any) -> list[Op]:
    """RFC 6902 operations that turn ``old`` into ``new``."""
    return diff_shared(old, new)[0]


def diff_shared(old: Any, new: Any) -> tuple[list[Op], Any]:
    """The operations turning ``old`` into ``new``, and a value equal to ``new`` in
    which every sub-tree equal to the one at the same path of ``old`` *is* ``old``'s."""
    ops: list[Op] = []
    shared = _diff(old, new, "", ops)
    return ops, shared


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> Any:
    if old == new and type(old) is type(new):
        return old
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        merged = {}
        for key, value in new.items():
            sub = f"{path}/{_escape(key)}"
            if key in old:
                merged[key] = _diff(old[key], value, sub, ops)
            else:
                ops.append({"op": "add", "path": sub, "value": value})
                merged[key] = value
        return merged
    if isinstance(old, list) and isinstance(new, list):
        common = min(len(old), len(new))
        items = [_diff(old[i], new[i], f"{path}/{i}", ops) for i in range(common)]
        # Shrink from the end so earlier indices stay valid; grow by appending.
        for i in range(len(old) - 1, common - 1, -1):
            ops.append({"op": "remove", "path": f"{path}/{i}"})
        for i in range(common, len(new)):
            ops.append({"op": "add", "path": f"{path}/-", "value": new[i]})
            items.append(new[i])
        return items
    ops.append({"op": "replace", "path": path, "value": new})
    return new
