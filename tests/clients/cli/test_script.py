"""``tablehub play --script`` and ``tablehub watch`` as subprocesses against a real hub."""

from __future__ import annotations

from pathlib import Path

from tablehub.clients.cli.tokens import TokenStore
from tests.clients.cli import CliProc, ScriptProc, run_cli
from tests.conftest import RunningHub


async def test_two_script_players_play_nmbr9_to_the_end_and_a_watcher_sees_the_result(
    hub: RunningHub, tmp_path: Path
) -> None:
    alice = await ScriptProc.start(
        tmp_path / "a.json",
        *("play", "--script", "--auto", "--url", hub.url, "--name", "alice"),
        *("--seats", "2", "--option", "seed=11"),
    )
    created = await alice.expect("created")
    table = created["table"]
    assert created["join"] == f"tablehub play --name NAME --table {table} --url {hub.url}"
    assert (await alice.expect("joined"))["seat"] == 0

    watcher = await CliProc.start(tmp_path / "w.json", "watch", table, "--url", hub.url)
    bob = await ScriptProc.start(
        tmp_path / "b.json",
        *("play", "--script", "--url", hub.url, "--name", "bob", "--table", table),
    )
    joined = await bob.expect("joined")
    assert joined == {
        "event": "joined",
        "table": table,
        "seat": 1,
        "resumed": False,
        "why": "the first free seat (no seat was saved for bob at this table)",
    }

    turns = refusals = unreadable = 0
    while (event := await bob.expect("your_turn", "finished"))["event"] == "your_turn":
        assert event["legal"], "9-tower always offers a placement"
        turns += 1
        if turns == 2 and not refusals:
            # far from the first tile: breaks "same-level contact" (docs/games/nmbr9.md rule 2)
            bob.send({"type": "place", "x": 500, "y": 500, "rot": 0})
            error = await bob.expect("error")
            assert error["code"] == "illegal_action"
            assert error["message"], "the server's reason is passed on"
            assert error["action"] == {"type": "place", "x": 500, "y": 500, "rot": 0}
            refusals += 1
            continue
        if turns == 3:
            first = event["legal"][0]
            bob.send(f"{first['x']} {first['y']} {first['rot']}")  # the renderer's syntax
            acted = await bob.expect("acted")
            assert acted["action"] == first
            continue
        if turns == 4 and not unreadable:
            bob.send("not a move")
            assert (await bob.expect("error"))["code"] == "unreadable"
            unreadable += 1
            continue
        bob.send({"pick": 0})
    finished = event
    assert finished["result"]["reason"] == "all 20 cards were played"
    assert refusals == unreadable == 1
    assert await bob.finish() == 0
    assert await alice.finish() == 0
    alice_finished = [e for e in alice.events if e["event"] == "finished"]
    assert alice_finished and alice_finished[0]["result"] == finished["result"]
    assert alice.events[-1]["event"] == "finished", "finished is the last line"

    # views reached the script once each, in order, up to the final version (commits
    # landing together arrive as one patch, so versions may be skipped, never repeated)
    versions = [e["version"] for e in bob.events if e["event"] == "view"]
    assert versions == sorted(set(versions)) and versions[-1] == finished["version"]
    assert len([e for e in bob.events if e["event"] == "acted"]) == 20

    assert await watcher.wait() == 0
    screens = watcher.text
    assert "GAME OVER — winner" in screens
    scores = finished["result"]["scores"]
    assert f"alice {scores[0]}" in screens and f"bob {scores[1]}" in screens
    assert f"Game over at table {table}." in screens
    # the finished game's tokens are no longer kept
    assert TokenStore(tmp_path / "b.json").get(hub.url, table, "bob") is None


