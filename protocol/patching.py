"""RFC 6902 JSON Patch applied with structural sharing.

``apply_patch(doc, ops)`` returns a new document and never mutates ``doc``: only the
containers on the paths the operations touch are copied (each at most once per patch),
everything else is shared with ``doc``.  Views are therefore treated as immutable
values: many simulated clients can hold the same view object, and a patch costs the
size of the paths it touches, not of the view (``jsonpatch.apply_patch(in_place=False)``
deep-copies the whole document).

All six operations are supported; a failing ``test`` or a bad path raises PatchError.
"""

from __future__ import annotations

import copy
from typing import Any


class PatchError(ValueError):
    """The patch does not apply to the document."""


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"bad JSON pointer {path!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


class _Patcher:
    __slots__ = ("fresh", "root")

    def __init__(self, root: Any) -> None:
        self.root = root
        self.fresh: set[int] = set()  # ids of containers copied by this patch

    def _own(self, value: Any) -> Any:
        if id(value) in self.fresh:
            return value
        if isinstance(value, dict):
            value = dict(value)
        elif isinstance(value, list):
            value = list(value)
        else:
            raise PatchError("path goes through a scalar")
        self.fresh.add(id(value))
        return value

    def _parent(self, tokens: list[str]) -> Any:
        """The (copied) container holding the last token."""
        self.root = node = self._own(self.root)
        for token in tokens[:-1]:
            key = _key(node, token)
            try:
                child = self._own(node[key])
            except (KeyError, IndexError):
                raise PatchError(f"path component {token!r} does not exist") from None
            node[key] = child
            node = child
        return node

    def get(self, tokens: list[str]) -> Any:
        node = self.root
        for token in tokens:
            try:
                node = node[_key(node, token)]
            except (KeyError, IndexError, TypeError):
                raise PatchError(f"path component {token!r} does not exist") from None
        return node

    def add(self, tokens: list[str], value: Any) -> None:
        if not tokens:
            self.root = value
            return
        parent = self._parent(tokens)
        last = tokens[-1]
        if isinstance(parent, dict):
            parent[last] = value
        elif last == "-":
            parent.append(value)
        else:
            index = _index(last)
            if index > len(parent):
                raise PatchError(f"index {index} is past the end")
            parent.insert(index, value)

    def remove(self, tokens: list[str]) -> Any:
        if not tokens:
            raise PatchError("cannot remove the whole document")
        parent = self._parent(tokens)
        try:
            return parent.pop(_key(parent, tokens[-1]))
        except (KeyError, IndexError):
            raise PatchError(f"nothing to remove at {tokens[-1]!r}") from None

    def replace(self, tokens: list[str], value: Any) -> None:
        if not tokens:
            self.root = value
            return
        parent = self._parent(tokens)
        key = _key(parent, tokens[-1])
        if isinstance(parent, dict) and key not in parent:
            raise PatchError(f"nothing to replace at {tokens[-1]!r}")
        try:
            parent[key] = value
        except IndexError:
            raise PatchError(f"nothing to replace at {tokens[-1]!r}") from None


def _index(token: str) -> int:
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(f"bad array index {token!r}")
    return int(token)


def _key(node: Any, token: str) -> Any:
    if isinstance(node, list):
        return _index(token)
    if isinstance(node, dict):
        return token
    raise PatchError("path goes through a scalar")


def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """``doc`` with ``ops`` applied (RFC 6902); ``doc`` itself is left untouched."""
    patcher = _Patcher(doc)
    for op in ops:
        kind = op.get("op")
        tokens = _tokens(op["path"])
        if kind == "add":
            patcher.add(tokens, op["value"])
        elif kind == "remove":
            patcher.remove(tokens)
        elif kind == "replace":
            patcher.replace(tokens, op["value"])
        elif kind == "move":
            source = _tokens(op["from"])
            patcher.add(tokens, patcher.remove(source))
        elif kind == "copy":
            patcher.add(tokens, copy.deepcopy(patcher.get(_tokens(op["from"]))))
        elif kind == "test":
            if patcher.get(tokens) != op["value"]:
                raise PatchError(f"test failed at {op['path']!r}")
        else:
            raise PatchError(f"unknown op {kind!r}")
    return patcher.root
