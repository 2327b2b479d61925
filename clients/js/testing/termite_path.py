"""Test support for the browser tests: a solo Termite Towers game that meets given choices.

Plays the engine offline (it is a pure function of seed and actions, so a hub table made
with the same seed follows the same path) with the server bot, except that whenever an
action leads straight to one of the wanted pending choices not met yet, that action is
taken.  Prints JSON: ``{"seed", "actions": [...], "met": {kind: index}}`` where
``actions[index]`` is the planned answer to the first pending choice of that kind (the
browser test plays the actions before it through the client library and answers that one
through the page).

Usage: python termite_path.py SEED KIND [KIND ...]   (kinds: view.board.pending.kind)
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tablehub.server.games.base import Action, State
from tablehub.server.games.termite import GAME

STEP_LIMIT = 400


def pending_kind(state: State) -> str | None:
    """The kind of choice waiting for the (solo) player, as ``view.board.pending.kind``."""
    if state["phase"] == "day":
        return "bumped" if state["day"]["bumped"] is not None else None
    task = state["night"]["pending"] if state["phase"] == "night" else None
    return None if task is None else str(task["t"])


def plan(seed: int, wanted: list[str]) -> dict[str, Any]:
    options = {name: option.default for name, option in GAME.options.items()}
    state = GAME.setup(options, 1, seed)
    actions: list[Action] = []
    met: dict[str, int] = {}
    while len(met) < len(wanted) or max(met.values()) >= len(actions):
        if GAME.status(state)["finished"] or len(actions) >= STEP_LIMIT:
            raise SystemExit(f"seed {seed}: met only {sorted(met)} of {wanted}")
        kind = pending_kind(state)
        legal = [a for a in GAME.legal_actions(state, 0) if a["type"] != "resign"]
        if kind in wanted and kind not in met:
            met[kind] = len(actions)
            # the answer the page is tested with does something (the bot may pass)
            state, _ = GAME.apply(state, 0, next(a for a in legal if a["type"] != "pass"))
            actions.append(next(a for a in legal if a["type"] != "pass"))
            continue
        action = next(
            (
                a
                for a in legal
                if pending_kind(GAME.apply(state, 0, a)[0]) in set(wanted) - set(met)
            ),
            None,
        ) or GAME.bot_action(state, 0)
        state, _ = GAME.apply(state, 0, action)
        actions.append(action)
    return {"seed": seed, "actions": actions, "met": met}


if __name__ == "__main__":
    print(json.dumps(plan(int(sys.argv[1]), sys.argv[2:])))