async def test_a_killed_player_takes_the_seat_back_with_the_saved_token(
    hub: RunningHub, tmp_path: Path
) -> None:
    alice = await ScriptProc.start(
        tmp_path / "a.json",
        *("play", "--script", "--auto", "--url", hub.url, "--name", "alice", "--seats", "2"),
    )
    table = (await alice.expect("created"))["table"]
    bob_tokens = tmp_path / "bob" / "tokens.json"
    bob = await ScriptProc.start(
        bob_tokens, "play", "--script", "--url", hub.url, "--name", "bob", "--table", table
    )
    assert (await bob.expect("joined"))["seat"] == 1
    saved = TokenStore(bob_tokens).get(hub.url, table, "bob")
    assert saved is not None and saved.seat == 1 and saved.name == "bob"
    assert bob_tokens.stat().st_mode & 0o777 == 0o600
    for _ in range(3):
        await bob.expect("your_turn")
        bob.send("0")
        await bob.expect("acted")
    await bob.expect("your_turn")
    await bob.kill()

    # alice sees bob go away
    while True:
        presence = await alice.expect("presence")
        if not presence["seats"][1]["connected"]:
            break

    # nobody else can take the seat
    code, _, err = await run_cli(
        tmp_path / "c.json", "play", "--script", "--url", hub.url, "--table", table
    )
    assert code == 4 and f"table {table} is full" in err

    again = await ScriptProc.start(
        bob_tokens,
        *("play", "--script", "--auto", "--url", hub.url, "--name", "bob", "--table", table),
    )
    joined = await again.expect("joined")
    assert joined == {
        "event": "joined",
        "table": table,
        "seat": 1,
        "resumed": True,
        "why": "the seat saved for bob on this machine, taken back",
    }
    view = await again.expect("view")
    assert view["view"]["board"]["players"][1]["tiles"], "the seat's layout is still there"
    finished = await again.expect("finished")
    assert len(finished["result"]["scores"]) == 2
    assert await again.finish() == 0
    assert await alice.finish() == 0
    assert TokenStore(bob_tokens).get(hub.url, table, "bob") is None


async def test_watch_json_of_a_finished_table_prints_the_result_and_exits(
    hub: RunningHub, tmp_path: Path
) -> None:
    code, out, _ = await run_cli(
        tmp_path / "a.json",
        *("play", "--auto", "--url", hub.url, "--seats", "2", "--bots", "1"),
    )
    assert code == 0
    table = next(
        line.split('"table":"')[1].split('"')[0] for line in out.splitlines() if "created" in line
    )
    code, out, _ = await run_cli(tmp_path / "w.json", "watch", table, "--url", hub.url, "--json")
    assert code == 0
    lines = out.splitlines()
    assert '"event":"finished"' in lines[-1]
    assert '"status":"finished"' in out and '"view":{' in out
    code, out, _ = await run_cli(
        tmp_path / "w.json", "watch", table, "--url", hub.url, "--json", "--brief"
    )
    assert code == 0
    assert '"status":"finished"' in out and '"view":{' not in out


async def test_unreachable_server_and_unknown_table_exit_with_clear_messages(
    hub: RunningHub, tmp_path: Path
) -> None:
    from tablehub.loadtest.topology import free_port

    dead = f"ws://127.0.0.1:{free_port()}/ws"
    tokens = tmp_path / "t.json"
    code, _, err = await run_cli(tokens, "play", "--script", "--auto", "--url", dead)
    assert code == 3 and f"cannot reach the tablehub server at {dead}" in err
    code, _, err = await run_cli(tokens, "watch", "abc", "--url", dead)
    assert code == 3 and "cannot reach" in err

    code, _, err = await run_cli(tokens, "play", "--url", hub.url, "--table", "nosuchtable")
    assert code == 4 and f"there is no table nosuchtable on {hub.url}" in err
    code, _, err = await run_cli(tokens, "watch", "nosuchtable", "--url", hub.url)
    assert code == 4 and "there is no table nosuchtable" in err

    code, _, err = await run_cli(tokens, "play", "--url", hub.url, "--game", "chess")
    assert code == 2 and "chess" in err
    code, _, err = await run_cli(tokens, "play", "--url", hub.url, "--seats", "2", "--bots", "2")
    assert code == 2 and "--bots" in err
    assert "Traceback" not in err
