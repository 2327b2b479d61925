"""The yardstick of ``loadtest/bench_termite_bot.py`` (``loadtest/termite_bot_basic.py``, a
frozen copy of the previous termite bot) still plays today's rules to the end against the
server bot, so the bench keeps measuring."""

from __future__ import annotations

from tablehub.loadtest import termite_bot_basic as bot_basic
from tablehub.server.games.termite import GAME, bot


def test_the_previous_bot_stays_playable() -> None:
    state = GAME.setup({"rows_to_end": 5}, 2, 63)
    for _ in range(4000):
        status = GAME.status(state)
        if status["finished"]:
            break
        seat = status["to_act"][0]
        chooser = bot.bot_action if seat == 0 else bot_basic.bot_action
        action = chooser(state, seat)
        assert action in GAME.legal_actions(state, seat), action
        state, _ = GAME.apply(state, seat, action)
    assert GAME.status(state)["finished"]
