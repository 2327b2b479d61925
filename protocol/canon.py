"""The protocol's view hash, computed incrementally over shared sub-trees.

``protocol.viewhash.view_hash`` serialises the whole view to canonical JSON (sorted
keys, no spaces) on every call.  Views mirrored by the load generator are immutable
and share every sub-tree a patch did not touch (``loadtest.patching``), so this
hasher remembers the canonical JSON of each container it has serialised, by object
identity, and rebuilds only the containers on the changed paths.  The result is
byte-for-byte the same canonical JSON, hence the same hash (the tests check it
against ``view_hash``).

Entries hold a reference to their object, so an id is never reused while cached; the
cache forgets its oldest half when it holds more than ``budget`` characters.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

_encode_string = json.encoder.encode_basestring  # C, keeps non-ASCII as is

MIN_CACHED = 48
"""Containers whose canonical text is shorter are not remembered."""

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


_dumps = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def _flat(values: Any) -> bool:
    """No container among ``values``: the C encoder does the whole container faster."""
    return not any(type(item) is dict or type(item) is list for item in values)


class IncrementalHasher:
    def __init__(self, budget: int = 64 * 2**20) -> None:
        self.budget = budget
        self.held = 0
        self._cache: dict[int, tuple[Any, str]] = {}

    def canonical(self, value: Any) -> str:
        """Canonical JSON text of ``value`` (as ``json.dumps(sort_keys=True, ...)``)."""
        if isinstance(value, dict):
            found = self._cache.get(id(value))
            if found is not None and found[0] is value:
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
                return found[1]
            if _flat(value):
                text = _dumps(value)
            else:
                canon = self.canonical
                text = "[" + ",".join([canon(item) for item in value]) + "]"
            self._remember(value, text)
            return text
        return _scalar(value)

    def forget(self) -> None:
        """Drop every remembered text."""
        self._cache.clear()
        self.held = 0

    def _remember(self, value: Any, text: str) -> None:
        if len(text) < MIN_CACHED:
            return  # cheaper to rebuild than to keep (e.g. a cell's [x, y])
        cache = self._cache
        if self.held + len(text) > self.budget:
            for key in list(cache)[: len(cache) // 2 + 1]:
                self.held -= len(cache.pop(key)[1])
        cache[id(value)] = (value, text)
        self.held += len(text)

    def view_hash(self, view: Any) -> str:
        """First 16 hex digits of SHA-256 over the canonical JSON (protocol v1)."""
        return hashlib.sha256(self.canonical(view).encode()).hexdigest()[:16]
