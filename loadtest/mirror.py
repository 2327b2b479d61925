"""Table mirrors and the per-process verifier of snapshots and patches.

Every simulated client keeps a :class:`Mirror` per table it watches and applies every
``snapshot`` and ``patch`` it receives, checking the protocol hash (the first 16 hex
digits of SHA-256 over the view's canonical JSON) of the view it ends up with.

Applying and hashing are pure functions of (the client's current view, the frame's
bytes), so the :class:`Verifier` memoises them per worker process: when five clients of
one table receive the same patch bytes on top of the same view, the view is patched
and hashed once and the five mirrors share the result.  The check stays per client --
each client only gets a memoised result for *its own* base view (keyed by that view's
computed hash) and *its own* frame -- it is just not recomputed.  A mismatch found
once is reported for every client that hits it.  ``Verifier(memo=False)`` turns the
sharing off (every client patches and hashes on its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablehub.protocol.patching import PatchError, apply_patch
from tablehub.protocol.viewhash import view_hash

MEMO_LIMIT = 4096
MISMATCH_SAMPLES = 3


@dataclass(slots=True)
class Mirror:
    """One client's copy of one table's view (views are shared, never mutated).

    Before its first snapshot a mirror holds version -1 and the empty view ``{}``, as
    the reference client does: a hub may send a patch ``from: -1`` (adding the whole
    view to nothing) to a subscriber that has no snapshot yet.
    """

    version: int = -1
    view: dict[str, Any] = field(default_factory=dict)
    hash: str = ""
    patches: int = 0
    snapshots: int = 0
    mismatches: int = 0
    gaps: int = 0


class Verifier:
    def __init__(self, memo: bool = True, limit: int = MEMO_LIMIT) -> None:
        self.memo = memo
        self.limit = limit
        self._results: dict[tuple[str, bytes | str], tuple[Any, str]] = {}
        self.computed = 0
        self.reused = 0
        self.mismatch_samples: list[dict[str, Any]] = []

    def _compute(self, base: Any, frame: bytes | str, msg: dict[str, Any]) -> tuple[Any, str]:
        self.computed += 1
        if msg["t"] == "snapshot":
            view = msg["view"]
        else:
            try:
                view = apply_patch(base, msg["ops"])
            except (PatchError, KeyError, TypeError):
                return base, "unappliable"
        return view, view_hash(view)

    def result(
        self, base_hash: str, base: Any, frame: bytes | str, msg: dict[str, Any]
    ) -> tuple[Any, str]:
        """(new view, its computed hash) for ``msg`` (snapshot or patch) on ``base``."""
        if not self.memo:
            return self._compute(base, frame, msg)
        key = (base_hash, frame)
        found = self._results.get(key)
        if found is not None:
            self.reused += 1
            return found
        found = self._compute(base, frame, msg)
        if len(self._results) >= self.limit:
            del self._results[next(iter(self._results))]
        self._results[key] = found
        return found

    def _sample(self, mirror: Mirror, view: Any, computed: str, msg: dict[str, Any]) -> None:
        """Keep the first few mismatches whole, for the report (diagnosis)."""
        if len(self.mismatch_samples) >= MISMATCH_SAMPLES:
            return
        self.mismatch_samples.append(
            {
                "kind": msg["t"],
                "table": msg.get("table"),
                "from": msg.get("from"),
                "to": msg.get("to", msg.get("version")),
                "expected": msg["hash"],
                "computed": computed,
                "recomputed_plainly": view_hash(view),
                "base_hash": mirror.hash,
                "base_recomputed": view_hash(mirror.view),
                "ops": msg.get("ops"),
                "base_view": mirror.view,
            }
        )

    def snapshot(self, mirror: Mirror, frame: bytes | str, msg: dict[str, Any]) -> bool:
        """Take a snapshot; False (and a counted mismatch) when its hash is wrong."""
        view, computed = self.result("", None, frame, msg)
        mirror.snapshots += 1
        if computed != msg["hash"]:
            mirror.mismatches += 1
            self._sample(mirror, view, computed, msg)
        mirror.view, mirror.version, mirror.hash = view, msg["version"], computed
        return bool(computed == msg["hash"])

    def patch(self, mirror: Mirror, frame: bytes | str, msg: dict[str, Any]) -> str:
        """Apply a patch: "ok", "stale" (already covered), "gap" or "mismatch".

        On "gap" and "mismatch" the mirror is left as it was; the caller resyncs.
        """
        if msg["from"] != mirror.version:
            if msg["to"] <= mirror.version:
                return "stale"
            mirror.gaps += 1
            return "gap"
        view, computed = self.result(mirror.hash, mirror.view, frame, msg)
        if computed != msg["hash"]:
            mirror.mismatches += 1
            self._sample(mirror, view, computed, msg)
            return "mismatch"
        mirror.patches += 1
        mirror.view, mirror.version, mirror.hash = view, msg["to"], computed
        return "ok"
