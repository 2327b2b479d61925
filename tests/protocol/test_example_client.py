"""clients/examples/minimal_client.py plays a whole game against a real hub, and the
"minimal session" of protocol/README.md is what it really sends and receives.

The README shows the start of the example's transcript with the values that differ
per run (table id, token, session, hashes, views, patch operations) written as
placeholders.  Requests must match exactly and in order; each frame the README shows
arriving must really arrive.  Pushes interleave with replies differently from run to
run (the README says so), so their relative order is not compared.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

from tests.conftest import RunningHub

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "clients" / "examples" / "minimal_client.py"
README = REPO / "protocol" / "README.md"
TABLE = "3f9c0a1b2c"  # the table id the README shows
ELIDED = {"token": "…", "session": "…", "schema": "…", "hash": "…", "view": "{…}", "ops": "[…]"}


def normalise(line: str, table: str) -> str:
    """A transcript line with per-run values replaced by the README's placeholders."""
    arrow, _, frame = line.partition(" ")
    msg = json.loads(frame)
    for key, placeholder in ELIDED.items():
        if key in msg:
            msg[key] = placeholder
    text = json.dumps(msg, separators=(",", ":"), ensure_ascii=False)
    text = text.replace('"{…}"', "{…}").replace('"[…]"', "[…]").replace(table, TABLE)
    return f"{arrow} {text}"


def readme_session() -> list[str]:
    text = README.read_text()
    block = re.search(r"## A minimal session.*?```\n(.*?)```", text, re.S)
    assert block, "protocol/README.md lost its minimal session"
    return [line for line in block.group(1).splitlines() if line[:1] in "→←"]


async def test_the_example_client_plays_a_game_and_matches_the_readme(
    hub: RunningHub, tmp_path: Path
) -> None:
    assert len(EXAMPLE.read_text().splitlines()) < 150, "the example stays minimal"
    transcript = tmp_path / "transcript.txt"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLE),
        hub.url,
        "--transcript",
        str(transcript),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    assert "all matching" in out.decode()

    lines = transcript.read_text().splitlines()
    table = json.loads(lines[3].partition(" ")[2])["table"]  # the create_table reply
    real = [normalise(line, table) for line in lines]
    shown = readme_session()
    sent_shown = [line for line in shown if line.startswith("→")]
    sent_real = [line for line in real if line.startswith("→")]
    assert sent_shown == sent_real[: len(sent_shown)]
    for line in shown:
        if line.startswith("←"):
            assert line in real, f"the README shows a frame that never arrives: {line}"
    for number, line in enumerate(shown):  # each reply after its request
        msg = json.loads(line.partition(" ")[2].replace("{…}", "{}").replace("[…]", "[]"))
        if msg["t"] in ("ok", "error"):
            request = next(i for i, s in enumerate(shown) if f'"id":{msg["id"]},' in s)
            assert request < number
