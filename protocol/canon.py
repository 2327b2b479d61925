"""The protocol's view hash, computed incrementally over shared sub-trees.

``protocol.viewhash.view_hash`` serialises the whole view to canonical JSON (sorted
keys, no spaces) on every call.  When a new view shares every sub-tree that did not
change with the previous one (as objects), the canonical JSON of those sub-trees can
be reused and only the containers on the changed paths rebuilt.  The result is
byte-for-byte the same canonical JSON, hence the same hash (the tests check it
against ``view_hash``).  Two forms:

* :func:`canon_tree` -- the hub's: a tree of texts mirroring one audience's view,
  kept beside it and rebuilt from the previous tree at each version (the feed's views
  share sub-trees through ``viewdiff.diff_shared``).  No global state, nothing to evict.
* :class:`IncrementalHasher` -- the load generator's: one memo by object identity
  shared by every mirror of a worker (mirrors of one table hold the same immutable
  views, patched with structural sharing by ``tablehub.protocol.patching``).  Entries
  hold a reference to their object, so an id is never reused while cached.  What is
  worth remembering is a sub-tree that stays while its surroundings change (a player's
  tiles while the round moves on): containers whose text is short (cheaper to rebuild)
  or long (the root and the lists along the changed paths, new at every version) are
  not remembered, and the memo forgets its least recently used entries past ``budget``
  characters, so stale versions go first.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

_encode_string = json.encoder.encode_basestring  # C, keeps non-ASCII as is

MIN_CACHED = 48
"""Containers whose canonical text is shorter are not remembered."""
MAX_CACHED = 16384
"""... nor those whose text is longer (the default; see the module docstring)."""

_KEYS: dict[str, str] = {}


def _key(key: str) -> str:
    text = _KEYS.get(key)
    if text is None:
        text = _KEYS[key] = _encode_string(key) + ":"
    return text


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, str):
        return _encode_string(value)
    return json.dumps(value, ensure_ascii=False)


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


def _make_dumps() -> Callable[[Any], str]:
    """Canonical JSON of a container without containers inside.  CPython's C encoder,
    made once (``json.dumps`` with these arguments makes a new one at every call)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without the C accelerator
        encoder = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return encoder.encode
    encode = make(None, _refuse, _encode_string, None, ":", ",", True, False, True)
    return lambda value: "".join(encode(value, 0))


_dumps = _make_dumps()


def _flat(values: Any) -> bool:
    """No container among ``values``: the C encoder does the whole container faster."""
    return not any(type(item) is dict or type(item) is list for item in values)


class IncrementalHasher:
    def __init__(self, budget: int = 64 * 2**20, max_cached: int = MAX_CACHED) -> None:
        self.budget = budget
        self.max_cached = max_cached
        self.held = 0
        self._cache: OrderedDict[int, tuple[Any, str]] = OrderedDict()

    def canonical(self, value: Any) -> str:
        """Canonical JSON text of ``value`` (as ``json.dumps(sort_keys=True, ...)``)."""
        if isinstance(value, dict):
            found = self._cache.get(id(value))
            if found is not None and found[0] is value:
                self._cache.move_to_end(id(value))
                return found[1]
            if _flat(value.values()):
                text = _dumps(value)
            else:
                canon = self.canonical
                text = "{" + ",".join([_key(k) + canon(value[k]) for k in sorted(value)]) + "}"
            self._remember(value, text)
            return text
        if isinstance(value, list):
            found = self._cache.get(id(value))
            if found is not None and found[0] is value:
                self._cache.move_to_end(id(value))
                return found[1]
            if _flat(value):
                text = _dumps(value)
            else:
                canon = self.canonical
                text = "[" + ",".join([canon(item) for item in value]) + "]"
            self._remember(value, text)
            return text
        return _scalar(value)

    def _remember(self, value: Any, text: str) -> None:
        if not MIN_CACHED <= len(text) <= self.max_cached:
            return  # a cell's [x, y] is cheaper to rebuild; a changing root is not reused
        cache = self._cache
        while cache and self.held + len(text) > self.budget:
            self.held -= len(cache.popitem(last=False)[1][1])
        cache[id(value)] = (value, text)
        self.held += len(text)

    def view_hash(self, view: Any) -> str:
        """First 16 hex digits of SHA-256 over the canonical JSON (protocol v1)."""
        return hashlib.sha256(self.canonical(view).encode()).hexdigest()[:16]


class CanonNode:
    """Canonical JSON of one container, with the nodes of its container children: a
    tree mirroring a view.  :func:`canon_tree` rebuilds only the nodes whose container
    is not the one the previous tree was built from, so a view that shares unchanged
    sub-trees with the previous one costs the size of the change.  Held per audience
    (no global cache to evict): memory is one view's texts per nesting level."""

    __slots__ = ("children", "text", "value")

    def __init__(self, value: Any, text: str, children: dict[Any, CanonNode] | None) -> None:
        self.value = value
        self.text = text
        self.children = children


def canon_tree(value: Any, old: CanonNode | None = None) -> CanonNode:
    """The canonical-JSON tree of the container ``value``, reusing ``old``'s nodes for
    every sub-tree that *is* (identity) the one they were built from."""
    if old is not None and old.value is value:
        return old
    previous = old.children if old is not None and old.children is not None else {}
    if isinstance(value, dict):
        if _flat(value.values()):
            return CanonNode(value, _dumps(value), None)
        children: dict[Any, CanonNode] = {}
        parts = []
        for key in sorted(value):
            item = value[key]
            if type(item) is dict or type(item) is list:
                node = children[key] = canon_tree(item, previous.get(key))
                parts.append(_key(key) + node.text)
            else:
                parts.append(_key(key) + _scalar(item))
        return CanonNode(value, "{" + ",".join(parts) + "}", children)
    if isinstance(value, list):
        if _flat(value):
            return CanonNode(value, _dumps(value), None)
        children = {}
        parts = []
        for index, item in enumerate(value):
            if type(item) is dict or type(item) is list:
                node = children[index] = canon_tree(item, previous.get(index))
                parts.append(node.text)
            else:
                parts.append(_scalar(item))
        return CanonNode(value, "[" + ",".join(parts) + "]", children)
    raise TypeError("canon_tree takes a map or a list")
