"""``tablehub replay --verify FILE``: the command a third party runs on a downloaded
record -- a genuine one checks out, one with an altered action fails at its version."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tablehub.server.tables.gamerecord import build
from tests.server.tables.test_gamerecord import play


def _tablehub(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tablehub.server.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_verify_says_a_genuine_record_checks_out_and_a_tampered_one_fails(tmp_path: Path) -> None:
    played = play("completto", 3, seed=9)
    doc = build(played.record, played.log)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc, indent=1))
    result = _tablehub("replay", "--verify", str(good))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "The record is genuine." in result.stdout
    assert f"Checked {played.record.version} versions" in result.stdout

    acts = [e for e in doc["entries"] if e["kind"] == "act"]
    target = acts[5]
    target["action"] = {"type": "resign"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc, indent=1))
    result = _tablehub("replay", "--verify", str(bad))
    assert result.returncode == 1
    assert f"FAILED at version {target['version']}" in result.stdout
    assert "{" not in result.stdout and "None" not in result.stdout


def test_verify_refuses_a_file_that_is_no_record(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text('{"hello": 1}')
    result = _tablehub("replay", "--verify", str(junk))
    assert result.returncode == 2
    assert "not a tablehub game record" in result.stdout
