"""``tablehub play`` at termite: a day turn is a few decisions asked from the server
(staged ``legal``), never a list of thousands of moves."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli import run_cli
from tests.conftest import RunningHub

DECISION = re.compile(r"choose one of (\d+)")


async def test_a_termite_day_turn_is_played_through_staged_choices(
    hub: RunningHub, tmp_path: Path
) -> None:
    # 1 = place a die, then the first die, its first slot, and (if asked) no helper.
    moves = b"1\n" * 4 + b"quit\n"
    code, out, err = await run_cli(
        tmp_path / "t.json",
        *("play", "--url", hub.url, "--name", "pat", "--game", "termite"),
        *("--seats", "2", "--bots", "1", "--option", "seed=4"),
        stdin=moves,
    )
    assert code == 0, err
    assert "✓ you played: place die 0 on " in out, out[-3000:]
    assert "legal moves" not in out, "the full list is never offered"
    sizes = [int(n) for n in DECISION.findall(out)]
    assert sizes and max(sizes) <= 60, sizes
    assert "die 0: worker showing" in out, "dice are offered in words"
    assert "Traceback" not in out + err
