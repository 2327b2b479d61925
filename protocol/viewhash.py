"""The view hash of protocol v1 (part of the wire contract).

``view_hash`` is the first 16 hex digits of SHA-256 over the view's canonical JSON
(RFC 8785).  Views hold only maps with string keys, lists, strings, ints, bools and
null; for those values RFC 8785 is exactly ``json.dumps(sort_keys=True,
separators=(",", ":"), ensure_ascii=False)`` (keys are ASCII, so UTF-16 and code-point
key order agree), and the C encoder is far faster than a pure-Python canonicaliser.
The equivalence is checked against the ``rfc8785`` package in the tests.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def view_hash(view: Any) -> str:
    return hashlib.sha256(canonical_json(view)).hexdigest()[:16]
